"""LiveKit Agents for Node.js (``@livekit/agents`` with ``@livekit/agents-plugin-openai``, pinned in
tests/js/package-lock.json): the plugin's ``openai.realtime.RealtimeModel`` with only ``baseURL`` changed,
its ``RealtimeSession`` driven without a LiveKit server as LiveKit's ``AgentActivity`` drives it (as
test_livekit.py drives the Python plugin): a spoken turn ended by server_vad, a typed turn and a function
tool through ``updateChatCtx`` / ``updateTools`` / ``generateReply``, a barge-in, and LiveKit's own
interrupt (``response.cancel``, then a truncate at the audio played); then
``AgentSession.run({ userInput })``, LiveKit's documented testing API, with an ``Agent``'s tool.
tests/js/livekit_realtime.mjs drives the plugin and reports what it saw; this test asserts on it. Needs
Node ≥ 20 and npm."""

from __future__ import annotations

import json

import pytest

from tests.integration.compat.speech import other_speaker, spoken_question
from tests.integration.compat.test_js_agents import _install, _run, _tools

pytestmark = pytest.mark.models


async def test_livekit_node_speech_tools_and_interruptions(framework_engine, tmp_path) -> None:
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine(audio_pace=1.0)  # real-time reply audio, so there is something to cut
    question, _ = spoken_question()
    (tmp_path / "question.pcm").write_bytes(question)
    (tmp_path / "other.pcm").write_bytes(other_speaker())
    code, out, err = await _run(
        node,
        "livekit_realtime.mjs",
        f"{eng.http_url}/v1",
        str(tmp_path / "question.pcm"),
        str(tmp_path / "other.pcm"),
    )
    assert code == 0, err
    # LiveKit logs an event it cannot handle ("Failed to handle OpenAI Realtime API event", an item it
    # cannot place) at pino's error level (50) and goes on: any such line is a field read differently.
    logs = (out + err).splitlines()  # pino writes to stdout
    logged_errors = [line for line in logs if '"level":50' in line or '"level":60' in line]
    assert not logged_errors, logged_errors
    report = json.loads(out.strip().splitlines()[-1])

    spoken = report["spoken"]
    assert not spoken["errors"], spoken["errors"]
    assert not spoken["userInitiated"] and "Paris" in spoken["text"]
    heard = " ".join(spoken["transcripts"]).lower()
    assert "capital" in heard and "france" in heard
    # LiveKit's metrics read response.done's usage (input_token_details.audio_tokens: the spoken turn).
    usage = spoken["metrics"][-1]
    assert usage["outputTokens"] > 0 and usage["inputTokenDetails"]["audioTokens"] > 0

    typed = report["typed"]
    assert not typed["errors"], typed["errors"]
    assert "Paris" in typed["answer"]
    assert typed["call"]["name"] == "get_weather" and typed["call"]["args"] == {"city": "Paris"}
    assert typed["weatherCalls"] == ["Paris"]
    assert "sunny" in typed["followUp"]
    # LiveKit's remote copy of the conversation, built from conversation.item.added events.
    assert typed["history"][-3:] == ["function_call", "function_call_output", "message"]

    interrupt = report["interrupt"]
    assert not interrupt["errors"], interrupt["errors"]
    assert "chicago" in interrupt["answerToSpeech"].lower()  # the barge-in was heard and answered
    received = interrupt["received"]
    # server_vad cut the story: the speech started while its audio was still being sent.
    assert received.index("input_audio_buffer.speech_started") < received.index("response.done")
    sent = [t for t in interrupt["sent"] if t != "input_audio_buffer.append"]
    assert sent.index("response.cancel") < sent.index("conversation.item.truncate")
    assert "conversation.item.truncated" in received
    assert interrupt["after"]
    assert [m["cancelled"] for m in interrupt["metrics"]] == [True, False, True, False]

    agent_session = report["agentSession"]
    assert not agent_session["errors"], agent_session["errors"]
    typed_run, tool_run = agent_session["runs"]
    assert [e["type"] for e in typed_run] == ["message"] and "Paris" in typed_run[0]["text"]
    called = [e for e in tool_run if e["type"] != "message"]  # a short clause may come before the call
    assert [(e["type"], e["name"]) for e in called] == [
        ("function_call", "get_weather"),
        ("function_call_output", "get_weather"),
    ]
    assert agent_session["weatherCalls"] == ["Paris"]
    assert "sunny" in agent_session["toolReply"]


async def test_session_created_reaches_a_listener_attached_after_open(framework_engine) -> None:
    """LiveKit JS resolves its connection on ``'open'`` and attaches ``onmessage`` after that ``await``.
    The engine wrote ``session.created`` with the 101, so Node's ``ws`` read both in one chunk and
    emitted the event before the listener existed (seen for 1 to 6 of 20 sessions); the live service
    sends it 3–6 ms after the 101 (reference §1), and so does the engine now."""
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine()
    code, out, err = await _run(node, "ws_listen_after_open.mjs", eng.realtime, "20")
    assert code == 0, err
    first = json.loads(out.strip().splitlines()[-1])["first"]
    # A loaded machine may still be late to read the 101 now and then, as it would be with the live
    # service: most, not all (before the fix, at most 6 of 20 on the same machine).
    assert first.count("session.created") >= 15, first
    assert set(first) <= {"session.created", "nothing"}, first
