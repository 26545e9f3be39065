"""``gpt-4o-transcribe-diarize``'s ``conversation.item.input_audio_transcription.segment`` events, on the
sans-IO core with the fake transcriber (no word timings: the words spread over the item's audio)."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import UNPACED
from tests.speech import validate_server_event

SEGMENT = "conversation.item.input_audio_transcription.segment"
TWO_SENTENCES = "Hello there. How are you today?"


def _turn(model: str, transcript: str = TWO_SENTENCES, seed: int = 7, session_type: str = "realtime") -> Any:
    """A session of ``session_type`` transcribing one committed 1.2 s turn with ``model``."""
    session = RealtimeSession(
        SessionOptions(
            model="gpt-realtime", pacing=UNPACED, created_at_s=1_700_000_000, session_type=session_type
        ),
        brain=ScriptedBrain(load_scenario(None), seed=seed),
        ids=IdFactory(seed),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )
    driver = VirtualTimeDriver(session, FakeTranscriber(default=transcript), FakeSynthesizer())
    driver.start()
    transcription = {"transcription": {"model": model}, "turn_detection": None}
    driver.send(ce.SessionUpdate({"type": session_type, "audio": {"input": transcription}}))
    driver.stream(synthetic_voiced_pcm16(1200))
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    return driver


@pytest.mark.parametrize("session_type", ["realtime", "transcription"])
def test_the_diarize_model_sends_a_segment_a_sentence_before_completed(session_type: str) -> None:
    driver = _turn("gpt-4o-transcribe-diarize", session_type=session_type)
    events = [event for _, event in driver.events]
    for event in events:
        validate_server_event(event)
    kinds = [e["type"] for e in events]
    segments = driver.of_type(SEGMENT)
    completed = driver.of_type("conversation.item.input_audio_transcription.completed")[0]
    item_id = driver.of_type("input_audio_buffer.committed")[0]["item_id"]
    assert [s["text"] for s in segments] == ["Hello there.", "How are you today?"]
    assert {(s["item_id"], s["content_index"], s["speaker"]) for s in segments} == {(item_id, 0, "A")}
    assert segments[0]["start"] == 0.0 and segments[-1]["end"] == 1.2  # seconds of the item's audio
    assert 0 < segments[0]["end"] <= segments[1]["start"] < segments[1]["end"]
    assert segments[0]["id"].startswith("seg_") and segments[0]["id"] != segments[1]["id"]
    last_delta = max(i for i, k in enumerate(kinds) if k.endswith("transcription.delta"))
    assert last_delta < kinds.index(SEGMENT) < kinds.index(completed["type"])
    assert kinds.index(completed["type"]) == max(i for i, k in enumerate(kinds) if k == SEGMENT) + 1
    assert completed["transcript"] == TWO_SENTENCES


def test_the_same_seed_gives_the_same_segments() -> None:
    runs = [_turn("gpt-4o-transcribe-diarize").of_type(SEGMENT) for _ in range(2)]
    assert runs[0] == runs[1]
    assert _turn("gpt-4o-transcribe-diarize", seed=8).of_type(SEGMENT)[0]["id"] != runs[0][0]["id"]


@pytest.mark.parametrize("model", ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"])
def test_other_models_send_no_segments(model: str) -> None:
    driver = _turn(model)
    assert driver.of_type("conversation.item.input_audio_transcription.completed")
    assert driver.of_type(SEGMENT) == []


def test_nothing_heard_gives_no_segment() -> None:
    driver = _turn("gpt-4o-transcribe-diarize", transcript="")
    assert driver.of_type("conversation.item.input_audio_transcription.completed")[0]["transcript"] == ""
    assert driver.of_type(SEGMENT) == []
