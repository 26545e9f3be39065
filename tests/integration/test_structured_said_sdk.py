"""Over the wire, with the official ``openai`` SDK: a ``json_schema`` answer (Chat Completions'
``response_format``, the Responses API's ``text.format``) takes what the user said, as a model fills it.
"It is 21 degrees and sunny in Paris" gave ``conditions: "You said …"`` (the reply's words, not the
conditions said), and "My friend likes chess" gave ``hobbies: []`` (docs/chat.md, docs/responses.md)."""

from __future__ import annotations

import json

import pytest
from openai import AsyncOpenAI

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature": {"type": "number"},
        "conditions": {"type": "string"},
    },
    "required": ["city", "temperature", "conditions"],
    "additionalProperties": False,
}
HOBBIES = {
    "type": "object",
    "properties": {"hobbies": {"type": "array", "items": {"type": "string"}}},
    "required": ["hobbies"],
    "additionalProperties": False,
}
CASES = [
    (
        "It is 21 degrees and sunny in Paris",
        WEATHER,
        {"city": "Paris", "temperature": 21, "conditions": "sunny"},
    ),
    ("My friend likes chess", HOBBIES, {"hobbies": ["chess"]}),
    ("She enjoys painting and hiking.", HOBBIES, {"hobbies": ["painting", "hiking"]}),
    ("I like chess and reading", HOBBIES, {"hobbies": ["chess", "reading"]}),
]


async def _client(engine) -> AsyncOpenAI:
    eng = await engine()
    return AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)


@pytest.mark.parametrize(("said", "schema", "expected"), CASES)
async def test_chat_json_schema_takes_what_was_said(engine, said, schema, expected) -> None:
    client = await _client(engine)
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": said}],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        },
    )
    assert json.loads(completion.choices[0].message.content or "") == expected


@pytest.mark.parametrize(("said", "schema", "expected"), CASES)
async def test_responses_text_format_takes_what_was_said(engine, said, schema, expected) -> None:
    client = await _client(engine)
    response = await client.responses.create(
        model="gpt-4o-mini",
        input=said,
        text={"format": {"type": "json_schema", "name": "answer", "schema": schema, "strict": True}},
    )
    assert json.loads(response.output_text) == expected
