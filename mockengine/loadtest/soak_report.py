"""A soak's figures: per-minute rows with a verdict, memory growth per session-minute, a plot.

Per minute: sessions connected (mean), engine RSS at the minute's end, engine CPU per session-second,
the driver's share of a core, ``/healthz`` round trip (served by the engine's event loop, so it shows the
loop's lag) and the engine's own lag figure, p95 onset → ``speech_started`` and p95 ``speech_stopped`` →
first audio of the turns that began in that minute. A minute passes with p95 onset ≤ 250 ms, p95
response start ≤ 1000 ms and a ``/healthz`` round trip ≤ 250 ms (issue 15's goals).

Memory: ``rss_growth_mib_per_session_minute`` is the least-squares slope of RSS less the engine's
speech and transcript caches (which fill up to their own bounds, ``--tts-cache-mb`` / ``--stt-cache-mb``,
whatever the sessions do) over the run after the first ``WARM_UP_MIN`` minutes, divided by the mean
sessions connected — flat memory gives ~0 however long the soak; ``raw_rss_growth_mib_per_min`` keeps the
caches in. ``after_end`` compares RSS once every session has ended with the idle engine's before the soak.

That slope only judges a leak once the sessions have turned over: until the first wave's last session
ends (``1.5 × wave_s``: sessions last 0.5–1.5 × ``wave_s``) no slot has released anything and every
session's memory only grows (its conversation, its bounded stores filling), so a fit window mostly inside
that ramp reads like a leak on a flat engine (a 2-minute soak with 120 s waves: the whole window).
:func:`minutes_to_judge_growth` is the soak length whose window is at least :data:`RAMP_SHARE_INV` times
the ramp left in it, and :data:`MIN_STEADY_WINDOW_MIN` long; a shorter soak's figure is kept and flagged
(``growth_judged``: false), and the report says what length would do.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from mockengine.loadtest.driver import driver_late_caveat, percentile
from mockengine.loadtest.plot import agg_pyplot, save_panels
from mockengine.loadtest.soak import SoakRun
from mockengine.loadtest.soak_memory import format_owner_changes, owner_changes, signed

MIB = 1024 * 1024
WARM_UP_MIN = 1.0
# The fit window is at least this many times the first wave's ramp left in it: a memory ramp that is
# linear then flat biases a least-squares slope by 3ρ² − 2ρ³ of the ramp's rate (ρ: the ramp's share of
# the window), a quarter at ρ = 1/3, all of it at ρ = 1.
RAMP_SHARE_INV = 3.0
MIN_STEADY_WINDOW_MIN = 2.0
GOALS = {"onset_p95_ms": 250.0, "response_p95_ms": 1000.0, "healthz_ms": 250.0}
GOAL_NAMES = {"onset_p95_ms": "onset", "response_p95_ms": "resp", "healthz_ms": "healthz"}  # as the columns


def _slope(points: list[tuple[float, float]]) -> float | None:
    if len(points) < 3:
        return None
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((x - mean_x) ** 2 for x, _ in points)
    return None if var == 0 else sum((x - mean_x) * (y - mean_y) for x, y in points) / var


def first_wave_end_min(wave_s: float) -> float:
    """When the first wave's last session ends (sessions last 0.5–1.5 × ``wave_s``), in minutes."""
    return 1.5 * wave_s / 60


def minutes_to_judge_growth(wave_s: float, warm_up_min: float = WARM_UP_MIN) -> float:
    """The shortest soak (minutes) whose growth figure judges a leak rather than the first wave's ramp."""
    ramp_in_window_min = max(0.0, first_wave_end_min(wave_s) - warm_up_min)
    return warm_up_min + max(MIN_STEADY_WINDOW_MIN, RAMP_SHARE_INV * ramp_in_window_min)


def minute_rows(run: SoakRun) -> list[dict[str, Any]]:
    turns = [t for r in run.results for t in r.turns]
    rows = []
    for minute in range(int(-(-run.minutes // 1))):
        lo, hi = minute * 60.0, (minute + 1) * 60.0
        samples = [s for s in run.samples if lo <= s.at_s < hi]
        if len(samples) < 2:
            continue
        first, last = samples[0], samples[-1]
        span_s = last.at_s - first.at_s
        sessions = sum(s.sessions for s in samples) / len(samples)
        cpu = None
        if first.engine_cpu_s is not None and last.engine_cpu_s is not None and sessions and span_s:
            cpu = (last.engine_cpu_s - first.engine_cpu_s) * 1000 / (sessions * span_s)
        in_minute = [t for t in turns if lo <= t.at_s < hi]
        healthz = [s.healthz_ms for s in samples if s.healthz_ms is not None]
        row: dict[str, Any] = {
            "minute": minute + 1,
            "sessions": round(sessions, 1),
            "rss_mib": None if last.rss_bytes is None else round(last.rss_bytes / MIB, 1),
            "engine_cpu_ms_per_session_s": None if cpu is None else round(cpu, 2),
            "driver_cores": round((last.driver_cpu_s - first.driver_cpu_s) / span_s, 2) if span_s else None,
            "healthz_ms": round(max(healthz), 1) if healthz else None,
            "loop_lag_ms": max(s.loop_lag_ms or 0.0 for s in samples),
            "turns": len(in_minute),
            "onset_p95_ms": _r(percentile([t.onset_ms for t in in_minute if t.onset_ms is not None], 95)),
            "response_p95_ms": _r(
                percentile([t.response_ms for t in in_minute if t.response_ms is not None], 95)
            ),
        }
        row["failed"] = [
            f"no {GOAL_NAMES[key]}" if row[key] is None else f"{GOAL_NAMES[key]} {row[key]:.0f} > {limit:.0f}"
            for key, limit in GOALS.items()
            if row[key] is None or row[key] > limit
        ]
        row["pass"] = not row["failed"]
        rows.append(row)
    return rows


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def summarize(run: SoakRun, warm_up_min: float = WARM_UP_MIN) -> dict[str, Any]:
    """Every figure of the soak (JSON-ready); the RSS slope leaves out the first ``warm_up_min``."""
    rows = minute_rows(run)
    steady = [
        s for s in run.samples if s.rss_bytes is not None and warm_up_min * 60 <= s.at_s <= run.minutes * 60
    ]
    slope = _slope([(s.at_s / 60, (s.rss_bytes or 0) / MIB) for s in steady])
    raw_slope = slope
    slope = _slope([(s.at_s / 60, ((s.rss_bytes or 0) - s.cache_bytes) / MIB) for s in steady])
    mean_sessions = sum(s.sessions for s in run.samples) / len(run.samples) if run.samples else 0
    per_session = None
    if slope is not None and mean_sessions:
        per_session = round(slope / mean_sessions, 4)
    peak = max((s.rss_bytes for s in run.samples if s.rss_bytes), default=None)
    results = run.results
    return {
        "sessions": run.sessions,
        "minutes": run.minutes,
        "wave_s": run.wave_s,
        "sessions_run": len(results),
        "sessions_dropped": sum(r.dropped for r in results),
        "sessions_refused": sum(r.refused for r in results),
        "turns": sum(len(r.turns) for r in results),
        "turns_missed": sum(r.missed_turns for r in results),
        "questions": run.questions,
        "lost_events": sum(sum(r.lost_events.values()) for r in results),
        "errors": sum(sum(r.errors.values()) for r in results),
        "late_chunk_share": round(
            sum(r.chunks_late for r in results) / max(1, sum(r.chunks_sent for r in results)), 4
        ),
        "idle_rss_mib": _mib(run.idle_rss_bytes),
        "peak_rss_mib": _mib(peak),
        "after_end_rss_mib": _mib(run.after_rss_bytes),
        "after_end_above_idle_percent": None
        if run.after_rss_bytes is None or not run.idle_rss_bytes
        else round(100 * (run.after_rss_bytes / run.idle_rss_bytes - 1), 1),
        "python_malloc": run.python_malloc,
        "after_end_by_owner": owner_changes(run.idle_memory, run.after_memory),
        "rss_per_session_mib": None
        if peak is None or run.idle_rss_bytes is None or not run.sessions
        else round((peak - run.idle_rss_bytes) / MIB / run.sessions, 2),
        "raw_rss_growth_mib_per_min": None if raw_slope is None else round(raw_slope, 2),
        "cache_mib_at_end": round(run.samples[-1].cache_bytes / MIB, 1) if run.samples else None,
        "rss_growth_mib_per_min": None if slope is None else round(slope, 2),
        "rss_growth_mib_per_session_minute": per_session,
        "growth_window_min": [warm_up_min, run.minutes],
        "first_wave_end_min": round(first_wave_end_min(run.wave_s), 2),
        "minutes_to_judge_growth": round(minutes_to_judge_growth(run.wave_s, warm_up_min), 1),
        "growth_judged": run.minutes >= minutes_to_judge_growth(run.wave_s, warm_up_min),
        "minutes_passed": sum(r["pass"] for r in rows),
        "rows": rows,
    }


def _mib(value: int | None) -> float | None:
    return None if value is None else round(value / MIB, 1)


def print_summary(summary: dict[str, Any]) -> None:
    print(
        f"\nsoak: {summary['sessions']} sessions for {summary['minutes']:g} min (sessions of "
        f"~{summary['wave_s']:.0f} s, ending and joining in waves): {summary['sessions_run']} sessions, "
        f"{summary['turns']} turns, {summary['questions']} questions"
    )
    header = (
        "  min  sessions  RSS MiB  CPU ms/sess-s  driver  healthz  lag  turns  onset p95  resp p95  verdict"
    )
    print(header)
    for r in summary["rows"]:
        verdict = "pass" if r["pass"] else "FAIL: " + ", ".join(r["failed"])
        print(
            f"  {r['minute']:>3}  {r['sessions']:>8}  {_f(r['rss_mib'])}  "
            f"{_f(r['engine_cpu_ms_per_session_s'])}"
            f"  {_f(r['driver_cores'])}  {_f(r['healthz_ms'])}  {_f(r['loop_lag_ms'])}  {r['turns']:>5}  "
            f"{_f(r['onset_p95_ms'])}  {_f(r['response_p95_ms'])}  {verdict}"
        )
    if summary["peak_rss_mib"] is None:
        # --url: the engine is another process, perhaps on another machine; its RSS is not read.
        print("  memory: n/a (server not started by the bench)")
    else:
        _print_memory(summary)
    if not summary.get("growth_judged", True) and summary["peak_rss_mib"] is not None:
        print(f"  {_too_short(summary)}")
    if summary["after_end_rss_mib"] is not None:
        print(f"  {format_owner_changes(summary['after_end_by_owner'])}")
    print(
        f"  dropped {summary['sessions_dropped']}, refused {summary['sessions_refused']}, lost events "
        f"{summary['lost_events']}, errors {summary['errors']}, missed turns {summary['turns_missed']}, "
        f"driver late chunks {100 * summary['late_chunk_share']:.2f} %; minutes passed "
        f"{summary['minutes_passed']}/{len(summary['rows'])}"
    )
    if caveat := driver_late_caveat(summary["late_chunk_share"]):
        print(f"  {caveat}")


def _print_memory(summary: dict[str, Any]) -> None:
    above_idle = signed(summary["after_end_above_idle_percent"], "+.1f")
    print(
        f"  memory: idle {summary['idle_rss_mib']} MiB, peak {summary['peak_rss_mib']} MiB "
        f"({summary['rss_per_session_mib']} MiB per session), after every session ended "
        f"{summary['after_end_rss_mib']} MiB ({above_idle} % of idle; "
        f"Python objects on {summary['python_malloc'] or '?'}); growth after the first minute, caches aside "
        f"{summary['rss_growth_mib_per_min']} MiB/min = {summary['rss_growth_mib_per_session_minute']} MiB "
        f"per session-minute (with the caches, which reached {summary['cache_mib_at_end']} MiB: "
        f"{summary['raw_rss_growth_mib_per_min']} MiB/min)"
    )


def _too_short(summary: dict[str, Any]) -> str:
    """Why the growth figure does not judge a leak on this soak, and what soak would."""
    start, end = summary["growth_window_min"]
    wave_end = summary["first_wave_end_min"]
    needed = summary["minutes_to_judge_growth"]
    why = (
        f"mostly the first wave's ramp (its sessions grow until they end, the last at minute {wave_end:g}; "
        "only then have all slots turned over)"
        if wave_end > start
        else f"under {MIN_STEADY_WINDOW_MIN:g} minutes"
    )
    return (
        "growth per session-minute: too short to judge a leak: the window it fits, "
        f"minutes {start:g}–{end:g}, is {why}; a soak of {needed:g} minutes or more judges it "
        f"(--minutes {math.ceil(needed)})"
    )


def _f(value: float | None) -> str:
    return "    n/a" if value is None else f"{value:7.1f}"


def plot_soak(summary: dict[str, Any], path: Path) -> Path | None:
    """RSS, CPU per session-second and p95 latencies per minute; None if matplotlib is missing."""
    plt = agg_pyplot()
    if plt is None:
        return None
    rows = summary["rows"]
    minutes = [r["minute"] for r in rows]
    fig, axes = plt.subplots(3, 1, figsize=(10, 9), dpi=100, sharex=True)
    axes[0].plot(minutes, [r["rss_mib"] for r in rows], "-o", label="engine RSS (MiB)")
    if summary["idle_rss_mib"]:
        axes[0].axhline(summary["idle_rss_mib"], linestyle="--", color="grey", label="idle engine")
    axes[1].plot(
        minutes, [r["engine_cpu_ms_per_session_s"] for r in rows], "-s", label="CPU ms per session-s"
    )
    for key, label in (
        ("onset_p95_ms", "onset p95"),
        ("response_p95_ms", "response start p95"),
        ("healthz_ms", "/healthz"),
    ):
        axes[2].plot(minutes, [r[key] for r in rows], "-o", label=f"{label} (ms)")
    axes[2].axhline(GOALS["onset_p95_ms"], linestyle=":", color="tab:blue")
    axes[2].axhline(GOALS["response_p95_ms"], linestyle=":", color="tab:orange")
    axes[2].set_xlabel("minute")
    title = f"soak: {summary['sessions']} sessions, {summary['minutes']:g} min"
    return save_panels(plt, fig, axes, title, path)
