"""Clip loading, the paced microphone's audio position, and the test image."""

from __future__ import annotations

import base64
import io
import json
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from aiohttp import WSMsgType, web
from PIL import Image

from mockengine.conformance.audio import DEFAULT_CLIPS_DIR, Clip, Microphone, load_clip, load_clips
from mockengine.conformance.checks_text import solid_png_data_url
from mockengine.conformance.connection import Connection


def write_wav(path: Path, samples: np.ndarray, rate_hz: int, width: int = 2) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(width)
        wav.setframerate(rate_hz)
        wav.writeframes(samples.tobytes())


def tone_with_silence(rate_hz: int, silence_ms: int, tone_ms: int) -> np.ndarray:
    silence = np.zeros(silence_ms * rate_hz // 1000)
    t = np.arange(tone_ms * rate_hz // 1000) / rate_hz
    return np.concatenate([silence, 8000 * np.sin(2 * np.pi * 200 * t), silence]).astype("<i2")


def test_load_clip_resamples_to_24k_and_finds_the_speech_span(tmp_path: Path) -> None:
    write_wav(tmp_path / "q.wav", tone_with_silence(16_000, 300, 1000), 16_000)
    clip = load_clip(tmp_path / "q.wav", text="hi")
    assert clip.duration_ms == pytest.approx(1600, abs=1)
    assert len(clip.pcm) == 1600 * 48
    assert clip.speech_onset_ms == pytest.approx(300, abs=10)
    assert clip.speech_end_ms == pytest.approx(1300, abs=10)
    assert (clip.name, clip.text) == ("q", "hi")


def test_load_clip_refuses_silence_and_8_bit(tmp_path: Path) -> None:
    write_wav(tmp_path / "silent.wav", np.zeros(16_000, dtype="<i2"), 16_000)
    with pytest.raises(ValueError, match="no speech"):
        load_clip(tmp_path / "silent.wav")
    write_wav(tmp_path / "byte.wav", np.full(8000, 200, dtype=np.uint8), 8000, width=1)
    with pytest.raises(ValueError, match="16-bit"):
        load_clip(tmp_path / "byte.wav")


def test_load_clips_follows_clips_json_or_globs(tmp_path: Path) -> None:
    write_wav(tmp_path / "a_file.wav", tone_with_silence(24_000, 0, 200), 24_000)
    assert list(load_clips(tmp_path)) == ["a_file"]
    (tmp_path / "clips.json").write_text(
        json.dumps({"clips": {"question": {"file": "a_file.wav", "text": "t"}}})
    )
    clips = load_clips(tmp_path)
    assert list(clips) == ["question"] and clips["question"].text == "t"


def test_the_packaged_clips_the_suite_needs_are_speech() -> None:
    clips = load_clips(DEFAULT_CLIPS_DIR)
    for name in ("question", "interrupt", "long_statement"):
        assert clips[name].speech_end_ms - clips[name].speech_onset_ms > 1000


def test_solid_png_is_a_red_64px_square() -> None:
    url = solid_png_data_url((255, 0, 0))
    assert url.startswith("data:image/png;base64,")
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert image.size == (64, 64)
    assert image.convert("RGB").getcolors() == [(64 * 64, (255, 0, 0))]


async def test_send_marked_reports_exactly_the_audio_appended_before_it(aiohttp_server: Any) -> None:
    received: list[dict[str, Any]] = []

    async def record(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                received.append(json.loads(msg.data))
        return ws

    app = web.Application()
    app.router.add_get("/ws", record)
    server = await aiohttp_server(app)
    conn = await Connection.open(f"ws://{server.host}:{server.port}/ws", "sk-test", timeout_ms=5000)
    mic = Microphone(conn, realtime_factor=20.0)
    mic.start()
    clip = Clip("c", bytes(range(256)) * 30, speech_onset_ms=10.0, speech_end_ms=150.0)
    playback = mic.play(clip)
    await mic.wait_position(100)
    _, position_ms = await mic.send_marked({"type": "marker"})
    await playback.finished.wait()
    await mic.stop()
    await conn.close()
    marker = next(i for i, e in enumerate(received) if e["type"] == "marker")
    appended = sum(len(base64.b64decode(e["audio"])) for e in received[:marker])
    assert appended / 48 == position_ms
    assert playback.start_position_ms == 0
    assert playback.onset_wall_ms is not None and playback.end_wall_ms is not None
    assert playback.end_position_ms == 150.0
    assert all(len(base64.b64decode(e["audio"])) == 960 for e in received if e["type"] != "marker")
