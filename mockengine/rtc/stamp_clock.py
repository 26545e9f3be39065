"""The pion media plane's microphone clock (``StampClock``) and the resolution every quiet timer's
time is judged at (``CLOCK_RESOLUTION_S``): the stamps the sidecar puts on its batches of packets, and
timers set on them (rtc/pion/plane.py, rtc/inbound.py)."""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Callable

log = logging.getLogger("mockengine.webrtc")


def _nothing() -> None:
    pass


class _Timer:
    __slots__ = ("when", "callback", "cancelled")

    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        # A cancelled timer stays in the clock's heap until a batch stamped past it comes, and none
        # comes once the last call has ended (the sidecar sends no batch then): its callback (a quiet
        # timer's, bound to the call's decoder and through it to the whole call) is let go at once.
        self.cancelled = True
        self.callback = _nothing

    def __lt__(self, other: _Timer) -> bool:
        return self.when < other.when


# A timer this close to its time is on time, on any clock the quiet timer runs on (rtc/inbound.py): a
# time computed as a sum of float stamps can land a hair past the stamp it means. The stamp clock runs
# a timer due within this of a batch's stamp with that batch, as an event loop runs a handle due within
# its clock's resolution; the quiet timer, woken a hair early, counts the quiet as complete (either way,
# missed by a hair, the timer ran a whole batch or tick later).
CLOCK_RESOLUTION_S = 1e-6


class StampClock:
    """The microphones' clock on the pion plane: the time is the sidecar's stamp on the newest batch
    (CLOCK_MONOTONIC, s), and timers set on it (the quiet timer's, rtc/inbound.py) run when a batch
    stamped at or past their time is taken, before its packets.

    On the loop's own clock a sidecar held back for over 100 ms (a busy machine) looked to the quiet
    timer like a user who fell silent: silence was inserted mid-word before the held packets came
    ("capital of France" was transcribed "capital of rans"). By the stamps, a late batch is late, not quiet.
    """

    def __init__(self) -> None:
        self._now_s = time.monotonic()
        self._timers: list[_Timer] = []

    def time(self) -> float:
        return self._now_s

    def call_at(self, when: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(when, callback)
        heapq.heappush(self._timers, timer)
        return timer

    def advance(self, now_s: float) -> None:
        """Time is ``now_s`` (never going back): the timers due by then run, in their order. Timers
        they set run at a later batch (as an event loop runs the callbacks set during an iteration in
        the next): one re-armed for a time the float sum put a hair before ``now_s`` ran for good."""
        timers = self._timers
        self._now_s = max(self._now_s, now_s)
        due = []
        while timers and timers[0].when <= now_s + CLOCK_RESOLUTION_S:
            due.append(heapq.heappop(timers))
        for timer in due:
            if not timer.cancelled:
                try:
                    timer.callback()
                except Exception:
                    log.exception("pion media plane: a microphone timer failed")
        if len(timers) > 64 and sum(t.cancelled for t in timers) > len(timers) // 2:
            self._timers = [t for t in timers if not t.cancelled]
            heapq.heapify(self._timers)
