"""``input_audio_buffer.append`` with ``"audio": ""``: what the live service does with one is not
documented (reference §2 lists the field, not a minimum), so the engine takes it, as any append, without
an answer (docs/realtime-protocol.md); here it is pinned to be harmless in every input format: no
``error``, and a session that gets empty appends between its real ones (G.711 ones too, whose decoder
keeps a filter history across appends, and around a commit) sends exactly the events a session without
them sends — turn detection saw no zero-length frame, nothing divided by a zero length. A real engine on
loopback (fake models, the real VAD) with a journal and a trace writing every append."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aiohttp
import pytest

from mockengine.audio.g711 import from_pcm16_24k
from tests.speech import question

CHUNK_MS = 20
SILENCE_MS = 1500


def _chunks(format_type: str) -> list[str]:
    """The question clip and a silence after it in the format, 20 ms an append, base64."""
    import base64

    pcm, _ = question()
    pcm += bytes(48 * SILENCE_MS)
    step = 48 * CHUNK_MS
    return [
        base64.b64encode(from_pcm16_24k(pcm[i : i + step], format_type)).decode()
        for i in range(0, len(pcm), step)
    ]


async def _session(base: str, format_type: str, with_empty: bool) -> list[dict]:
    fmt = {"type": format_type, **({"rate": 24000} if format_type == "audio/pcm" else {})}
    session = {
        "type": "realtime",
        "output_modalities": ["text"],
        "audio": {
            "input": {
                "format": fmt,
                "transcription": {"model": "whisper-1"},
                "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
            }
        },
    }
    events: list[dict] = []
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(
            f"{base}/realtime?model=gpt-realtime", headers={"Authorization": "Bearer sk-x"}
        )
        assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
        await ws.send_str(json.dumps({"type": "session.update", "session": session}))
        empty = json.dumps({"type": "input_audio_buffer.append", "audio": ""})
        for chunk in _chunks(format_type):
            if with_empty:
                await ws.send_str(empty)
            await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk}))
        # The turn's reply; then the buffer cleared, and a commit of nothing (but empty appends): the
        # engine's commit_empty error, as for an empty buffer.
        while not events or events[-1]["type"] != "response.done":
            events.append(json.loads((await ws.receive(timeout=30)).data))
        await ws.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
        while events[-1]["type"] != "input_audio_buffer.cleared":
            events.append(json.loads((await ws.receive(timeout=30)).data))
        if with_empty:
            await ws.send_str(empty)
            await ws.send_str(
                json.dumps({"type": "input_audio_buffer.append", "audio": "", "event_id": "e1"})
            )
        await ws.send_str(json.dumps({"type": "input_audio_buffer.commit", "event_id": "c1"}))
        while events[-1]["type"] != "error":
            events.append(json.loads((await ws.receive(timeout=30)).data))
        await ws.close()
    return events


def _without_times(events: list[dict]) -> str:
    """The events with wall-clock fields blanked (``created_at`` …): the rest must match exactly."""
    text = json.dumps(events, sort_keys=True)
    return re.sub(r'"(created_at|expires_at)": \d+', r'"\1": 0', text)


@pytest.mark.parametrize("format_type", ["audio/pcm", "audio/pcmu", "audio/pcma"])
async def test_empty_appends_change_nothing(engine_url, format_type, tmp_path: Path):
    base = await engine_url(
        seed=11, audio_pace=0.0, journal_dir=str(tmp_path / "journal"), trace_dir=str(tmp_path / "trace")
    )
    plain = await _session(base, format_type, with_empty=False)
    with_empty = await _session(base, format_type, with_empty=True)
    kinds = [e["type"] for e in with_empty]
    assert "input_audio_buffer.speech_started" in kinds and "response.done" in kinds
    assert kinds.count("error") == 1 and with_empty[-1]["error"]["code"] == "input_audio_buffer_commit_empty"
    assert _without_times(with_empty) == _without_times(plain)
