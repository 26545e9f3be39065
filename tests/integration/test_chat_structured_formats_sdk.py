"""Structured output with string ``format``s (Structured Outputs' strict mode takes ``uuid``, ``email``,
``date``, ``date-time``, …): the content validates against the schema with its formats checked, through
the openai SDK against a real engine on loopback. A property nobody spoke of is never given a word
(``"unknown"``) that breaks its format; one the words fill keeps the words where they fit it."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from openai import AsyncOpenAI

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "format": "uuid"},
        "name": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "joined": {"type": "string", "format": "date"},
    },
    "required": ["id", "name", "email", "joined"],
    "additionalProperties": False,
}
FORMAT = {"type": "json_schema", "json_schema": {"name": "member", "strict": True, "schema": SCHEMA}}


@pytest.fixture
async def sdk(engine_url):
    base = (await engine_url()).replace("ws://", "http://")
    async with AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0) as client:
        yield client


def _valid(content: str) -> dict:
    value = json.loads(content)
    Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(value)
    return value


@pytest.mark.parametrize(
    "said",
    ["My name is Bob and my email is bob@example.com", "Sign me up please", "I'm Alice, reach me at nowhere"],
)
async def test_chat_content_keeps_its_formats(sdk, said) -> None:
    reply = await sdk.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": said}], response_format=FORMAT
    )
    value = _valid(reply.choices[0].message.content)
    if "bob@example.com" in said:
        assert value["email"] == "bob@example.com" and value["name"] == "Bob"


async def test_responses_output_keeps_its_formats(sdk) -> None:
    response = await sdk.responses.create(
        model="gpt-4o-mini",
        input="My name is Bob",
        text={"format": {"type": "json_schema", "name": "member", "schema": SCHEMA, "strict": True}},
    )
    assert _valid(response.output_text)["name"] == "Bob"
