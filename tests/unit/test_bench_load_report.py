"""The load section's report says that a warm-up ran before the measured sessions: its connections are
real, so against an engine with a fault profile they take the schedule's first ordinals (a load tester
found 3 sessions dropped where ``mockengine faults schedule --count 8`` listed 5 hits)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from mockengine.bench import add_arguments
from mockengine.bench.load import WARM_UP_SESSIONS, print_load, window_lookups
from mockengine.loadtest.driver import LoadReport
from mockengine.loadtest.profile import LoadProfile


def test_the_report_names_the_warm_up_that_came_first(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "load", "--sessions", "8", "--duration", "20"])
    empty = LoadReport("ws://127.0.0.1:1/v1/realtime", LoadProfile("steady", 8, 20.0), 20.0).summary()
    result = {
        "engine": empty,
        "baseline": empty,
        "memory": {},
        "cache_hit_rates": {},
        "warm_up": {"sessions": WARM_UP_SESSIONS, "seconds": 12.0},
    }
    print_load(result, args)
    out = capsys.readouterr().out
    assert f"warm-up, not counted: {WARM_UP_SESSIONS} sessions for 12 s" in out
    assert out.index("warm-up") < out.index("speech onset")  # said before the figures it precedes


def test_the_report_names_the_warm_up_rounds_and_the_loop_threads_share(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/cpu.md, twelfth pass: the warm-up repeats until the speech cache takes no new sentence, and
    the engine's CPU is split into its event-loop thread and the rest (the models' cache misses)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "load", "--sessions", "8", "--duration", "20"])
    engine = LoadReport("ws://127.0.0.1:1/v1/realtime", LoadProfile("steady", 8, 20.0), 20.0)
    engine.extra.update(
        {
            "server_cpu_ms_per_session_s": 3.0,
            "server_cores": 0.1,
            "driver_cpu_ms_per_session_s": 2.0,
            "driver_cores": 0.1,
            "server_loop_cpu_ms_per_session_s": 2.5,
            "server_thread_cpu_ms_per_session_s": {"loop": 2.5, "stt": 0.3, "whisper": 0.2},
        }
    )
    base = LoadReport("ws://127.0.0.1:1/v1/realtime", LoadProfile("steady", 8, 20.0), 20.0)
    base.extra.update({**engine.extra, "server_cpu_ms_per_session_s": 1.25})
    base.extra["server_loop_cpu_ms_per_session_s"] = 1.25
    result = {
        "engine": engine.summary(),
        "baseline": base.summary(),
        "memory": {},
        "cache_hit_rates": {},
        "warm_up": {"sessions": 4, "seconds": 12.0, "rounds": 3, "new_sentences_per_round": [9, 2, 0]},
    }
    print_load(result, args)
    out = capsys.readouterr().out
    assert "3 rounds until the speech cache took no new sentence (new per round: [9, 2, 0])" in out
    assert "event-loop thread 2.50 ms per session-second (2.0 × the bare server's)" in out
    assert "other threads (the models' cache misses) 0.50 ms" in out
    assert "the engine's CPU by thread, ms per session-second: loop 2.50, stt 0.30, whisper 0.20" in out


def test_the_report_counts_the_model_runs_in_the_measured_window(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cpu.md, sixteenth pass, part 2: the hit rates count the warm-up's lookups too, so the whisper
    runs and piper syntheses of the measured window are printed apart, from /healthz before and after."""
    before = {"transcripts": {"hits": 20, "misses": 4}, "speech": {"hits": 50, "misses": 14}}
    after = {"transcripts": {"hits": 149, "misses": 6}, "speech": {"hits": 410, "misses": 14}}
    window = window_lookups(before, after)
    assert window == {"transcripts": {"hits": 129, "misses": 2}, "speech": {"hits": 360, "misses": 0}}
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "load", "--sessions", "8", "--duration", "20"])
    empty = LoadReport("ws://127.0.0.1:1/v1/realtime", LoadProfile("steady", 8, 20.0), 20.0).summary()
    result = {
        "engine": empty,
        "baseline": empty,
        "memory": {},
        "cache_hit_rates": {"transcripts": 0.96},
        "window_lookups": window,
        "warm_up": {"sessions": WARM_UP_SESSIONS, "seconds": 12.0},
    }
    print_load(result, args)
    out = capsys.readouterr().out
    assert "cache hit rates (warm-up included): transcripts 96 %" in out
    assert (
        "in the measured window: transcripts 2 whisper runs of 131 lookups, speech 0 piper syntheses of 360 "
        "lookups" in out
    )


@pytest.mark.parametrize(("late", "warned"), [(0.1136, True), (0.005, False)])
def test_a_driver_that_fell_behind_is_said_beside_the_latencies(
    late: float, warned: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 10-session run on a busy machine printed "driver late chunks 11.36 %" at the end of a line, and
    nothing said that its latencies then measure the driver's delay too (the capacity climb fails such
    a level: ``LATE_SHARE_MAX``)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "load", "--sessions", "8", "--duration", "20"])
    summary = LoadReport("ws://127.0.0.1:1/v1/realtime", LoadProfile("steady", 8, 20.0), 20.0).summary()
    result = {
        "engine": {**summary, "late_chunk_share": late},
        "baseline": summary,
        "memory": {},
        "cache_hit_rates": {},
        "warm_up": {"sessions": WARM_UP_SESSIONS, "seconds": 12.0},
    }
    print_load(result, args)
    out = capsys.readouterr().out
    assert ("the driver fell behind on 11.36 % of its audio chunks (over 1 %)" in out) is warned
    assert ("the driver fell behind" in out) is warned


def test_the_main_threads_cpu_is_part_of_the_process_trees() -> None:
    import os
    import time

    from mockengine.loadtest.processes import main_thread_cpu_seconds, tree_cpu_seconds

    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    loop, tree = main_thread_cpu_seconds(os.getpid()), tree_cpu_seconds(os.getpid())
    assert loop is not None and tree is not None and 0 < loop <= tree
    assert main_thread_cpu_seconds(2**22 + 7) is None  # no such process


@pytest.mark.parametrize(
    ("window", "said"),
    [("together", "both in the same seconds"), ("after", "the baseline in a later window")],
)
def test_the_ratio_line_says_whether_both_came_from_the_same_seconds(
    window: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/cpu.md, nineteenth pass: the ratio is taken in one window by default; the line says which."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "load", "--sessions", "8", "--duration", "20"])
    assert args.baseline_window == "together"  # the default
    engine, base = _cpu_summary(4.2), _cpu_summary(2.0)
    result = {
        "engine": engine,
        "baseline": base,
        "baseline_window": window,
        "memory": {},
        "cache_hit_rates": {},
        "warm_up": {"sessions": WARM_UP_SESSIONS, "seconds": 12.0},
    }
    print_load(result, args)
    out = capsys.readouterr().out
    assert f"the engine costs 2.10 × the bare server's CPU at this load, {said}" in out
    assert ("the bare baseline driven at the same time, 8 more sessions" in out) is (window == "together")
    assert "a driver fell behind" not in out  # no late chunks: the ratio stands alone


def test_a_ratio_from_a_late_driver_is_said_to_measure_the_contention_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/cpu.md, nineteenth pass: on a busy machine each server's CPU per session-second fell with its
    own driver's late-chunk share, so a ratio from such a run is not comparable with a quiet one's."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--only", "load", "--sessions", "8", "--duration", "20"])
    engine, base = _cpu_summary(4.2), _cpu_summary(2.0)
    result = {
        "engine": engine,
        "baseline": {**base, "late_chunk_share": 0.0725},
        "baseline_window": "together",
        "memory": {},
        "cache_hit_rates": {},
        "warm_up": {"sessions": WARM_UP_SESSIONS, "seconds": 12.0},
    }
    print_load(result, args)
    out = capsys.readouterr().out
    assert "driver late chunks 7.25 % (driven at the same time as the engine)" in out
    assert "a driver fell behind on 7.25 % of its chunks" in out


def _cpu_summary(server_ms_per_session_s: float) -> dict[str, Any]:
    """An empty 8-session run's summary whose server cost ``server_ms_per_session_s`` and whose driver
    kept pace."""
    report = LoadReport("ws://127.0.0.1:1/v1/realtime", LoadProfile("steady", 8, 20.0), 20.0)
    report.extra.update(
        {
            "server_cores": 0.1,
            "driver_cpu_ms_per_session_s": 2.0,
            "driver_cores": 0.1,
            "server_cpu_ms_per_session_s": server_ms_per_session_s,
        }
    )
    return report.summary()
