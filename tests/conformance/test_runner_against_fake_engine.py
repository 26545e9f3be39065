"""The conformance runner against the scripted fake engine: it passes, and each fault fails its check.

The runner streams at FACTOR x real time here (fake engine only); see mockengine.conformance.context.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from fake_hrp_engine import Faults, create_app
from multidict import CIMultiDict, CIMultiDictProxy

from mockengine.conformance import arun_conformance, run_conformance
from mockengine.conformance.connection import EngineUnreachable, describe_failure
from mockengine.conformance.report import CheckResult
from mockengine.conformance.spec import Suite, load_suite

FACTOR = 8.0
EVERY_LABEL = {
    "handshake",
    "cancel",
    "function_call",
    "silent_tool",
    "image_context",
    *(
        f"{check}[{td}]"
        for td in ("server_vad", "semantic_vad")
        for check in (
            "engine_turn",
            "barge_in",
            "listening_pause",
            "listening_pause_silent",
            "turn_detection_fields",
        )
    ),
}


async def run_suite(
    aiohttp_server: Any, clips: Path, faults: Faults | None = None, **options: Any
) -> tuple[dict[str, CheckResult], str]:
    server = await aiohttp_server(create_app(faults or Faults()))
    url = f"ws://{server.host}:{server.port}/v1/realtime?model=gpt-realtime"
    out = io.StringIO()
    results, _ = await arun_conformance(
        url, api_key="sk-test", clips_dir=clips, realtime_factor=FACTOR, out=out, **options
    )
    return {r.label: r for r in results}, out.getvalue()


def failure_text(result: CheckResult) -> str:
    return "\n".join(result.failures)


@pytest.mark.slow  # the whole suite at 8 x real time
async def test_a_conforming_engine_passes_every_check(aiohttp_server: Any, synthetic_clips: Path) -> None:
    results, text = await run_suite(aiohttp_server, synthetic_clips)
    assert set(results) == EVERY_LABEL
    assert all(r.passed for r in results.values()), text
    assert text.splitlines()[-1] == "15 passed, 0 failed"
    barge_in = results["barge_in[server_vad]"].figures
    assert 0 < int(barge_in["played_ms"]) <= int(barge_in["received_audio_ms"])
    assert barge_in["overlong_truncate_error"] == "invalid_value"
    assert results["silent_tool"].figures["value"] == 70
    assert results["engine_turn[semantic_vad]"].figures["total_tokens"] == 30
    resumed = results["listening_pause[server_vad]"].figures
    assert resumed["resume_audio_start_ms"] == resumed["resume_position_ms"]


async def test_audio_after_cancel_fails_only_cancel(aiohttp_server: Any, synthetic_clips: Path) -> None:
    results, text = await run_suite(
        aiohttp_server,
        synthetic_clips,
        Faults(audio_after_cancel=True),
        turn_detection="server_vad",
        checks=["cancel", "barge_in"],
    )
    assert not results["cancel"].passed
    assert "after its response.done" in failure_text(results["cancel"])
    assert results["barge_in[server_vad]"].passed, text
    assert text.splitlines()[-1] == "1 passed, 1 failed"


async def test_dropped_session_field_is_named(aiohttp_server: Any, synthetic_clips: Path) -> None:
    results, text = await run_suite(
        aiohttp_server,
        synthetic_clips,
        Faults(drop_silence_duration=True),
        checks=["handshake", "turn_detection_fields"],
    )
    failed = results["turn_detection_fields[server_vad]"]
    assert not failed.passed
    assert "lacks silence_duration_ms (sent 500)" in failure_text(failed)
    assert results["turn_detection_fields[semantic_vad]"].passed, text
    assert results["handshake"].passed, text


@pytest.mark.slow  # a whole barge-in exchange at 8 x real time
async def test_ignored_barge_in_fails_barge_in(aiohttp_server: Any, synthetic_clips: Path) -> None:
    results, text = await run_suite(
        aiohttp_server,
        synthetic_clips,
        Faults(ignore_barge_in=True),
        turn_detection="semantic_vad",
        checks=["barge_in", "cancel"],
    )
    failed = results["barge_in[semantic_vad]"]
    assert not failed.passed
    assert "expected response.done status=cancelled reason=turn_detected within 1500 ms" in failure_text(
        failed
    )
    assert "got status=completed" in failure_text(failed)
    assert results["cancel"].passed, text


async def test_reply_after_listening_pause_commit_fails(aiohttp_server: Any, synthetic_clips: Path) -> None:
    results, text = await run_suite(
        aiohttp_server,
        synthetic_clips,
        Faults(reply_after_manual_commit=True),
        turn_detection="server_vad",
        checks=["listening_pause", "engine_turn"],
    )
    failed = results["listening_pause[server_vad]"]
    assert not failed.passed
    assert "expected no response.created after turn detection went off" in failure_text(failed)
    assert "after the commit" in failure_text(failed)
    assert results["engine_turn[server_vad]"].passed, text


# eventTimeoutMs shortened for the two tests below, so that a reply which streams for ~3.2 s (16 deltas,
# one every 0.2 s) outlasts it several times over while each of its deltas comes well within it.
SHORT_EVENT_TIMEOUT_MS = 1_000


def short_event_timeout_suite() -> Suite:
    suite = load_suite()
    return dataclasses.replace(
        suite, thresholds=dataclasses.replace(suite.thresholds, event_timeout_ms=SHORT_EVENT_TIMEOUT_MS)
    )


async def test_a_reply_that_streams_longer_than_the_event_timeout_passes(
    aiohttp_server: Any, synthetic_clips: Path
) -> None:
    """CI, a starved machine: mockengine spoke its ~17 s answer at about real time, and engine_turn
    failed at eventTimeoutMs (15 s) with 76 deltas in, though every delta came in time. The timeout
    bounds the wait for each next event of the response, not the whole answer."""
    results, text = await run_suite(
        aiohttp_server,
        synthetic_clips,
        Faults(speech_delta_wall_s=0.2),
        turn_detection="server_vad",
        checks=["engine_turn"],
        suite=short_event_timeout_suite(),
    )
    assert results["engine_turn[server_vad]"].passed, text
    # the whole reply, 0.2 s apart: it streamed for over three times the timeout
    assert int(results["engine_turn[server_vad]"].figures["audio_deltas"]) >= 16


async def test_a_reply_that_stalls_fails_engine_turn(aiohttp_server: Any, synthetic_clips: Path) -> None:
    results, text = await run_suite(
        aiohttp_server,
        synthetic_clips,
        Faults(speech_delta_wall_s=0.2, stall_speech_after_deltas=3),
        turn_detection="server_vad",
        checks=["engine_turn"],
        suite=short_event_timeout_suite(),
    )
    failed = results["engine_turn[server_vad]"]
    assert not failed.passed
    assert "each of its events within 1000 ms of the last" in failure_text(failed), text
    assert "response.output_audio.delta×3" in failure_text(failed), text


async def test_unreachable_engine_raises_with_the_reason(synthetic_clips: Path) -> None:
    """Nothing answers for the first check: no check ran, so no result is printed; the reason reads as a
    person reads it, not aiohttp's repr with its whole connection key."""
    out = io.StringIO()
    with pytest.raises(EngineUnreachable) as raised:
        await arun_conformance(
            "ws://127.0.0.1:9/v1/realtime?model=gpt-realtime",
            api_key="sk-test",
            clips_dir=synthetic_clips,
            checks=["handshake"],
            out=out,
        )
    assert str(raised.value) == (
        "cannot reach the engine at ws://127.0.0.1:9/v1/realtime?model=gpt-realtime: "
        "connection refused (nothing listens on 127.0.0.1:9)"
    )
    assert out.getvalue() == ""


def test_connection_failures_are_described_in_one_readable_line() -> None:
    """A refused upgrade names its HTTP status, a timeout the time it waited; never a repr."""
    from yarl import URL

    info = aiohttp.RequestInfo(URL("ws://h/v1/realtime"), "GET", CIMultiDictProxy(CIMultiDict()))
    refused = aiohttp.WSServerHandshakeError(info, (), status=401, message="Invalid response status")
    assert (
        describe_failure(refused, 5000)
        == "the upgrade was answered HTTP 401 instead of 101 (Invalid response status)"
    )
    assert describe_failure(TimeoutError(), 5000) == "no answer within 5 s"
    assert describe_failure(OSError("network is unreachable"), 5000) == "network is unreachable"


@pytest.fixture
def threaded_engine() -> Iterator[str]:
    """The fake engine on its own loop in a thread, so the synchronous CLI entry can be called."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(create_app(Faults(drop_silence_duration=True)))
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"ws://127.0.0.1:{port}/v1/realtime?model=gpt-realtime&api_key=secret"
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=10)
    loop.close()


def test_an_http_url_with_no_path_reaches_the_realtime_endpoint(
    threaded_engine: str, synthetic_clips: Path
) -> None:
    """`--url http://127.0.0.1:PORT`, what a user of `make serve` types first, runs the checks."""
    port = threaded_engine.split(":")[2].split("/")[0]
    out = io.StringIO()
    status = run_conformance(
        f"http://127.0.0.1:{port}",
        api_key="sk-test",
        checks=["handshake"],
        out=out,
        clips_dir=synthetic_clips,
    )
    assert status == 0, out.getvalue()
    assert out.getvalue().splitlines()[-1] == "1 passed, 0 failed"


def test_cli_entry_exit_status_and_json_report(
    threaded_engine: str, synthetic_clips: Path, tmp_path: Path
) -> None:
    report_path = tmp_path / "report.json"
    out = io.StringIO()
    status = run_conformance(
        threaded_engine,
        api_key="sk-test",
        turn_detection="server_vad",
        json_path=str(report_path),
        checks=["handshake", "turn_detection_fields"],
        out=out,
        clips_dir=synthetic_clips,
    )
    assert status == 1
    assert out.getvalue().splitlines()[-1] == "1 passed, 1 failed"
    report = json.loads(report_path.read_text())
    assert report["suiteVersion"] == 6
    assert "secret" not in report["url"]
    assert report["summary"] == {"passed": 1, "failed": 1, "total": 2}
    assert [r["label"] for r in report["results"]] == ["handshake", "turn_detection_fields[server_vad]"]
    assert (
        run_conformance(
            threaded_engine,
            api_key="sk-test",
            checks=["handshake"],
            out=io.StringIO(),
            clips_dir=synthetic_clips,
        )
        == 0
    )


def test_cli_entry_rejects_an_unknown_check(synthetic_clips: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = run_conformance(
        "ws://127.0.0.1:9/v1/realtime",
        api_key=None,
        checks=["nope"],
        out=out,
        clips_dir=synthetic_clips,
        err=err,
    )
    assert status == 2
    assert "unknown check nope" in err.getvalue() and out.getvalue() == ""


@pytest.mark.parametrize(
    ("transport", "dialled"),
    [("websocket", "ws://{where}/v1/realtime"), ("webrtc", "http://{where}/v1/realtime/calls")],
)
def test_an_engine_nothing_answers_for_is_one_line_and_exit_status_3(
    synthetic_clips: Path, transport: str, dialled: str
) -> None:
    """`--url` at a port nothing listens on: not 15 FAIL blocks repeating one connection error, but one
    line naming the URL and why, and its own exit status (no check ran, so none failed)."""
    import socket

    with socket.socket() as probe:  # a port the OS just freed: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    where = f"127.0.0.1:{port}"
    out, err = io.StringIO(), io.StringIO()
    status = run_conformance(
        f"http://{where}", api_key=None, out=out, clips_dir=synthetic_clips, transport=transport, err=err
    )
    assert status == 3
    assert out.getvalue() == ""
    assert err.getvalue() == (
        f"conformance: cannot reach the engine at {dialled.format(where=where)}?model=gpt-realtime: "
        f"connection refused (nothing listens on {where})\n"
    )
