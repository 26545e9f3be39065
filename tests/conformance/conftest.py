"""Fixtures for running the conformance runner: synthetic clips for the scripted fake engine, and a real
mockengine to run it against."""

from __future__ import annotations

import json
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

CLIP_RATE_HZ = 16_000
# Synthetic "speech": a 150 Hz harmonic voice, syllable-modulated at 4 Hz but never quiet, with 100 ms of
# silence at each end so the runner's onset detection has something to find.
CLIP_SPEECH_MS = {"question": 2000, "interrupt": 1500, "long_statement": 7000}
EDGE_SILENCE_MS = 100


def voiced_samples(speech_ms: int) -> np.ndarray:
    t = np.arange(speech_ms * CLIP_RATE_HZ // 1000) / CLIP_RATE_HZ
    voice = sum(np.sin(2 * np.pi * 150 * k * t) / k for k in range(1, 6))
    envelope = 0.65 + 0.35 * np.sin(2 * np.pi * 4 * t)
    edge = np.zeros(EDGE_SILENCE_MS * CLIP_RATE_HZ // 1000)
    return np.concatenate([edge, 5000 * envelope * voice, edge]).astype("<i2")


def write_wav(path: Path, samples: np.ndarray) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(CLIP_RATE_HZ)
        wav.writeframes(samples.tobytes())


@pytest.fixture(scope="session")
def synthetic_clips(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clips directory (16 kHz WAVs + clips.json) in the layout the runner reads."""
    directory = tmp_path_factory.mktemp("clips")
    index = {}
    for name, speech_ms in CLIP_SPEECH_MS.items():
        write_wav(directory / f"{name}.wav", voiced_samples(speech_ms))
        index[name] = {"file": f"{name}.wav", "text": name, "duration_ms": speech_ms + 2 * EDGE_SILENCE_MS}
    (directory / "clips.json").write_text(json.dumps({"sample_rate_hz": CLIP_RATE_HZ, "clips": index}))
    return directory


@pytest.fixture
async def mockengine_url(aiohttp_server: Any) -> str:
    """The WebSocket URL of a real mockengine (seed 7, real models) on a loopback port."""
    from mockengine.server.app import create_app
    from mockengine.settings import Settings

    server = await aiohttp_server(create_app(Settings(seed=7)))
    return f"ws://{server.host}:{server.port}/v1/realtime?model=gpt-realtime"
