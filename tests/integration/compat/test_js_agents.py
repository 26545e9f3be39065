"""The OpenAI Agents JS SDK (``@openai/agents-realtime``, pinned in tests/js/package-lock.json) over
WebSocket in Node, only the URL changed: a typed turn and a declared tool called, its output followed by a
reply. tests/js/agents_realtime.mjs drives the SDK and reports what it saw; this test asserts on it.

Needs Node ≥ 20 and npm (.ci/run installs them); the SDK is installed here with ``npm ci`` when
tests/js/node_modules is missing or older than the lock file. Without npm the test is skipped with the
reason, except on CI (``CI=true``), where it fails."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.models
JS_DIR = Path(__file__).resolve().parents[2] / "js"
TIMEOUT_S = 180


def _tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        reason = "node and npm are needed for the JS SDK test (apt-get install nodejs npm)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return node, npm


async def _run(*command: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *command, cwd=JS_DIR, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT_S)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def _install(npm: str) -> None:
    installed = JS_DIR / "node_modules" / ".package-lock.json"
    lock = JS_DIR / "package-lock.json"
    if installed.exists() and installed.stat().st_mtime >= lock.stat().st_mtime:
        return
    code, _, err = await _run(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
    assert code == 0, err


async def test_agents_realtime_typed_turn_and_tool_call(framework_engine) -> None:
    node, npm = _tools()
    await _install(npm)
    eng = await framework_engine(audio_pace=0.0)
    code, out, err = await _run(node, "agents_realtime.mjs", eng.realtime)
    assert code == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert not report["errors"], report["errors"]
    assert "Paris" in report["typedOutput"]
    assert report["toolResult"]["name"] == "get_weather" and report["weatherCalls"] == ["Paris"]
    assert report["toolResult"]["result"] == f"The weather in {report['weatherCalls'][0]} is sunny."
    assert report["followUp"]
    assert "function_call" in report["historyTypes"]
    assert any("Paris" in text for text in report["assistantTranscripts"])
