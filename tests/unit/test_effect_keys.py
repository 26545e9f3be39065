"""Effect results are routed by typed keys (realtime/effects.py), handed back by the shell untouched."""

from __future__ import annotations

import dataclasses

import pytest

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import (
    ItemTranscriptKey,
    ProbeKey,
    SentenceKey,
    Step,
    Synthesize,
    Transcribe,
)
from tests.conftest import RecordingDriver, make_recording_driver


def _recording(turn_detection: dict[str, object] | None, transcription: bool = False) -> RecordingDriver:
    recording = make_recording_driver()
    audio_input: dict[str, object] = {"turn_detection": turn_detection}
    if transcription:
        audio_input["transcription"] = {"model": "whisper-1"}
    recording.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": audio_input}}))
    return recording


def test_every_effect_carries_a_typed_key_for_what_its_result_is_for() -> None:
    driver = _recording({"type": "semantic_vad", "eagerness": "high"})
    driver.stream(synthetic_voiced_pcm16(900))
    driver.stream_silence(1500)
    driver.run_until_idle()
    transcribe = [e.key for e in driver.effects if isinstance(e, Transcribe)]
    synthesize = [e.key for e in driver.effects if isinstance(e, Synthesize)]
    assert transcribe and all(isinstance(k, ProbeKey) for k in transcribe)
    response_id = driver.of_type("response.created")[0]["response"]["id"]
    assert synthesize == [SentenceKey(response_id, i) for i in range(len(synthesize))]
    with pytest.raises(dataclasses.FrozenInstanceError):
        synthesize[0].index = 9  # type: ignore[misc]


def test_a_probe_of_a_detector_that_was_replaced_is_unwanted_and_ignored() -> None:
    driver = _recording({"type": "semantic_vad", "eagerness": "low"})
    driver.fixed_latency_ms = 10_000.0  # the probe's words are still out when the turn is committed
    driver.stream(synthetic_voiced_pcm16(900))
    driver.stream_silence(300)
    (probe,) = [e.key for e in driver.effects if isinstance(e, Transcribe)]
    assert isinstance(probe, ProbeKey) and driver.session.is_wanted(probe)
    driver.send(ce.InputAudioBufferCommit())  # closes the turn: a fresh detector, the next generation
    assert not driver.session.is_wanted(probe)
    assert driver.session.on_transcript(probe, "stale words", driver.now_ms) == Step()
    assert driver.session.on_transcript_failed(probe, "engine down", driver.now_ms) == Step()


def test_an_item_s_failed_transcription_is_announced_and_its_response_goes_on() -> None:
    driver = _recording(None, transcription=True)
    driver.fixed_latency_ms = 10_000.0
    driver.stream(synthetic_voiced_pcm16(600))
    driver.send(ce.InputAudioBufferCommit())
    driver.send(ce.ResponseCreate({}))
    (key,) = [e.key for e in driver.effects if isinstance(e, Transcribe)]
    assert isinstance(key, ItemTranscriptKey) and driver.session.is_wanted(key)
    step = driver.session.on_transcript_failed(key, "engine down", driver.now_ms)
    kinds = [event["type"] for event in step.events]
    assert kinds[0] == "conversation.item.input_audio_transcription.failed"
    # The waiting response answered without the words: its reply is being spoken.
    assert any(isinstance(effect, Synthesize) for effect in step.effects)
    assert not driver.session.is_wanted(key)


def test_a_sentence_of_a_cancelled_response_is_unwanted_and_its_speech_dropped() -> None:
    driver = _recording({"type": "server_vad"})
    driver.fixed_latency_ms = 10_000.0
    driver.send(
        ce.ConversationItemCreate(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
        )
    )
    driver.send(ce.ResponseCreate({}))
    key = next(e.key for e in driver.effects if isinstance(e, Synthesize))
    driver.send(ce.ResponseCancel())
    assert not driver.session.is_wanted(key)
    assert driver.session.on_speech(key, bytes(4800), driver.now_ms) == Step()
    assert driver.session.on_speech_failed(key, "engine down", driver.now_ms) == Step()
