"""server/gc_watch.py: every cycle-collector pass reaches /metrics as a pause of its generation."""

from __future__ import annotations

import gc

from prometheus_client import REGISTRY

from mockengine.server import gc_watch


def _pauses(generation: str) -> tuple[float, float]:
    labels = {"generation": generation}
    count = REGISTRY.get_sample_value("mockengine_gc_pause_seconds_count", labels) or 0.0
    total_s = REGISTRY.get_sample_value("mockengine_gc_pause_seconds_sum", labels) or 0.0
    return count, total_s


def test_install_is_once_and_a_full_collection_is_a_generation_2_pause() -> None:
    gc_watch.install()
    gc_watch.install()
    assert gc.callbacks.count(gc_watch._on_collection) == 1
    gc_watch.flush()
    count_before, sum_before = _pauses("2")
    held = [[i] for i in range(50_000)]  # something for the pass to walk
    gc.collect(2)
    gc.collect(2)
    gc_watch.flush()
    count_after, sum_after = _pauses("2")
    assert count_after - count_before >= 2
    assert sum_after > sum_before
    assert not gc_watch._notes  # flushed
    del held


def test_notes_stay_bounded_without_a_flush_and_a_stop_without_a_start_is_dropped() -> None:
    gc_watch.flush()
    gc_watch._on_collection("stop", {"generation": 0})  # no start seen: nothing to time
    assert not gc_watch._notes
    for _ in range(gc_watch.NOTES_KEPT + 50):
        gc_watch._on_collection("start", {"generation": 0})
        gc_watch._on_collection("stop", {"generation": 0})
    assert len(gc_watch._notes) == gc_watch.NOTES_KEPT
    count_before, _ = _pauses("0")
    gc_watch.flush()
    assert _pauses("0")[0] - count_before >= gc_watch.NOTES_KEPT
