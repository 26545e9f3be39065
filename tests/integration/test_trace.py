"""Why a turn ended is observable: the per-session trace records each turn decision and brain rule."""

from __future__ import annotations

import json

import aiohttp

from mockengine.server.state import TRACER
from tests.speech import question, speak_fast


async def test_trace_records_semantic_turn_decisions(engine, tmp_path):
    eng = await engine(trace_dir=str(tmp_path), audio_pace=0.0)
    url = eng.url
    pcm, _ = question()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"{url}/realtime?model=gpt-realtime", headers={"Authorization": "Bearer sk-test"}
        ) as ws,
    ):
        await speak_fast(ws, pcm, {"type": "semantic_vad", "eagerness": "high"}, 3000)
    await eng.wait_until_idle()
    eng.app[TRACER].drain()  # lines are written by a background thread
    lines = [json.loads(line) for path in tmp_path.glob("*.jsonl") for line in path.read_text().splitlines()]
    turn_ends = [line["data"] for line in lines if line["kind"] == "turn_end"]
    assert len(turn_ends) == 1
    assert turn_ends[0]["turn_detection"] == "semantic_vad"
    assert turn_ends[0]["reason"].startswith("question")
    assert "capital" in turn_ends[0]["transcript"].lower()
    assert any(line["kind"] == "reply" and line["data"]["rule"] for line in lines)
    appends = [
        line["data"]
        for line in lines
        if line["kind"] == "client_event" and line["data"].get("type") == "input_audio_buffer.append"
    ]
    assert appends and appends[0]["audio"].startswith("<")  # audio is elided, not stored
