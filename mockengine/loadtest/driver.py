"""Run a load profile of simulated participants against one URL and summarize what they measured.

``run_load(url, profile, ...)`` returns a ``LoadReport``: the per-session results and ``summary()``, a
JSON-ready dict of p50/p95/p99 per figure, errors, refused / dropped sessions, lost events and how well
the driver itself kept real-time pace (``late_chunk_share``: a driver that falls behind would make any
engine look slow, so the capacity search treats it as a failed level).
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from mockengine.conformance.audio import load_clips
from mockengine.loadtest.participant import ClipMessages, Participant, RunState, SessionResult
from mockengine.loadtest.profile import LoadProfile

# Clips a participant speaks; "interrupt" is what it says when it barges in.
TURN_CLIPS = ("question", "colour_question", "interrupt")


# A driver later than this on its 20 ms chunks measures its own delay as much as the engine's: the
# capacity climb fails such a level, and the load and soak reports say so beside their figures.
DRIVER_LATE_SHARE_MAX = 0.01


def driver_late_caveat(late_chunk_share: float) -> str | None:
    """One sentence for a report when the driver fell behind real time on more than
    :data:`DRIVER_LATE_SHARE_MAX` of its audio chunks (``late_chunk_share`` 0–1), else None."""
    if late_chunk_share <= DRIVER_LATE_SHARE_MAX:
        return None
    return (
        f"the driver fell behind on {100 * late_chunk_share:.2f} % of its audio chunks (over "
        f"{100 * DRIVER_LATE_SHARE_MAX:.0f} %): the machine was busy, so the latencies and verdicts include "
        "the driver's own delay; rerun with fewer --sessions or on a quieter machine"
    )


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0-100) by linear interpolation, None for no values."""
    if not values:
        return None
    data = sorted(values)
    pos = (len(data) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def distribution(values: list[float]) -> dict[str, Any]:
    """count, p50, p95, p99, max of ``values`` (ms), rounded to 0.1."""

    def r(v: float | None) -> float | None:
        return None if v is None else round(v, 1)

    return {
        "count": len(values),
        "p50": r(percentile(values, 50)),
        "p95": r(percentile(values, 95)),
        "p99": r(percentile(values, 99)),
        "max": r(max(values)) if values else None,
    }


@dataclass
class LoadReport:
    url: str
    profile: LoadProfile
    wall_s: float
    sessions: list[SessionResult] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        turns = [t for s in self.sessions for t in s.turns]
        errors: Counter[str] = Counter()
        lost: Counter[str] = Counter()
        for s in self.sessions:
            errors.update(s.errors)
            lost.update(s.lost_events)
        sent = sum(s.chunks_sent for s in self.sessions)
        late = sum(s.chunks_late for s in self.sessions)
        return {
            "url": self.url,
            "profile": {
                "kind": self.profile.kind,
                "sessions": self.profile.sessions,
                "duration_s": self.profile.duration_s,
            },
            "wall_s": round(self.wall_s, 1),
            "sessions_connected": sum(s.connected for s in self.sessions),
            "sessions_refused": sum(s.refused for s in self.sessions),
            "sessions_failed_to_connect": sum(not s.connected and not s.refused for s in self.sessions),
            "sessions_dropped": sum(s.dropped for s in self.sessions),
            "turns": len(turns),
            "turns_missed": sum(s.missed_turns for s in self.sessions),
            "barge_ins": sum(t.barged_in for t in turns),
            "lost_events": sum(lost.values()),
            "lost_events_by_reason": {k: v for k, v in lost.items() if v},
            "errors": dict(errors),
            "onset_to_speech_started_ms": distribution([t.onset_ms for t in turns if t.onset_ms is not None]),
            "speech_stopped_to_first_audio_ms": distribution(
                [t.response_ms for t in turns if t.response_ms is not None]
            ),
            "cancel_to_done_ms": distribution([t.cancel_ms for t in turns if t.cancel_ms is not None]),
            "event_gap_ms": distribution([g for s in self.sessions for g in s.gaps_ms]),
            "ack_ms": distribution([a[2] for s in self.sessions for a in s.acks_ms]),
            "chunks_sent": sent,
            "late_chunk_share": round(late / sent, 4) if sent else 0.0,
            **self.extra,
        }

    def samples(self) -> list[dict[str, Any]]:
        """Every turn and ack with the concurrency it saw (for plots against concurrency)."""
        rows: list[dict[str, Any]] = [
            {
                "at_s": t.at_s,
                "concurrency": t.concurrency,
                "onset_ms": t.onset_ms,
                "response_ms": t.response_ms,
                "cancel_ms": t.cancel_ms,
            }
            for s in self.sessions
            for t in s.turns
        ]
        rows += [
            {"at_s": a[0], "concurrency": a[1], "ack_ms": a[2]} for s in self.sessions for a in s.acks_ms
        ]
        return rows


def load_turn_clips() -> list[ClipMessages]:
    """The packaged conformance clips a participant speaks, cut into ready append messages."""
    clips = load_clips()
    return [ClipMessages.of(clips[name]) for name in TURN_CLIPS if name in clips]


async def run_load(
    url: str,
    profile: LoadProfile,
    *,
    mode: str = "realtime",
    seed: int = 1,
    turn_every_s: float = 10.0,
    barge_in: float = 0.2,
    progress: bool = True,
    label: str = "",
) -> LoadReport:
    """Run ``profile`` against ``url`` (a Realtime endpoint, or the baseline with ``mode="baseline"``)."""
    clips = load_turn_clips()
    loop = asyncio.get_running_loop()
    run = RunState(t0=loop.time() + 0.2)
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    timeout = aiohttp.ClientTimeout(total=None, connect=30, sock_connect=30)
    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        participants = [
            Participant(
                i, url, clips, run, seed=seed, turn_every_s=turn_every_s, barge_in=barge_in, mode=mode
            )
            for i in range(profile.sessions)
        ]
        ticker = asyncio.create_task(_progress(run, participants, profile, label)) if progress else None
        results = await asyncio.gather(
            *(
                p.run(http, s.start_s, s.stop_s)
                for p, s in zip(participants, profile.schedules(), strict=True)
            )
        )
        if ticker is not None:
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)
            print(file=sys.stderr)
    return LoadReport(url, profile, time.perf_counter() - started, list(results))


async def _progress(run: RunState, participants: list[Participant], profile: LoadProfile, label: str) -> None:
    """A one-line progress bar on stderr: elapsed time, sessions, turns, live p95s, errors."""
    loop = asyncio.get_running_loop()
    is_tty = sys.stderr.isatty()
    last_line = 0.0
    while True:
        await asyncio.sleep(0.5)
        elapsed = loop.time() - run.t0
        share = min(1.0, elapsed / profile.duration_s)
        bar = "#" * int(share * 20) + "." * (20 - int(share * 20))
        turns = [t for p in participants for t in p.result.turns]
        onset = percentile([t.onset_ms for t in turns if t.onset_ms is not None], 95)
        reply = percentile([t.response_ms for t in turns if t.response_ms is not None], 95)
        acks = percentile([a[2] for p in participants for a in p.result.acks_ms], 95)
        errors = sum(sum(p.result.errors.values()) for p in participants)
        dropped = sum(p.result.dropped for p in participants)
        figures = (
            f"ack p95 {_ms(acks)}" if acks is not None else f"onset p95 {_ms(onset)}  reply p95 {_ms(reply)}"
        )
        line = (
            f"{label}[{bar}] {elapsed:5.1f}/{profile.duration_s:.0f} s  sessions {run.active:>4}/"
            f"{profile.sessions}  turns {len(turns):>5}  {figures}  errors {errors}  dropped {dropped}"
        )
        if is_tty:
            print("\r" + line, end="", file=sys.stderr, flush=True)
        elif elapsed - last_line >= 5:
            print(line, file=sys.stderr, flush=True)
            last_line = elapsed


def _ms(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:4.0f} ms"
