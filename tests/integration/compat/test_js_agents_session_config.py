"""Session settings an app gives the OpenAI Agents JS SDK (``@openai/agents-realtime``), sent by the SDK
in its ``session.update`` as typed in openai-node's ``AudioTranscription``: the engine takes them,
echoes them in ``session.updated`` and the session goes on. tests/js/agents_session_config.mjs drives
the SDK. Needs Node ≥ 20 and npm, as test_js_agents.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.compat.test_js_agents import _install, _run, _tools
from tests.mcp_server import mcp_server

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
    # echoed as sent, with the live service's nulls for the language and prompt it was not given
    assert (
        report["session"]["audio"]["input"]["transcription"]
        == {"language": None, "prompt": None} | transcription
    )
    assert "Paris" in report["reply"]


async def test_a_hosted_mcp_tool_is_taken_and_its_server_listed(framework_engine) -> None:
    """The SDK's ``hostedMcpTool`` was refused (first as an unknown ``require_approval``, then as not
    emulated); the engine now takes it, echoes it and lists the server (docs/tools.md). The typed turn
    after it is answered, and the engine sent no error."""
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine(audio_pace=0.0)
    async with mcp_server() as server:
        code, out, err = await _run(node, "agents_session_config.mjs", eng.realtime, "{}", server.url)
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert not report["errors"], report["errors"]
    [tool] = report["session"]["tools"]
    assert (tool["type"], tool["server_label"], tool["server_url"]) == ("mcp", "weather", server.url)
    assert "Paris" in report["reply"]


@pytest.mark.parametrize("mode", ["never", "approve"])
async def test_a_hosted_mcp_tool_is_called_and_its_output_answered(framework_engine, mode: str) -> None:
    """The SDK's whole hosted-MCP flow: it learns the tools from the mcp_list_tools item, sees the
    mcp_call the engine ran on the server, asks for the answer itself (its
    ``automaticallyTriggerResponseForMcpToolCalls``) and gets the server's words. With approval, the app's
    ``session.approve()`` sends only the mcp_approval_response, and the waiting response runs the call."""
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine(audio_pace=0.0)
    async with mcp_server() as server:
        code, out, err = await _run(node, "agents_hosted_mcp.mjs", eng.realtime, server.url, mode)
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert not report["errors"], report["errors"]
    assert set(report["tools"]) == {"get_weather", "roll_dice", "book_table", "check_stock"}
    assert server.calls == [("get_weather", {"city": "Paris"})]
    [call] = report["calls"]
    assert (call["name"], call["output"]) == ("get_weather", "It is 21 degrees and sunny in Paris.")
    assert "It is 21 degrees and sunny in Paris." in report["replies"][-1]
    assert report["approvals"] == (["get_weather"] if mode == "approve" else [])
