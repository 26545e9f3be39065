"""``--only session``: one simulated participant against the engine, caches warm and caches off, and
piper's real-time factor."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from mockengine.bench.context import BENCH_ENGINE_ARGS, COLD_ARGS, BenchContext
from mockengine.bench.figures import turn_rows
from mockengine.bench.option_types import positive
from mockengine.bench.sections import Section


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
        turn_rows(summary)
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--session-duration", type=positive(float), default=45.0, help="session: seconds (45)"
    )


SECTION = Section("session", bench_session, add_arguments=add_arguments)
