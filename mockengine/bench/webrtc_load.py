"""Talking WebRTC calls driven from separate processes, so the engine's cost and the driver's are apart.

A level of N calls is driven by ``ceil(N / calls_per_process)`` spawned driver processes, each an aiortc
client per call that speaks the conformance ``question`` clip in a loop (Opus on its microphone track,
encoded by :class:`~mockengine.rtc.media.ReplyTrack`) and receives the engine's reply track without
decoding it (``listen=False``: RTP, SRTP and RTCP still run). Every driver opens its calls, reports
ready and waits; when all are ready the parent reads the engine's CPU time (``/proc``, the process and
its threads), lets them talk for ``seconds``, and reads it again. Each driver reports its own CPU time
over the talking window (``getrusage``, threads included) and the onset → ``speech_started`` delays,
each with the moment it was measured (seconds since that driver's calls began talking).
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import resource
import time
from dataclasses import dataclass
from typing import Any

OPEN_CONCURRENCY = 4  # calls a driver opens at once (each open is a DTLS handshake on both sides)
READY_TIMEOUT_S = 120.0


@dataclass
class LevelResult:
    """A level's run: ``onsets_ms`` (speech onset → ``speech_started``, ms, in no particular order) and
    ``onset_at_s`` (when each was measured: its ``speech_started`` received, seconds since the calls
    began talking; None from a driver that does not say, e.g. a Go driver built before it did)."""

    calls: int
    opened: int
    onsets_ms: list[float]
    engine_cpu_s: float | None
    driver_cpu_s: float
    engine_wall_s: float  # the engine's measuring window: from "go" until every driver reported
    driver_wall_s: float  # the drivers' talking windows, summed over processes

    @property
    def engine_ms_per_call_second(self) -> float | None:
        if self.engine_cpu_s is None or not self.opened:
            return None
        return self.engine_cpu_s * 1000.0 / (self.opened * self.engine_wall_s)

    @property
    def driver_ms_per_call_second(self) -> float | None:
        if not self.opened:
            return None
        per_process_s = self.driver_wall_s / max(1, self.processes)
        return self.driver_cpu_s * 1000.0 / (self.opened * per_process_s)

    processes: int = 1
    onset_at_s: list[float] | None = None


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _drive(url: str, calls: int, seconds: float, ready: Any, go: Any, results: Any) -> None:
    """Open ``calls`` calls, wait for ``go``, talk; the report goes out before the calls close (so the
    engine's window does not include the hang-ups)."""
    from mockengine.bench.webrtc_talk import KEEP_EVENTS, talk
    from mockengine.conformance.webrtc import WebRtcConnection

    gate = asyncio.Semaphore(OPEN_CONCURRENCY)

    async def open_one() -> Any:
        async with gate:
            conn = await WebRtcConnection.open(
                url, "sk-bench", timeout_ms=30_000, listen=False, keep_events=KEEP_EVENTS
            )
            await conn.wait_for("session.created", since_ms=0, timeout_ms=30_000)
            return conn

    opened = await asyncio.gather(*[open_one() for _ in range(calls)], return_exceptions=True)
    conns = [c for c in opened if not isinstance(c, BaseException)]
    ready.put(len(conns))
    await asyncio.get_running_loop().run_in_executor(None, go.wait)
    before, started = _cpu_s(), time.monotonic()
    began_s = asyncio.get_running_loop().time()
    onsets: list[float] = []
    at_s: list[float] = []
    try:
        await asyncio.gather(*[talk(c, seconds, onsets, at_s) for c in conns], return_exceptions=True)
        at_s = [at - began_s for at in at_s]
        results.put((len(conns), onsets, _cpu_s() - before, time.monotonic() - started, at_s))
    finally:
        await asyncio.gather(*[c.close() for c in conns], return_exceptions=True)


def _driver_process(url: str, calls: int, seconds: float, ready: Any, go: Any, results: Any) -> None:
    asyncio.run(_drive(url, calls, seconds, ready, go, results))


def talking_calls(engine: Any, url: str, calls: int, seconds: float, per_process: int) -> LevelResult:
    """``calls`` talking calls for ``seconds``; ``engine`` (a loadtest Child, or None) for its CPU."""
    context = multiprocessing.get_context("spawn")
    ready, results, go = context.Queue(), context.Queue(), context.Event()
    processes = math.ceil(calls / per_process)
    shares = [calls // processes + (1 if i < calls % processes else 0) for i in range(processes)]
    drivers = [
        context.Process(target=_driver_process, args=(url, share, seconds, ready, go, results), daemon=True)
        for share in shares
    ]
    for driver in drivers:
        driver.start()
    try:
        opened = sum(ready.get(timeout=READY_TIMEOUT_S) for _ in drivers)
        before, started = (engine.cpu_seconds() if engine is not None else None), time.monotonic()
        go.set()
        reports = [results.get(timeout=seconds + READY_TIMEOUT_S) for _ in drivers]
        engine_wall_s = time.monotonic() - started
        after = engine.cpu_seconds() if engine is not None else None
    finally:
        for driver in drivers:
            driver.join(timeout=30)
            if driver.is_alive():
                driver.terminate()
    return LevelResult(
        calls=calls,
        opened=opened,
        onsets_ms=[onset for report in reports for onset in report[1]],
        engine_cpu_s=None if before is None or after is None else after - before,
        driver_cpu_s=sum(report[2] for report in reports),
        engine_wall_s=engine_wall_s,
        driver_wall_s=sum(report[3] for report in reports),
        processes=len(drivers),
        onset_at_s=[at for report in reports for at in report[4]],
    )
