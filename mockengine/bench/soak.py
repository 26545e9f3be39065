"""``--only soak``: study participants for minutes, sessions ending and joining in waves (issue 15).

``mockengine bench --only soak --sessions N --minutes M [--wave-s S] [--soak-plot FILE]``; the driver is
``mockengine.loadtest.soak``, the figures ``mockengine.loadtest.soak_report`` (docs/memory.md).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from mockengine.bench.context import BenchContext
from mockengine.bench.option_types import positive
from mockengine.bench.sections import Section


def bench_soak(ctx: BenchContext) -> None:
    from mockengine.loadtest.soak import run_soak
    from mockengine.loadtest.soak_report import plot_soak, print_summary, summarize

    args = ctx.args
    engine = ctx.engine()
    http_url = engine.http_url if engine is not None else args.url.replace("ws", "http", 1).split("/v1/")[0]
    run = asyncio.run(
        run_soak(
            ctx.engine_url(),
            http_url,
            engine,
            sessions=args.sessions,
            minutes=args.minutes,
            wave_s=args.wave_s,
            turn_every_s=args.turn_every,
            barge_in=args.barge_in,
            seed=args.seed,
        )
    )
    summary = summarize(run)
    ctx.results["soak"] = summary
    print_summary(summary)
    if args.soak_plot and plot_soak(summary, Path(args.soak_plot)) is not None:
        print(f"  plot: {args.soak_plot}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--minutes", type=positive(float), default=10.0, help="soak: minutes (default 10)")
    parser.add_argument(
        "--wave-s", type=positive(float), default=120.0, help="soak: mean session length (120 s)"
    )
    parser.add_argument("--soak-plot", help="soak: write RSS, CPU and latency per minute to this PNG")


SECTION = Section("soak", bench_soak, default=False, add_arguments=add_arguments)
