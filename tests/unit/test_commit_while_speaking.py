"""``input_audio_buffer.commit`` while the user speaks (after ``speech_started``, before
``speech_stopped``) closes the open turn with ``speech_stopped`` and commits it once, under its item id,
with no response; speech after it is a fresh turn with its own ``speech_started``."""

from __future__ import annotations

import pytest

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.realtime.turn_state import TurnState
from tests.conftest import make_driver

TURN_DETECTIONS = [
    {"type": "server_vad", "silence_duration_ms": 500},
    {"type": "semantic_vad", "eagerness": "low"},
]


def _kinds(driver, since: int) -> list[str]:
    return [event["type"] for _, event in driver.events[since:] if event["type"].startswith("input_audio")]


def _set_turn_detection(driver, turn_detection: dict[str, object] | None) -> None:
    driver.send(
        ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}})
    )


@pytest.mark.parametrize("turn_detection", TURN_DETECTIONS, ids=lambda t: str(t["type"]))
def test_a_commit_mid_speech_closes_and_commits_the_turn_once_then_speech_goes_on_fresh(
    turn_detection: dict[str, object],
) -> None:
    driver = make_driver()
    _set_turn_detection(driver, turn_detection)
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(800))
    (started,) = driver.of_type("input_audio_buffer.speech_started")
    since = len(driver.events)
    driver.send(ce.InputAudioBufferCommit())
    assert _kinds(driver, since) == ["input_audio_buffer.speech_stopped", "input_audio_buffer.committed"]
    stopped = driver.of_type("input_audio_buffer.speech_stopped")[0]
    committed = driver.of_type("input_audio_buffer.committed")[0]
    assert stopped["item_id"] == committed["item_id"] == started["item_id"]
    assert stopped["audio_end_ms"] == driver.audio_sent_ms == 1100
    assert driver.session.turns.state is TurnState.LISTENING
    # The user goes on speaking: a fresh onset, its own item, committed and answered by turn detection.
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(2500)
    driver.run_until_idle()
    assert _kinds(driver, since) == [
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
        "input_audio_buffer.speech_started",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
    ]
    second = driver.of_type("input_audio_buffer.speech_started")[1]
    later = driver.of_type("input_audio_buffer.committed")[1]
    assert second["item_id"] == later["item_id"] != started["item_id"]
    assert second["audio_start_ms"] >= 1100
    user_items = [item.id for item in driver.session.conversation if item.role == "user"]
    assert user_items == [started["item_id"], second["item_id"]]
    # One response, for the turn detection ended; the manual commit asked for none (reference §3.4).
    (created,) = driver.of_type("response.created")
    assert driver.events.index(next(x for x in driver.events if x[1] is created)) > driver.events.index(
        next(x for x in driver.events if x[1] is later)
    )


def test_a_commit_mid_speech_that_goes_silent_leaves_nothing_open() -> None:
    """Push-to-talk over server_vad: the button is released while speaking, then silence only."""
    driver = make_driver()
    driver.stream(synthetic_voiced_pcm16(800))
    driver.send(ce.InputAudioBufferCommit())
    driver.stream_silence(3000)
    driver.run_until_idle()
    started = driver.of_type("input_audio_buffer.speech_started")
    stopped = driver.of_type("input_audio_buffer.speech_stopped")
    assert len(started) == len(stopped) == len(driver.of_type("input_audio_buffer.committed")) == 1
    assert not driver.of_type("response.created")


def test_a_commit_in_a_listening_pause_closes_the_turn_left_open() -> None:
    """Turn detection switched off mid-speech leaves the turn open; the commit ends and commits it."""
    driver = make_driver()
    driver.stream(synthetic_voiced_pcm16(800))
    (started,) = driver.of_type("input_audio_buffer.speech_started")
    _set_turn_detection(driver, None)
    driver.stream(synthetic_voiced_pcm16(300))
    since = len(driver.events)
    driver.send(ce.InputAudioBufferCommit())
    assert _kinds(driver, since) == ["input_audio_buffer.speech_stopped", "input_audio_buffer.committed"]
    stopped = driver.of_type("input_audio_buffer.speech_stopped")[0]
    assert stopped["item_id"] == started["item_id"] and stopped["audio_end_ms"] == 1100
    driver.stream(synthetic_voiced_pcm16(300))
    driver.send(ce.InputAudioBufferCommit())  # a manual turn now: committed only
    assert _kinds(driver, since)[2:] == ["input_audio_buffer.committed"]


def test_a_commit_between_turns_sends_no_speech_events() -> None:
    driver = make_driver()
    driver.stream_silence(500)
    since = len(driver.events)
    driver.send(ce.InputAudioBufferCommit())
    assert _kinds(driver, since) == ["input_audio_buffer.committed"]


def test_a_commit_after_a_change_of_turn_detection_type_mid_speech_closes_the_turn() -> None:
    """server_vad → semantic_vad mid-speech hands the open turn over; a commit ends and commits it."""
    driver = make_driver()
    driver.stream(synthetic_voiced_pcm16(800))
    (started,) = driver.of_type("input_audio_buffer.speech_started")
    _set_turn_detection(driver, {"type": "semantic_vad", "eagerness": "low"})
    assert driver.session.turns.state is TurnState.IN_TURN  # the new detector took the turn over
    since = len(driver.events)
    driver.send(ce.InputAudioBufferCommit())
    assert _kinds(driver, since) == ["input_audio_buffer.speech_stopped", "input_audio_buffer.committed"]
    assert {e["item_id"] for e in driver.of_type("input_audio_buffer.committed")} == {started["item_id"]}
    assert driver.session.turns.state is TurnState.LISTENING
