"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): the
defects users declaring their own tools found (brain7). Each failed before its fix: "Can I get a refund
for order A12345?" looked the order up, "in celsius" left a plain-string ``unit`` asked for, "my second
order" was ``order_id: "second"``, "12 Main St., Springfield 62704" asked for the city, the agent's
"goodbye_message_played" was the user's goodbye, a standing answer said the business's "we" as "I", a
bad schema in legacy ``functions`` was reported at ``tools[0]``, and a system prompt's classification
was no task."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI

from tests.own_tools import STRING, Chat, chat_client, chat_tool, turn

STATUS = chat_tool("get_order_status", "Get an order's status", {"order_id": STRING})
REFUND = chat_tool("request_refund", "Refund an order", {"order_id": STRING, "reason": STRING}, ["order_id"])
WEATHER = chat_tool(
    "get_weather",
    "Get the weather",
    {"city": STRING, "unit": {"type": "string", "description": "celsius or fahrenheit"}},
)
ADDRESS = chat_tool(
    "update_shipping_address",
    "Update the shipping address",
    {"street": STRING, "city": STRING, "postal_code": STRING},
)
END = chat_tool(
    "end_call",
    "End the call",
    {"reason": {"type": "string", "enum": ["goodbye_message_played", "user_goodbye", "error"]}},
)


async def realtime_calls(server: Any, tools: list[dict[str, Any]], words: str) -> tuple[list[Any], Any]:
    """The calls (name, arguments) one Realtime response makes to ``words``, and the response."""
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    declared = [{"type": "function", **t["function"]} for t in tools]
    async with client.realtime.connect(model="gpt-realtime") as conn:
        session = {"type": "realtime", "output_modalities": ["text"], "tools": declared}
        await conn.session.update(session=session)
        response = await turn(conn, words)
    made = [item for item in response.output if item.type == "function_call"]
    return [(c.name, json.loads(c.arguments)) for c in made], response


async def test_getting_a_refund_over_realtime_asks_for_the_refund(engine) -> None:
    made, _ = await realtime_calls(await engine(), [STATUS, REFUND], "Can I get a refund for order A12345?")
    assert made == [("request_refund", {"order_id": "A12345"})]


async def test_a_unit_said_over_realtime_fills_a_plain_string_unit(engine) -> None:
    made, _ = await realtime_calls(await engine(), [WEATHER], "What's the weather in Paris in celsius?")
    assert made == [("get_weather", {"city": "Paris", "unit": "celsius"})]


async def test_an_order_named_by_ordinary_words_is_asked_for_over_realtime(engine) -> None:
    made, response = await realtime_calls(await engine(), [STATUS], "What's the status of my second order?")
    assert made == []
    texts = [
        p.text for i in response.output if i.type == "message" for p in i.content if p.type == "output_text"
    ]
    assert texts == ["What's the order ID?"]


async def test_a_typed_address_over_realtime_fills_street_city_and_code(engine) -> None:
    made, _ = await realtime_calls(await engine(), [ADDRESS], "Ship it to 12 Main St., Springfield 62704")
    expected = {"street": "12 Main St", "city": "Springfield", "postal_code": "62704"}
    assert made == [("update_shipping_address", expected)]


async def test_the_users_goodbye_over_realtime_is_no_message_played(engine) -> None:
    made, _ = await realtime_calls(await engine(), [END], "Goodbye!")
    assert made == [("end_call", {"reason": "user_goodbye"})]


async def test_a_standing_answer_over_chat_speaks_for_the_business_and_its_topic(engine) -> None:
    chat = Chat(chat_client(await engine()), [STATUS])
    prompt = "You are Acme's assistant. If asked about shipping, tell them you ship worldwide. "
    prompt += "If asked about the hours, tell them we're open 9 to 5."
    chat.messages.append({"role": "system", "content": prompt})
    assert await chat.say("Do you ship abroad? Tell me about shipping.") == ([], "We ship worldwide.")
    _, said = await chat.say("How many hours did my order take to ship?")
    assert said != "We're open 9 to 5."


async def test_a_bad_schema_in_legacy_functions_is_reported_where_it_is(engine) -> None:
    client = chat_client(await engine())
    function = {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "nope"}}}}
    with pytest.raises(openai.BadRequestError) as raised:
        await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "hi"}],
            functions=[function],  # type: ignore[list-item]
        )
    assert raised.value.param == "functions[0].parameters"
    assert raised.value.code == "invalid_function_parameters"


async def test_a_system_prompts_classification_over_chat_is_answered_with_the_label(engine) -> None:
    client = chat_client(await engine())
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "Classify the user's message as billing or technical."},
            {"role": "user", "content": "I was charged twice for my subscription"},
        ],
    )
    assert completion.choices[0].message.content == "billing"
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "I was charged twice for my subscription"},
        ],
    )
    assert completion.choices[0].message.content != "billing"
