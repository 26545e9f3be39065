"""``--only soak``: study participants for minutes, sessions ending and joining in waves (issue 15).

``mockengine bench --only soak --sessions N --minutes M [--wave-s S] [--soak-plot FILE]``; the driver is
``mockengine.loadtest.soak``, the figures ``mockengine.loadtest.soak_report`` (docs/memory.md).
``--soak-transport webrtc`` soaks WebRTC calls instead: ``--sessions`` talking calls a wave, waves of
``--soak-waves`` minutes (default one wave of ``--minutes``); :mod:`mockengine.bench.rtc_soak`.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from mockengine.bench.context import BenchContext
from mockengine.bench.option_types import minute_list, positive
from mockengine.bench.sections import Section


def bench_soak(ctx: BenchContext) -> None:
    from mockengine.loadtest.soak import run_soak
    from mockengine.loadtest.soak_report import plot_soak, print_summary, summarize

    args = ctx.args
    if args.soak_transport == "webrtc":
        bench_rtc_soak(ctx)
        return
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


def bench_rtc_soak(ctx: BenchContext) -> None:
    from mockengine.bench.rtc_soak import plot_rtc_soak, print_summary, run_rtc_soak, summary

    args = ctx.args
    engine = ctx.engine()  # never None here: run_bench refuses --url with this transport
    run = asyncio.run(
        run_rtc_soak(
            engine, calls=args.sessions, wave_minutes=args.soak_waves or [args.minutes], verbose=args.progress
        )
    )
    result = summary(run)
    samples = [sample.__dict__ for sample in run.samples]
    ctx.results["soak"] = {"transport": "webrtc", **result, "samples": samples}
    print_summary(result)
    if args.soak_plot and plot_rtc_soak(run, Path(args.soak_plot)) is not None:
        print(f"  plot: {args.soak_plot}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--minutes", type=positive(float), default=10.0, help="soak: minutes (default 10)")
    parser.add_argument(
        "--wave-s", type=positive(float), default=120.0, help="soak: mean session length (120 s)"
    )
    parser.add_argument("--soak-plot", help="soak: write RSS, CPU and latency per minute to this PNG")
    parser.add_argument(
        "--soak-transport",
        choices=("websocket", "webrtc"),
        default="websocket",
        help="soak: study participants over WebSocket (default), or talking WebRTC calls in waves",
    )
    parser.add_argument(
        "--soak-waves",
        type=minute_list,
        default=None,
        help="soak, webrtc: minutes of each wave of calls, comma-separated (default: one of --minutes)",
    )


SECTION = Section("soak", bench_soak, default=False, add_arguments=add_arguments)
