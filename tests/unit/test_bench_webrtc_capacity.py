"""The WebRTC capacity climb's bookkeeping (mockengine/bench/webrtc.py, webrtc_capacity.py), without
calls: the goal, the stop, a driver's failure, the printed line, a long level's minutes."""

from __future__ import annotations

import sys

import pytest

from mockengine.bench import webrtc, webrtc_capacity
from mockengine.bench.context import BenchContext
from mockengine.bench.webrtc import describe_stalls
from mockengine.bench.webrtc_capacity import http_base, meets_goal, onsets_per_minute, p95
from mockengine.bench.webrtc_load import LevelResult
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

    def measure(probe, driver, url, calls, seconds, per_process, stagger=False):
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


def test_a_long_levels_onsets_are_counted_minute_by_minute() -> None:
    """Each onset in the minute it was measured in; a minute without one kept (a stall shows); the few
    measured after the level's end (the drivers end on whole loops) in the last minute."""
    onsets_ms = [100.0, 120.0, 200.0, 300.0, 80.0]
    at_s = [1.0, 59.9, 60.0, 150.0, 153.5]  # minute 2 has one, minute 3 is past the 150 s level
    minutes = onsets_per_minute(onsets_ms, at_s, 150.0)
    assert [(m["minute"], m["seconds"], m["onsets"]) for m in minutes] == [
        (1, 60.0, 2),
        (2, 60.0, 1),
        (3, 30.0, 2),
    ]
    assert [m["onset_p95_ms"] for m in minutes] == [
        round(p95([100.0, 120.0])),
        200,
        round(p95([300.0, 80.0])),
    ]
    stalled = onsets_per_minute([50.0, 60.0], [10.0, 130.0], 180.0)
    assert [(m["onsets"], m["onset_p95_ms"]) for m in stalled] == [(1, 50), (0, None), (1, 60)]
    with pytest.raises(ValueError):  # the two lists out of step is a driver's bug, not a figure
        onsets_per_minute([1.0], [], 180.0)


def _level_result(at_s: list[float] | None) -> LevelResult:
    return LevelResult(
        calls=2,
        opened=2,
        onsets_ms=[90.0, 110.0, 130.0],
        engine_cpu_s=None,
        driver_cpu_s=1.0,
        engine_wall_s=200.0,
        driver_wall_s=200.0,
        onset_at_s=at_s,
    )


@pytest.mark.parametrize(
    ("seconds", "at_s", "minutes"),
    [
        (200.0, [5.0, 70.0, 190.0], [1, 1, 0, 1]),  # longer than 2 minutes: per minute
        (60.0, [5.0, 30.0, 55.0], None),  # a short level: its p95 alone
        (200.0, None, None),  # a driver that gives no times (a Go driver built before it did)
    ],
)
def test_measure_level_keeps_the_minutes_of_a_long_level(monkeypatch, seconds, at_s, minutes) -> None:
    monkeypatch.setattr(webrtc_capacity, "drive", lambda *args: _level_result(at_s))
    monkeypatch.setattr(webrtc_capacity, "cache_lookups", lambda base: {})
    row = webrtc_capacity.measure_level(None, "pion", "ws://127.0.0.1:9/v1/realtime", 2, seconds, 2)
    assert row["onsets"] == 3 and row["onset_p95_ms"] is not None
    if minutes is None:
        assert "per_minute" not in row
    else:
        assert [m["onsets"] for m in row["per_minute"]] == minutes
        assert sum(m["onsets"] for m in row["per_minute"]) == row["onsets"]
        assert set(row["per_minute"][0]) == {"minute", "seconds", "onsets", "onset_p95_ms"}


def test_the_climb_prints_a_long_levels_minutes(monkeypatch, capsys) -> None:
    per_minute = [
        {"minute": 1, "seconds": 60.0, "onsets": 40, "onset_p95_ms": 120},
        {"minute": 2, "seconds": 60.0, "onsets": 0, "onset_p95_ms": None},
        {"minute": 3, "seconds": 30.0, "onsets": 20, "onset_p95_ms": 130},
    ]
    found = _climb_on_url(
        monkeypatch, capsys, [ROW | {"per_minute": per_minute}, ROW | {"onset_p95_ms": 400}]
    )
    assert found["planes"]["url"]["levels"][0]["per_minute"] == per_minute  # kept for --json
    out = capsys.readouterr().out.splitlines()
    assert out[1] == (
        "webrtc: --url engine, 10 talking calls, p95 onset per minute, ms (onsets): "
        "1: 120 (40), 2: n/a (0), 3 (30 s): 130 (20)"
    )
    assert not any("per minute" in line for line in out[2:])  # the level without minutes prints none


def test_the_go_drivers_report_without_times_still_parses(monkeypatch, tmp_path) -> None:
    """A driver built before it reported ``onset_at_s`` gives the delays alone: the level keeps them."""
    from mockengine.bench import pion_driver

    for report, expected in (
        ({"opened": 2, "onsets_ms": [80, 95], "cpu_s": 0.5, "wall_s": 3.0}, None),
        (
            {"opened": 2, "onsets_ms": [80, 95], "onset_at_s": [1.5, 2.5], "cpu_s": 0.5, "wall_s": 3.0},
            [1.5, 2.5],
        ),
    ):
        fake = tmp_path / "fake-driver"
        fake.write_text(
            f"#!{sys.executable}\nimport sys, json\nprint(json.dumps({{'ready': 2}}), flush=True)\n"
            f"sys.stdin.readline()\nprint(json.dumps({report!r}), flush=True)\n"
        )
        fake.chmod(0o755)
        monkeypatch.setenv("MOCKENGINE_PION_DRIVER", str(fake))
        run = pion_driver.pion_talking_calls(None, "ws://127.0.0.1:9/v1/realtime", 2, 3.0)
        assert run.onsets_ms == [80.0, 95.0] and run.onset_at_s == expected


METRICS = """\
mockengine_cache_lookups_total{cache="transcripts",result="hit"} 50.0
mockengine_cache_lookups_total{cache="transcripts",result="miss"} 2.0
mockengine_cache_lookups_total{cache="speech",result="miss"} 3.0
mockengine_transcript_fingerprint_searches_total{result="hit"} 12.0
mockengine_transcript_fingerprint_searches_total{result="miss"} 1.0
mockengine_transcript_fingerprint_comparisons_total 40.0
mockengine_transcript_fingerprint_search_cpu_seconds_total 0.25
mockengine_transcript_fingerprint_search_seconds_total 0.5
mockengine_engine_call_seconds_count{engine="stt"} 15.0
mockengine_engine_call_seconds_count{engine="tts"} 3.0
mockengine_gc_pause_seconds_count{generation="2"} 4.0
mockengine_gc_pause_seconds_sum{generation="2"} 0.75
mockengine_gc_pause_seconds_bucket{generation="2",le="0.1"} 1.0
mockengine_gc_pause_seconds_sum{generation="0"} 0.5
mockengine_event_loop_lag_probe_seconds_count 600.0
mockengine_event_loop_lag_probe_seconds_bucket{le="0.1"} 590.0
mockengine_event_loop_lag_probe_seconds_bucket{le="0.25"} 597.0
"""


def test_the_engines_counts_are_read_from_metrics_and_taken_between_two_reads(monkeypatch) -> None:
    class Answer:
        def read(self) -> bytes:
            return METRICS.encode()

    monkeypatch.setattr(webrtc_capacity.urllib.request, "urlopen", lambda url, timeout: Answer())
    found = webrtc_capacity.cache_lookups("http://127.0.0.1:9")
    assert found == {
        "transcripts_hit": 50,
        "transcripts_miss": 2,
        "speech_miss": 3,
        "fingerprint_hits": 12,
        "fingerprint_misses": 1,
        "fingerprint_comparisons": 40,
        "fingerprint_cpu_s": 0.25,
        "fingerprint_wall_s": 0.5,
        "stt_calls": 15,
        "tts_calls": 3,
        "gc2_collections": 4,
        "gc2_pause_s": 0.75,
        "gc2_within_100ms": 1,
        "gc0_pause_s": 0.5,
        "loop_probes": 600,
        "loop_probes_within_100ms": 590,
        "loop_probes_within_250ms": 597,
    }
    before = {"transcripts_hit": 10, "fingerprint_hits": 2, "fingerprint_cpu_s": 0.05}
    change = webrtc_capacity.counts_between(before, found)
    assert change["transcripts_hit"] == 40 and change["fingerprint_hits"] == 10
    assert change["transcripts_exact_hits"] == 30 and change["stt_calls"] == 15
    assert change["fingerprint_cpu_s"] == pytest.approx(0.2)
    # the buckets become stalls: full passes over 100 ms, probes that ran 100 / 250 ms late
    assert change["gc2_over_100ms"] == 3 and "gc2_within_100ms" not in change
    assert change["loop_late_100ms"] == 10 and change["loop_late_250ms"] == 3
    assert "loop_probes_within_250ms" not in change
    assert describe_stalls(change) == (
        "; gc: 4 full (0.75 s, 3 over 100 ms), young 0.50 s; loop probes late: 10 over 100 ms, 3 over 250 ms"
    )
    assert describe_stalls({"transcripts_hit": 1}) == ""  # an engine without the histograms
    no_search = webrtc_capacity.counts_between({}, {"transcripts_hit": 7, "transcripts_miss": 1})
    assert no_search["transcripts_exact_hits"] == 7  # no fingerprint counts yet: every hit was exact


def _reading(cpu: dict[int, float], names: dict[int, str], at_s: float) -> webrtc_capacity.Reading:
    return webrtc_capacity.Reading(
        engine_cpu_s=sum(cpu.values()),
        loop_cpu_s=cpu[100],
        sidecar_cpu_s=0.0,
        threads_cpu_s=cpu,
        engine_rss_bytes=0,
        sidecar_rss_bytes=0,
        thread_names=names,
        at_s=at_s,
    )


NAMES = {100: "python", 101: "python", 102: "stt_0", 103: "tts_0", 104: "tts_1", 105: "journal"}


def test_cpu_off_the_loop_is_grouped_by_thread_role() -> None:
    start = _reading({100: 1.0, 101: 1.0, 102: 0.0, 103: 0.0, 104: 0.0}, NAMES, 0.0)
    end = _reading({100: 2.0, 101: 1.5, 102: 0.75, 103: 0.25, 104: 0.25, 105: 0.0}, NAMES, 60.0)
    roles = webrtc_capacity.cpu_by_role(100, start, end)
    assert roles == {"loop": 1.0, "stt": 0.75, "tts": 0.5, "unnamed": 0.5, "journal": 0.0}
    assert list(roles)[:2] == ["loop", "stt"]  # busiest first


def test_a_long_levels_minutes_get_cpu_by_thread_and_counts(monkeypatch) -> None:
    probe = webrtc_capacity.EngineProbe(100)
    start = _reading({100: 1.0, 102: 0.0}, NAMES, 0.0)
    middle = _reading({100: 2.0, 102: 1.2}, NAMES, 60.0)
    end = _reading({100: 3.0, 102: 1.2}, NAMES, 120.0)
    probe.samples = [
        (start, {"fingerprint_hits": 0, "transcripts_hit": 0}),
        (middle, {"fingerprint_hits": 5, "transcripts_hit": 8}),
        (end, {"fingerprint_hits": 5, "transcripts_hit": 20}),
    ]
    minutes = [{"minute": m, "seconds": 60.0, "onsets": 1, "onset_p95_ms": 100} for m in (1, 2, 3)]
    webrtc_capacity.add_minute_threads(minutes, probe, opened=2)
    assert minutes[0]["thread_ms"] == {"loop": 8.3, "stt": 10.0}  # ms per call-second: 2 calls × 60 s
    assert minutes[0]["fingerprint_hits"] == 5 and minutes[0]["transcripts_exact_hits"] == 3
    assert minutes[1]["thread_ms"] == {"loop": 8.3, "stt": 0.0} and minutes[1]["transcripts_exact_hits"] == 12
    assert "thread_ms" not in minutes[2]  # the sampler never reached it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_the_probe_samples_the_engine_between_its_two_readings() -> None:
    import os
    import time

    probe = webrtc_capacity.EngineProbe(os.getpid(), sample_s=0.05)
    probe.cpu_seconds()
    time.sleep(0.3)
    probe.cpu_seconds()
    assert len(probe.readings) == 2 and len(probe.samples) >= 3
    assert probe.samples[0][0] is probe.readings[0] and probe.samples[-1][0] is probe.readings[1]
    assert probe.readings[1].thread_names[os.getpid()]  # the kernel's names are read with the CPU
    assert "loop" in webrtc_capacity.cpu_by_role(os.getpid(), *probe.readings)
    probe.reset()
    assert probe.readings == [] and probe.samples == []


def test_the_printed_level_names_the_threads_and_the_transcript_cache(monkeypatch, capsys) -> None:
    counts = {
        "transcripts_miss": 1,
        "transcripts_exact_hits": 30,
        "fingerprint_hits": 10,
        "fingerprint_misses": 2,
        "fingerprint_comparisons": 40,
        "fingerprint_cpu_s": 0.2,
        "fingerprint_wall_s": 0.3,
        "stt_calls": 13,
        "tts_calls": 2,
        "speech_miss": 2,
    }
    minute = {"minute": 1, "seconds": 60.0, "onsets": 40, "onset_p95_ms": 120}
    row = ROW | counts | {"thread_ms": {"loop": 3.1, "stt": 0.4}}
    first = minute | counts | {"thread_ms": {"loop": 3.0, "stt": 0.5}}
    row |= {"per_minute": [first, minute | {"minute": 2}]}
    _climb_on_url(monkeypatch, capsys, [row, ROW | {"onset_p95_ms": 400}])
    out = capsys.readouterr().out.splitlines()
    assert (
        "; whisper runs 1; transcripts 30 exact hits, 10 fingerprint hits of 12 searches (0.20 s CPU, 0.30 s "
        "wall, 40 compared); stt calls 13, tts calls 2, piper runs 2; CPU ms per call-second by thread: "
        "loop 3.1, stt 0.4; load" in out[0]
    )
    assert out[2].startswith(
        "webrtc: --url engine, 10 talking calls, CPU ms per call-second by thread per minute: "
        "1: loop 3.0, stt 0.5 | whisper 1, transcripts 30 exact hits"
    )
    assert "; 2:" not in out[2]  # a minute without a sample is left out
