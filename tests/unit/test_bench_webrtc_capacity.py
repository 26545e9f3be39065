"""The WebRTC capacity climb's bookkeeping (mockengine/bench/webrtc.py, webrtc_capacity.py), without
calls: the goal, the stop, a driver's failure, the printed line."""

from __future__ import annotations

import pytest

from mockengine.bench import webrtc
from mockengine.bench.context import BenchContext
from mockengine.bench.webrtc_capacity import http_base, meets_goal, p95
from mockengine.cli import build_parser

ROW = {"calls": 10, "opened": 10, "onsets": 40, "onset_p95_ms": 120, "driver_ms": 2.0, "load": "0.5->0.6"}


def test_a_level_meets_the_goal_only_with_every_call_opened_and_heard() -> None:
    assert meets_goal(ROW)
    assert not meets_goal(ROW | {"onset_p95_ms": 251})
    assert not meets_goal(ROW | {"opened": 9})  # 9 calls held are not 10
    assert not meets_goal(ROW | {"onsets": 9})  # some calls never heard
    assert not meets_goal(ROW | {"onset_p95_ms": None, "onsets": 0})
    assert (
        p95([]) is None
        and p95([7.0]) == 7.0
        and p95([float(v) for v in range(1, 101)]) == pytest.approx(95.95)
    )
    assert http_base("ws://127.0.0.1:8765/v1/realtime?model=gpt-realtime") == "http://127.0.0.1:8765"
    assert http_base("wss://engine.example:443/v1/realtime") == "https://engine.example:443"


def _climb_on_url(monkeypatch, capsys, outcomes: list) -> dict:
    """The climb against --url with measure_level replaced by ``outcomes`` in turn (a row or an error)."""
    given = iter(outcomes)

    def measure(probe, driver, url, calls, seconds, per_process):
        outcome = next(given)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome | {"calls": calls}

    monkeypatch.setattr(webrtc, "measure_level", measure)
    argv = ["bench", "--url", "ws://127.0.0.1:9/v1/realtime", "--webrtc-driver", "aiortc"]
    args = build_parser().parse_args([*argv, "--webrtc-levels", "10,20,30", "--webrtc-level-seconds", "5"])
    return webrtc.capacity_levels(BenchContext(args), args.url)


def test_the_climb_stops_at_the_first_level_over_the_goal(monkeypatch, capsys) -> None:
    found = _climb_on_url(monkeypatch, capsys, [ROW, ROW | {"onset_p95_ms": 400}, ROW])
    assert found["driver"] == "aiortc" and found["level_seconds"] == 5.0
    assert [row["calls"] for row in found["planes"]["url"]["levels"]] == [10, 20]
    assert found["planes"]["url"]["calls"] == 10
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        "webrtc: --url engine, 10 talking calls (10 opened, aiortc driver): 40 onsets, p95 120 ms"
    )
    assert out[0].endswith("driver 2.0 ms; load 0.5->0.6, ok") and out[1].endswith(", over the goal")
    assert out[2] == (
        "webrtc: most talking calls on the --url engine with p95 onset ≤ 250 ms: 10 "
        "(aiortc driver in processes sharing the cores, 5 s levels)"
    )


def test_a_driver_that_fails_ends_the_climb_not_the_bench(monkeypatch, capsys) -> None:
    """A driver that could not open its calls (RuntimeError from the Go driver, a queue timeout from the
    aiortc one) was a traceback that lost every section's figures."""
    found = _climb_on_url(monkeypatch, capsys, [ROW, RuntimeError("the pion driver did not open its calls")])
    assert found["planes"]["url"] == {
        "levels": [ROW, {"calls": 20, "failed": "the pion driver did not open its calls"}],
        "calls": 10,
    }
    assert (
        "20 talking calls: the driver failed (the pion driver did not open its calls)"
        in capsys.readouterr().out
    )
