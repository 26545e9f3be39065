"""The load section's report says that a warm-up ran before the measured sessions: its connections are
real, so against an engine with a fault profile they take the schedule's first ordinals (a load tester
found 3 sessions dropped where ``mockengine faults schedule --count 8`` listed 5 hits)."""

from __future__ import annotations

import argparse

import pytest

from mockengine.bench import add_arguments
from mockengine.bench.load import WARM_UP_SESSIONS, print_load
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
