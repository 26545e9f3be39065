"""Test speech and event helpers shared by the integration tests."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import typing
import wave
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np
import soxr
from openai import AsyncOpenAI
from openai.types.realtime import RealtimeServerEvent

from mockengine.engines.stt import Transcript, WordTiming
from tests.server_event_check import live_key_deviations, sdk_deviations

DATA = Path(__file__).parent / "data"


def load_wav_24k(path: Path) -> bytes:
    """A mono PCM16 WAV file resampled to 24 kHz PCM16 (soxr)."""
    with wave.open(str(path), "rb") as handle:
        rate = handle.getframerate()
        samples = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2")
    if rate == 24_000:
        return samples.tobytes()
    resampled = soxr.resample(samples.astype(np.float32) / 32768.0, rate, 24_000)
    return (np.clip(np.rint(resampled * 32768.0), -32768, 32767).astype("<i2")).tobytes()


def question() -> tuple[bytes, dict[str, Any]]:
    return load_wav_24k(DATA / "question.wav"), json.loads((DATA / "question.json").read_text())


# whisper tiny.en on tests/data/question.wav, with its word timings and probabilities: the "?" is a word
# of its own, stretched over the trailing silence. For tests that need whisper's words without the model.
QUESTION_TRANSCRIPT = Transcript(
    "What is the capital of France?",
    3247,
    "en",
    (
        WordTiming("What", 0, 800, 0.727),
        WordTiming("is", 800, 1000, 0.967),
        WordTiming("the", 1000, 1260, 0.947),
        WordTiming("capital", 1260, 1600, 0.934),
        WordTiming("of", 1600, 1860, 0.524),
        WordTiming("France", 1860, 2240, 0.934),
        WordTiming("?", 2240, 3220, 0.891),
    ),
)


def _server_event_models() -> dict[str, Any]:
    union = typing.get_args(RealtimeServerEvent)[0]
    models = {}
    for model in typing.get_args(union):
        literal = model.model_fields["type"].annotation
        models[typing.get_args(literal)[0]] = model
    return models


SERVER_EVENT_MODELS = _server_event_models()


def validate_server_event(event: dict[str, Any]) -> None:
    """Validate against the openai SDK's pydantic model for this event type, strictly: pydantic's strict
    mode, and no field the SDK does not declare beyond the live service's; and the keys of the live
    service's captured frames of its type (tests/server_event_check.py)."""
    assert event["type"] in SERVER_EVENT_MODELS, f"{event['type']} is not a GA server event type"
    deviations = sdk_deviations(event) + live_key_deviations(event)
    assert not deviations, deviations


async def events_until(connection: Any, kind: str) -> list[dict[str, Any]]:
    """Server events from an ``openai`` SDK realtime connection up to and including the next ``kind``,
    each validated as above; a wait over 15 s for one event fails the test."""
    seen: list[dict[str, Any]] = []
    while True:
        event = json.loads(await asyncio.wait_for(connection.recv_bytes(), 15))
        validate_server_event(event)
        seen.append(event)
        if event["type"] == kind:
            return seen


# A typed user turn the default scenario answers with a story (several sentences of reply audio).
STORY = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Tell me a story"}]}


@contextlib.asynccontextmanager
async def sdk_connection(
    url: str, *, api_key: str = "sk-test", model: str = "gpt-realtime", **client_options: Any
) -> AsyncIterator[Any]:
    """An ``openai`` SDK realtime connection to the engine at ``url`` (its WebSocket base,
    ``ws://127.0.0.1:PORT/v1``), nothing read from it yet; ``client_options`` go to ``AsyncOpenAI``.
    The connection and its client are closed when the block ends."""
    async with (
        AsyncOpenAI(api_key=api_key, websocket_base_url=url, **client_options) as client,
        client.realtime.connect(model=model) as connection,
    ):
        yield connection


@contextlib.asynccontextmanager
async def sdk_session(url: str, **options: Any) -> AsyncIterator[Any]:
    """``sdk_connection`` with its ``session.created`` read (validated, as ``events_until``)."""
    async with sdk_connection(url, **options) as connection:
        await events_until(connection, "session.created")
        yield connection


async def next_event(ws: Any, kind: str) -> dict[str, Any]:
    """The next server event of type ``kind`` from an aiohttp WebSocket, every event before it validated
    as above; an ``error`` event or a non-text frame fails the test."""
    while True:
        message = await ws.receive(timeout=30)
        assert message.type == aiohttp.WSMsgType.TEXT, (message.type, message.data, message.extra)
        event = json.loads(message.data)
        validate_server_event(event)
        assert event["type"] != "error", event
        if event["type"] == kind:
            return dict(event)


def word_error_rate(reference: str, hypothesis: str) -> float:
    import jiwer

    def norm(text: str) -> str:
        return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())

    return float(jiwer.wer(norm(reference), norm(hypothesis)))


async def speak_fast(ws: Any, pcm: bytes, turn_detection: dict[str, Any], trailing_silence_ms: int) -> list:
    """Set the turn detection, then append ``pcm`` and silence in 100 ms chunks as fast as the socket
    takes them (turn detection counts audio, not wall time, so decisions are those of real time), and
    collect server events until ``response.done``."""
    await ws.send_str(
        json.dumps(
            {
                "type": "session.update",
                "session": {"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}},
            }
        )
    )
    audio = pcm + bytes(48 * trailing_silence_ms)
    for offset in range(0, len(audio), 48 * 100):
        chunk = base64.b64encode(audio[offset : offset + 48 * 100]).decode()
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk}))
    events = []
    while not events or events[-1]["type"] != "response.done":
        events.append(json.loads((await ws.receive(timeout=30)).data))
    return events
