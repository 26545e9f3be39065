"""The cycle collector's pauses and the event loop's stalls, as ``/metrics`` histograms.

A collection holds the GIL for its whole walk of the generation it collects, so every thread waits,
the event loop included; a full (generation 2) collection walks every object the collector tracks,
which grows with what the sessions hold. Issue 15's 30-minute WebRTC level showed late onsets that grew
with the calls' age while the loop was not saturated; these two histograms say, minute by minute,
whether the loop stalled and how much of it the collector's pauses explain:

* ``mockengine_gc_pause_seconds{generation}``: the wall time of each collection (``gc.callbacks``), in
  any thread;
* ``mockengine_event_loop_lag_probe_seconds``: how late each 100 ms probe timer of
  :class:`~mockengine.server.admission.LoopLagMonitor` ran (the gauge ``…_event_loop_lag_seconds`` keeps
  only the last).

The callback only notes ``(generation, seconds)`` in a bounded deque: it runs inside the collector,
in whatever thread triggered it, possibly while that thread holds a metric's lock (a Prometheus
observation there could deadlock). :func:`flush` hands the notes to the histogram from the loop's
probe, every 100 ms.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from typing import Any

from prometheus_client import Histogram

# Pauses from 1 ms (a young collection) to seconds (a full one over millions of objects).
PAUSE_BUCKETS_S = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
GC_PAUSE = Histogram(
    "mockengine_gc_pause_seconds",
    "Wall time of each cycle-collector pass, by generation (the GIL held throughout)",
    ["generation"],
    buckets=PAUSE_BUCKETS_S,
)
for _generation in ("0", "1", "2"):  # shown from the start, so a bench reads the change from zero
    GC_PAUSE.labels(generation=_generation)
LOOP_LAG_PROBES = Histogram(
    "mockengine_event_loop_lag_probe_seconds",
    "How late each 100 ms event-loop probe timer ran",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)

NOTES_KEPT = 10_000  # a flush every 100 ms meets tens; more only when no loop is probing
_notes: deque[tuple[int, float]] = deque(maxlen=NOTES_KEPT)
_started_s: float | None = None


def _on_collection(phase: str, info: dict[str, Any]) -> None:
    # No allocation beyond the tuple: the collector is running (collections never nest, so one start
    # time serves every thread).
    global _started_s
    if phase == "start":
        _started_s = time.perf_counter()
    elif _started_s is not None:
        _notes.append((info["generation"], time.perf_counter() - _started_s))
        _started_s = None


def install() -> None:
    """Time every collection from now on (once per process, however often called)."""
    if _on_collection not in gc.callbacks:
        gc.callbacks.append(_on_collection)


def flush() -> None:
    """Observe the collections noted since the last flush (called by the loop's probe)."""
    while _notes:
        generation, seconds = _notes.popleft()
        GC_PAUSE.labels(generation=str(generation)).observe(seconds)
