"""``gpt-4o-transcribe-diarize`` over a real socket with real whisper: the official openai SDK speaks
tests/data/question.wav and gets the turn's ``…input_audio_transcription.segment`` events (speaker,
seconds within the item's audio) before its ``completed``, in a realtime and a transcription session."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from openai import AsyncOpenAI

from tests.speech import question, validate_server_event

pytestmark = pytest.mark.models
DIARIZE = "gpt-4o-transcribe-diarize"


async def _transcribed_turn(url: str, session_type: str) -> list[dict[str, Any]]:
    """Events from session.update to the turn's transcription.completed (manual commit), validated."""
    pcm, _label = question()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=url)
    query = {"intent": "transcription"} if session_type == "transcription" else {}
    events: list[dict[str, Any]] = []
    model = {"model": "gpt-realtime"} if session_type == "realtime" else {}
    async with client.realtime.connect(**model, extra_query=query) as connection:  # type: ignore[arg-type]
        await connection.session.update(
            session={
                "type": session_type,
                "audio": {"input": {"transcription": {"model": DIARIZE}, "turn_detection": None}},
            }
        )
        await connection.input_audio_buffer.append(audio=base64.b64encode(pcm).decode())
        await connection.input_audio_buffer.commit()
        while True:
            event = json.loads(await connection.recv_bytes())
            validate_server_event(event)
            events.append(event)
            if event["type"] == "conversation.item.input_audio_transcription.completed":
                return events


@pytest.mark.parametrize("session_type", ["realtime", "transcription"])
async def test_the_diarize_model_sends_the_turns_segments_before_completed(
    engine_url, session_type: str
) -> None:
    # Two engines with the same seed: the same events.
    runs = [await _transcribed_turn(await engine_url(), session_type) for _ in range(2)]
    events = runs[0]
    kinds = [e["type"] for e in events]
    committed = next(e for e in events if e["type"] == "input_audio_buffer.committed")
    segments = [e for e in events if e["type"] == "conversation.item.input_audio_transcription.segment"]
    completed = events[-1]
    assert segments, kinds
    # Deltas first (as for the other models), then the segments, then completed.
    first_segment = kinds.index(segments[0]["type"])
    assert all(k != "conversation.item.input_audio_transcription.delta" for k in kinds[first_segment:])
    assert "conversation.item.input_audio_transcription.delta" in kinds[:first_segment]
    assert all(s["item_id"] == committed["item_id"] and s["content_index"] == 0 for s in segments)
    assert " ".join(s["text"] for s in segments) == completed["transcript"]
    assert "capital" in completed["transcript"].lower()
    assert {s["speaker"] for s in segments} == {"A"}
    assert len({s["id"] for s in segments}) == len(segments)
    audio_s = len(question()[0]) / 48_000
    assert segments[0]["start"] == 0.0 and segments[-1]["end"] == pytest.approx(audio_s, abs=0.001)
    for segment, after in zip(segments, segments[1:], strict=False):
        assert 0 <= segment["start"] < segment["end"] <= after["start"] + 1e-9
    assert [_transcription(run) for run in runs[1:]] == [_transcription(events)]


def _transcription(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The run's transcription events (ids, words, segments), less the random padding of the deltas."""
    return [
        {k: v for k, v in e.items() if k != "obfuscation"}
        for e in events
        if e["type"].startswith(("conversation.item.input_audio_transcription.", "input_audio_buffer."))
    ]
