"""The soak's arithmetic on made-up samples: per-minute rows, verdicts, growth per session-minute."""

from __future__ import annotations

import asyncio

import pytest

from mockengine.loadtest.participant import SessionResult, TurnRecord
from mockengine.loadtest.soak import Sample, SoakRun
from mockengine.loadtest.soak_report import MIB, summarize
from mockengine.server.event_loop import install_event_loop


def made_up_run(rss_growth_mib_per_min: float, sessions: int = 10) -> SoakRun:
    run = SoakRun(sessions=sessions, minutes=3, wave_s=120, idle_rss_bytes=400 * MIB)
    for step in range(36):  # every 5 s for 3 minutes
        at_s = step * 5.0
        rss = (450 + rss_growth_mib_per_min * at_s / 60) * MIB
        run.samples.append(Sample(at_s, sessions, int(rss), at_s * 0.03, at_s * 0.001, 5.0, 0.4))
    result = SessionResult(0, connected=True)
    for n in range(30):
        at_s_turn = n * 6.0
        slow = 400.0 if at_s_turn >= 120 else 40.0  # the third minute misses the onset goal
        result.turns.append(TurnRecord(at_s_turn, sessions, "question", onset_ms=slow, response_ms=20.0))
    run.results.append(result)
    run.after_rss_bytes = 405 * MIB
    return run


def test_growth_per_session_minute_and_verdicts():
    summary = summarize(made_up_run(rss_growth_mib_per_min=20.0))
    assert summary["rss_growth_mib_per_min"] == pytest.approx(20.0, abs=0.01)
    assert summary["rss_growth_mib_per_session_minute"] == pytest.approx(2.0, abs=0.01)
    assert [r["pass"] for r in summary["rows"]] == [True, True, False]
    assert summary["rows"][0]["engine_cpu_ms_per_session_s"] == pytest.approx(3.0, abs=0.01)
    assert summary["after_end_rss_mib"] == 405.0 and summary["idle_rss_mib"] == 400.0


def test_flat_memory_gives_no_growth():
    assert summarize(made_up_run(0.0))["rss_growth_mib_per_session_minute"] == pytest.approx(0.0, abs=1e-6)


def test_event_loop_switch():
    install_event_loop("uvloop")
    try:
        loop = asyncio.new_event_loop()
        assert type(loop).__module__.startswith("uvloop")
        loop.close()
    finally:
        install_event_loop("asyncio")
    loop = asyncio.new_event_loop()
    assert not type(loop).__module__.startswith("uvloop")
    loop.close()
    with pytest.raises(ValueError, match="unknown event loop"):
        install_event_loop("trio")
