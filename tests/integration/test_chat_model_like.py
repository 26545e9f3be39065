"""Over the wire, with the official ``openai`` SDK on Chat Completions: a story request calls no card tool,
the request's verb is no city, a forced call takes the city said earlier, the time in Tokyo fills its
timezone, a one-field output is said as a sentence, and a call not approved (the Agents SDK's output) is
declined in words (docs/tools.md). Each failed on the old code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from openai import AsyncOpenAI

APPS = yaml.safe_load((Path(__file__).parents[1] / "data" / "tool_intents" / "apps.yaml").read_text())
VOICE_CLIENT = [
    {"type": "function", "function": {k: v for k, v in t.items() if k != "type"}}
    for t in APPS["voice_client"]
]
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = {
    "type": "function",
    "function": {"name": "get_weather", "description": "Get the weather", "parameters": CITY},
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Get the current local time in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "timezone": {"type": "string", "description": "IANA zone"},
            },
            "required": ["city"],
        },
    },
}
BOOK = {
    "type": "function",
    "function": {
        "name": "book_table",
        "description": "Book a table at the restaurant.",
        "parameters": {
            "type": "object",
            "properties": {"party_size": {"type": "integer"}},
            "required": ["party_size"],
        },
    },
}


async def _complete(
    client: AsyncOpenAI, messages: list[dict[str, Any]], tools: list[dict[str, Any]], **extra: Any
):
    completion = await client.chat.completions.create(
        model="gpt-4o",
        messages=messages,
        tools=tools,
        **extra,  # type: ignore[arg-type]
    )
    return completion.choices[0].message


def _calls(message: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


def _answered(name: str, arguments: dict[str, Any], output: str) -> list[dict[str, Any]]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": output},
    ]


async def test_the_new_behaviours_over_the_sdk(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)

    story = await _complete(
        client, [{"role": "user", "content": "Tell me a long story about the sea."}], VOICE_CLIENT
    )
    assert _calls(story) == [] and (story.content or "").startswith("Here is a story about the sea.")

    transfer = await _complete(
        client, [{"role": "user", "content": "Please transfer me to the weather agent"}], [WEATHER]
    )
    assert _calls(transfer) == [] and transfer.content == "Which city do you mean?"

    earlier = [
        {"role": "user", "content": "what's the weather like in Paris?"},
        {"role": "assistant", "content": "It's sunny."},
        {"role": "user", "content": "hello there"},
    ]
    forced = await _complete(
        client, earlier, [TIME], tool_choice={"type": "function", "function": {"name": "get_time"}}
    )
    assert _calls(forced) == [("get_time", {"city": "Paris", "timezone": "Europe/Paris"})]

    asked = [{"role": "user", "content": "What's the time in Tokyo?"}]
    tokyo = await _complete(client, asked, [TIME])
    assert _calls(tokyo) == [("get_time", {"city": "Tokyo", "timezone": "Asia/Tokyo"})]
    said = await _complete(
        client, [*asked, *_answered("get_time", _calls(tokyo)[0][1], '{"time": "10:42"}')], [TIME]
    )
    assert said.content == "It's 10:42 in Tokyo." and not said.tool_calls

    book = [{"role": "user", "content": "book a table for two"}]
    refused = _answered("book_table", {"party_size": 2}, "Tool execution was not approved.")
    declined = await _complete(client, [*book, *refused], [BOOK])
    assert declined.content == "Okay, I won't book the table." and not declined.tool_calls
