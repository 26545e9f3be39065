"""Parallel tool calls: several calls in one reply, plain and streamed, through the SDK.

The shipped scenarios call one tool per reply, so a scripted brain that always answers with two calls
(and a word) stands in for one that calls several.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from openai import AsyncOpenAI

from mockengine.brain.model import Reply, ReplyRequest, ToolCall
from mockengine.server.app import create_app
from tests.hyperstudy_text import SEND_CHAT, WAIT


class TwoCallsBrain:
    def reply(self, request: ReplyRequest) -> Reply:
        return Reply(
            text="Two things.",
            tool_calls=(
                ToolCall("send_chat", json.dumps({"message": f"first {request.response_index}"})),
                ToolCall("wait", "{}"),
            ),
            rule="test.two_calls",
        )


@pytest.fixture
async def client(aiohttp_server, resources):
    resources = dataclasses.replace(resources)
    resources.brain = lambda seed, **hints: TwoCallsBrain()  # type: ignore[method-assign]
    server = await aiohttp_server(create_app(resources.settings, resources))
    return AsyncOpenAI(api_key="sk-test", base_url=f"http://127.0.0.1:{server.port}/v1", max_retries=0)


REQUEST = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "Do two things."}],
    "tools": [SEND_CHAT, WAIT],
}


async def test_several_calls_in_one_message(client):
    completion = await client.chat.completions.create(**REQUEST)
    [choice] = completion.choices
    assert choice.finish_reason == "tool_calls" and choice.message.content == "Two things."
    calls = choice.message.tool_calls
    assert [c.function.name for c in calls] == ["send_chat", "wait"]
    assert len({c.id for c in calls}) == 2
    assert json.loads(calls[0].function.arguments) == {"message": "first 0"}


async def test_parallel_tool_calls_false_keeps_one(client):
    completion = await client.chat.completions.create(**REQUEST, parallel_tool_calls=False)
    assert [c.function.name for c in completion.choices[0].message.tool_calls] == ["send_chat"]


async def test_streamed_calls_keep_their_index(client):
    stream = await client.chat.completions.create(**REQUEST, stream=True)
    calls: dict[int, dict[str, str]] = {}
    text = ""
    async for chunk in stream:
        delta = chunk.choices[0].delta
        text += delta.content or ""
        for part in delta.tool_calls or []:
            entry = calls.setdefault(part.index, {"id": part.id or "", "name": "", "arguments": ""})
            entry["name"] += part.function.name or ""
            entry["arguments"] += part.function.arguments or ""
    assert text == "Two things."
    assert [(c["name"], json.loads(c["arguments"])) for _, c in sorted(calls.items())] == [
        ("send_chat", {"message": "first 0"}),
        ("wait", {}),
    ]
    assert all(c["id"].startswith("call_") for c in calls.values())
