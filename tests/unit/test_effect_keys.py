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
from tests.conftest import RecordingReplay, make_recording_replay


def _recording(turn_detection: dict[str, object] | None, transcription: bool = False) -> RecordingReplay:
    recording = make_recording_replay()
    audio_input: dict[str, object] = {"turn_detection": turn_detection}
    if transcription:
        audio_input["transcription"] = {"model": "whisper-1"}
    recording.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": audio_input}}))
    return recording


def test_every_effect_carries_a_typed_key_for_what_its_result_is_for() -> None:
    replay = _recording({"type": "semantic_vad", "eagerness": "high"})
    replay.stream(synthetic_voiced_pcm16(900))
    replay.stream_silence(1500)
    replay.run_until_idle()
    transcribe = [e.key for e in replay.effects if isinstance(e, Transcribe)]
    synthesize = [e.key for e in replay.effects if isinstance(e, Synthesize)]
    assert transcribe and all(isinstance(k, ProbeKey) for k in transcribe)
    response_id = replay.of_type("response.created")[0]["response"]["id"]
    assert synthesize == [SentenceKey(response_id, i) for i in range(len(synthesize))]
    with pytest.raises(dataclasses.FrozenInstanceError):
        synthesize[0].index = 9  # type: ignore[misc]


def test_a_probe_of_a_detector_that_was_replaced_is_unwanted_and_ignored() -> None:
    replay = _recording({"type": "semantic_vad", "eagerness": "low"})
    replay.fixed_latency_ms = 10_000.0  # the probe's words are still out when the turn is committed
    replay.stream(synthetic_voiced_pcm16(900))
    replay.stream_silence(300)
    (probe,) = [e.key for e in replay.effects if isinstance(e, Transcribe)]
    assert isinstance(probe, ProbeKey) and replay.session.is_wanted(probe)
    replay.send(ce.InputAudioBufferCommit())  # closes the turn: a fresh detector, the next generation
    assert not replay.session.is_wanted(probe)
    assert replay.session.on_transcript(probe, "stale words", replay.now_ms) == Step()
    assert replay.session.on_transcript_failed(probe, "engine down", replay.now_ms) == Step()


def test_an_item_s_failed_transcription_is_announced_and_its_response_goes_on() -> None:
    replay = _recording(None, transcription=True)
    replay.fixed_latency_ms = 10_000.0
    replay.stream(synthetic_voiced_pcm16(600))
    replay.send(ce.InputAudioBufferCommit())
    replay.send(ce.ResponseCreate({}))
    (key,) = [e.key for e in replay.effects if isinstance(e, Transcribe)]
    assert isinstance(key, ItemTranscriptKey) and replay.session.is_wanted(key)
    step = replay.session.on_transcript_failed(key, "engine down", replay.now_ms)
    kinds = [event["type"] for event in step.events]
    assert kinds[0] == "conversation.item.input_audio_transcription.failed"
    assert "response.output_item.added" in kinds  # the waiting response answered without the words
    assert not replay.session.is_wanted(key)


def test_a_sentence_of_a_cancelled_response_is_unwanted_and_its_speech_dropped() -> None:
    replay = _recording({"type": "server_vad"})
    replay.fixed_latency_ms = 10_000.0
    replay.send(
        ce.ConversationItemCreate(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
        )
    )
    replay.send(ce.ResponseCreate({}))
    key = next(e.key for e in replay.effects if isinstance(e, Synthesize))
    replay.send(ce.ResponseCancel())
    assert not replay.session.is_wanted(key)
    assert replay.session.on_speech(key, bytes(4800), replay.now_ms) == Step()
    assert replay.session.on_speech_failed(key, "engine down", replay.now_ms) == Step()
