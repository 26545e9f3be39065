"""``input_audio_buffer.append`` cut anywhere in a PCM16 stream (odd byte counts: half a sample at the end
of one append, its other half at the start of the next), over a real socket with a raw client: no
``error``, and exactly the events the same audio sends in 20 ms appends (turn detection's frames, the
committed item, the reply, seeded ids included), since the half sample waits for its partner. The
session then goes on to an input format change (G.711) after a stray byte and holds that audio
unshifted (as loud as the question, not full-scale noise); its next turn is detected and answered. A
real engine on loopback (fake models, the real VAD); docs/realtime-protocol.md."""

from __future__ import annotations

import base64
import json
import random
import re

import aiohttp
import numpy as np

from mockengine.audio.g711 import from_pcm16_24k, to_pcm16_24k
from tests.speech import question

SILENCE = bytes(48 * 1500)


def _odd_cuts(pcm: bytes, seed: int) -> list[bytes]:
    rng, pieces, at = random.Random(seed), [], 0
    while at < len(pcm):
        size = rng.randrange(1, 1921, 2)
        pieces.append(pcm[at : at + size])
        at += size
    return pieces


def _append(chunk: bytes) -> str:
    return json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(chunk).decode()})


async def _until(ws, events: list[dict], kind: str, count: int = 1) -> None:
    """Read into ``events`` until the ``count``-th event of ``kind`` (counted over all of them)."""
    while sum(event["type"] == kind for event in events) < count:
        events.append(json.loads((await ws.receive(timeout=30)).data))


async def _session(base: str, pieces: list[bytes], then_g711: bool = False) -> list[dict]:
    session = {
        "type": "realtime",
        "output_modalities": ["text"],
        "audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}},
    }
    events: list[dict] = []
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(
            f"{base}/realtime?model=gpt-realtime", headers={"Authorization": "Bearer sk-x"}
        )
        assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
        await ws.send_str(json.dumps({"type": "session.update", "session": session}))
        for piece in pieces:
            await ws.send_str(_append(piece))
        await _until(ws, events, "response.done")
        if then_g711:
            await ws.send_str(_append(b"\x00"))  # a stray byte, then another format
            pcmu = {"type": "realtime", "audio": {"input": {"format": {"type": "audio/pcmu"}}}}
            await ws.send_str(json.dumps({"type": "session.update", "session": pcmu}))
            pcm, _ = question()
            ulaw = from_pcm16_24k(pcm + SILENCE, "audio/pcmu")
            for i in range(0, len(ulaw), 160):
                await ws.send_str(_append(ulaw[i : i + 160]))
            await _until(ws, events, "response.done", 2)
            second = [e for e in events if e["type"] == "input_audio_buffer.committed"][-1]["item_id"]
            await ws.send_str(json.dumps({"type": "conversation.item.retrieve", "item_id": second}))
            await _until(ws, events, "conversation.item.retrieved")
        await ws.close()
    return events


def _without_times(events: list[dict]) -> str:
    text = json.dumps(events, sort_keys=True)
    return re.sub(r'"(created_at|expires_at)": \d+', r'"\1": 0', text)


async def test_appends_that_split_samples_are_heard_as_whole_ones(engine_url) -> None:
    base = await engine_url(seed=11, audio_pace=0.0)
    pcm, _ = question()
    audio = pcm + SILENCE
    whole = await _session(base, [audio[i : i + 960] for i in range(0, len(audio), 960)])
    odd = await _session(base, _odd_cuts(audio, 5))
    kinds = [event["type"] for event in odd]
    assert "input_audio_buffer.speech_started" in kinds and "error" not in kinds
    assert _without_times(odd) == _without_times(whole)


async def test_a_stray_byte_before_a_format_change_leaves_the_session_hearing(engine_url) -> None:
    base = await engine_url(seed=11, audio_pace=0.0)
    pcm, _ = question()
    events = await _session(base, _odd_cuts(pcm + SILENCE, 6), then_g711=True)
    kinds = [event["type"] for event in events]
    assert "error" not in kinds
    assert kinds.count("input_audio_buffer.speech_started") == kinds.count("response.done") == 2
    speech = [e for e in events if e["type"] == "input_audio_buffer.speech_started"]
    stops = [e for e in events if e["type"] == "input_audio_buffer.speech_stopped"]
    first, second = (s["audio_end_ms"] - b["audio_start_ms"] for b, s in zip(speech, stops, strict=True))
    assert abs(first - second) < 300, (first, second)
    # The G.711 turn as held (retrieved in the session's format): as loud as the question, not the
    # full-scale noise a byte's shift makes of it.
    item = events[-1]["item"]
    held = np.frombuffer(to_pcm16_24k(base64.b64decode(item["content"][0]["audio"]), "audio/pcmu"), "<i2")
    sent = np.frombuffer(question()[0], "<i2")
    ratio = _rms(held) / _rms(sent)
    assert 0.3 < ratio < 1.5, ratio


def _rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))
