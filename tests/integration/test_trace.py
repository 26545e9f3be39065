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


async def test_overlapping_sessions_with_one_seeded_id_trace_to_their_own_files(engine, tmp_path):
    """A seeded engine's sessions share their ids: their traces went into one file, the lines of
    overlapping sessions interleaved."""
    eng = await engine(trace_dir=str(tmp_path), seed=9, audio_pace=0.0)
    said = ["Tell me a story.", "What is the capital of France?"]
    headers = {"Authorization": "Bearer sk-test"}
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers=headers) as first,
        http.ws_connect(eng.realtime, headers=headers) as second,
    ):
        ids = [json.loads((await ws.receive(timeout=10)).data)["session"]["id"] for ws in (first, second)]
        for ws, text in zip((first, second), said, strict=True):
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
            await ws.send_json({"type": "conversation.item.create", "item": item})
            await ws.send_json({"type": "response.create"})
        for ws in (first, second):
            while json.loads((await ws.receive(timeout=30)).data)["type"] != "response.done":
                pass
    await eng.wait_until_idle()
    eng.app[TRACER].drain()
    assert ids[0] == ids[1]  # seeded: same ids
    files = sorted(tmp_path.glob("*.jsonl"))
    assert [p.name for p in files] == [f"{ids[0]}.2.jsonl", f"{ids[0]}.jsonl"]
    for path, text in zip((files[1], files[0]), said, strict=True):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        sent = [line["data"] for line in lines if line["kind"] == "client_event"]
        items = [e["item"]["content"][0]["text"] for e in sent if e.get("type") == "conversation.item.create"]
        assert items == [text]
        created = [line for line in lines if line["kind"] == "server_event"]
        assert [line["data"]["type"] for line in created].count("session.created") == 1


async def test_a_refused_client_event_is_in_the_trace_before_its_error(engine, tmp_path):
    """A client event the parse boundary refused left only the `error` in the trace, not the event
    that caused it (the journal had both; translation sessions' traces had both)."""
    eng = await engine(trace_dir=str(tmp_path), audio_pace=0.0)
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-test"}) as ws,
    ):
        await ws.receive(timeout=10)  # session.created
        for frame in ('{"type": "session.update", "session": {"type": "realtime", "voice": 7}}', "{not json"):
            await ws.send_str(frame)
            assert json.loads((await ws.receive(timeout=10)).data)["type"] == "error"
    await eng.wait_until_idle()
    eng.app[TRACER].drain()
    lines = [json.loads(line) for path in tmp_path.glob("*.jsonl") for line in path.read_text().splitlines()]
    seen = [
        (line["kind"], line["data"]) for line in lines if line["kind"] in ("client_event", "server_event")
    ]
    kinds = [
        (kind, data.get("type") if isinstance(data, dict) else data)
        for kind, data in seen
        if not (kind == "server_event" and data.get("type") == "session.created")
    ]
    assert kinds == [
        ("client_event", "session.update"),
        ("server_event", "error"),
        ("client_event", "{not json"),
        ("server_event", "error"),
    ]
