"""Load profiles: when each simulated session starts and stops (seconds from the start of the run).

* ``steady``: all sessions start within the first ``ramp_s`` (evenly spread, so connections do not all
  land in the same millisecond) and run to the end.
* ``ramp``: sessions start evenly over ``ramp_s`` (default: the whole duration) and run to the end, so
  the concurrency grows linearly and figures can be read against it.
* ``spike``: a quarter of the sessions run throughout; the rest join together at 40 % of the duration
  and leave at 70 %.
"""

from __future__ import annotations

from dataclasses import dataclass

PROFILES = ("steady", "ramp", "spike")


@dataclass(frozen=True)
class Schedule:
    start_s: float
    stop_s: float


@dataclass(frozen=True)
class LoadProfile:
    kind: str
    sessions: int
    duration_s: float
    ramp_s: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {self.kind!r}")
        if self.sessions < 1 or self.duration_s <= 0:
            raise ValueError("a profile needs at least one session and a positive duration")

    def schedules(self) -> list[Schedule]:
        """One (start, stop) per session, in session order."""
        n, duration = self.sessions, self.duration_s
        if self.kind == "ramp":
            ramp = duration if self.ramp_s is None else min(self.ramp_s, duration)
            return [Schedule(ramp * i / n, duration) for i in range(n)]
        ramp = min(self.ramp_s if self.ramp_s is not None else 2.0, duration / 4)
        if self.kind == "steady":
            return [Schedule(ramp * i / n, duration) for i in range(n)]
        base = max(1, n // 4)
        spread = min(1.0, duration / 10)
        return [Schedule(ramp * i / base, duration) for i in range(base)] + [
            Schedule(0.4 * duration + spread * i / (n - base), 0.7 * duration) for i in range(n - base)
        ]

    def concurrency_at(self, t_s: float) -> int:
        """Sessions scheduled to be running at ``t_s``."""
        return sum(1 for s in self.schedules() if s.start_s <= t_s < s.stop_s)
