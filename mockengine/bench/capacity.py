"""``--only capacity``: steps the concurrency up on the engine (warm, with workers, cold) and on the
baseline in lockstep; the highest level meeting the goals is the capacity. ``--plot`` draws it."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

from mockengine.bench.context import BENCH_ENGINE_ARGS, COLD_ARGS, BenchContext
from mockengine.bench.figures import cache_rates, cpu, cpu_note, fmt, healthz, mib
from mockengine.bench.option_types import level_list, positive
from mockengine.bench.sections import Section

DEFAULT_LEVELS = (10, 25, 50, 100, 200, 300, 350, 400, 450, 500, 600, 700, 800, 900, 1000, 1200)


def bench_capacity(ctx: BenchContext) -> None:
    from mockengine.loadtest.capacity import ClimbTarget, climb_together, idle_session_bytes
    from mockengine.loadtest.driver import run_load
    from mockengine.loadtest.plot import plot_capacity
    from mockengine.loadtest.processes import Child, start_server
    from mockengine.loadtest.profile import LoadProfile

    args = ctx.args
    levels = args.levels or list(DEFAULT_LEVELS)

    def report(name: str, level: int, summary: dict[str, Any]) -> None:
        key = "ack_ms" if name == "baseline" else "onset_to_speech_started_ms"
        verdict = "pass" if not summary["failures"] else "FAIL: " + "; ".join(summary["failures"])
        reply = summary["speech_stopped_to_first_audio_ms"]["p95"]
        print(
            f"  {name:<18} {level:>4} sessions: p95 {key.split('_')[0]} {fmt(summary[key]['p95']):>7}, "
            f"p95 response start {fmt(reply):>7}, dropped {summary['sessions_dropped']}, lost "
            f"{summary['lost_events']}, late {100 * summary['late_chunk_share']:.1f} %  {verdict}",
            flush=True,
        )
        print(f"  {'':<18} {'':>4}           CPU: {cpu(summary)}", flush=True)

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
                    result.cache_hit_rates = cache_rates(await healthz(target.url))
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
            f"{k} {fmt(None if v is None else 100 * v, ' %')}" for k, v in r["cache_hit_rates"].items()
        )
        print(
            f"  capacity {r['name']:<16} {r['capacity_sessions']:>4} sessions{share}"
            + (
                f"; {mib(mem.get('idle_session_bytes'))} per idle session, "
                f"{mib(mem.get('talking_session_bytes'))} per talking session"
                if mem
                else ""
            )
            + (f"; cache hit rates {rates}" if rates else "")
        )
    if args.plot:
        title = (
            f"mockengine capacity on this machine ({cpu_note()}); engine, baseline and driver share the cores"
        )
        path = plot_capacity(results, Path(args.plot), title)
        print(f"  plot: {path}" if path else "  plot: matplotlib not installed (pip install matplotlib)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--levels",
        type=level_list,
        help=f"capacity: comma-separated levels (default {','.join(map(str, DEFAULT_LEVELS))})",
    )
    parser.add_argument(
        "--level-duration",
        type=positive(float),
        default=30.0,
        help="capacity: seconds per level (default 30)",
    )
    parser.add_argument("--no-cold", action="store_true", help="capacity: skip the cold-cache engine")
    parser.add_argument(
        "--workers",
        type=positive(int),
        default=min(os.cpu_count() or 1, 2),
        help="capacity: also climb an engine with this many worker processes (default: 2 where the "
        "machine has 2 cores or more; 1 = skip)",
    )
    parser.add_argument("--plot", help="capacity: write latency against concurrency to this PNG")


SECTION = Section("capacity", bench_capacity, default=False, add_arguments=add_arguments)
