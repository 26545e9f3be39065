"""A seeded engine gives the same events and byte-identical reply audio for the same input."""

from __future__ import annotations

import base64

import aiohttp
import pytest

from tests.speech import question, speak_fast

pytestmark = pytest.mark.models


async def one_session(url: str) -> tuple[list[str], bytes, list[dict]]:
    pcm, _ = question()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"{url}/realtime?model=gpt-realtime&seed=42", headers={"Authorization": "Bearer sk-test"}
        ) as ws,
    ):
        events = await speak_fast(ws, pcm, {"type": "server_vad", "silence_duration_ms": 500}, 1500)
    audio = b"".join(
        base64.b64decode(e["delta"]) for e in events if e["type"] == "response.output_audio.delta"
    )
    return [e["type"] for e in events], audio, events


async def test_seeded_sessions_repeat(engine_url):
    url = await engine_url(audio_pace=0.0, seed=42)
    first_types, first_audio, first = await one_session(url)
    second_types, second_audio, second = await one_session(url)
    assert first_types == second_types
    assert first_audio and first_audio == second_audio
    ids = [e.get("event_id") for e in first]
    assert ids == [e.get("event_id") for e in second]
