"""Test speech and event helpers shared by the integration tests."""

from __future__ import annotations

import json
import typing
import wave
from pathlib import Path
from typing import Any

import numpy as np
import soxr
from openai.types.realtime import RealtimeServerEvent

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


def _server_event_models() -> dict[str, Any]:
    union = typing.get_args(RealtimeServerEvent)[0]
    models = {}
    for model in typing.get_args(union):
        literal = model.model_fields["type"].annotation
        models[typing.get_args(literal)[0]] = model
    return models


SERVER_EVENT_MODELS = _server_event_models()


def validate_server_event(event: dict[str, Any]) -> None:
    """Validate against the openai SDK's pydantic model for this event type (strict oracle)."""
    model = SERVER_EVENT_MODELS.get(event["type"])
    assert model is not None, f"{event['type']} is not a GA server event type"
    model.model_validate(event)


def word_error_rate(reference: str, hypothesis: str) -> float:
    import jiwer

    def norm(text: str) -> str:
        return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())

    return float(jiwer.wer(norm(reference), norm(hypothesis)))
