"""``--only webrtc``: WebRTC calls against WebSocket sessions on the same engine (docs/webrtc.md).

* **Reply latency**: speech end → first reply audio, the conformance ``question`` clip streamed at
  real-time pace in 20 ms chunks, ``--webrtc-turns`` turns per transport. On a WebSocket the first
  ``response.output_audio.delta``; on a call the first audible frame of the incoming Opus track (what a
  browser would play, jitter buffer included).
* **CPU per talking session-second**: the engine process's CPU time while ``--webrtc-sessions`` sessions
  each speak the clip in a loop (Opus both ways on a call), divided by session-seconds; same for
  WebSocket sessions.
* **Capacity**: ``--webrtc-levels`` concurrent talking calls each, driven from separate processes
  (``--webrtc-calls-per-driver`` calls each, :mod:`mockengine.bench.webrtc_load`); at each level the p95
  of speech onset → ``input_audio_buffer.speech_started``, and the CPU per call-second of the engine
  (``/proc``) and of the driver (``getrusage``) apart; the highest level with p95 ≤ 250 ms is the figure.

The driver's aiortc clients run on the same 2 cores as the engine: the capacity found is what one
machine holds with its own load on it, a lower bound for the engine alone; the two CPU figures say how
the cores were shared.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from typing import Any

from mockengine.bench.context import BenchContext
from mockengine.bench.option_types import level_list, positive
from mockengine.bench.sections import Section
from mockengine.bench.webrtc_talk import open_session, question_clip, speak, talk

ONSET_P95_GOAL_MS = 250.0
AUDIBLE_PEAK = 800  # a received frame louder than this is reply audio, not silence or codec noise


async def _first_reply_ms(conn: Any, transport: str, since_ms: float) -> float | None:
    if transport == "webrtc":
        async with asyncio.timeout(20):
            while True:
                heard = [t for t, peak in conn.frame_peaks if t >= since_ms and peak >= AUDIBLE_PEAK]
                if heard:
                    return float(heard[0])
                await asyncio.sleep(0.01)
    delta = await conn.wait_for("response.output_audio.delta", since_ms=since_ms, timeout_ms=20_000)
    return delta.received_ms if delta is not None else None


async def reply_latency(url: str, transport: str, turns: int) -> list[float]:
    clip = question_clip()
    loop = asyncio.get_running_loop()
    conn = await open_session(url, transport)
    latencies = []
    try:
        silence = bytes(48 * 1500)
        for _ in range(turns):
            # The clip and the silence after it (turn detection needs that silence on both transports).
            started_ms = await speak(conn, clip.pcm + silence, loop)
            speech_end_ms = started_ms + clip.speech_end_ms
            first = await _first_reply_ms(conn, transport, speech_end_ms)
            if first is not None:
                latencies.append(first - speech_end_ms)
            await conn.wait_for("response.done", since_ms=speech_end_ms, timeout_ms=30_000)
            await speak(conn, silence * 4, loop)  # the reply plays out before the next turn
    finally:
        await conn.close()
    return latencies


async def talking_sessions(url: str, transport: str, sessions: int, seconds: float) -> list[float]:
    """``sessions`` sessions speaking the clip in a loop for ``seconds``; onset → speech_started (ms)."""
    conns = await asyncio.gather(*[open_session(url, transport) for _ in range(sessions)])
    onsets: list[float] = []
    try:
        await asyncio.gather(*[talk(c, seconds, onsets) for c in conns])
    finally:
        await asyncio.gather(*[c.close() for c in conns], return_exceptions=True)
    return onsets


def _p95(values: list[float]) -> float | None:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else (values[0] if values else None)


def _cpu_per_session_second(ctx: BenchContext, url: str, transport: str) -> float | None:
    engine = ctx.engine()
    sessions, seconds = ctx.args.webrtc_sessions, ctx.args.webrtc_seconds
    before = engine.cpu_seconds() if engine is not None else None
    asyncio.run(talking_sessions(url, transport, sessions, seconds))
    after = engine.cpu_seconds() if engine is not None else None
    if before is None or after is None:
        return None
    return (after - before) / (sessions * seconds)


def bench_webrtc(ctx: BenchContext) -> None:
    url = ctx.engine_url()
    turns = ctx.args.webrtc_turns
    result: dict[str, Any] = {}
    for transport in ("websocket", "webrtc"):
        latencies = asyncio.run(reply_latency(url, transport, turns))
        result[f"{transport}_reply_ms"] = [round(v) for v in latencies]
        median = statistics.median(latencies) if latencies else float("nan")
        print(
            f"webrtc: speech end → first reply audio over {transport}: median {median:.0f} ms "
            f"({', '.join(f'{v:.0f}' for v in latencies)})",
            flush=True,
        )
    for transport in ("websocket", "webrtc"):
        cpu = _cpu_per_session_second(ctx, url, transport)
        result[f"{transport}_cpu_ms_per_session_s"] = None if cpu is None else round(cpu * 1000, 2)
        shown = "n/a (--url)" if cpu is None else f"{cpu * 1000:.1f} ms"
        print(f"webrtc: engine CPU per talking {transport} session-second: {shown}", flush=True)
    result["levels"], result["capacity_calls"] = capacity_levels(ctx, url)
    ctx.results["webrtc"] = result


def capacity_levels(ctx: BenchContext, url: str) -> tuple[list[dict[str, Any]], int]:
    """Each level's talking calls (driver in separate processes); the highest level meeting the goal."""
    from mockengine.bench.webrtc_load import talking_calls

    capacity, levels = 0, []
    for level in ctx.args.webrtc_levels:
        run = talking_calls(
            ctx.engine(), url, level, ctx.args.webrtc_seconds, ctx.args.webrtc_calls_per_driver
        )
        p95 = _p95(run.onsets_ms)
        engine_ms, driver_ms = run.engine_ms_per_call_second, run.driver_ms_per_call_second
        levels.append(
            {
                "calls": level,
                "opened": run.opened,
                "onsets": len(run.onsets_ms),
                "onset_p95_ms": p95 and round(p95),
                "engine_cpu_ms_per_call_s": engine_ms and round(engine_ms, 1),
                "driver_cpu_ms_per_call_s": driver_ms and round(driver_ms, 1),
                "driver_processes": run.processes,
            }
        )
        ok = p95 is not None and p95 <= ONSET_P95_GOAL_MS and len(run.onsets_ms) >= level
        print(
            f"webrtc: {level} talking calls ({run.opened} opened, driver in {run.processes} processes): "
            f"{len(run.onsets_ms)} onsets, p95 {p95 or float('nan'):.0f} ms "
            f"{'ok' if ok else 'over the goal'}; CPU per call-second: engine "
            f"{engine_ms or float('nan'):.1f} ms, driver {driver_ms or float('nan'):.1f} ms",
            flush=True,
        )
        if not ok:
            break
        capacity = level
    print(
        f"webrtc: most talking calls with p95 onset ≤ {ONSET_P95_GOAL_MS:.0f} ms: {capacity} "
        "(the driver's processes share the 2 cores)",
        flush=True,
    )
    return levels, capacity


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--webrtc-turns", type=positive(int), default=3, help="webrtc: turns per transport (latency)"
    )
    parser.add_argument(
        "--webrtc-sessions", type=positive(int), default=4, help="webrtc: talking sessions (CPU figure)"
    )
    parser.add_argument(
        "--webrtc-seconds", type=positive(float), default=15.0, help="webrtc: seconds per CPU/capacity step"
    )
    parser.add_argument(
        "--webrtc-levels",
        type=level_list,
        default="10,25,50,100",
        help="webrtc: talking calls per capacity step",
    )
    parser.add_argument(
        "--webrtc-calls-per-driver",
        type=positive(int),
        default=25,
        help="webrtc: talking calls per load-driver process (capacity steps)",
    )


SECTION = Section("webrtc", bench_webrtc, add_arguments=add_arguments)
