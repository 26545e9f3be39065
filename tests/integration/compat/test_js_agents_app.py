"""A voice app on the OpenAI Agents JS SDK (``@openai/agents-realtime``) over WebSocket in Node, only the
URL changed: two RealtimeAgents with zod tools and handoffs both ways, a tool that needs approval
(approved, then rejected), an output guardrail tripped by a spoken answer (sent as ArrayBuffers), then
``close()``. tests/js/agents_realtime_app.mjs drives the SDK and reports what it saw; this test asserts on
it. Needs Node ≥ 20 and npm, as test_js_agents.py."""

from __future__ import annotations

import json

import pytest

from tests.integration.compat.speech import clear_question
from tests.integration.compat.test_js_agents import _install, _run, _tools

pytestmark = pytest.mark.models


async def test_agents_realtime_app_tools_approval_handoffs_and_guardrail(framework_engine, tmp_path) -> None:
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine()  # paced audio: the guardrail trips while the answer is still sent
    # The SDK asks for semantic_vad: its turn transcript hangs on the CPU's maths for the espeak clip
    pcm = clear_question()  # "What is the capital of France?" (speech.clear_question)
    question = tmp_path / "question.pcm"
    question.write_bytes(pcm)
    code, out, err = await _run(node, "agents_realtime_app.mjs", eng.realtime, str(question))
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    steps = report["steps"]
    assert not report["errors"], report["errors"]

    # needsApproval: the approved call ran and its output was spoken of; the rejected one never ran.
    assert report["bookings"] == [{"restaurant": "Luigi", "people": 4}]
    assert "Luigi" in steps["approved"]
    # A call not approved is declined in words, as a model does (not the SDK's output read out).
    assert "won't book" in steps["rejected"] and "not approved" not in steps["rejected"]

    # The handoff: words that only ask for the transfer are no request to the new agent (it called
    # get_weather for the city "Transfer" before); it takes the conversation, then acts on the next words.
    assert report["handoffs"] == [["Assistant", "Weather agent"]]
    assert "weather agent" in steps["handedOver"].lower() and "Transfer" not in steps["handedOver"]
    assert report["weatherCalls"] == ["Rome"]
    assert "Rome" in steps["weather"]

    # The guardrail: the SDK's feedback ("⚠️ Your last answer was blocked. …") gets an apology, not an
    # echo of the feedback (which quoted the words that tripped it).
    assert len(report["guardrailTrips"]) >= 1
    assert "sorry" in steps["afterGuardrail"].lower()
    assert "blocked" not in steps["afterGuardrail"] and "Paris" not in steps["afterGuardrail"]
    spoken = [m for m in report["messages"] if m["role"] == "user" and "capital of France" in m["text"]]
    assert spoken, report["messages"]  # the spoken turn's transcript, in the history the SDK keeps
