"""A new user's own tools over a real loopback engine, with the ``openai`` SDK's Realtime client (the
schemas as the Agents SDK and LiveKit write them: ``Optional[Literal[…]]`` as ``anyOf`` an enum and
null, a date told by its description, a boolean switch). On the old code the optional enum failed the
session (``KeyError: 'enum'``, the socket closed), "Turn off the bedroom lights." asked "Should it be on
or off?", the hotel asked "Which check-in do you mean?" and the conversion was grounded "Done: EUR."."""

from __future__ import annotations

import json
from typing import Any

from openai import AsyncOpenAI

from tests.speech import validate_server_event

SIZES = {"type": "string", "enum": ["S", "M", "L", "XL"]}
CURRENCY = {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY"]}
DATE = {"type": "string", "description": "Date, YYYY-MM-DD"}


def tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "name": name, "description": description, "parameters": parameters}


TOOLS = [
    tool(
        "add_to_cart",
        "Add a product to the shopping cart.",
        {
            "product": {"type": "string"},
            "quantity": {"type": "integer"},
            "size": {"anyOf": [SIZES, {"type": "null"}], "default": None},
        },
        ["product", "quantity"],
    ),
    tool(
        "set_lights",
        "Control smart lights.",
        {"room": {"type": "string", "enum": ["kitchen", "bedroom"]}, "on": {"type": "boolean"}},
        ["room", "on"],
    ),
    tool(
        "book_hotel",
        "Book a hotel room.",
        {"city": {"type": "string"}, "check_in": DATE, "check_out": DATE},
        ["city", "check_in", "check_out"],
    ),
    tool(
        "convert_currency",
        "Convert an amount of money between currencies.",
        {"amount": {"type": "number"}, "from_currency": CURRENCY, "to_currency": CURRENCY},
        ["amount", "from_currency", "to_currency"],
    ),
]


async def respond(connection: Any) -> dict[str, Any]:
    await connection.response.create()
    while True:
        event = json.loads(await connection.recv_bytes())
        validate_server_event(event)
        assert event["type"] != "error", event
        if event["type"] == "response.done":
            return dict(event["response"])


def calls_in(response: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (o["name"], json.loads(o["arguments"])) for o in response["output"] if o["type"] == "function_call"
    ]


def text_of(response: dict[str, Any]) -> str:
    parts = [p for o in response["output"] if o["type"] == "message" for p in o["content"]]
    return " ".join(p.get("text") or p.get("transcript") or "" for p in parts)


async def test_a_new_users_own_tools_are_called_and_grounded(engine) -> None:
    eng = await engine(audio_pace=0.0)
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        session = {"type": "realtime", "output_modalities": ["text"], "tools": TOOLS}
        await connection.session.update(session=session)  # type: ignore[arg-type]
        while json.loads(await connection.recv_bytes())["type"] != "session.updated":
            pass

        async def say(text: str) -> dict[str, Any]:
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
            await connection.conversation.item.create(item=item)  # type: ignore[arg-type]
            return await respond(connection)

        cart = calls_in(await say("Add two t-shirts in size L to my cart."))
        assert cart == [("add_to_cart", {"product": "t-shirts", "quantity": 2, "size": "L"})]
        lights = calls_in(await say("Turn off the bedroom lights."))
        assert lights == [("set_lights", {"room": "bedroom", "on": False})]
        hotel = calls_in(await say("Book a room in Tokyo from March 14 to March 20."))
        assert [
            (name, args["city"], args["check_in"][5:], args["check_out"][5:]) for name, args in hotel
        ] == [("book_hotel", "Tokyo", "03-14", "03-20")]
        converted = await say("How much is 250 euros in dollars?")
        [(name, arguments)] = calls_in(converted)
        assert (name, arguments) == (
            "convert_currency",
            {"amount": 250, "from_currency": "EUR", "to_currency": "USD"},
        )
        [call] = [o for o in converted["output"] if o["type"] == "function_call"]
        output = {"type": "function_call_output", "call_id": call["call_id"], "output": '{"result": 270.0}'}
        await connection.conversation.item.create(item=output)  # type: ignore[arg-type]
        assert text_of(await respond(connection)) == "250 EUR is 270 USD."  # brk30: both currencies said
