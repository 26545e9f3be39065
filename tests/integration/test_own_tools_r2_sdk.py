"""A developer's own tools over a real engine with the official openai SDK, as a second user tried them:
Chat Completions for the arguments and the questions (a doctor's title, a stay's nights, enum synonyms,
every item of a list, a party size asked for as a model asks), the Realtime WebSocket for a greeting rule
in the session's instructions and an enum option said by a synonym."""

from __future__ import annotations

import json

from openai import AsyncOpenAI

from tests.own_tools import DATE, INTEGER, STRING, Chat, chat_client, chat_tool, response_done, said, turn

APPOINTMENT = chat_tool(
    "book_appointment", "Book an appointment with a doctor", {"doctor": STRING, "date": DATE, "time": STRING}
)
HOTEL = chat_tool("book_hotel", "Book a hotel stay", {"hotel": STRING, "check_in": DATE, "nights": INTEGER})
RESTAURANTS = chat_tool(
    "find_restaurant",
    "Find a restaurant",
    {
        "cuisine": STRING,
        "price": {"type": "string", "enum": ["$", "$$", "$$$"]},
        "seating": {"type": "string", "enum": ["indoor", "outdoor"]},
    },
)
ORDER = chat_tool("place_order", "Order food for delivery", {"items": {"type": "array", "items": STRING}})
TABLE = chat_tool("book_table", "Book a table at the restaurant", {"party_size": INTEGER, "time": STRING})


async def test_a_developers_own_tools_over_chat_completions(engine) -> None:
    client = chat_client(await engine())

    calls, _ = await Chat(client, [APPOINTMENT]).say("Book me with Dr. Lee on 2026-12-20 at 3pm")
    assert calls == [("book_appointment", {"doctor": "Dr. Lee", "date": "2026-12-20", "time": "15:00"})]

    calls, _ = await Chat(client, [HOTEL]).say("3 nights at the Hilton from 2026-12-18")
    assert calls == [("book_hotel", {"hotel": "Hilton", "check_in": "2026-12-18", "nights": 3})]

    calls, _ = await Chat(client, [RESTAURANTS]).say(
        "Find me something cheap, Italian, and we want to sit outside"
    )
    assert calls == [("find_restaurant", {"cuisine": "Italian", "price": "$", "seating": "outdoor"})]

    order = Chat(client, [ORDER])
    assert await order.say("I'd like to order food") == ([], "What items would you like?")
    assert (await order.say("pasta and a salad"))[0] == [("place_order", {"items": ["pasta", "salad"]})]

    table = Chat(client, [TABLE])
    assert await table.say("book a table at 8pm") == ([], "How many people will be in your party?")
    assert (await table.say("four"))[0] == [("book_table", {"party_size": 4, "time": "20:00"})]


async def test_a_greeting_rule_and_an_enum_synonym_over_realtime(engine) -> None:
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    seating = {"type": "function", **RESTAURANTS["function"]}
    async with client.realtime.connect(model="gpt-realtime") as conn:
        instructions = "You are Sakura's host. Always greet the user with 'Welcome to Sakura!' Keep it short."
        session = {"type": "realtime", "output_modalities": ["text"], "instructions": instructions}
        await conn.session.update(session={**session, "tools": [seating]})
        await conn.response.create()
        assert said(await response_done(conn)) == "Welcome to Sakura!"
        response = await turn(conn, "find a mid-range thai place, we'd like to sit inside")
    calls = [item for item in response.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("find_restaurant", {"cuisine": "thai", "price": "$$", "seating": "indoor"})
    ]
