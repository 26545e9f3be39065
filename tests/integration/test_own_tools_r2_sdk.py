"""A developer's own tools over a real engine with the official openai SDK, as a second user tried them:
Chat Completions for the arguments and the questions (a doctor's title, a stay's nights, enum synonyms,
every item of a list, a party size asked for as a model asks), the Realtime WebSocket for a greeting rule
in the session's instructions and an enum option said by a synonym."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from openai import AsyncOpenAI

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
DATE = {"type": "string", "format": "date"}


def _tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


APPOINTMENT = _tool(
    "book_appointment", "Book an appointment with a doctor", {"doctor": STRING, "date": DATE, "time": STRING}
)
HOTEL = _tool("book_hotel", "Book a hotel stay", {"hotel": STRING, "check_in": DATE, "nights": INTEGER})
RESTAURANTS = _tool(
    "find_restaurant",
    "Find a restaurant",
    {
        "cuisine": STRING,
        "price": {"type": "string", "enum": ["$", "$$", "$$$"]},
        "seating": {"type": "string", "enum": ["indoor", "outdoor"]},
    },
)
ORDER = _tool("place_order", "Order food for delivery", {"items": {"type": "array", "items": STRING}})
TABLE = _tool("book_table", "Book a table at the restaurant", {"party_size": INTEGER, "time": STRING})


class Chat:
    """One conversation over Chat Completions: each answer's calls get ``{"status": "ok"}`` outputs."""

    def __init__(self, client: AsyncOpenAI, tools: list[dict[str, Any]]) -> None:
        self.client, self.tools, self.messages = client, tools, list[Any]()

    async def say(self, words: str) -> tuple[list[tuple[str, Any]], str | None]:
        self.messages.append({"role": "user", "content": words})
        completion = await self.client.chat.completions.create(
            model="gpt-4o-mini", messages=self.messages, tools=self.tools
        )
        message = completion.choices[0].message
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in self.tools}
        calls = []
        for call in message.tool_calls or []:
            arguments = json.loads(call.function.arguments)
            jsonschema.validate(arguments, schemas[call.function.name])
            calls.append((call.function.name, arguments))
        if message.tool_calls:
            self.messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                self.messages.append({"role": "tool", "tool_call_id": call.id, "content": '{"status": "ok"}'})
        else:
            self.messages.append({"role": "assistant", "content": message.content})
        return calls, message.content


async def test_a_developers_own_tools_over_chat_completions(engine) -> None:
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", base_url=f"{server.http_url}/v1", max_retries=0)

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


async def _response(conn: Any) -> Any:
    async for event in conn:
        assert event.type != "error", event
        if event.type == "response.done":
            return event.response
    raise AssertionError("no response.done")


def _said(response: Any) -> str:
    return " ".join(
        part.text or ""
        for item in response.output
        if item.type == "message"
        for part in item.content
        if part.type == "output_text"
    )


async def test_a_greeting_rule_and_an_enum_synonym_over_realtime(engine) -> None:
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    seating = {"type": "function", **RESTAURANTS["function"]}
    async with client.realtime.connect(model="gpt-realtime") as conn:
        instructions = "You are Sakura's host. Always greet the user with 'Welcome to Sakura!' Keep it short."
        session = {"type": "realtime", "output_modalities": ["text"], "instructions": instructions}
        await conn.session.update(session={**session, "tools": [seating]})
        await conn.response.create()
        assert _said(await _response(conn)) == "Welcome to Sakura!"
        words = "find a mid-range thai place, we'd like to sit inside"
        content = [{"type": "input_text", "text": words}]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        await conn.response.create()
        response = await _response(conn)
    calls = [item for item in response.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("find_restaurant", {"cuisine": "thai", "price": "$$", "seating": "indoor"})
    ]
