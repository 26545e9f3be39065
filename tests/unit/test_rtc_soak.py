"""The WebRTC soak's figures (``mockengine/bench/rtc_soak.py``): growth per call-minute and the summary."""

from __future__ import annotations

import pytest

from mockengine.bench.rtc_soak import RtcSample, RtcSoakRun, Wave, growth_per_call_minute, summary

MIB = 2**20


def run_with(rss_mib_at_minute) -> RtcSoakRun:
    run = RtcSoakRun(idle_rss_bytes=400 * MIB)
    run.waves.append(Wave(1, 4, 10.0, opened=4, start_s=0.0, end_s=600.0, after_rss_bytes=410 * MIB))
    for minute in range(11):
        rss = int(rss_mib_at_minute(minute) * MIB)
        run.samples.append(RtcSample(minute * 60.0, 1, 4, 4, rss))
    run.samples.append(RtcSample(700.0, 1, 0, 0, 300 * MIB))  # after the hang-ups: not fitted
    return run


def test_flat_memory_after_the_first_minutes_is_no_growth():
    run = run_with(lambda minute: 450 if minute >= 2 else 420 + 15 * minute)  # ramp, then flat
    assert growth_per_call_minute(run, run.waves[0]) == pytest.approx(0.0, abs=1e-9)


def test_growth_is_per_call_minute():
    run = run_with(lambda minute: 450 + 2 * minute)  # 2 MiB a minute over 4 calls
    assert growth_per_call_minute(run, run.waves[0]) == pytest.approx(0.5)
    figures = summary(run)
    assert figures["idle_rss_mib"] == 400.0
    assert figures["waves"][0]["peak_rss_mib"] == 470.0
    assert figures["waves"][0]["after_rss_mib"] == 410.0


def test_too_few_samples_give_no_figure():
    run = run_with(lambda minute: 450)
    run.samples = run.samples[:3]
    assert growth_per_call_minute(run, run.waves[0]) is None


def test_the_printed_summary_gives_each_wave_its_growth_and_what_was_given_back(capsys):
    from mockengine.bench.rtc_soak import print_summary

    run = run_with(lambda minute: 450 + 2 * minute)
    print_summary(summary(run))
    out = capsys.readouterr().out
    assert "idle engine RSS 400.0 MiB" in out
    assert "wave 1: 4 calls × 10 min" in out and "growth 0.500 MiB per call-minute" in out
    assert "RSS 410.0 MiB (+2.5 % of idle)" in out
