"""Issue 2's end-to-end proof: the official openai SDK speaks a recorded question to a running engine.

Real webrtcvad, faster-whisper and piper; the question is espeak-ng speech (not the engine's voice),
streamed in 20 ms chunks at real-time pace.
"""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from openai import AsyncOpenAI

from tests.speech import question, validate_server_event, word_error_rate

pytestmark = pytest.mark.models
CHUNK_BYTES = 20 * 48


async def stream_realtime(connection, pcm: bytes) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    for index, offset in enumerate(range(0, len(pcm), CHUNK_BYTES)):
        await connection.input_audio_buffer.append(
            audio=base64.b64encode(pcm[offset : offset + CHUNK_BYTES]).decode()
        )
        await asyncio.sleep(max(0.0, start + (index + 1) * 0.02 - loop.time()))


async def test_sdk_spoken_question_gets_a_spoken_answer(engine_url, real_resources):
    base_url = await engine_url()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=base_url)
    pcm, label = question()
    events: list[dict] = []
    async with client.realtime.connect(model="gpt-realtime") as connection:
        await connection.session.update(
            session={
                "type": "realtime",
                "audio": {
                    "input": {
                        "transcription": {"model": "whisper-1"},
                        "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
                    }
                },
            }
        )
        streamer = asyncio.create_task(stream_realtime(connection, pcm + bytes(48 * 6000)))
        async with asyncio.timeout(30):
            while True:
                raw = json.loads(await connection.recv_bytes())
                events.append(raw)
                if raw["type"] == "response.done":
                    break
        streamer.cancel()
    for event in events:
        validate_server_event(event)
    kinds = [e["type"] for e in events]
    for expected in (
        "session.created",
        "session.updated",
        "input_audio_buffer.speech_started",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
        "response.created",
        "response.output_audio.delta",
        "response.done",
    ):
        assert expected in kinds, f"missing {expected} in {kinds}"
    started = next(e for e in events if e["type"] == "input_audio_buffer.speech_started")
    assert abs(started["audio_start_ms"] - (label["speech_start_ms"] - 300)) <= 150
    committed = next(e for e in events if e["type"] == "input_audio_buffer.committed")
    assert committed["item_id"] == started["item_id"]
    user_transcript = next(
        e for e in events if e["type"] == "conversation.item.input_audio_transcription.completed"
    )["transcript"]
    assert "capital" in user_transcript.lower() and "france" in user_transcript.lower()
    done = events[-1]["response"]
    assert done["status"] == "completed" and done["usage"]["total_tokens"] > 0
    reply_transcript = next(e for e in events if e["type"] == "response.output_audio_transcript.done")[
        "transcript"
    ]
    assert "france" in reply_transcript.lower() or "paris" in reply_transcript.lower()
    audio = b"".join(
        base64.b64decode(e["delta"]) for e in events if e["type"] == "response.output_audio.delta"
    )
    heard = real_resources.transcriber.transcribe(audio).text
    assert word_error_rate(reply_transcript, heard) <= 0.20, (reply_transcript, heard)
