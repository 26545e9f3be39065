"""Stopping: SIGTERM / SIGINT close every session with 1001 after its queued events, complete the
journals and end the process within ``--shutdown-grace-s`` — tested on a real ``mockengine serve``
process over real sockets. The time to exit is printed (``-s``), bounded only by the grace period."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from mockengine.journal import read_records

pytestmark = pytest.mark.models

GRACE_S = 5.0
AUTH = {"Authorization": "Bearer sk-stop"}


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    journal_dir: Path


def _start(tmp_path: Path, *extra: str) -> Served:
    journal_dir = tmp_path / "journal"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mockengine",
            "serve",
            "--journal-dir",
            str(journal_dir),
            "--shutdown-grace-s",
            str(GRACE_S),
            "--log-level",
            "WARNING",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:  # the announcement comes once the socket listens
        if found := re.search(r"listening on (ws://\S+)", line):
            return Served(process, found.group(1), journal_dir)
    raise AssertionError(f"the server exited ({process.wait()}) without listening")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = _start(tmp_path, "--port", "0")
    yield server
    if server.process.poll() is None:
        server.process.kill()
        server.process.wait()


async def _until_closed(ws: aiohttp.ClientWebSocketResponse, received: list[dict]) -> int | None:
    async for message in ws:
        if message.type == aiohttp.WSMsgType.TEXT:
            received.append(json.loads(message.data))
    return ws.close_code


async def _stop_and_watch(served: Served, signum: signal.Signals) -> tuple[float, list[int | None], list]:
    """One idle session and one in the middle of a spoken reply; then the signal. Returns the seconds
    until the process exited, each client's close code and what each received."""
    received: list[list[dict]] = [[], []]
    async with aiohttp.ClientSession() as http:
        idle = await http.ws_connect(served.url, headers=AUTH)
        talking = await http.ws_connect(served.url, headers=AUTH)
        for ws, events in zip((idle, talking), received, strict=True):
            events.append(json.loads((await ws.receive(timeout=10)).data))
        await talking.send_json(
            {
                "type": "conversation.item.create",
                "item": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Tell me a long story."}],
                },
            }
        )
        await talking.send_json({"type": "response.create"})
        while received[1][-1]["type"] != "response.output_audio.delta":
            received[1].append(json.loads((await talking.receive(timeout=20)).data))
        started = time.monotonic()
        served.process.send_signal(signum)
        sessions = (idle, talking)
        watched = zip(sessions, received, strict=True)
        codes = await asyncio.gather(*(_until_closed(ws, events) for ws, events in watched))
    status = await asyncio.to_thread(served.process.wait, GRACE_S + 10)
    elapsed = time.monotonic() - started
    assert status == 0
    return elapsed, list(codes), received


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_closes_every_session_with_1001_and_exits_within_the_grace(served, signum):
    elapsed, codes, received = await _stop_and_watch(served, signum)
    print(f"\n{signum.name}: process exited {elapsed:.2f} s after the signal; close codes {codes}")
    assert codes == [1001, 1001]
    assert elapsed < GRACE_S  # before, an idle client held the process for ~31 s and saw 1006
    with pytest.raises(aiohttp.ClientConnectionError):  # nothing listens any more
        async with aiohttp.ClientSession() as http:
            await http.ws_connect(served.url, headers=AUTH)

    for events in received:  # the journal has every event the client got, in order, and is closed
        session_dir = served.journal_dir / events[0]["session"]["id"]
        records = list(read_records(session_dir / "events.jsonl"))
        assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
        journaled = [r["event"]["event_id"] for r in records if r["from"] == "server"]
        assert journaled == [e["event_id"] for e in events]
    for wav in (served.journal_dir / received[1][0]["session"]["id"]).glob("resp_*.wav"):
        with wave.open(str(wav), "rb") as handle:  # the header was brought up to date: readable
            assert handle.getnframes() > 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_workers_stop_the_same_way(tmp_path):
    server = _start(tmp_path, "--port", str(_free_port()), "--workers", "2")
    try:
        async with aiohttp.ClientSession() as http:
            sockets = [await http.ws_connect(server.url, headers=AUTH) for _ in range(4)]
            for ws in sockets:
                assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
            started = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            codes = await asyncio.gather(*(_until_closed(ws, []) for ws in sockets))
        status = await asyncio.to_thread(server.process.wait, GRACE_S + 10)
        print(f"\n--workers 2: exited {time.monotonic() - started:.2f} s after SIGTERM; close codes {codes}")
        assert (status, codes) == (0, [1001] * 4)
        assert time.monotonic() - started < GRACE_S + 1.0  # the parent waits at most grace + 1 s
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


@pytest.mark.parametrize(
    ("signum", "workers"),
    [(signal.SIGTERM, 1), (signal.SIGINT, 1), (signal.SIGTERM, 2)],
    ids=["SIGTERM", "SIGINT", "SIGTERM-workers-2"],
)
def test_a_signal_while_the_models_load_stops_the_start_up_cleanly(signum, workers):
    """SIGTERM while `serve` was loading its models killed it (status 143, not a word), so an
    orchestrator stopping a pod still starting logged a failure; SIGINT printed a KeyboardInterrupt
    traceback; with --workers each worker died of the SIGTERM its parent forwarded. It now exits 0 at
    once, each process saying it stopped while loading, and never listens."""
    port = "0" if workers == 1 else str(_free_port())
    process = subprocess.Popen(
        [sys.executable, "-m", "mockengine", "serve", "--port", port, "--log-level", "INFO"]
        # the parent waits for its workers this long (plus a second) before it kills them
        + ["--workers", str(workers), "--shutdown-grace-s", "30"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        before: list[str] = []
        for line in process.stdout:  # logged as each process starts loading its models
            before.append(line)
            if sum("loading the models" in seen for seen in before) == workers:
                break
        else:
            raise AssertionError(f"the server exited ({process.wait()}) without loading: {before}")
        signalled = time.monotonic()
        process.send_signal(signum)
        status = process.wait(timeout=15)
        elapsed = time.monotonic() - signalled
        rest = process.stdout.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    print(f"\n{signum.name} while loading: exited {status} {elapsed:.2f} s later")
    assert status == 0, rest
    assert rest.count(f"{signum.name} while loading") == workers, rest
    assert rest.count("stopped before serving") == workers, rest
    assert "listening on" not in rest and "Traceback" not in rest, rest
    # The signal is taken once the model load under way returns (a C call): ~1 s on an idle machine,
    # several on a loaded one (the load a signal cannot interrupt); the process then exits.
    assert elapsed < 20.0
