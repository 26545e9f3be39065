"""Over the wire: a tool whose ``required`` names a property it does not declare gets calls valid for its
schema from a Realtime session (which goes on) and from Chat Completions, also nested under a forced or
``required`` tool_choice (the session was closed with 1011 and Chat answered 500 before)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import jsonschema
import pytest
from openai import AsyncOpenAI

from tests.speech import next_event

ASKED = "What is the weather in Paris?"
CITY_ONLY = {"type": "object", "required": ["city"]}
NESTED = {
    "type": "object",
    "properties": {
        "o": {"type": "object", "required": ["z"]},
        "l": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["z"]}},
    },
    "required": ["o", "l"],
}


def tool(parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": "get_weather", "description": "Get the weather for a city", "parameters": parameters}


async def say(ws: aiohttp.ClientWebSocketResponse, item: dict[str, Any]) -> dict:
    await ws.send_json({"type": "conversation.item.create", "item": item})
    await ws.send_json({"type": "response.create", "response": {"output_modalities": ["text"]}})
    return (await next_event(ws, "response.done"))["response"]


@pytest.mark.parametrize("parameters", [CITY_ONLY, {**CITY_ONLY, "properties": {}}], ids=["none", "empty"])
async def test_a_realtime_session_calls_with_the_undeclared_required_name_and_goes_on(
    engine, parameters: dict[str, Any]
) -> None:
    eng = await engine()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-1"}) as ws,
    ):
        await next_event(ws, "session.created")
        session = {"type": "realtime", "tools": [{"type": "function", **tool(parameters)}]}
        await ws.send_json({"type": "session.update", "session": session})
        await next_event(ws, "session.updated")
        user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ASKED}]}
        response = await say(ws, user)
        assert response["status"] == "completed", response
        (call,) = [item for item in response["output"] if item["type"] == "function_call"]
        assert json.loads(call["arguments"]) == {"city": "Paris"}
        output = {
            "type": "function_call_output",
            "call_id": call["call_id"],
            "output": '{"temperature_c": 21}',
        }
        after = await say(ws, output)
        assert after["status"] == "completed" and after["output"], after


@pytest.mark.parametrize(
    ("parameters", "tool_choice"),
    [
        (CITY_ONLY, "auto"),
        (NESTED, "required"),
        (NESTED, {"type": "function", "function": {"name": "get_weather"}}),
    ],
    ids=["top-level auto", "nested required", "nested forced"],
)
async def test_chat_calls_are_valid_for_a_schema_with_undeclared_required_names(
    engine, parameters: dict[str, Any], tool_choice: Any
) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": ASKED}],
        tools=[{"type": "function", "function": tool(parameters)}],
        tool_choice=tool_choice,
    )
    (call,) = completion.choices[0].message.tool_calls or []
    arguments = json.loads(call.function.arguments)  # type: ignore[union-attr]
    jsonschema.validate(arguments, parameters)
    if parameters is CITY_ONLY:
        assert arguments == {"city": "Paris"}
