"""``input_audio_buffer.clear`` while the user speaks closes the open turn (``speech_stopped``, then
``cleared``, no ``committed``), and speech after it is a fresh turn with its own ``speech_started``."""

from __future__ import annotations

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from tests.conftest import make_driver

SPEECH_EVENTS = ("input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped")


def _kinds(driver, since: int) -> list[str]:
    return [event["type"] for _, event in driver.events[since:] if event["type"].startswith("input_audio")]


def test_a_clear_mid_speech_closes_the_turn_and_the_next_speech_is_a_fresh_one() -> None:
    driver = make_driver()
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(800))
    (started,) = driver.of_type("input_audio_buffer.speech_started")
    since = len(driver.events)
    driver.send(ce.InputAudioBufferClear())
    assert _kinds(driver, since) == ["input_audio_buffer.speech_stopped", "input_audio_buffer.cleared"]
    stopped = driver.of_type("input_audio_buffer.speech_stopped")[0]
    assert stopped["item_id"] == started["item_id"] and stopped["audio_end_ms"] == 1100
    # The user goes on speaking: a new turn, announced, committed and answered under a new id.
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(1000)
    driver.run_until_idle()
    assert _kinds(driver, since) == [
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.cleared",
        "input_audio_buffer.speech_started",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
    ]
    second = driver.of_type("input_audio_buffer.speech_started")[1]
    committed = driver.of_type("input_audio_buffer.committed")[0]
    assert second["item_id"] == committed["item_id"] != started["item_id"]
    assert second["audio_start_ms"] >= 1100
    assert started["item_id"] not in [item.id for item in driver.session.conversation]
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"


def test_a_clear_between_turns_sends_cleared_only() -> None:
    driver = make_driver()
    driver.stream_silence(500)
    since = len(driver.events)
    driver.send(ce.InputAudioBufferClear())
    assert _kinds(driver, since) == ["input_audio_buffer.cleared"]


def test_a_clear_in_a_listening_pause_closes_the_turn_left_open() -> None:
    """Turn detection switched off mid-speech leaves the turn open for a commit; a clear closes it."""
    driver = make_driver()
    driver.stream(synthetic_voiced_pcm16(800))
    (started,) = driver.of_type("input_audio_buffer.speech_started")
    driver.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": None}}}))
    since = len(driver.events)
    driver.send(ce.InputAudioBufferClear())
    assert _kinds(driver, since) == ["input_audio_buffer.speech_stopped", "input_audio_buffer.cleared"]
    assert driver.of_type("input_audio_buffer.speech_stopped")[0]["item_id"] == started["item_id"]
    driver.stream(synthetic_voiced_pcm16(800))  # no turn detection now: no speech events
    assert [k for k in _kinds(driver, since) if k in SPEECH_EVENTS] == ["input_audio_buffer.speech_stopped"]
