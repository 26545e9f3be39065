"""``--only turns``: semantic_vad on the turn corpus, tune and held-out halves per category and
eagerness, and the cost per pause (``mockengine.turn_bench``; a few minutes)."""

from __future__ import annotations

from mockengine.bench.context import BenchContext
from mockengine.bench.sections import Section


def bench_turn_corpus(ctx: BenchContext) -> None:
    from mockengine.turn_bench import bench_turn_corpus as run

    run(ctx)


SECTION = Section("turns", bench_turn_corpus)
