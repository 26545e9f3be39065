"""Load profiles, percentiles and the capacity verdict of the bench driver (no sockets)."""

from __future__ import annotations

import pytest

from mockengine.conformance.audio import Clip
from mockengine.loadtest.capacity import level_failures
from mockengine.loadtest.driver import distribution, percentile
from mockengine.loadtest.participant import CHUNK_BYTES, ClipMessages
from mockengine.loadtest.profile import LoadProfile


def test_steady_profile_runs_every_session_to_the_end() -> None:
    profile = LoadProfile("steady", 10, 30.0)
    schedules = profile.schedules()
    assert len(schedules) == 10 and all(s.stop_s == 30.0 for s in schedules)
    assert profile.concurrency_at(5.0) == 10
    assert schedules == sorted(schedules, key=lambda s: s.start_s)


def test_ramp_profile_grows_linearly() -> None:
    profile = LoadProfile("ramp", 100, 50.0)
    assert profile.concurrency_at(0.0) == 1
    assert profile.concurrency_at(25.0) == 51
    assert profile.concurrency_at(49.9) == 100


def test_spike_profile_adds_three_quarters_for_a_while() -> None:
    profile = LoadProfile("spike", 100, 100.0)
    assert profile.concurrency_at(20.0) == 25
    assert profile.concurrency_at(60.0) == 100
    assert profile.concurrency_at(80.0) == 25


def test_profile_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="profile"):
        LoadProfile("burst", 1, 1.0)
    with pytest.raises(ValueError, match="session"):
        LoadProfile("steady", 0, 1.0)


def test_percentiles_interpolate() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == pytest.approx(50.5)
    assert percentile(values, 95) == pytest.approx(95.05)
    assert percentile([], 95) is None
    assert distribution([3.0, 1.0, 2.0]) == {"count": 3, "p50": 2.0, "p95": 2.9, "p99": 3.0, "max": 3.0}


def _summary(**overrides: object) -> dict:
    summary = {
        "sessions_refused": 0,
        "sessions_failed_to_connect": 0,
        "sessions_dropped": 0,
        "lost_events": 0,
        "late_chunk_share": 0.0,
        "onset_to_speech_started_ms": {"p95": 100.0},
        "speech_stopped_to_first_audio_ms": {"p95": 400.0},
        "ack_ms": {"p95": None},
    }
    summary.update(overrides)
    return summary


def test_a_level_passes_only_within_every_goal() -> None:
    assert level_failures(_summary(), baseline=False) == []
    assert level_failures(_summary(sessions_dropped=1), baseline=False) == ["sessions_dropped=1"]
    slow = _summary(speech_stopped_to_first_audio_ms={"p95": 1200.0})
    assert level_failures(slow, baseline=False) == ["speech_stopped_to_first_audio_ms p95=1200.0"]
    assert level_failures(_summary(late_chunk_share=0.05), baseline=False) == ["driver late 5.0 %"]
    assert level_failures(_summary(ack_ms={"p95": 3.0}), baseline=True) == []
    assert level_failures(_summary(), baseline=True) == ["ack_ms p95=None"]


def test_clip_messages_are_whole_20_ms_appends_with_the_onset_chunk() -> None:
    clip = Clip("c", bytes(CHUNK_BYTES * 2 + 10), speech_onset_ms=25.0, speech_end_ms=40.0)
    messages = ClipMessages.of(clip)
    assert len(messages.messages) == 3  # padded to whole chunks
    assert messages.onset_chunk == 1
    assert all('"type": "input_audio_buffer.append"' in m for m in messages.messages)
