""" "What's the weather in Paris and what time is it in Tokyo?" with get_weather and get_time declared: a
model makes two calls, each with its own city, in one response (``parallel_tool_calls`` true, the
default), or one call, then the other after the app's output (false); the reply then speaks of both.
It was one get_weather call for Paris. Realtime over a real WebSocket, Chat through the openai SDK; both
share the brain."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from openai import AsyncOpenAI

from tests.speech import validate_server_event

ASKED = "What's the weather in Paris and what time is it in Tokyo?"
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": CITY,
    },
    {
        "type": "function",
        "name": "get_time",
        "description": "Get the current local time in a city or timezone",
        "parameters": {**CITY, "properties": {**CITY["properties"], "timezone": {"type": "string"}}},
    },
]
OUTPUTS = {"get_weather": {"temperature_c": 21, "conditions": "sunny"}, "get_time": {"time": "22:15"}}
# the time in Tokyo fills the timezone Tokyo implies, as a model does (docs/tools.md)
BOTH = [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Tokyo", "timezone": "Asia/Tokyo"})]
REPLY = "It's 21 degrees Celsius and sunny in Paris. It's 22:15 in Tokyo."


async def _response(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    await ws.send_json({"type": "response.create"})
    while True:
        event = json.loads((await ws.receive(timeout=30)).data)
        validate_server_event(event)
        if event["type"] == "response.done":
            return dict(event["response"])


@pytest.mark.parametrize("parallel", [True, False])
async def test_realtime_makes_one_call_per_request(engine, parallel: bool) -> None:
    eng = await engine(audio_pace=0.0)
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-1"}) as ws,
    ):
        session = {"type": "realtime", "output_modalities": ["text"], "tools": TOOLS}
        await ws.send_json(
            {"type": "session.update", "session": {**session, "parallel_tool_calls": parallel}}
        )
        content = [{"type": "input_text", "text": ASKED}]
        await ws.send_json(
            {
                "type": "conversation.item.create",
                "item": {"type": "message", "role": "user", "content": content},
            }
        )
        made: list[list[tuple[str, Any]]] = []
        while True:
            output = (await _response(ws))["output"]
            calls = [item for item in output if item["type"] == "function_call"]
            if not calls:
                reply = output[0]["content"][0]["text"]
                break
            made.append([(call["name"], json.loads(call["arguments"])) for call in calls])
            for call in calls:
                answer = {"type": "function_call_output", "call_id": call["call_id"]}
                answer["output"] = json.dumps(OUTPUTS[call["name"]])
                await ws.send_json({"type": "conversation.item.create", "item": answer})
    assert made == ([BOTH] if parallel else [[BOTH[0]], [BOTH[1]]])
    assert reply == REPLY


@pytest.mark.parametrize("parallel", [True, False])
async def test_chat_makes_one_call_per_request(engine, parallel: bool) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)
    tools: Any = [
        {"type": "function", "function": {k: v for k, v in tool.items() if k != "type"}} for tool in TOOLS
    ]
    messages: list[Any] = [{"role": "user", "content": ASKED}]
    made: list[list[tuple[str, Any]]] = []
    while True:
        completion = await client.chat.completions.create(
            model="gpt-4o", messages=messages, tools=tools, parallel_tool_calls=parallel
        )
        message = completion.choices[0].message
        if not message.tool_calls:
            reply = message.content
            break
        made.append([(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls])
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            output = json.dumps(OUTPUTS[call.function.name])
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
    await client.close()
    assert made == ([BOTH] if parallel else [[BOTH[0]], [BOTH[1]]])
    assert reply == REPLY
