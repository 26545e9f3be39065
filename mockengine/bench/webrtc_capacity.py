"""The WebRTC capacity climb: talking calls level by level against one engine per media plane.

Shared by ``mockengine bench --only webrtc`` (:func:`mockengine.bench.webrtc.capacity_levels`) and
``tools/media_plane_bench.py``. A level of N calls is driven by one of two drivers:

* ``pion`` (:func:`mockengine.bench.pion_driver.pion_talking_calls`): one Go process (``make
  pion-driver``) playing the ``question`` clip's Opus packets on every call, ~1–3 ms of CPU per call-second;
* ``aiortc`` (:func:`mockengine.bench.webrtc_load.talking_calls`): aiortc clients in spawned processes,
  ~5 ms per call-second on a quiet machine and far more once they starve, on the engine's own cores.

Each driver opens its calls, then the engine is read (:class:`EngineProbe`: CPU of its event-loop
thread, its whole process and its children, i.e. the pion sidecar; resident memory of the process and
of its children), the calls talk for the level's seconds, and the engine is read again. The figures of
a level (:func:`measure_level`, one dict) are per call-second (ms) and per call-minute (MiB), so levels
of different sizes and lengths compare. A level longer than :data:`PER_MINUTE_AFTER_S` also gets its
onsets minute by minute (:func:`onsets_per_minute`): a level's one p95 cannot tell a slow drift (a
30-min level of 100 calls: p95 520 ms, against 177 ms over 60 s) from a few bad minutes.
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import statistics
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the section modules are imported to build the command line: aiohttp only when run
    from mockengine.loadtest.processes import Child

ONSET_P95_GOAL_MS = 250.0  # issue 16: speech onset → speech_started, p95
PLANES = ("pion", "aiortc")
DRIVERS = ("pion", "aiortc")
WARM_UP_CALLS, WARM_UP_S = 2, 8.0  # the models and caches loaded before the first level
MIB = 1024 * 1024
PER_MINUTE_AFTER_S = 120.0  # levels longer than this get their onsets per minute too


def p95(values: list[float]) -> float | None:
    """The 95th percentile (``statistics.quantiles``' exclusive method), the one value of a list of one,
    None for none."""
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else (values[0] if values else None)


def onsets_per_minute(onsets_ms: list[float], at_s: list[float], seconds: float) -> list[dict[str, Any]]:
    """A level's onsets by the minute they were measured in: ``[{"minute": 1, "seconds": 60.0, "onsets": N,
    "onset_p95_ms": P or None}, ...]``, one per started minute of ``seconds`` (a minute without a single
    onset kept: a stall shows); ``seconds``: how much of the level the minute spans (the last one may be
    shorter). ``at_s[i]`` is when ``onsets_ms[i]`` was measured, seconds since the calls began talking;
    the drivers end on whole loops of the clip, so the few onsets measured after ``seconds`` count in
    the last minute."""
    minutes = max(1, math.ceil(seconds / 60))
    buckets: list[list[float]] = [[] for _ in range(minutes)]
    for onset_ms, at in zip(onsets_ms, at_s, strict=True):
        buckets[min(max(0, int(at // 60)), minutes - 1)].append(onset_ms)
    rows = []
    for minute, bucket in enumerate(buckets, start=1):
        bucket_p95 = p95(bucket)
        rows.append(
            {
                "minute": minute,
                "seconds": round(float(min(60.0, seconds - 60 * (minute - 1))), 1),
                "onsets": len(bucket),
                "onset_p95_ms": None if bucket_p95 is None else round(bucket_p95),
            }
        )
    return rows


def _cpu_s(stat_path: Path) -> float:
    fields = stat_path.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_by_role(pid: int, start: Reading, end: Reading) -> dict[str, float]:
    """CPU seconds each role of the engine's threads spent between two readings, busiest first
    (:func:`mockengine.loadtest.processes.cpu_by_role`: ``loop``, ``stt``, ``whisper``, ``tts``,
    ``piper``, ``brain``, ``journal``, ``default``, ``unnamed``)."""
    from mockengine.loadtest.processes import cpu_by_role as roles

    return roles(pid, start.threads_cpu_s, end.threads_cpu_s, end.thread_names)


@dataclass(frozen=True)
class Reading:
    """The engine at one moment (``/proc``): CPU seconds so far, resident bytes now."""

    engine_cpu_s: float  # the engine's process, every thread
    loop_cpu_s: float  # its main thread: the event loop
    sidecar_cpu_s: float  # its child processes (the pion sidecar; 0 on the aiortc plane)
    threads_cpu_s: dict[int, float]  # each thread of the engine's process by id
    engine_rss_bytes: int
    sidecar_rss_bytes: int
    thread_names: dict[int, str] = field(default_factory=dict)  # their kernel names (comm)
    at_s: float = 0.0  # time.monotonic() of the reading


@dataclass
class EngineProbe:
    """What a driver reads the engine's CPU from (``cpu_seconds()``, called when its calls are open and
    again when they have talked): each call also keeps a :class:`Reading` in ``readings``.

    With ``sample_s`` set, a thread also reads the engine every ``sample_s`` seconds between the two
    calls, with its /metrics counts (:func:`cache_lookups` of ``counts_url``) when that is set:
    ``samples`` holds ``(Reading, counts)`` from the first call to the second, both included."""

    pid: int
    readings: list[Reading] = field(default_factory=list)
    sample_s: float | None = None
    counts_url: str | None = None
    samples: list[tuple[Reading, dict[str, float]]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _sampler: threading.Thread | None = None

    def _counts(self) -> dict[str, float]:
        return cache_lookups(self.counts_url) if self.counts_url else {}

    def _sample(self, start: Reading) -> None:
        self.samples.append((start, self._counts()))
        while self.sample_s is not None and not self._stop.wait(self.sample_s):
            self.samples.append((self.read(), self._counts()))

    def reset(self) -> None:
        """Forget the readings and samples of a previous level."""
        self.readings.clear()
        self.samples.clear()

    def read(self) -> Reading:
        from mockengine.loadtest.processes import (
            main_thread_cpu_seconds,
            process_rss_bytes,
            thread_readings,
            tree_cpu_seconds,
            tree_rss_bytes,
        )

        # The loop's thread first, then its process: the process's figure then covers every tick the
        # loop's has. /proc gives whole clock ticks, so over a short level the two differences can still
        # disagree by a few ticks either way.
        loop_cpu_s = main_thread_cpu_seconds(self.pid) or 0.0
        tree_cpu_s, tree_rss = tree_cpu_seconds(self.pid) or 0.0, tree_rss_bytes(self.pid) or 0
        engine_cpu_s = _cpu_s(Path(f"/proc/{self.pid}/stat"))
        engine_rss = process_rss_bytes(self.pid)
        threads_cpu_s, thread_names = thread_readings(self.pid)
        return Reading(
            engine_cpu_s=engine_cpu_s,
            loop_cpu_s=loop_cpu_s,
            sidecar_cpu_s=max(0.0, tree_cpu_s - engine_cpu_s),
            threads_cpu_s=threads_cpu_s,
            engine_rss_bytes=engine_rss,
            sidecar_rss_bytes=max(0, tree_rss - engine_rss),
            thread_names=thread_names,
            at_s=time.monotonic(),
        )

    def cpu_seconds(self) -> float:
        reading = self.read()
        self.readings.append(reading)
        if len(self.readings) == 1 and self.sample_s is not None:
            self._stop.clear()
            self._sampler = threading.Thread(target=self._sample, args=(reading,), daemon=True)
            self._sampler.start()
        elif self._sampler is not None:
            self._stop.set()
            self._sampler.join()
            self._sampler = None
            self.samples.append((reading, self._counts()))
        return reading.engine_cpu_s + reading.sidecar_cpu_s


# /metrics samples read beside the cache lookups: the transcript cache's fingerprint searches and the
# engine calls of each executor (server/metrics.py), by the key a level's row gives them.
_COUNTED = {
    'mockengine_transcript_fingerprint_searches_total{result="hit"}': "fingerprint_hits",
    'mockengine_transcript_fingerprint_searches_total{result="miss"}': "fingerprint_misses",
    "mockengine_transcript_fingerprint_comparisons_total": "fingerprint_comparisons",
    "mockengine_transcript_fingerprint_search_cpu_seconds_total": "fingerprint_cpu_s",
    "mockengine_transcript_fingerprint_search_seconds_total": "fingerprint_wall_s",
    'mockengine_engine_call_seconds_count{engine="stt"}': "stt_calls",
    'mockengine_engine_call_seconds_count{engine="tts"}': "tts_calls",
    'mockengine_engine_call_seconds_count{engine="brain"}': "brain_calls",
    # server/gc_watch.py: the collector's pauses and the loop's late probes (stalls)
    **{
        f'mockengine_gc_pause_seconds_{part}{{generation="{g}"}}': f"gc{g}_{key}"
        for g in "012"
        for part, key in (("count", "collections"), ("sum", "pause_s"))
    },
    'mockengine_gc_pause_seconds_bucket{generation="2",le="0.1"}': "gc2_within_100ms",
    "mockengine_event_loop_lag_probe_seconds_count": "loop_probes",
    'mockengine_event_loop_lag_probe_seconds_bucket{le="0.1"}': "loop_probes_within_100ms",
    'mockengine_event_loop_lag_probe_seconds_bucket{le="0.25"}': "loop_probes_within_250ms",
}


def cache_lookups(http_url: str) -> dict[str, float]:
    """The engine's counts so far from /metrics: cache lookups by cache and result (``transcripts_hit``,
    ``speech_miss``, ...: a turn transcribed by whisper is a ``transcripts_miss``, a reply synthesised
    by piper a ``speech_miss``; a fingerprint hit is also a ``transcripts_hit``), the transcript cache's
    fingerprint searches (``fingerprint_hits``, ``fingerprint_misses``, ``fingerprint_comparisons``,
    ``fingerprint_cpu_s``, ``fingerprint_wall_s``), the executors' calls (``stt_calls``: whisper or a
    fingerprint search, ``tts_calls``, ``brain_calls``), the cycle collector's passes and their wall
    time by generation (``gc2_collections``, ``gc2_pause_s``, ``gc2_within_100ms``, ``gc0_…``, ``gc1_…``)
    and the loop's 100 ms probes (``loop_probes``, ``loop_probes_within_100ms`` / ``_250ms``); empty
    when /metrics does not answer within a minute. Counts are ints, seconds floats."""
    try:  # a figure left out rather than the run lost: a starved engine may answer late
        text = urllib.request.urlopen(f"{http_url}/metrics", timeout=60).read().decode()
    except OSError:
        return {}
    found: dict[str, float] = {}
    for match in re.finditer(
        r'^mockengine_cache_lookups_total\{cache="(\w+)",result="(\w+)"\} (\S+)$', text, re.M
    ):
        found[f"{match[1]}_{match[2]}"] = int(float(match[3]))
    for line in text.splitlines():
        sample, _, value = line.rpartition(" ")
        key = _COUNTED.get(sample)
        if key is not None:
            found[key] = float(value) if key.endswith("_s") else int(float(value))
    return found


def counts_between(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """``after - before`` key by key (a key missing before counts from 0), seconds rounded to ms, plus
    ``transcripts_exact_hits`` (transcript hits that were not a fingerprint's) with ``transcripts_hit``,
    ``gc2_over_100ms`` (full collections that held the GIL over 100 ms) and ``loop_late_100ms`` /
    ``loop_late_250ms`` (loop probes that ran that much late: stalls) in place of the buckets."""
    found: dict[str, float] = {}
    for key, value in sorted(after.items()):
        change = value - before.get(key, 0)
        found[key] = round(change, 3) if isinstance(change, float) else change
    if "transcripts_hit" in found:  # an engine yet to search (or without the fingerprint) shows no hits
        found["transcripts_exact_hits"] = found["transcripts_hit"] - found.get("fingerprint_hits", 0)
    if "gc2_within_100ms" in found:
        found["gc2_over_100ms"] = found["gc2_collections"] - found.pop("gc2_within_100ms")
    if "loop_probes" in found:
        for ms in (100, 250):
            found[f"loop_late_{ms}ms"] = found["loop_probes"] - found.pop(f"loop_probes_within_{ms}ms", 0)
    return found


def load_average() -> float:
    """The 1-min load average: how busy the machine was besides the level (the figures are not
    comparable across loads)."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def http_base(url: str) -> str:
    """``http://host:port`` of an engine's ``ws(s)://host:port/v1/realtime?…`` URL."""
    scheme, rest = url.split("://", 1)
    return f"{'https' if scheme in ('wss', 'https') else 'http'}://{rest.split('/', 1)[0]}"


def drive(
    driver: str,
    probe: EngineProbe | None,
    url: str,
    calls: int,
    seconds: float,
    per_process: int,
    stagger: bool = False,
) -> Any:
    """``calls`` talking calls for ``seconds`` from ``driver`` (``pion`` or ``aiortc``; ``per_process``:
    the aiortc driver's calls per process; ``stagger``: the pion driver's calls spread their clip loops
    over one loop): a :class:`~mockengine.bench.webrtc_load.LevelResult`."""
    if driver == "pion":
        from mockengine.bench.pion_driver import pion_talking_calls

        return pion_talking_calls(probe, url, calls, seconds, stagger=stagger)
    from mockengine.bench.webrtc_load import talking_calls

    return talking_calls(probe, url, calls, seconds, per_process)


def _per_call_s(value: float, call_s: float) -> float:
    return round(value * 1000 / call_s, 1)


def measure_level(
    probe: EngineProbe | None,
    driver: str,
    url: str,
    calls: int,
    seconds: float,
    per_process: int,
    stagger: bool = False,
) -> dict[str, Any]:
    """One level: ``calls`` talking calls for ``seconds``, its figures as one JSON-ready dict: ``calls``,
    ``opened``, ``onsets`` (turns heard), ``onset_p95_ms``; for a level longer than
    :data:`PER_MINUTE_AFTER_S` whose driver says when each onset was measured, ``per_minute``
    (:func:`onsets_per_minute`); per call-second (ms, None without a probe):
    ``loop_ms`` (the event loop), ``process_ms`` (the engine's whole process), ``sidecar_ms``,
    ``threads_ms`` (the 4 busiest threads besides the loop), ``thread_ms`` (every thread role, ``loop``
    included: :func:`cpu_by_role`), ``driver_ms``; ``rss_start_mib`` /
    ``rss_end_mib`` (engine + sidecar when the calls began / ended talking), ``sidecar_rss_start_mib``
    / ``sidecar_rss_end_mib``, ``rss_mib_per_call_minute`` (the growth while talking); ``load``
    (before → after), ``at`` (UTC), and the engine's counts over the level (:func:`counts_between` of
    :func:`cache_lookups`: ``transcripts_miss``: turns whisper transcribed; ``transcripts_exact_hits``,
    ``fingerprint_hits`` / ``fingerprint_misses`` and their ``fingerprint_cpu_s``; ``stt_calls``,
    ``tts_calls``; ``speech_miss``: replies piper spoke). A long level's ``per_minute`` rows get
    ``thread_ms`` and the counts of their minute too (:func:`add_minute_threads`)."""
    base = http_base(url)
    load_before = load_average()
    lookups_before = cache_lookups(base)
    if probe is not None:
        probe.reset()
        probe.sample_s = 60.0 if seconds > PER_MINUTE_AFTER_S else None
        probe.counts_url = base
    run = drive(driver, probe, url, calls, seconds, per_process, stagger)
    level_p95 = p95(run.onsets_ms)
    driver_ms = run.driver_ms_per_call_second
    row: dict[str, Any] = {
        "calls": calls,
        "opened": run.opened,
        "onsets": len(run.onsets_ms),
        "onset_p95_ms": None if level_p95 is None else round(level_p95),
        "driver_ms": None if driver_ms is None else round(driver_ms, 1),
    }
    if seconds > PER_MINUTE_AFTER_S and run.onset_at_s is not None:
        row["per_minute"] = onsets_per_minute(run.onsets_ms, run.onset_at_s, seconds)
    if probe is not None and len(probe.readings) == 2 and run.opened:
        start, end = probe.readings
        call_s = run.opened * run.engine_wall_s
        before, after = start.threads_cpu_s, end.threads_cpu_s
        others = sorted((after[t] - before.get(t, 0.0) for t in after if t != probe.pid), reverse=True)
        rss_start = start.engine_rss_bytes + start.sidecar_rss_bytes
        rss_end = end.engine_rss_bytes + end.sidecar_rss_bytes
        row |= {
            "loop_ms": _per_call_s(end.loop_cpu_s - start.loop_cpu_s, call_s),
            "process_ms": _per_call_s(end.engine_cpu_s - start.engine_cpu_s, call_s),
            "sidecar_ms": _per_call_s(end.sidecar_cpu_s - start.sidecar_cpu_s, call_s),
            "threads_ms": [_per_call_s(cpu_s, call_s) for cpu_s in others[:4]],
            "thread_ms": {
                role: _per_call_s(cpu_s, call_s) for role, cpu_s in cpu_by_role(probe.pid, start, end).items()
            },
            "rss_start_mib": round(rss_start / MIB, 1),
            "rss_end_mib": round(rss_end / MIB, 1),
            "sidecar_rss_start_mib": round(start.sidecar_rss_bytes / MIB, 1),
            "sidecar_rss_end_mib": round(end.sidecar_rss_bytes / MIB, 1),
            "rss_mib_per_call_minute": round((rss_end - rss_start) / MIB / (call_s / 60), 3),
        }
    row["load"] = f"{load_before:.1f}->{load_average():.1f}"
    row["at"] = time.strftime("%H:%M:%S", time.gmtime())
    row |= counts_between(lookups_before, cache_lookups(base))
    if "per_minute" in row and probe is not None and run.opened:
        add_minute_threads(row["per_minute"], probe, run.opened)
    return row


def add_minute_threads(minutes: list[dict[str, Any]], probe: EngineProbe, opened: int) -> None:
    """Into each row of ``minutes`` (:func:`onsets_per_minute`'s) that the probe sampled: ``thread_ms``
    (CPU ms per call-second by thread role, :func:`cpu_by_role`) and the minute's counts
    (:func:`counts_between`: fingerprint searches, whisper runs, ...). A minute the sampler did not reach
    (the level ended early, the machine starved) keeps its onsets alone."""
    for row, (start, end) in zip(minutes, zip(probe.samples, probe.samples[1:], strict=False), strict=False):
        call_s = opened * (end[0].at_s - start[0].at_s)
        if call_s <= 0:
            continue
        row["thread_ms"] = {
            role: _per_call_s(cpu_s, call_s)
            for role, cpu_s in cpu_by_role(probe.pid, start[0], end[0]).items()
        }
        row |= counts_between(start[1], end[1])


def meets_goal(row: dict[str, Any]) -> bool:
    """Every call opened, at least one turn heard per call, p95 onset within the goal."""
    p95_ms = row["onset_p95_ms"]
    return (
        row["opened"] == row["calls"]
        and row["onsets"] >= row["calls"]
        and p95_ms is not None
        and p95_ms <= ONSET_P95_GOAL_MS
    )


def plane_engine_args(plane: str, udp_port: int | None = None) -> list[str]:
    """``serve`` options for an engine on ``plane``: the transcript fingerprint on (the capacity goal is
    stated with the caches, docs/webrtc.md), the plane, the pion plane's UDP port when given."""
    extra = ["--media-udp-port", str(udp_port)] if plane == "pion" and udp_port else []
    return ["--stt-cache-fingerprint", "--media-plane", plane, *extra]


def start_plane_engine(args: list[str], driver: str, port: int | None = None) -> Child:
    """``mockengine serve ARGS`` on ``port`` (default a free one), warmed by :data:`WARM_UP_CALLS`
    talking calls of ``driver`` for :data:`WARM_UP_S` (whisper's and piper's first run, the caches
    filled, the sidecar's first calls) so that the first level measures the steady state."""
    from mockengine.loadtest.processes import start_server

    child = asyncio.run(start_server(args, port=port))
    try:
        drive(driver, None, child.url, WARM_UP_CALLS, WARM_UP_S, WARM_UP_CALLS)
    except BaseException:
        child.stop()
        raise
    return child
