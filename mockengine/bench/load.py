"""``--only load``: the standard load profile against the engine and, at the same time, against the bare
aiohttp baseline; memory per idle and talking session; cache hit rates.

``--baseline-window together`` (the default) drives the engine and the bare baseline at the same time,
each against its own server, with the same profile and seed, the baseline's driver in a process of its
own: both servers' CPU per session-second comes from the same seconds of the machine, so the ratio
between them does not move with the machine's speed between two windows (the engine's figure moved by
±18 % run to run: docs/cpu.md, nineteenth pass). The engine's driver keeps the bench process to itself,
so its latency rows are measured as before, with the baseline's load beside it on the machine (each
driver's late-chunk share says whether it kept pace). ``--baseline-window after`` drives
the baseline in a later window, as before the nineteenth pass, with the engine's latencies measured
alone.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import time
from collections.abc import Awaitable
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from mockengine.bench.context import BenchContext
from mockengine.bench.figures import cache_rates, cpu, fmt, healthz, mib, row, turn_rows
from mockengine.bench.sections import Section

if TYPE_CHECKING:
    from mockengine.loadtest.driver import LoadReport
    from mockengine.loadtest.profile import LoadProfile

# Sessions and seconds of the unmeasured warm-up before the load (first model calls, caches). They are
# real connections: against an engine with a fault profile they take its first connection ordinals, so
# the report says so (a load tester compared `faults schedule --count N` with the drops and found fewer).
WARM_UP_SESSIONS, WARM_UP_S = 4, 12.0
# The warm-up repeats (each round new seeds, the load's barge-in share, so every clip is heard) until a
# round adds no sentence to the speech cache, at most this many rounds. One round left ~5 % of the
# sentences unsynthesized, and their first synthesis (piper, ~0.3 s of CPU each, once per distinct
# sentence however long the load) fell in the measured window: a third of the engine's CPU in a 25-s
# run, which the per-session-second figure then charged to talking (docs/cpu.md, twelfth pass).
WARM_UP_ROUNDS_MAX = 4

BASELINE_WINDOWS = ("together", "after")


async def _timed(work: Awaitable[Any], t_ref: float) -> tuple[Any, list[float]]:
    """``work``'s result and the seconds (monotonic, from ``t_ref``) at which it started and ended."""
    start = time.monotonic() - t_ref
    result = await work
    return result, [round(start, 2), round(time.monotonic() - t_ref, 2)]


def _ready() -> None:
    """Run once in the baseline's driver process before the window: its imports are not measured."""
    import mockengine.loadtest.driver  # noqa: F401


def _drive_baseline(url: str, profile: LoadProfile, seed: int) -> tuple[LoadReport, float]:
    """In the baseline's driver process: ``run_load`` against the bare baseline at ``url``; its report
    and the CPU seconds this process spent on it."""
    from mockengine.loadtest.driver import run_load

    before = time.process_time()
    report = asyncio.run(run_load(url, profile, mode="baseline", seed=seed, progress=False))
    return report, time.process_time() - before


def _cache_entries(health: dict[str, Any] | None, name: str) -> int | None:
    stats = (health or {}).get("caches", {}).get(name)
    return None if stats is None else int(stats.get("entries", 0))


def _cache_counts(health: dict[str, Any] | None) -> dict[str, dict[str, int]]:
    """Each cache's lookups so far from ``/healthz``: ``{"transcripts": {"hits": .., "misses": ..}, ..}``."""
    caches = (health or {}).get("caches", {})
    return {name: {k: int(stats.get(k, 0)) for k in ("hits", "misses")} for name, stats in caches.items()}


def window_lookups(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, Any]:
    """The caches' lookups in the measured window (``after - before``, by cache): a transcript miss is a
    whisper run, a speech miss a piper synthesis. The hit rates printed beside them count the warm-up too."""
    return {
        name: {k: counts[k] - before.get(name, {}).get(k, 0) for k in ("hits", "misses")}
        for name, counts in after.items()
    }


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
        warm_up = LoadProfile("steady", WARM_UP_SESSIONS, WARM_UP_S)
        new_sentences: list[int | None] = []
        for warm_round in range(WARM_UP_ROUNDS_MAX):
            before = _cache_entries(await healthz(ctx.engine_url()), "speech")
            await run_load(
                ctx.engine_url(),
                warm_up,
                turn_every_s=3.0,
                barge_in=args.barge_in,
                seed=10_000 + warm_round,
                progress=False,
            )
            after = _cache_entries(await healthz(ctx.engine_url()), "speech")
            added = None if before is None or after is None else after - before
            new_sentences.append(added)
            if not added:  # none added (or no speech cache to read: one round, as before)
                break
        if engine is not None:
            memory = await idle_session_bytes(engine, args.sessions)
        together = args.baseline_window == "together"
        # Started before the measured window in both modes: its start-up (imports) is not measured, and
        # idle it costs nothing.
        baseline = await start_server([], baseline=True)
        # Together, the baseline's sessions are driven from a process of their own: in the bench's one
        # event loop, the engine's latencies would include the other 50 sessions' turns in that loop, and
        # the two drivers' CPU could not be told apart (docs/cpu.md, nineteenth pass).
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) if together else None
        try:
            loop = asyncio.get_running_loop()
            if pool is not None:
                await loop.run_in_executor(pool, _ready)
            counts_before = _cache_counts(await healthz(ctx.engine_url()))
            t_ref = time.monotonic()
            engine_run = _timed(
                measured(
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
                ),
                t_ref,
            )
            if pool is not None:
                driven_apart: list[float] = []

                async def baseline_apart() -> LoadReport:
                    report, cpu_s = await loop.run_in_executor(
                        pool, _drive_baseline, baseline.url, profile, args.seed
                    )
                    driven_apart.append(cpu_s)
                    return report

                ((report, peak), engine_window), ((base_report, _), base_window) = await asyncio.gather(
                    engine_run, _timed(measured(baseline, baseline_apart()), t_ref)
                )
                # measured() read this process's CPU, the engine's driver's: the baseline's is its own
                session_s = base_report.profile.sessions * profile.duration_s
                base_report.extra["driver_cpu_ms_per_session_s"] = round(
                    1000 * driven_apart[0] / session_s, 2
                )
                base_report.extra["driver_cores"] = round(driven_apart[0] / base_report.wall_s, 2)
                health = await healthz(ctx.engine_url())
            else:
                (report, peak), engine_window = await engine_run
                health = await healthz(ctx.engine_url())
                (base_report, _), base_window = await _timed(
                    measured(
                        baseline,
                        run_load(
                            baseline.url,
                            profile,
                            mode="baseline",
                            seed=args.seed,
                            progress=args.progress,
                            label="baseline   ",
                        ),
                    ),
                    t_ref,
                )
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
            baseline.stop()
        if peak is not None and memory.get("rss_before_bytes"):
            memory["talking_session_bytes"] = max(0, peak - memory["rss_before_bytes"]) // args.sessions
        return {
            "engine": report.summary(),
            "baseline": base_report.summary(),
            "baseline_window": args.baseline_window,
            # seconds from the start of the measured phase: [start, end] of each run's driving
            "windows_s": {"engine": engine_window, "baseline": base_window},
            "memory": memory,
            "cache_hit_rates": cache_rates(health),
            "window_lookups": window_lookups(counts_before, _cache_counts(health)),
            "warm_up": {
                "sessions": WARM_UP_SESSIONS,
                "seconds": WARM_UP_S,
                "rounds": len(new_sentences),
                "new_sentences_per_round": new_sentences,
            },
        }

    result = asyncio.run(run())
    ctx.results["load"] = result
    print_load(result, args)


def print_load(result: dict[str, Any], args: Any) -> None:
    """The load section's report: ``result`` as ``bench_load`` stores it, ``args`` the bench options."""
    from mockengine.loadtest.driver import DRIVER_LATE_SHARE_MAX, driver_late_caveat

    s, b, memory = result["engine"], result["baseline"], result["memory"]
    print(
        f"\nload: {args.sessions} sessions, {args.profile} profile, {args.duration:.0f} s, each streaming "
        f"in real time with a turn every ~{args.turn_every:.0f} s ({100 * args.barge_in:.0f} % barge-ins):"
    )
    warm_up = result["warm_up"]
    rounds = warm_up.get("rounds", 1)
    print(
        f"  (first a warm-up, not counted: {warm_up['sessions']} sessions for {warm_up['seconds']:.0f} s"
        + (
            f", {rounds} rounds until the speech cache took no new sentence "
            f"(new per round: {warm_up.get('new_sentences_per_round')})"
            if rounds > 1
            else ""
        )
        + "; their connections come first in the engine's fault schedule)"
    )
    together = result.get("baseline_window") == "together"
    if together:
        print(
            f"  (the bare baseline driven at the same time, {b['profile']['sessions']} more sessions from a "
            "driver process of their own, so both CPU figures come from the same seconds of the machine; "
            "the latencies below are the engine's with that load beside it)"
        )
    turn_rows(s)
    print(
        f"  sessions {s['sessions_connected']}/{args.sessions} connected, refused {s['sessions_refused']}, "
        f"dropped {s['sessions_dropped']}; turns {s['turns']}, missed {s['turns_missed']}; lost events "
        f"{s['lost_events']}; errors {s['errors'] or 'none'}; driver late chunks "
        f"{100 * s['late_chunk_share']:.2f} %"
    )
    if caveat := driver_late_caveat(s["late_chunk_share"]):
        print(f"  {caveat}")
    rates = ", ".join(
        f"{k} {fmt(None if v is None else 100 * v, ' %')}" for k, v in result["cache_hit_rates"].items()
    )
    print(f"  cache hit rates (warm-up included): {rates or 'n/a'}")
    window = result.get("window_lookups") or {}
    if window:
        models = {"transcripts": "whisper runs", "speech": "piper syntheses"}
        counted = ", ".join(
            f"{name} {c['misses']} {models.get(name, 'misses')} of {c['hits'] + c['misses']} lookups"
            for name, c in window.items()
        )
        print(f"  in the measured window: {counted}")
    print(
        f"  memory: {mib(memory.get('idle_session_bytes'))} per idle session, "
        f"{mib(memory.get('talking_session_bytes'))} per talking session (engine RSS growth past the "
        "warm-up, whose heap a few sessions may reuse whole; `--only soak` follows memory per session-minute)"
    )
    print(f"  CPU: {cpu(s)}")
    row("bare aiohttp baseline: append → ack", b["ack_ms"], p99=True)
    when = "at the same time as the engine" if together else "after the engine, in a later window"
    print(
        f"  baseline sessions {b['sessions_connected']}/{args.sessions}, dropped {b['sessions_dropped']}, "
        f"driver late chunks {100 * b['late_chunk_share']:.2f} % (driven {when})"
    )
    print(f"  baseline CPU: {cpu(b)}")
    if s.get("server_cpu_ms_per_session_s") and b.get("server_cpu_ms_per_session_s"):
        ratio = s["server_cpu_ms_per_session_s"] / b["server_cpu_ms_per_session_s"]
        same = (
            "both in the same seconds"
            if together
            else "the baseline in a later window, so the machine's drift between them is in it"
        )
        print(
            f"  per streaming session the engine costs {ratio:.2f} × the bare server's CPU at this load, "
            f"{same} (a process's fixed costs weigh more at few sessions; `--only capacity` measures "
            "the limits)"
        )
        late = max(s["late_chunk_share"], b["late_chunk_share"])
        if late > DRIVER_LATE_SHARE_MAX:
            # A late driver sends its chunks in bursts, which a server reads several to a wake-up: its
            # CPU per session-second fell with its driver's lateness (docs/cpu.md, nineteenth pass).
            print(
                f"  (a driver fell behind on {100 * late:.2f} % of its chunks: each server's CPU figure "
                "then moves with its own driver's lateness, so this ratio is the machine's contention as "
                "much as the two servers'; compare ratios from runs with both drivers under "
                f"{100 * DRIVER_LATE_SHARE_MAX:.0f} %)"
            )
    loop, base_loop = s.get("server_loop_cpu_ms_per_session_s"), b.get("server_loop_cpu_ms_per_session_s")
    one_process = "--workers" not in (getattr(args, "engine_args", None) or "")  # else: the parent's thread
    if loop is not None and base_loop and s.get("server_cpu_ms_per_session_s") and one_process:
        print(
            f"  of which the engine's event-loop thread {loop:.2f} ms per session-second "
            f"({loop / base_loop:.1f} × the bare server's), its other threads (the models' cache misses) "
            f"{s['server_cpu_ms_per_session_s'] - loop:.2f} ms"
        )
    roles = s.get("server_thread_cpu_ms_per_session_s")
    if roles and one_process:
        named = ", ".join(f"{role} {ms:.2f}" for role, ms in roles.items())
        print(f"  the engine's CPU by thread, ms per session-second: {named}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline-window",
        choices=BASELINE_WINDOWS,
        default="together",
        help="load: drive the bare baseline at the same time as the engine, the ratio from the same "
        "seconds of the machine (together, the default), or after it in a later window (after)",
    )


SECTION = Section("load", bench_load, add_arguments=add_arguments)
