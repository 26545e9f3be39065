"""Every shipped scenario on the Chat Completions side, with the official ``openai`` SDK as HyperStudy's
text agent: the tools called (``send_chat`` / ``wait`` / ``submit_response``) and their arguments, every
``submit_response`` validated against the question's HRP value schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openai import AsyncOpenAI

from mockengine.brain.hrp import hrp_spec
from tests.hyperstudy_text import SEND_CHAT, SYSTEM_PROMPT, WAIT, submit_response

SPEC = hrp_spec()
SCENARIOS = ("default", "face_rating", "intro_chat", "questionnaire", "hyperstudy_rating", "conformance")


def context(item: dict[str, Any]) -> dict[str, str]:
    """A ``[context]`` user message, as HyperStudy sends them to a text agent."""
    return {"role": "user", "content": "[context] " + json.dumps(item)}


async def client_for(engine_url) -> AsyncOpenAI:
    base = (await engine_url()).replace("ws://", "http://")
    return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)


async def act(
    client: AsyncOpenAI, scenario: str, messages: list[dict[str, Any]], tools: list[Any], **headers: str
):
    completion = await client.chat.completions.create(
        model=f"mockengine-{scenario}",
        messages=[{"role": "system", "content": SYSTEM_PROMPT}, *messages],
        tools=tools,
        tool_choice="auto",
        extra_headers=headers or None,
        seed=9,
    )
    calls = completion.choices[0].message.tool_calls or []
    return [(call.function.name, json.loads(call.function.arguments)) for call in calls]


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_each_scenario_answers_every_answer_type_with_submit_response(
    engine_url, scenario: str
) -> None:
    client = await client_for(engine_url)
    for answer in SPEC["answers"]:
        config = answer["exampleConfig"]
        screen = {
            "event": "screen",
            "type": answer["componentType"],
            "text": config.get("question") or config.get("prompt"),
            **config,
        }
        tools = [SEND_CHAT, WAIT, submit_response(answer["componentType"], answer["valueSchema"])]
        calls = await act(client, scenario, [context(screen)], tools, **{"X-Mockengine-Role": "A"})
        assert [name for name, _ in calls] == ["submit_response"], (scenario, answer["componentType"], calls)
        value = calls[0][1]["value"]
        Draft202012Validator(answer["valueSchema"]).validate(value)
        if answer["componentType"] == "multiplechoice":
            assert set(value if isinstance(value, list) else [value]) <= set(config["choices"])
        if answer["componentType"] == "ranking":
            assert sorted(value) == sorted(config["options"])
        if scenario == "hyperstudy_rating" and answer["componentType"] == "vasrating":
            assert value == 72


@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_each_scenario_chats_back_and_waits_when_nothing_is_asked(engine_url, scenario: str) -> None:
    client = await client_for(engine_url)
    typed = context({"event": "typed", "speaker": "Alex", "said": "hi, what are your hobbies?"})
    calls = await act(client, scenario, [typed], [SEND_CHAT, WAIT], **{"X-Mockengine-Role": "B"})
    assert [name for name, _ in calls] == ["send_chat"] and calls[0][1]["message"]
    timer = context({"event": "timer", "secondsLeft": 30})
    assert await act(client, scenario, [timer], [SEND_CHAT, WAIT]) == [("wait", {})]


async def test_intro_chat_roles_differ_on_the_chat_side(engine_url) -> None:
    client = await client_for(engine_url)
    screen = context({"event": "screen", "type": "showtext", "text": "Please introduce yourselves."})
    alex = await act(client, "intro_chat", [screen], [SEND_CHAT, WAIT], **{"X-Mockengine-Role": "A"})
    blair = await act(client, "intro_chat", [screen], [SEND_CHAT, WAIT], **{"X-Mockengine-Role": "B"})
    assert "Alex" in alex[0][1]["message"] and "Blair" in blair[0][1]["message"]
    answer = await act(
        client,
        "intro_chat",
        [context({"event": "typed", "speaker": "Alex", "said": "What about you?"})],
        [SEND_CHAT, WAIT],
        **{"X-Mockengine-Role": "B"},
    )
    assert answer == [("send_chat", {"message": "I enjoy chess and long walks, Alex."})]
