"""Give a finished session's memory back to the system.

Measured (issue 15): after waves of load sessions the engine's RSS grew by what the sessions had held
and never came back down, for two reasons.

1. Garbage waits for the cycle collector. A session's objects form reference cycles (bound-method
   handler tables, runner ↔ fault hooks, tasks), so they are freed only by a collection of the oldest
   generation — which ``serve`` makes rare (start-up heap frozen, young threshold 20,000). The session's
   bulk (item audio, buffers) is released at close (``RealtimeSession.close``); the remaining skeleton is
   collected here.
2. glibc's malloc keeps freed memory in its heap (the many small audio chunks of a session leave it
   fragmented, and the heap's top is rarely free), so freed memory does not leave the process until
   ``malloc_trim(0)`` returns every free page (``madvise``) to the kernel.

So a while after a session ends (``reclaim_interval_s``, at most once per interval however many end),
one full collection runs on the loop and ``malloc_trim`` in a worker thread (it takes the allocator's
locks, not the GIL). Off glibc only the collection runs.

The full collection is gated too. It walks every object the collector tracks, on the loop: at 200
sessions one took 258 ms of wall time (90 ms of CPU; timed with ``gc.callbacks`` under load, docs/cpu.md),
so run every ``reclaim_interval_s`` while sessions end one a second it held the loop often enough to show
in the soak's p95 onset. While the load is steady it now runs at most once per
:data:`STEADY_COLLECT_S` (the skeletons of the sessions that ended in between wait that long: a few MiB
at most); once the load has fallen away it runs at once, with the trim.

The trim runs only once the load has fallen away: no session left, or at most a quarter of the most
sessions seen since the last trim. While sessions come and go at a steady level the pages a trim would
return are faulted straight back in by the next sessions, and the trim holds the main arena's lock for
its whole walk of the heap: with Python's objects on ``malloc`` (``server/allocator.py``) every object
the event loop allocates waits for it (measured in isolation: a 23 ms trim stalled an allocating thread
38 ms). The soak's occasional slow ``/healthz`` round trips are not the trim's: they stay with the trim
gated (docs/memory.md).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("mockengine.reclaim")


def _load_malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
    if trim is not None:
        trim.argtypes = [ctypes.c_size_t]
        trim.restype = ctypes.c_int
    return trim


MALLOC_TRIM = _load_malloc_trim()
# the trim waits until at most this share of the recent peak of sessions is left (see the module doc)
TRIM_SHARE = 0.25
# while the load is steady, at most one full collection per this many seconds (see the module doc)
STEADY_COLLECT_S = 60.0


class Reclaimer:
    """Debounced reclaim after sessions end (``session_ended``); ``interval_s`` 0 turns it off;
    ``clock_s`` (monotonic seconds) times the steady load's full collections.

    ``active`` (default: always 0) gives the number of sessions open now; the trim waits until it is at
    most :data:`TRIM_SHARE` of the most seen at a session's end since the last trim."""

    def __init__(
        self,
        interval_s: float,
        active: Callable[[], int] = lambda: 0,
        clock_s: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval_s = interval_s
        self._active = active
        self._clock_s = clock_s
        self._pending: asyncio.TimerHandle | None = None
        self._peak_active = 0
        self._last_collect_s = clock_s()
        self.runs = 0
        self.collections = 0
        self.trims = 0

    def session_ended(self) -> None:
        self._peak_active = max(self._peak_active, self._active() + 1)  # counted before it left
        if self.interval_s <= 0 or self._pending is not None:
            return
        loop = asyncio.get_running_loop()
        self._pending = loop.call_later(self.interval_s, lambda: asyncio.ensure_future(self.reclaim()))

    def trim_due(self) -> bool:
        """Whether the load has fallen far enough for ``malloc_trim`` to be worth its stall."""
        return self._active() <= self._peak_active * TRIM_SHARE

    async def reclaim(self) -> None:
        """Once the load has fallen away: one full collection, then ``malloc_trim(0)`` off the loop. While
        it is steady: the full collection alone, at most once per :data:`STEADY_COLLECT_S`."""
        self._pending = None
        started = time.perf_counter()
        fallen = self.trim_due()
        collected = 0
        if fallen or self._clock_s() - self._last_collect_s >= STEADY_COLLECT_S:
            collected = gc.collect()
            self._last_collect_s = self._clock_s()
            self.collections += 1
        collect_ms = (time.perf_counter() - started) * 1000
        if MALLOC_TRIM is not None and fallen:
            self._peak_active = self._active()
            self.trims += 1
            await asyncio.get_running_loop().run_in_executor(None, MALLOC_TRIM, 0)
        self.runs += 1
        log.debug(
            "reclaimed: %d objects collected in %.1f ms, trimmed in %.1f ms",
            collected,
            collect_ms,
            (time.perf_counter() - started) * 1000 - collect_ms,
        )

    def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
