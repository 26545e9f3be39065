"""``--only loops``: the engine on asyncio's loop and on uvloop, side by side (issue 15).

The comparison itself is ``mockengine.loadtest.loops.compare_loops`` (lockstep, CPU per session-second).
"""

from __future__ import annotations

import asyncio

from mockengine.bench.context import BENCH_ENGINE_ARGS, BenchContext
from mockengine.bench.sections import Section


def bench_loops(ctx: BenchContext) -> None:
    from mockengine.loadtest.loops import ROUNDS, compare_loops

    args = ctx.args
    extra = args.engine_args.split() if args.engine_args else []
    result = asyncio.run(compare_loops([*BENCH_ENGINE_ARGS, *extra], args.sessions, args.duration, args.seed))
    ctx.results["loops"] = result
    print(
        f"\nevent loops: {args.sessions} sessions, {args.duration:.0f} s per run, {ROUNDS} rounds in lockstep"
    )
    for name, rows in result["runs"].items():
        cells = "; ".join(
            f"{r['cpu_ms_per_session_s']} ms/session-s, onset p95 {r['onset_p95_ms']} ms, "
            f"response p95 {r['response_p95_ms']} ms"
            for r in rows
        )
        mean = result["mean_cpu_ms_per_session_s"][name]
        print(f"  {name:8} mean {mean} ms CPU per session-second ({cells})")


SECTION = Section("loops", bench_loops, default=False)
