"""Over the wire, with the official ``openai`` SDK (Chat Completions and Realtime, on a real engine on
loopback): brain19's cases a new app developer found read as no model would, each failed on its base
(b55d1906)."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tests.own_tools import (
    STRING,
    Chat,
    chat_client,
    chat_tool,
    realtime_turn,
    realtime_with_tools,
    response_done,
    said,
)

WEATHER = chat_tool("get_weather", "Get the current weather for a city", {"city": STRING})
CHECK_ORDER = chat_tool("check_order", "Check an order", {"order_id": STRING})


async def test_quoted_words_asked_for_are_said(engine) -> None:
    server = await engine()
    _, text = await Chat(chat_client(server), [WEATHER]).say("Say 'hello world' twice.")
    assert text == "Hello world, hello world."
    _, said = await realtime_turn(server, [WEATHER], "Say 'hello world' twice.")
    assert said == "Hello world, hello world."


async def test_a_forced_city_is_the_one_visited(engine) -> None:
    chat = Chat(
        chat_client(await engine()),
        [WEATHER],
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    )
    calls, _ = await chat.say("I'm visiting Tokyo next week")
    assert calls == [("get_weather", {"city": "Tokyo"})]


async def test_a_request_about_the_order_just_named(engine) -> None:
    server = await engine()
    said = "My order 4411 never arrived, could you check on it?"
    calls, _ = await Chat(chat_client(server), [CHECK_ORDER]).say(said)
    assert calls == [("check_order", {"order_id": "4411"})]
    made, _ = await realtime_turn(server, [CHECK_ORDER], said)
    assert made == [("check_order", {"order_id": "4411"})]


@pytest.mark.parametrize("bias", [150, -101])
async def test_logit_bias_out_of_range_is_refused(engine, bias: int) -> None:
    client = chat_client(await engine())
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], logit_bias={"50256": bias}
        )
    assert refused.value.status_code == 400
    assert refused.value.body["param"] == "logit_bias"  # type: ignore[index]
    assert refused.value.body["type"] == "invalid_request_error"  # type: ignore[index]


async def test_json_object_keys_named_in_words(engine) -> None:
    completion = await chat_client(await engine()).chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "Return JSON with keys name and age"},
            {"role": "user", "content": "My name is Alice and I'm 30 years old"},
        ],
        response_format={"type": "json_object"},
    )
    assert json.loads(completion.choices[0].message.content or "") == {"name": "Alice", "age": 30}


async def test_langchain_json_mode_with_keys_in_words(engine) -> None:
    langchain_openai = pytest.importorskip("langchain_openai")
    server = await engine()
    model = langchain_openai.ChatOpenAI(
        model="gpt-4o-mini", api_key="sk-test", base_url=f"{server.http_url}/v1", max_retries=0
    )
    structured: Any = model.with_structured_output(None, method="json_mode")
    answer = await structured.ainvoke(
        "Return JSON with keys name and age. My name is Alice and I'm 30 years old."
    )
    assert answer == {"name": "Alice", "age": 30}


NODE = {
    "type": "object",
    "properties": {"name": STRING, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    "required": ["name", "children"],
}
TREE = {
    "type": "function",
    "function": {
        "name": "create_tree",
        "description": "Create a tree of nodes",
        "parameters": {**NODE, "$defs": {"node": NODE}},
    },
}


@pytest.mark.parametrize("choice", ["auto", "required"])
async def test_a_tree_gets_no_invented_children(engine, choice: str) -> None:
    # auto asked "What children would you like?"; required invented {"name": "Name", "children": []}
    chat = Chat(chat_client(await engine()), [TREE], tool_choice=choice)
    calls, _ = await chat.say("Create a tree with root called animals")
    assert calls == [("create_tree", {"name": "animals", "children": []})]


async def test_asked_about_their_weekend(engine) -> None:
    # was "Could you tell me your weekend?"
    client = openai.AsyncOpenAI(api_key="sk-test", websocket_base_url=(await engine()).url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        await conn.response.create(response={"instructions": "Ask the user about their weekend"})
        response = await response_done(conn)
    assert said(response) == "How was your weekend?"


async def test_a_question_in_two_content_parts_is_answered(engine) -> None:
    """A user message of two parts, the question then a style note, over Realtime (found by a new user:
    it got "I don't know that one, sorry." where the question alone gets Paris)."""
    server = await engine()
    async with realtime_with_tools(server, []) as conn:
        content = [
            {"type": "input_text", "text": "What is the capital of France?"},
            {"type": "input_text", "text": "Answer briefly."},
        ]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        await conn.response.create()
        text = said(await response_done(conn))
    assert "Paris is the capital of France." in text
