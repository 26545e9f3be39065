"""Server events queued together leave in one socket write (issue 15, seventeenth pass): a paced tick's
transcript and audio deltas, a reply's opening and closing events. Over a real socket the session's
writes, joined, are byte for byte the frames aiohttp's own writer makes for the same events one at a
time, and there are fewer writes than events."""

from __future__ import annotations

import asyncio
from asyncio.selector_events import _SelectorSocketTransport  # type: ignore[attr-defined]
from typing import Any

import aiohttp
from aiohttp._websocket.writer import WebSocketWriter
from aiohttp.http_websocket import WSMsgType

from mockengine.protocol import codec
from mockengine.server.realtime_ws import SessionRunner
from mockengine.server.session_shell import text_frame_header
from tests.speech import question, speak_fast

AUTH = {"Authorization": "Bearer sk-test"}


class _Capture:
    """Just enough of a transport and protocol for aiohttp's ``WebSocketWriter`` to write into."""

    _paused = False

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data

    def is_closing(self) -> bool:
        return False


async def aiohttp_frames(payloads: list[bytes]) -> bytes:
    """The bytes aiohttp's writer puts on the wire for these text frames, sent one at a time (a server's:
    unmasked, uncompressed)."""
    capture = _Capture()
    writer = WebSocketWriter(capture, capture)  # type: ignore[arg-type]
    for payload in payloads:
        await writer.send_frame(payload, WSMsgType.TEXT)
    return bytes(capture.data)


async def test_a_replys_events_leave_in_fewer_writes_with_the_same_bytes(engine, monkeypatch) -> None:
    sent: list[bytes] = []  # the JSON of every event the session sent, in order
    server_sockets: set[int] = set()
    writes: list[bytes] = []  # what the session's socket was given, write by write
    send = SessionRunner._send

    async def recording_send(self: SessionRunner, event: dict[str, Any], data: bytes | None) -> bool:
        assert self.ws._writer is not None
        server_sockets.add(id(self.ws._writer.transport))
        data = data if data is not None else codec.dumps_utf8(event)
        sent.append(data)
        return await send(self, event, data)

    write = _SelectorSocketTransport.write

    def recording_write(self: Any, data: bytes) -> None:
        if id(self) in server_sockets:
            writes.append(bytes(data))
        write(self, data)

    monkeypatch.setattr(SessionRunner, "_send", recording_send)
    monkeypatch.setattr(_SelectorSocketTransport, "write", recording_write)
    server = await engine(seed=42)  # paced reply audio (3 × real time): a tick's deltas go together
    pcm, _ = question()
    url = f"{server.realtime}&seed=42"
    async with aiohttp.ClientSession() as http, http.ws_connect(url, headers=AUTH) as ws:
        events = await speak_fast(ws, pcm, {"type": "server_vad", "silence_duration_ms": 500}, 1500)
        await asyncio.sleep(0.2)  # (what follows response.done goes out too)
    kinds = [event["type"] for event in events]
    assert "response.output_audio.delta" in kinds and "response.output_audio_transcript.delta" in kinds
    assert len(sent) >= len(events) > 0  # (an event after response.done, which speak_fast stops at)
    wire, frames = b"".join(writes), await aiohttp_frames(sent)
    assert wire[: len(frames)] == frames
    assert wire[len(frames) :] in (b"", b"\x88\x02\x03\xe8")  # then the close frame's answer (1000)
    # Without the holding every event was one write (len(writes) == len(sent)).
    assert len(writes) < len(sent)
    audio_writes = [data for data in writes if b'"response.output_audio.delta"' in data]
    assert any(b'"response.output_audio_transcript.delta"' in data for data in audio_writes)


async def test_the_frame_header_is_aiohttps() -> None:
    for length in (0, 1, 125, 126, 127, 65535, 65536, 70000):
        payload = b"x" * length
        assert text_frame_header(length) + payload == await aiohttp_frames([payload]), length
