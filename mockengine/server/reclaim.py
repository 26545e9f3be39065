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


class Reclaimer:
    """Debounced reclaim after sessions end (``session_ended``); ``interval_s`` 0 turns it off."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self._pending: asyncio.TimerHandle | None = None
        self.runs = 0

    def session_ended(self) -> None:
        if self.interval_s <= 0 or self._pending is not None:
            return
        loop = asyncio.get_running_loop()
        self._pending = loop.call_later(self.interval_s, lambda: asyncio.ensure_future(self.reclaim()))

    async def reclaim(self) -> None:
        """One full collection, then ``malloc_trim(0)`` off the loop."""
        self._pending = None
        started = time.perf_counter()
        collected = gc.collect()
        collect_ms = (time.perf_counter() - started) * 1000
        if MALLOC_TRIM is not None:
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
