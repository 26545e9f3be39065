"""Capacity: step the concurrency up against one server and find the highest level that still passes.

A level runs a steady profile of ``level`` sessions for ``duration_s``. It passes when no session was
refused, failed to connect or dropped, no event was lost, the driver kept real-time pace (under 1 % of
chunks late), and the latency goals of issue 8 hold: for mockengine p95 speech onset →
``speech_started`` ≤ 250 ms and p95 ``speech_stopped`` → first audio ≤ 1000 ms; for the bare baseline
p95 acknowledgement ≤ 250 ms. Climbing stops after the first failed level; servers climbed together
take each level in turn (``climb_together``), so a shared machine's drifting speed reaches them alike.

Memory (mockengine child processes only, from /proc): ``idle_session_bytes`` is the growth of resident
memory with ``idle`` sessions connected (session configured, no audio) divided by their number;
``talking_session_bytes`` is the peak resident memory during the largest passing level above the
pre-load figure, divided by its sessions.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from mockengine.loadtest.driver import DRIVER_LATE_SHARE_MAX, LoadReport, run_load
from mockengine.loadtest.processes import Child, cpu_by_role, thread_readings
from mockengine.loadtest.profile import LoadProfile

ONSET_P95_MAX_MS = 250.0
RESPONSE_P95_MAX_MS = 1000.0
ACK_P95_MAX_MS = 250.0
LATE_SHARE_MAX = DRIVER_LATE_SHARE_MAX


def level_failures(summary: dict[str, Any], *, baseline: bool) -> list[str]:
    """Why a level failed (empty when it passed)."""
    reasons = []
    for key in ("sessions_refused", "sessions_failed_to_connect", "sessions_dropped", "lost_events"):
        if summary[key]:
            reasons.append(f"{key}={summary[key]}")
    if summary["late_chunk_share"] > LATE_SHARE_MAX:
        reasons.append(f"driver late {100 * summary['late_chunk_share']:.1f} %")
    checks = (
        [("ack_ms", ACK_P95_MAX_MS)]
        if baseline
        else [
            ("onset_to_speech_started_ms", ONSET_P95_MAX_MS),
            ("speech_stopped_to_first_audio_ms", RESPONSE_P95_MAX_MS),
        ]
    )
    for key, limit in checks:
        p95 = summary[key]["p95"]
        if p95 is None or p95 > limit:
            reasons.append(f"{key} p95={p95}")
    return reasons


@dataclass
class CapacityResult:
    name: str
    levels: list[dict[str, Any]] = field(default_factory=list)
    capacity: int = 0
    memory: dict[str, Any] = field(default_factory=dict)
    cache_hit_rates: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cache_hit_rates": self.cache_hit_rates,
            "name": self.name,
            "capacity_sessions": self.capacity,
            "memory": self.memory,
            "levels": self.levels,
        }


async def idle_session_bytes(child: Child, sessions: int) -> dict[str, Any]:
    """Connect ``sessions`` idle sessions (configured, silent) and return the memory growth per session."""
    before = child.rss_bytes()
    update = {"type": "session.update", "session": {"type": "realtime"}}
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    async with aiohttp.ClientSession(connector=connector) as http:
        sockets = []
        for _ in range(sessions):
            ws = await http.ws_connect(child.url, headers={"Authorization": "Bearer sk-bench"})
            await ws.receive()  # session.created
            await ws.send_str(json.dumps(update))
            sockets.append(ws)
        await asyncio.sleep(2.0)
        after = child.rss_bytes()
        for ws in sockets:
            await ws.close()
    if before is None or after is None:
        return {"idle_sessions": sessions, "idle_session_bytes": None}
    return {
        "idle_sessions": sessions,
        "rss_before_bytes": before,
        "idle_session_bytes": max(0, after - before) // sessions,
    }


def cpu_figures(
    server_cpu_s: float | None, driver_cpu_s: float, wall_s: float, sessions: int, duration_s: float
) -> dict[str, Any]:
    """CPU the server and the driver used: per session-second (ms of CPU per second of one streaming
    session, independent of what else the machine runs) and as cores held on average."""
    session_s = sessions * duration_s
    return {
        "server_cpu_ms_per_session_s": None
        if server_cpu_s is None
        else round(1000 * server_cpu_s / session_s, 2),
        "server_cores": None if server_cpu_s is None else round(server_cpu_s / wall_s, 2),
        "driver_cpu_ms_per_session_s": round(1000 * driver_cpu_s / session_s, 2),
        "driver_cores": round(driver_cpu_s / wall_s, 2),
    }


async def measured(child: Child | None, work: Awaitable[LoadReport]) -> tuple[LoadReport, int | None]:
    """Run ``work``; return its report, with the server's and the driver's CPU figures in
    ``report.extra``, and the server's peak resident memory."""
    peak: int | None = None
    cpu_before = child.cpu_seconds() if child is not None else None
    loop_before = child.loop_cpu_seconds() if child is not None else None
    threads_before = thread_readings(child.process.pid)[0] if child is not None else {}
    driver_before = time.process_time()

    async def sample() -> None:
        nonlocal peak
        while True:
            rss = child.rss_bytes() if child is not None else None
            if rss is not None:
                peak = max(peak or 0, rss)
            await asyncio.sleep(0.5)

    sampler = asyncio.create_task(sample())
    try:
        report = await work
    finally:
        sampler.cancel()
    cpu_after = child.cpu_seconds() if child is not None else None
    loop_after = child.loop_cpu_seconds() if child is not None else None
    threads_after, thread_names = thread_readings(child.process.pid) if child is not None else ({}, {})
    server_cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    report.extra.update(
        cpu_figures(
            server_cpu,
            time.process_time() - driver_before,
            report.wall_s,
            report.profile.sessions,
            report.profile.duration_s,
        )
    )
    # The main thread alone (the event loop: every append, event and turn), apart from the model
    # threads, whose share is the models' cache misses (docs/cpu.md, twelfth pass). With worker
    # processes (`serve --workers N`) it is the parent's main thread only, which serves no session.
    session_s = report.profile.sessions * report.profile.duration_s
    report.extra["server_loop_cpu_ms_per_session_s"] = (
        None
        if loop_before is None or loop_after is None or not session_s
        else round(1000 * (loop_after - loop_before) / session_s, 2)
    )
    # every thread by its role (server/thread_names.py), so "off the loop" is named: stt, whisper, tts, …
    if child is not None and threads_after and session_s:
        roles = cpu_by_role(child.process.pid, threads_before, threads_after, thread_names)
        report.extra["server_thread_cpu_ms_per_session_s"] = {
            role: round(1000 * cpu_s / session_s, 2) for role, cpu_s in roles.items()
        }
    return report, peak


@dataclass
class ClimbTarget:
    """One server in a capacity climb: its name, URL, child process (for CPU and memory) and results."""

    name: str
    url: str
    child: Child | None = None
    baseline: bool = False
    result: CapacityResult = field(init=False)
    rss_before: int | None = field(init=False, default=None)
    has_failed: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.result = CapacityResult(self.name)
        self.rss_before = self.child.rss_bytes() if self.child is not None else None


async def climb_together(
    targets: list[ClimbTarget],
    levels: list[int],
    *,
    duration_s: float,
    turn_every_s: float = 10.0,
    barge_in: float = 0.1,
    on_level: Callable[[str, int, dict[str, Any]], None] | None = None,
    progress: bool = True,
) -> list[CapacityResult]:
    """Climb every target level by level in lockstep: each level is run on each target still climbing,
    one after the other (never two at once), before the next level starts. A shared machine's speed
    drifts with what else runs on it; in lockstep the engine and the baseline meet each level under the
    same conditions, minutes apart rather than a quarter of an hour. A target stops at its first failed
    level; its capacity is the last level it passed."""
    for level in levels:
        climbing = [t for t in targets if not t.has_failed]
        if not climbing:
            break
        for target in climbing:
            summary = await _run_level(target, level, duration_s, turn_every_s, barge_in, progress)
            if on_level is not None:
                on_level(target.name, level, summary)
    return [t.result for t in targets]


async def _run_level(
    target: ClimbTarget, level: int, duration_s: float, turn_every_s: float, barge_in: float, progress: bool
) -> dict[str, Any]:
    profile = LoadProfile("steady", level, duration_s, ramp_s=min(5.0, duration_s / 4))
    report, peak = await measured(
        target.child,
        run_load(
            target.url,
            profile,
            mode="baseline" if target.baseline else "realtime",
            turn_every_s=turn_every_s,
            barge_in=barge_in,
            progress=progress,
            label=f"{target.name} {level:>4} ",
        ),
    )
    summary = report.summary()
    summary["level"] = level
    summary["failures"] = level_failures(summary, baseline=target.baseline)
    summary["peak_rss_bytes"] = peak
    summary["samples"] = report.samples()
    target.result.levels.append(summary)
    if summary["failures"]:
        target.has_failed = True
        return summary
    target.result.capacity = level
    if peak is not None and target.rss_before is not None:
        target.result.memory["talking_sessions"] = level
        target.result.memory["talking_session_bytes"] = max(0, peak - target.rss_before) // level
    return summary


async def climb(
    name: str,
    url: str,
    levels: list[int],
    *,
    duration_s: float,
    baseline: bool = False,
    child: Child | None = None,
    turn_every_s: float = 10.0,
    barge_in: float = 0.1,
    on_level: Callable[[str, int, dict[str, Any]], None] | None = None,
    progress: bool = True,
) -> CapacityResult:
    """One server's climb (``climb_together`` with one target)."""
    target = ClimbTarget(name, url, child, baseline)
    results = await climb_together(
        [target],
        levels,
        duration_s=duration_s,
        turn_every_s=turn_every_s,
        barge_in=barge_in,
        on_level=on_level,
        progress=progress,
    )
    return results[0]
