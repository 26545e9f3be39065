"""Scenario selection per Chat Completions request, as on the voice side: the ``X-Mockengine-Scenario``
header, a ``mockengine-NAME`` model, a marker in the system prompt, the key → scenario map."""

from __future__ import annotations

import dataclasses
import json

import openai
import pytest
from openai import AsyncOpenAI

from mockengine.brain.selection import load_library
from mockengine.server.app import create_app
from tests.hyperstudy_text import SEND_CHAT, SYSTEM_PROMPT, WAIT, context

INTRODUCE = [
    {"role": "system", "content": SYSTEM_PROMPT},
    context("screen", type="showtext", text="Please introduce yourselves."),
]


@pytest.fixture
async def base_url(aiohttp_server, resources, tmp_path):
    keys = tmp_path / "keys.yaml"
    keys.write_text("sk-questionnaire-key: questionnaire\n")
    resources = dataclasses.replace(resources, scenarios=load_library(key_map=str(keys)))
    server = await aiohttp_server(create_app(resources.settings, resources))
    return f"http://127.0.0.1:{server.port}/v1"


async def introduction(base: str, key: str = "sk-test", **kwargs) -> str:
    client = AsyncOpenAI(api_key=key, base_url=base, max_retries=0)
    request = {"model": "gpt-4o-mini", "messages": INTRODUCE, "tools": [SEND_CHAT, WAIT], **kwargs}
    completion = await client.chat.completions.create(**request)
    [call] = completion.choices[0].message.tool_calls
    assert call.function.name == "send_chat"
    return json.loads(call.function.arguments)["message"]


async def test_default_persona(base_url):
    assert "Sam" in await introduction(base_url)


@pytest.mark.parametrize(
    "selection",
    [
        {"extra_headers": {"X-Mockengine-Scenario": "questionnaire"}},
        {"model": "mockengine-questionnaire"},
        {
            "messages": [
                {"role": "system", "content": "[mockengine scenario=questionnaire] Be Morgan."},
                INTRODUCE[1],
            ]
        },
        {"key": "sk-questionnaire-key"},
    ],
    ids=["header", "model", "marker", "key"],
)
async def test_selection(base_url, selection):
    assert "Morgan" in await introduction(base_url, **selection)


async def test_unknown_scenario_header_is_a_bad_request(base_url):
    with pytest.raises(openai.BadRequestError) as refused:
        await introduction(base_url, extra_headers={"X-Mockengine-Scenario": "nope"})
    assert refused.value.code == "unknown_scenario" and refused.value.param == "X-Mockengine-Scenario"


async def test_scenario_models_are_listed(base_url):
    client = AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0)
    ids = [model.id for model in (await client.models.list()).data]
    assert ids[0] == "gpt-4o-mini" and "mockengine-questionnaire" in ids
    assert (await client.models.retrieve("mockengine-questionnaire")).id == "mockengine-questionnaire"
