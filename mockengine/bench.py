"""``mockengine bench``: figures for this machine, printed (never asserted), optionally saved as JSON.

Sections (``--only NAME``, repeatable; the default runs ``DEFAULT_SECTIONS``):

* ``audio``: cost of the per-session audio path per 20 ms chunk (webrtcvad alone, and parse + session).
* ``session``: one simulated participant against the engine: speech onset → ``speech_started``,
  ``speech_stopped`` → first audio delta, ``response.cancel`` → ``response.done``, event gaps; piper's
  real-time factor.
* ``load``: the standard load profile (``--sessions``, ``--duration``, ``--profile``) against the
  engine and, in the same run, against the bare aiohttp baseline; memory per idle and talking session;
  cache hit rates.
* ``capacity``: steps the concurrency up (``--levels``) on the engine with warm caches, with caches off,
  and on the baseline; the highest level meeting the goals is the capacity. ``--plot`` draws it.
* ``semantic``: issue 4's turn-detection table on the labelled utterance set (``turn_eval``).
* ``chat``: Chat Completions throughput and p50/p95 latency at 8 and 64 clients (``chat.bench``).

Without ``--url`` the bench starts its own engine as a child process (``mockengine serve`` with
``--first-delta-delay-ms 0``, so response figures are the engine's own latency, not the emulated delay
of the live service, which defaults to 300 ms and adds exactly that) and the baseline beside it. With
``--url`` the driver runs against that engine instead (memory figures then need a local child).

To add a section: ``register_section("name", function)``; the function takes the ``BenchContext``,
prints its figures and stores a JSON-ready dict in ``ctx.results["name"]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
UTTERANCES = REPO / "tests" / "data" / "utterances"
MIB = 1024 * 1024
BENCH_ENGINE_ARGS = ["--first-delta-delay-ms", "0", "--log-level", "WARNING", "--max-sessions", "0"]
COLD_ARGS = ["--tts-cache-mb", "0", "--stt-cache-mb", "0"]
DEFAULT_LEVELS = (10, 25, 50, 100, 200, 300, 350, 400, 450, 500, 600, 700, 800, 900, 1000, 1200)


@dataclass
class BenchContext:
    args: argparse.Namespace
    results: dict[str, Any] = field(default_factory=dict)
    _engine: Any = None  # loadtest.processes.Child, started on first use

    def engine(self) -> Any:
        """The engine child process (started once, shared by the sections), or None with ``--url``."""
        if self.args.url or self._engine is not None:
            return self._engine
        from mockengine.loadtest.processes import start_server

        self._engine = asyncio.run(start_server(BENCH_ENGINE_ARGS + self.engine_args))
        return self._engine

    def engine_url(self) -> str:
        return str(self.args.url or self.engine().url)

    @property
    def engine_args(self) -> list[str]:
        return str(self.args.engine_args or "").split()

    def close(self) -> None:
        if self._engine is not None:
            self._engine.stop()


def _fmt(value: float | None, unit: str = " ms") -> str:
    return "n/a" if value is None else f"{value:.0f}{unit}"


def _row(title: str, dist: dict[str, Any], *, p99: bool = False) -> None:
    tail = f"   p99 {_fmt(dist['p99']):>7}" if p99 else ""
    print(
        f"  {title:<40} p50 {_fmt(dist['p50']):>7}   p95 {_fmt(dist['p95']):>7}{tail}   (n={dist['count']})"
    )


_TURN_FIGURES = (
    ("speech onset → speech_started", "onset_to_speech_started_ms"),
    ("speech_stopped → first audio delta", "speech_stopped_to_first_audio_ms"),
    ("response.cancel → response.done", "cancel_to_done_ms"),
    ("gap between events of a response", "event_gap_ms"),
)


def _turn_rows(summary: dict[str, Any]) -> None:
    """The driver's per-turn figures, one row each (p50 / p95 / p99)."""
    for title, key in _TURN_FIGURES:
        _row(title, summary[key], p99=True)


def _mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value / MIB:.2f} MiB"


# -- audio --------------------------------------------------------------------------------------------


def bench_audio(ctx: BenchContext) -> None:
    from mockengine.audio.bench import bench_chunk_path, bench_frame_classifier

    vad_us = bench_frame_classifier(10.0)
    chunk_us = bench_chunk_path(2.0)
    print(f"audio: webrtcvad frame classification {vad_us:.1f} µs per 20 ms frame")
    print(
        f"audio: one 20 ms append through parse + session (base64, resampling, VAD, turn detection) "
        f"{chunk_us:.1f} µs = {chunk_us * 50 / 10_000:.2f} % of a core per streaming session"
    )
    ctx.results["audio"] = {"vad_frame_us": vad_us, "append_path_us": chunk_us}


# -- session ------------------------------------------------------------------------------------------


def bench_session(ctx: BenchContext) -> None:
    """One participant, twice: on the engine with its caches warm (speech heard before is replayed), and
    on an engine with both caches off (every turn runs whisper, every reply runs piper)."""
    from mockengine.loadtest.driver import run_load
    from mockengine.loadtest.processes import start_server
    from mockengine.loadtest.profile import LoadProfile

    duration = ctx.args.session_duration
    profile = LoadProfile("steady", 1, duration)

    url = ctx.engine_url()  # starts the engine (outside the event loop below) unless --url

    async def run() -> dict[str, Any]:
        await run_load(url, LoadProfile("steady", 2, 15.0), turn_every_s=3.0, barge_in=0.0, progress=False)
        warm = await run_load(
            url, profile, turn_every_s=5.0, barge_in=0.4, progress=ctx.args.progress, label="session "
        )
        cold_engine = await start_server(BENCH_ENGINE_ARGS + ctx.engine_args + COLD_ARGS)
        try:
            cold = await run_load(
                cold_engine.url,
                profile,
                turn_every_s=5.0,
                barge_in=0.4,
                progress=ctx.args.progress,
                label="cold    ",
            )
        finally:
            cold_engine.stop()
        return {"warm": warm.summary(), "cold": cold.summary()}

    result = asyncio.run(run())
    rtf = _piper_rtf()
    print(
        f"\nsession: one participant for {duration:.0f} s (a turn every ~5 s, 40 % barge-ins), real-time "
        f"streaming, server_vad 500 ms, engine first-delta delay 0 ms:"
    )
    for name, summary in (("caches warm", result["warm"]), ("caches off", result["cold"])):
        print(f" {name}:")
        _turn_rows(summary)
        print(
            f"  turns {summary['turns']}, missed {summary['turns_missed']}, lost events "
            f"{summary['lost_events']}, errors {summary['errors'] or 'none'}"
        )
    print(f"  reply synthesis real-time factor (piper, uncached)  median {rtf:.3f}")
    print(
        "  with the default --first-delta-delay-ms 300 (emulating the live service) the first audio comes "
        "300 ms later"
    )
    ctx.results["session"] = {**result, "piper_rtf": rtf}


def _piper_rtf() -> float:
    from mockengine.engines.cache import ByteLRU
    from mockengine.engines.tts import PiperSynthesizer
    from mockengine.engines.voices import load_voice_catalog

    piper = PiperSynthesizer(load_voice_catalog(), cache=ByteLRU(0))
    text = "Once upon a time a lighthouse keeper watched the sea. Every night he lit the lamp for the ships."
    piper.synthesize("Warm up.", voice="alloy")
    ratios = []
    for _ in range(3):
        started = time.perf_counter()
        segments = piper.synthesize(text, voice="alloy")
        ratios.append((time.perf_counter() - started) * 1000 / sum(s.duration_ms for s in segments))
    return statistics.median(ratios)


# -- load ---------------------------------------------------------------------------------------------


async def _healthz(url: str) -> dict[str, Any] | None:
    import aiohttp

    http_url = url.replace("ws://", "http://").replace("wss://", "https://").split("/v1/")[0] + "/healthz"
    try:
        async with aiohttp.ClientSession() as http, http.get(http_url) as response:
            return dict(await response.json()) if response.status == 200 else None
    except (aiohttp.ClientError, ValueError):
        return None


def _cache_rates(health: dict[str, Any] | None) -> dict[str, Any]:
    caches = (health or {}).get("caches", {})
    return {name: stats.get("hit_rate") for name, stats in caches.items()}


def bench_load(ctx: BenchContext) -> None:
    from mockengine.loadtest.capacity import idle_session_bytes, measured
    from mockengine.loadtest.driver import run_load
    from mockengine.loadtest.processes import start_server
    from mockengine.loadtest.profile import LoadProfile

    args = ctx.args
    profile = LoadProfile(args.profile, args.sessions, args.duration)
    engine = ctx.engine()

    async def run() -> dict[str, Any]:
        memory: dict[str, Any] = {}
        # Warm-up (not measured): first model calls allocate their working memory, caches fill.
        warm_up = LoadProfile("steady", 4, 12.0)
        await run_load(ctx.engine_url(), warm_up, turn_every_s=3.0, barge_in=0.0, progress=False)
        if engine is not None:
            memory = await idle_session_bytes(engine, args.sessions)
        report, peak = await measured(
            engine,
            run_load(
                ctx.engine_url(),
                profile,
                turn_every_s=args.turn_every,
                barge_in=args.barge_in,
                seed=args.seed,
                progress=args.progress,
                label="mockengine ",
            ),
        )
        if peak is not None and memory.get("rss_before_bytes"):
            memory["talking_session_bytes"] = max(0, peak - memory["rss_before_bytes"]) // args.sessions
        health = await _healthz(ctx.engine_url())
        baseline = await start_server([], baseline=True)
        try:
            base_report, _ = await measured(
                baseline,
                run_load(
                    baseline.url,
                    profile,
                    mode="baseline",
                    seed=args.seed,
                    progress=args.progress,
                    label="baseline   ",
                ),
            )
        finally:
            baseline.stop()
        return {
            "engine": report.summary(),
            "baseline": base_report.summary(),
            "memory": memory,
            "cache_hit_rates": _cache_rates(health),
        }

    result = asyncio.run(run())
    ctx.results["load"] = result
    s, b, memory = result["engine"], result["baseline"], result["memory"]
    print(
        f"\nload: {args.sessions} sessions, {args.profile} profile, {args.duration:.0f} s, each streaming "
        f"in real time with a turn every ~{args.turn_every:.0f} s ({100 * args.barge_in:.0f} % barge-ins):"
    )
    _turn_rows(s)
    print(
        f"  sessions {s['sessions_connected']}/{args.sessions} connected, refused {s['sessions_refused']}, "
        f"dropped {s['sessions_dropped']}; turns {s['turns']}, missed {s['turns_missed']}; lost events "
        f"{s['lost_events']}; errors {s['errors'] or 'none'}; driver late chunks "
        f"{100 * s['late_chunk_share']:.2f} %"
    )
    rates = ", ".join(
        f"{k} {_fmt(None if v is None else 100 * v, ' %')}" for k, v in result["cache_hit_rates"].items()
    )
    print(f"  cache hit rates: {rates or 'n/a'}")
    print(
        f"  memory: {_mib(memory.get('idle_session_bytes'))} per idle session, "
        f"{_mib(memory.get('talking_session_bytes'))} per talking session (engine RSS growth)"
    )
    print(f"  CPU: {_cpu(s)}")
    _row("bare aiohttp baseline: append → ack", b["ack_ms"], p99=True)
    print(f"  baseline sessions {b['sessions_connected']}/{args.sessions}, dropped {b['sessions_dropped']}")
    print(f"  baseline CPU: {_cpu(b)}")
    if s.get("server_cpu_ms_per_session_s") and b.get("server_cpu_ms_per_session_s"):
        ratio = b["server_cpu_ms_per_session_s"] / s["server_cpu_ms_per_session_s"]
        print(
            f"  per streaming session the engine costs {1 / ratio:.1f} × the bare server's CPU at this load "
            "(a process's fixed costs weigh more at few sessions; `--only capacity` measures the limits)"
        )


def _cpu(summary: dict[str, Any]) -> str:
    """Server and driver CPU per session-second (contention-independent) and cores held."""
    server = summary.get("server_cpu_ms_per_session_s")
    if server is None:
        return "n/a (server not started by the bench)"
    return (
        f"server {server:.2f} ms per session-second ({summary['server_cores']:.2f} cores on average, "
        f"→ ~{1000 / server:.0f} streaming sessions per free core); driver "
        f"{summary['driver_cpu_ms_per_session_s']:.2f} ms per session-second "
        f"({summary['driver_cores']:.2f} cores)"
    )


# -- capacity -----------------------------------------------------------------------------------------


def bench_capacity(ctx: BenchContext) -> None:
    from mockengine.loadtest.capacity import ClimbTarget, climb_together, idle_session_bytes
    from mockengine.loadtest.driver import run_load
    from mockengine.loadtest.plot import plot_capacity
    from mockengine.loadtest.processes import Child, start_server
    from mockengine.loadtest.profile import LoadProfile

    args = ctx.args
    levels = [int(v) for v in args.levels.split(",")] if args.levels else list(DEFAULT_LEVELS)

    def report(name: str, level: int, summary: dict[str, Any]) -> None:
        key = "ack_ms" if name == "baseline" else "onset_to_speech_started_ms"
        verdict = "pass" if not summary["failures"] else "FAIL: " + "; ".join(summary["failures"])
        reply = summary["speech_stopped_to_first_audio_ms"]["p95"]
        print(
            f"  {name:<18} {level:>4} sessions: p95 {key.split('_')[0]} {_fmt(summary[key]['p95']):>7}, "
            f"p95 response start {_fmt(reply):>7}, dropped {summary['sessions_dropped']}, lost "
            f"{summary['lost_events']}, late {100 * summary['late_chunk_share']:.1f} %  {verdict}",
            flush=True,
        )
        print(f"  {'':<18} {'':>4}           CPU: {_cpu(summary)}", flush=True)

    async def run() -> list[dict[str, Any]]:
        # (name, extra engine options, worker processes)
        servers: list[tuple[str, list[str], int]] = [("mockengine", [], 1)]
        if args.workers > 1:
            servers.append(
                (f"mockengine {args.workers} workers", ["--workers", str(args.workers)], args.workers)
            )
        if not args.no_cold:
            servers.append(("mockengine cold", COLD_ARGS, 1))
        children: list[Child] = []
        targets: list[ClimbTarget] = []
        memory: dict[str, dict[str, Any]] = {}
        try:
            for name, extra, workers in servers:
                use_url = bool(args.url) and not extra
                child = None if use_url else await start_server(BENCH_ENGINE_ARGS + ctx.engine_args + extra)
                if child is not None:
                    children.append(child)
                url = args.url if child is None else child.url
                # Warm-up (not measured): first model calls allocate their working memory, caches fill.
                # The kernel spreads connections over workers by address hash: 8 sessions per worker
                # leave one without any with a chance of about 2 ** -15.
                warm_up = LoadProfile("steady", 8 * workers, 12.0)
                await run_load(url, warm_up, turn_every_s=3.0, barge_in=0.0, progress=False)
                memory[name] = await idle_session_bytes(child, 100) if child is not None else {}
                targets.append(ClimbTarget(name, url, child))
            baseline = await start_server([], baseline=True)
            children.append(baseline)
            targets.append(ClimbTarget("baseline", baseline.url, baseline, baseline=True))
            results = await climb_together(
                targets,
                levels,
                duration_s=args.level_duration,
                turn_every_s=args.turn_every,
                barge_in=args.barge_in,
                on_level=report,
                progress=args.progress,
            )
            for target, result in zip(targets, results, strict=True):
                result.memory.update(memory.get(target.name, {}))
                if not target.baseline:
                    result.cache_hit_rates = _cache_rates(await _healthz(target.url))
            return [result.as_dict() for result in results]
        finally:
            for child in children:
                child.stop()

    print(
        f"\ncapacity: steady {args.level_duration:.0f} s per level, a turn every ~{args.turn_every:.0f} s, "
        f"levels {levels}, every server takes each level in turn; servers and driver share this machine's "
        "cores:"
    )
    results = asyncio.run(run())
    ctx.results["capacity"] = results
    by_name = {r["name"]: r for r in results}
    base = by_name.get("baseline", {}).get("capacity_sessions", 0)
    for r in results:
        share = (
            f" ({100 * r['capacity_sessions'] / base:.0f} % of the baseline)"
            if base and r["name"] != "baseline"
            else ""
        )
        mem = r["memory"]
        rates = ", ".join(
            f"{k} {_fmt(None if v is None else 100 * v, ' %')}" for k, v in r["cache_hit_rates"].items()
        )
        print(
            f"  capacity {r['name']:<16} {r['capacity_sessions']:>4} sessions{share}"
            + (
                f"; {_mib(mem.get('idle_session_bytes'))} per idle session, "
                f"{_mib(mem.get('talking_session_bytes'))} per talking session"
                if mem
                else ""
            )
            + (f"; cache hit rates {rates}" if rates else "")
        )
    if args.plot:
        title = (
            f"mockengine capacity on this machine ({_cpu_note()}); engine, baseline and driver share "
            "the cores"
        )
        path = plot_capacity(results, Path(args.plot), title)
        print(f"  plot: {path}" if path else "  plot: matplotlib not installed (pip install matplotlib)")


def _cpu_note() -> str:
    return f"{os.cpu_count()} cores"


# -- semantic -----------------------------------------------------------------------------------------


def bench_turns(ctx: BenchContext) -> None:
    from mockengine.audio.pcm import float32_to_pcm16
    from mockengine.engines.stt import WhisperTranscriber
    from mockengine.turn_eval import CONFIGS, CachingTranscriber, load_labels, run_utterance, summarize

    if not (UTTERANCES / "labels.json").exists():
        print("semantic: labelled set not found (run from a source checkout)")
        return
    labels = load_labels(UTTERANCES)
    transcriber = CachingTranscriber(WhisperTranscriber())
    outcomes = []
    started = time.perf_counter()
    for label in labels:
        pcm = _read_wav_24k(UTTERANCES / label["file"], float32_to_pcm16)
        for name in CONFIGS:
            outcomes.append(run_utterance(label, pcm, name, transcriber, measured_latency=True))
    kinds = {k: sum(1 for lab in labels if lab["kind"] == k) for k in ("complete", "question", "trailing")}
    print(
        f"\nturn detection on {len(labels)} utterances ({kinds}), whisper tiny.en on this machine "
        f"({time.perf_counter() - started:.0f} s):"
    )
    print(
        f"  {'config':<22}{'end→stopped (policy)':>22}{'incl. STT, median':>19}{'p95':>8}"
        f"{'cut off mid-thought':>22}"
    )
    table = {}
    for name in CONFIGS:
        s = summarize(outcomes, name)
        table[name] = s
        print(
            f"  {name:<22}{_fmt(s['median_policy_delay_ms']):>22}{_fmt(s['median_wall_delay_ms']):>19}"
            f"{_fmt(s['p95_wall_delay_ms']):>8}"
            f"{s['cut_off']:>8}/{s['trailing_counted']:<3} ({100 * s['cut_off_share']:.0f} %)"
        )
    print(
        "  policy = audio the engine waited for after the speech ended; incl. STT adds the measured "
        "transcription latency (semantic_vad must hear the words before it decides)."
    )
    ctx.results["semantic"] = table


def _read_wav_24k(path: Path, to_pcm16: Callable[[Any], bytes]) -> bytes:
    import wave

    import numpy as np
    import soxr

    with wave.open(str(path), "rb") as handle:
        rate = handle.getframerate()
        samples = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2")
    return to_pcm16(soxr.resample(samples.astype(np.float32) / 32768.0, rate, 24_000))


# -- chat ---------------------------------------------------------------------------------------------


def bench_soak(ctx: BenchContext) -> None:
    from mockengine.loadtest.soak_report import bench_soak as soak

    soak(ctx)


def bench_loops(ctx: BenchContext) -> None:
    from mockengine.loadtest.loops import bench_loops as loops

    loops(ctx)


def bench_chat_section(ctx: BenchContext) -> None:
    from mockengine.chat.bench import bench_chat

    bench_chat()


# -- registry and entry point -------------------------------------------------------------------------

SECTIONS: dict[str, Callable[[BenchContext], None]] = {
    "audio": bench_audio,
    "session": bench_session,
    "load": bench_load,
    "capacity": bench_capacity,
    "semantic": bench_turns,
    "chat": bench_chat_section,
    "soak": bench_soak,  # not a default section: minutes long (issue 15)
    "loops": bench_loops,  # asyncio against uvloop, side by side (issue 15)
}
DEFAULT_SECTIONS = ["audio", "session", "load", "semantic", "chat"]


def register_section(name: str, function: Callable[[BenchContext], None], *, default: bool = True) -> None:
    """Add a bench section (e.g. Chat Completions); ``default`` runs it without ``--only``."""
    SECTIONS[name] = function
    if default and name not in DEFAULT_SECTIONS:
        DEFAULT_SECTIONS.append(name)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--only", action="append", help=f"run only these sections: {', '.join(SECTIONS)}")
    parser.add_argument("--url", help="drive this Realtime URL instead of starting an engine")
    parser.add_argument("--engine-args", help="extra options for the engine the bench starts (quoted)")
    parser.add_argument("--sessions", type=int, default=50, help="load: concurrent sessions (default 50)")
    parser.add_argument("--duration", type=float, default=40.0, help="load: seconds (default 40)")
    parser.add_argument("--profile", choices=("steady", "ramp", "spike"), default="steady")
    parser.add_argument("--turn-every", type=float, default=10.0, help="seconds between turns (default 10)")
    parser.add_argument("--barge-in", type=float, default=0.2, help="share of replies interrupted (0.2)")
    parser.add_argument("--seed", type=int, default=1, help="the participants' random choices")
    parser.add_argument("--session-duration", type=float, default=45.0, help="session: seconds (45)")
    parser.add_argument("--levels", help=f"capacity: comma-separated levels (default {DEFAULT_LEVELS})")
    parser.add_argument("--level-duration", type=float, default=30.0, help="capacity: seconds per level")
    parser.add_argument("--no-cold", action="store_true", help="capacity: skip the cold-cache engine")
    parser.add_argument(
        "--workers",
        type=int,
        default=min(os.cpu_count() or 1, 2),
        help="capacity: also climb an engine with this many worker processes (default: 2 where the "
        "machine has 2 cores or more; 1 = skip)",
    )
    parser.add_argument("--plot", help="capacity, soak: write the figures' plot to this PNG")
    parser.add_argument("--minutes", type=float, default=10.0, help="soak: minutes (default 10)")
    parser.add_argument("--wave-s", type=float, default=120.0, help="soak: mean session length (120 s)")
    parser.add_argument("--json", help="write every figure to this JSON file")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress line")


def run_bench(args: argparse.Namespace) -> int:
    parts: list[str] = args.only or list(DEFAULT_SECTIONS)
    unknown = [p for p in parts if p not in SECTIONS]
    if unknown:
        raise SystemExit(f"unknown bench section(s) {unknown}; choose from {', '.join(SECTIONS)}")
    ctx = BenchContext(args)
    try:
        for part in parts:
            SECTIONS[part](ctx)
    finally:
        ctx.close()
    if args.json:
        Path(args.json).write_text(json.dumps(ctx.results, indent=1, default=str))
        print(f"\nfigures written to {args.json}")
    return 0
