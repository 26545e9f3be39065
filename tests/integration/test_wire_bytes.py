"""Server events leave as the UTF-8 JSON made once when the core produced them (issue 15: no ``str`` made
and encoded again): over a real socket, every frame a seeded session sends — a spoken turn and its reply
audio, non-ASCII text, an event a fault adds — is a TEXT frame holding exactly the bytes the former path
(``send_str(codec.dumps(event))``) put on the wire for the same event."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
from aiohttp import WSMsgType

from mockengine.protocol import codec
from mockengine.server.realtime_ws import SessionRunner
from tests.speech import question, speak_fast

AUTH = {"Authorization": "Bearer sk-test"}
NON_ASCII = 'naïve — 日本語 😀 «quoted» \\ "escaped" \u2028'


async def test_every_frame_is_the_text_the_str_path_sent(engine, monkeypatch) -> None:
    sent: list[dict[str, Any]] = []  # the events the session loop sent, in order
    send = SessionRunner._send

    async def recording_send(self: SessionRunner, event: dict[str, Any], data: bytes | None) -> bool:
        sent.append(event)
        return await send(self, event, data)

    monkeypatch.setattr(SessionRunner, "_send", recording_send)
    server = await engine(audio_pace=0.0, seed=42)
    frames: list[aiohttp.WSMessage] = []
    pcm, _ = question()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{server.realtime}&seed=42&fault=error_mid_response:2", headers=AUTH) as ws,
    ):
        spoken = await speak_fast(ws, pcm, {"type": "server_vad", "silence_duration_ms": 500}, 1500)
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": NON_ASCII}]}
        await ws.send_json({"type": "conversation.item.create", "item": item})
        await ws.send_json({"type": "response.create", "response": {"instructions": NON_ASCII}})
        while not frames or json.loads(frames[-1].data)["type"] != "response.done":
            frames.append(await ws.receive(timeout=30))
    kinds = [event["type"] for event in spoken] + [json.loads(msg.data)["type"] for msg in frames]
    assert "response.output_audio.delta" in kinds and "input_audio_buffer.speech_started" in kinds
    assert "error" in kinds  # added by the fault after the events were queued: made in _send
    # conversation.item.added/done echo the text: as UTF-8, not \u escapes (and the escapes JSON needs)
    assert any(json.dumps(NON_ASCII, ensure_ascii=False) in msg.data for msg in frames)
    assert all(msg.type is WSMsgType.TEXT for msg in frames)
    # speak_fast parsed its frames: compare the rest byte for byte, and the spoken turn's as values
    wire = [msg.data.encode("utf-8") for msg in frames]
    spoken_sent, rest_sent = sent[: len(spoken)], sent[len(spoken) : len(spoken) + len(frames)]
    assert wire == [codec.dumps(event).encode("utf-8") for event in rest_sent]
    assert spoken == [json.loads(codec.dumps(event)) for event in spoken_sent]


async def test_a_refusal_at_connect_is_compact_json_like_every_other_event(engine) -> None:
    """The error a refused connection gets (here an unknown ``ek_`` key, as a browser app's expired one)
    went out as ``json.dumps``' text, ``{"type": "error", "event_id": …}``, unlike every other event."""
    eng = await engine()
    protocols = ("realtime", "openai-insecure-api-key.ek_nope")
    async with aiohttp.ClientSession() as http, http.ws_connect(eng.realtime, protocols=protocols) as ws:
        message = await ws.receive(timeout=10)
    assert message.type == WSMsgType.TEXT
    event = json.loads(message.data)
    assert event["type"] == "error" and event["error"]["code"] == "invalid_api_key"
    assert message.data == codec.dumps(event)
