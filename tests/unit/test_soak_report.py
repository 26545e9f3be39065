"""The soak's arithmetic on made-up samples: per-minute rows, verdicts, growth per session-minute."""

from __future__ import annotations

import asyncio

import pytest

from mockengine.loadtest.participant import SessionResult, TurnRecord
from mockengine.loadtest.soak import Sample, SoakRun
from mockengine.loadtest.soak_report import MIB, print_summary, summarize
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


def test_a_failed_minute_says_which_goal_it_missed(capsys):
    """The verdict column said only FAIL; the minute's p95 onset (400 ms) is the goal missed."""
    summary = summarize(made_up_run(rss_growth_mib_per_min=0.0))
    assert summary["rows"][2]["failed"] == ["onset 400 > 250"]
    print_summary(summary)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("    3 ")]
    assert rows and rows[0].endswith("FAIL: onset 400 > 250")


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


def made_up_soak(minutes: float, wave_s: float, ramp_mib_per_min: float = 0.0) -> SoakRun:
    """Sessions whose memory grows until the first wave has turned over (``1.5 × wave_s``), then flat."""
    run = SoakRun(sessions=4, minutes=minutes, wave_s=wave_s, idle_rss_bytes=400 * MIB)
    ramp_end_s = 1.5 * wave_s
    for step in range(int(minutes * 12)):  # every 5 s
        at_s = step * 5.0
        rss = (450 + ramp_mib_per_min * min(at_s, ramp_end_s) / 60) * MIB
        run.samples.append(Sample(at_s, 4, int(rss), at_s * 0.03, at_s * 0.001, 5.0, 0.4))
    run.results.append(SessionResult(0, connected=True))
    run.after_rss_bytes = 402 * MIB
    return run


def test_a_short_soak_says_its_growth_figure_is_the_ramp(capsys):
    """A 2-minute soak with 120 s waves fits minutes 1–2, all of it before the first wave's last session
    ends (minute 3): a flat engine's ramp read like a leak (here 1.25 MiB per session-minute), unflagged."""
    summary = summarize(made_up_soak(minutes=2, wave_s=120, ramp_mib_per_min=5.0))
    assert summary["rss_growth_mib_per_session_minute"] == pytest.approx(1.25, abs=0.01)  # still given
    assert summary["growth_judged"] is False
    assert summary["first_wave_end_min"] == 3.0 and summary["growth_window_min"] == [1.0, 2]
    assert summary["minutes_to_judge_growth"] == 7.0  # 1 + 3 × (3 − 1)
    print_summary(summary)
    out = capsys.readouterr().out
    assert "1.25 MiB per session-minute" in out
    assert "too short to judge a leak" in out and "minutes 1–2" in out and "(--minutes 7)" in out
    # The same ramp over 8 minutes: judged, its slope much nearer flat.
    long = summarize(made_up_soak(minutes=8, wave_s=120, ramp_mib_per_min=5.0))
    assert long["growth_judged"] is True
    assert long["rss_growth_mib_per_session_minute"] < 0.5 * summary["rss_growth_mib_per_session_minute"]


def test_short_waves_still_want_a_two_minute_window():
    summary = summarize(made_up_soak(minutes=2.5, wave_s=20))
    assert summary["growth_judged"] is False and summary["minutes_to_judge_growth"] == 3.0
    assert summarize(made_up_soak(minutes=3, wave_s=20))["growth_judged"] is True


@pytest.mark.parametrize(
    ("minutes", "wave_s"), [(30, 180), (12, 180), (10, 120), (5, 60), (5, 90)]
)  # the long soaks of docs/memory.md, the bench's default, its "quick look"
def test_a_long_enough_soak_prints_as_before(capsys, minutes, wave_s):
    summary = summarize(made_up_soak(minutes=minutes, wave_s=wave_s, ramp_mib_per_min=1.0))
    assert summary["growth_judged"] is True
    print_summary(summary)
    assert "too short" not in capsys.readouterr().out


def test_a_soak_of_an_engine_it_did_not_start_says_memory_is_not_read(capsys):
    """With --url no RSS is read: the memory line said "idle None MiB, peak None MiB … None MiB/min"."""
    run = SoakRun(sessions=4, minutes=2, wave_s=40, idle_rss_bytes=None)
    for step in range(24):
        run.samples.append(Sample(step * 5.0, 4, None, None, step * 0.001, 5.0, 0.4))
    run.results.append(SessionResult(0, connected=True))
    print_summary(summarize(run))
    out = capsys.readouterr().out
    assert "None" not in out
    assert "  memory: n/a (server not started by the bench)" in out.splitlines()


@pytest.mark.parametrize(("late", "warned"), [(9, True), (0, False)])
def test_a_driver_that_fell_behind_is_said_beside_the_verdicts(late: int, warned: bool, capsys) -> None:
    """A 2-minute soak on a busy machine passed a minute with the driver 9 % late, and said so only as
    "driver late chunks 9.05 %" at the end of its last line."""
    run = made_up_run(rss_growth_mib_per_min=0.0)
    run.results[0].chunks_sent, run.results[0].chunks_late = 100, late
    print_summary(summarize(run))
    out = capsys.readouterr().out
    assert ("the driver fell behind on 9.00 % of its audio chunks (over 1 %)" in out) is warned
