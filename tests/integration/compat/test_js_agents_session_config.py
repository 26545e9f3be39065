"""Session settings an app gives the OpenAI Agents JS SDK (``@openai/agents-realtime``), sent by the SDK
in its ``session.update`` as typed in openai-node's ``AudioTranscription``: the engine takes them,
echoes them in ``session.updated`` and the session goes on. tests/js/agents_session_config.mjs drives
the SDK. Needs Node ≥ 20 and npm, as test_js_agents.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.compat.test_js_agents import _install, _run, _tools

pytestmark = pytest.mark.models


@pytest.mark.parametrize(
    "transcription",
    [
        # refused as unknown parameters before: `delay` (gpt-realtime-whisper), `keywords` and `languages`
        {"model": "gpt-realtime-whisper", "delay": "low"},
        {"model": "gpt-live-transcribe", "keywords": ["Luigi", "Tokyo"], "languages": ["en", "fr"]},
    ],
)
async def test_transcription_settings_the_sdk_sends_are_taken(framework_engine, transcription: Any) -> None:
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine(audio_pace=0.0)
    config = {"audio": {"input": {"transcription": transcription}}}
    code, out, err = await _run(node, "agents_session_config.mjs", eng.realtime, json.dumps(config))
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert not report["errors"], report["errors"]
    assert report["session"]["audio"]["input"]["transcription"] == transcription
    assert "Paris" in report["reply"]


async def test_a_hosted_mcp_tool_is_refused_as_not_emulated(engine) -> None:
    """The SDK's ``hostedMcpTool`` got ``Unknown parameter: 'session.tools[0].require_approval'``, which
    sends a developer looking for a wrong field; the refusal now names the tool's type and why. The
    session goes on without the update, as after any refused one."""
    node, npm = _tools()
    await _install(npm)
    eng = await engine(audio_pace=0.0)
    code, out, err = await _run(node, "agents_session_config.mjs", eng.realtime, "{}", "mcp")
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    [error] = report["errors"]
    assert (error["code"], error["param"]) == ("invalid_value", "session.tools[0].type")
    assert "MCP tools ('mcp') are not emulated" in error["message"]
    assert "Paris" in report["reply"]
