"""``--only webrtc``: WebRTC calls against WebSocket sessions on the same engine (docs/webrtc.md).

* **Reply latency**: speech end → first reply audio, the conformance ``question`` clip streamed at
  real-time pace in 20 ms chunks, ``--webrtc-turns`` turns per transport. On a WebSocket the first
  ``response.output_audio.delta``; on a call the first audible frame of the incoming Opus track (what a
  browser would play, jitter buffer included).
* **CPU per talking session-second**: the engine process's CPU time while ``--webrtc-sessions`` sessions
  each speak the clip in a loop (Opus both ways on a call), divided by session-seconds; same for
  WebSocket sessions.
* **Capacity** (:mod:`mockengine.bench.webrtc_capacity`): on each media plane of
  ``--webrtc-media-plane`` (default ``pion,aiortc``; aiortc alone when the sidecar is not built), an
  engine of its own (the bench's engine options, ``--engine-args``, ``--stt-cache-fingerprint`` and the
  plane), warmed with 2 calls, then ``--webrtc-levels`` talking calls for ``--webrtc-level-seconds``
  each (60 s: long enough to show drift), driven by ``--webrtc-driver``: ``pion``, the Go driver
  (``make pion-driver``; the default when built), or ``aiortc`` (client processes of
  ``--webrtc-calls-per-driver`` calls each, :mod:`mockengine.bench.webrtc_load`). Printed per level:
  p95 of speech onset → ``input_audio_buffer.speech_started``; CPU per call-second of the engine's
  event loop, its process, the pion sidecar and the driver; the engine's and sidecar's resident memory
  when the calls began and ended talking, and its growth per call-minute; for a level longer than 2
  minutes, a second line with the p95 onset and the onsets counted in each minute. The highest level meeting
  p95 ≤ 250 ms (every call opened, a turn heard per call) is the plane's figure; the climb stops at
  the first level over it. With ``--url`` the climb runs once against that engine, without the
  CPU and memory figures.

The driver runs on the same 2 cores as the engine: the Go driver takes ~1–3 ms per call-second, the
aiortc driver ~5 and far more once it starves, so with aiortc clients the capacity found is a lower
bound set by the driver as much as by the engine; the CPU figures say how the cores were shared.
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import statistics
from typing import Any

from mockengine.bench.context import BENCH_ENGINE_ARGS, BenchContext
from mockengine.bench.option_types import choice_list, level_list, positive
from mockengine.bench.sections import Section
from mockengine.bench.webrtc_capacity import (
    DRIVERS,
    ONSET_P95_GOAL_MS,
    PLANES,
    EngineProbe,
    measure_level,
    meets_goal,
    plane_engine_args,
    start_plane_engine,
)
from mockengine.bench.webrtc_talk import open_session, question_clip, speak, talk

DRIVER_NAMES = {"pion": "Go driver", "aiortc": "aiortc driver"}
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
    result["capacity"] = capacity_levels(ctx, url)
    ctx.results["webrtc"] = result


def capacity_levels(ctx: BenchContext, url: str) -> dict[str, Any]:
    """The capacity climb on each chosen media plane, each on an engine of its own (or once against
    ``--url``): a level's figures printed as it ends, the climb stopping at the first level over the
    goal; the highest level meeting it is the plane's figure. Returns ``{"driver", "level_seconds",
    "planes": {plane: {"levels": [row, ...], "calls": N}}}`` (rows: :func:`measure_level`)."""
    args = ctx.args
    driver, planes = choose_driver_and_planes(args)
    found: dict[str, Any] = {"driver": driver, "level_seconds": args.webrtc_level_seconds, "planes": {}}
    for plane in planes:
        engine = None
        if not args.url:
            print(f"webrtc: starting an engine on the {plane} media plane for the capacity climb", flush=True)
            engine = start_plane_engine(
                BENCH_ENGINE_ARGS + ctx.engine_args + plane_engine_args(plane), driver
            )
        try:
            plane_url = url if engine is None else engine.url
            probe = None if engine is None else EngineProbe(engine.process.pid)
            found["planes"][plane] = _climb(ctx, plane, driver, probe, plane_url)
        finally:
            if engine is not None:
                engine.stop()
    return found


def _climb(ctx: BenchContext, plane: str, driver: str, probe: EngineProbe | None, url: str) -> dict[str, Any]:
    args = ctx.args
    capacity, rows = 0, []
    where = f"{plane} plane" if plane in PLANES else "--url engine"
    for level in args.webrtc_levels:
        try:
            row = measure_level(
                probe,
                driver,
                url,
                level,
                args.webrtc_level_seconds,
                args.webrtc_calls_per_driver,
                stagger=args.webrtc_stagger,
            )
        except (RuntimeError, OSError, queue.Empty) as failure:
            # A driver that could not open its calls or report (a starved machine, an engine gone) ends
            # the climb, not the bench: the sections after it and the --json file still come.
            rows.append({"calls": level, "failed": str(failure) or type(failure).__name__})
            print(
                f"webrtc: {where}, {level} talking calls: the driver failed ({rows[-1]['failed']})",
                flush=True,
            )
            break
        rows.append(row)
        ok = meets_goal(row)
        print(
            f"webrtc: {where}, {describe_level(row, driver)}, {'ok' if ok else 'over the goal'}", flush=True
        )
        if "per_minute" in row:
            print(f"webrtc: {where}, {level} talking calls, {describe_minutes(row)}", flush=True)
            if any("thread_ms" in m for m in row["per_minute"]):
                print(f"webrtc: {where}, {level} talking calls, {describe_minute_threads(row)}", flush=True)
        if not ok:
            break
        capacity = level
    shares = "beside the engine" if driver == "pion" else "in processes sharing the cores"
    print(
        f"webrtc: most talking calls on the {where} with p95 onset ≤ {ONSET_P95_GOAL_MS:.0f} ms: "
        f"{capacity} ({DRIVER_NAMES[driver]} {shares}, {args.webrtc_level_seconds:g} s levels)",
        flush=True,
    )
    return {"levels": rows, "calls": capacity}


def describe_level(row: dict[str, Any], driver: str) -> str:
    """One level's figures as the bench prints them (``row``: :func:`measure_level`'s)."""

    def ms(key: str) -> str:
        value = row.get(key)
        return "n/a" if value is None else f"{value:.1f}"

    text = (
        f"{row['calls']} talking calls ({row['opened']} opened, {DRIVER_NAMES[driver]}): "
        f"{row['onsets']} onsets, p95 {'n/a' if row['onset_p95_ms'] is None else row['onset_p95_ms']} ms; "
        f"CPU per call-second: loop {ms('loop_ms')}, process {ms('process_ms')}, sidecar "
        f"{ms('sidecar_ms')}, driver {ms('driver_ms')} ms"
    )
    if "rss_start_mib" in row:
        text += (
            f"; RSS engine+sidecar {row['rss_start_mib']:.1f} → {row['rss_end_mib']:.1f} MiB "
            f"({row['rss_mib_per_call_minute']:+.3f} MiB per call-minute)"
        )
    if "transcripts_miss" in row:
        text += f"; whisper runs {row['transcripts_miss']}"
    if "fingerprint_hits" in row:
        text += f"; {describe_counts(row)}"
    if "thread_ms" in row:
        text += f"; CPU ms per call-second by thread: {describe_threads(row['thread_ms'])}"
    return text + f"; load {row['load']}"


def describe_threads(thread_ms: dict[str, float]) -> str:
    """``loop 3.1, stt 0.4, unnamed 0.2, tts 0.0`` (CPU ms per call-second by thread role)."""
    return ", ".join(f"{role} {ms:.1f}" for role, ms in thread_ms.items())


def describe_counts(row: dict[str, Any]) -> str:
    """The transcript cache and the executors over a level or minute: ``transcripts 40 exact hits, 12
    fingerprint hits of 15 searches (0.31 s CPU, 0.33 s wall, 60 compared); stt calls 18, tts calls 2,
    piper runs 2``."""
    searches = row.get("fingerprint_hits", 0) + row.get("fingerprint_misses", 0)
    return (
        f"transcripts {row.get('transcripts_exact_hits', 'n/a')} exact hits, "
        f"{row.get('fingerprint_hits', 0)} fingerprint hits of {searches} searches "
        f"({row.get('fingerprint_cpu_s', 0):.2f} s CPU, "
        f"{row.get('fingerprint_wall_s', 0):.2f} s wall, {row.get('fingerprint_comparisons', 0)} compared); "
        f"stt calls {row.get('stt_calls', 'n/a')}, tts calls {row.get('tts_calls', 'n/a')}, "
        f"piper runs {row.get('speech_miss', 'n/a')}{describe_stalls(row)}"
    )


def describe_stalls(row: dict[str, Any]) -> str:
    """``; gc: 2 full (0.41 s, 1 over 100 ms), young 0.12 s; loop probes late: 3 over 100 ms, 1 over 250
    ms`` (server/gc_watch.py's histograms over a level or minute); empty for an engine without them."""
    if "gc2_collections" not in row:
        return ""
    young_s = row.get("gc0_pause_s", 0.0) + row.get("gc1_pause_s", 0.0)
    return (
        f"; gc: {row['gc2_collections']} full ({row.get('gc2_pause_s', 0.0):.2f} s, "
        f"{row.get('gc2_over_100ms', 0)} over 100 ms), young {young_s:.2f} s; loop probes late: "
        f"{row.get('loop_late_100ms', 'n/a')} over 100 ms, {row.get('loop_late_250ms', 'n/a')} over 250 ms"
    )


def describe_minute_threads(row: dict[str, Any]) -> str:
    """A long level's CPU by thread and transcript counts minute by minute (``row["per_minute"]`` with
    ``thread_ms``): ``1: loop 3.1, stt 0.4 | whisper 0, transcripts 40 exact hits, ...``; minutes the
    sampler did not reach are left out."""
    minutes = [
        f"{m['minute']}: {describe_threads(m['thread_ms'])} | whisper {m.get('transcripts_miss', 'n/a')}, "
        f"{describe_counts(m)}"
        for m in row["per_minute"]
        if "thread_ms" in m
    ]
    return "CPU ms per call-second by thread per minute: " + "; ".join(minutes)


def describe_minutes(row: dict[str, Any]) -> str:
    """A long level's onsets minute by minute (``row["per_minute"]``): ``p95 onset per minute, ms
    (onsets): 1: 177 (400), 2: 181 (398), 3 (30 s): 179 (200)``; ``n/a`` for a minute without an
    onset, the span of a last minute shorter than 60 s in brackets."""

    def minute(m: dict[str, Any]) -> str:
        span = "" if m["seconds"] >= 60 else f" ({m['seconds']:g} s)"
        p95_ms = "n/a" if m["onset_p95_ms"] is None else m["onset_p95_ms"]
        return f"{m['minute']}{span}: {p95_ms} ({m['onsets']})"

    minutes = ", ".join(minute(m) for m in row["per_minute"])
    return f"p95 onset per minute, ms (onsets): {minutes}"


def choose_driver_and_planes(args: argparse.Namespace) -> tuple[str, list[str]]:
    """The capacity's driver and media planes: as given, else the Go driver and both planes when built,
    else aiortc, with a note on how to build what is missing."""
    from mockengine.bench.pion_driver import driver_path
    from mockengine.rtc.pion.plane import BUILD_NEEDS, is_built

    driver = args.webrtc_driver
    if driver is None:
        try:
            driver_path()
            driver = "pion"
        except FileNotFoundError:
            driver = "aiortc"
            print(
                "webrtc: the capacity climb's Go load driver is not built (`make pion-driver`, "
                f"{BUILD_NEEDS}): its calls come from aiortc clients, whose processes take a large share of "
                "the cores, so the capacity found is far below the engine's",
                flush=True,
            )
    planes = args.webrtc_media_plane
    if planes is None:
        planes = ["url"] if args.url else list(PLANES)
        if "pion" in planes and not is_built():
            planes.remove("pion")
            print(
                f"webrtc: the pion media plane is not built (`make pion`, {BUILD_NEEDS}): aiortc only",
                flush=True,
            )
    return driver, planes


def check_arguments(args: argparse.Namespace) -> str | None:
    """A capacity option that cannot run, found before any section runs: a plane with ``--url`` (the
    climb's engines are the bench's own), a driver or plane that is not built."""
    from mockengine.bench.pion_driver import driver_path
    from mockengine.rtc.pion.plane import SidecarMissing, sidecar_binary

    if args.webrtc_media_plane is not None and args.url:
        return "--webrtc-media-plane starts engines of its own; leave out --url (or the option)"
    if args.webrtc_driver == "pion":
        try:
            driver_path()
        except FileNotFoundError as missing:
            return f"--webrtc-driver pion: {missing}"
    if "pion" in (args.webrtc_media_plane or ()):
        try:
            sidecar_binary()
        except SidecarMissing as missing:
            return f"--webrtc-media-plane pion: {missing}"
    return None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--webrtc-turns", type=positive(int), default=3, help="webrtc: turns per transport (latency)"
    )
    parser.add_argument(
        "--webrtc-sessions", type=positive(int), default=4, help="webrtc: talking sessions (CPU figure)"
    )
    parser.add_argument(
        "--webrtc-seconds", type=positive(float), default=15.0, help="webrtc: seconds of the CPU step"
    )
    parser.add_argument(
        "--webrtc-levels",
        type=level_list,
        default="10,50,100,150",
        help="webrtc: talking calls per capacity level",
    )
    parser.add_argument(
        "--webrtc-level-seconds",
        type=positive(float),
        default=60.0,
        help="webrtc: seconds each capacity level talks (default 60)",
    )
    parser.add_argument(
        "--webrtc-driver",
        choices=DRIVERS,
        default=None,
        help="webrtc: the capacity's load driver (default: pion, the Go driver, when built, else aiortc)",
    )
    parser.add_argument(
        "--webrtc-media-plane",
        type=choice_list(PLANES),
        default=None,
        metavar="PLANE,…",
        help="webrtc: the media planes climbed, each on an engine of its own (default: pion,aiortc; "
        "aiortc when the pion sidecar is not built)",
    )
    parser.add_argument(
        "--webrtc-calls-per-driver",
        type=positive(int),
        default=25,
        help="webrtc: talking calls per aiortc driver process (capacity levels)",
    )
    parser.add_argument(
        "--webrtc-stagger",
        action="store_true",
        help="webrtc: the pion driver's calls start their clip loops spread over one loop, not all in the "
        "same 20 ms frame (whose turns then all end in one tick of the engine: docs/cpu.md, sixteenth pass)",
    )


SECTION = Section("webrtc", bench_webrtc, add_arguments=add_arguments, check=check_arguments)
