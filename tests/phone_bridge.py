"""A telephone bridge as the most-copied Realtime samples write it, and a fake phone to call it.

The bridge follows twilio-samples/speech-assistant-openai-realtime-api-python (`main.py` @d70e251) and its
Node twin (`index.js` @e0b6f63), the GA versions: connect to `…/realtime?model=gpt-realtime&temperature=0.8
&voice=alloy`, send their `session.update` (G.711 in and out, server_vad, instructions), forward each
Twilio `media` frame as `input_audio_buffer.append`, send each `response.output_audio.delta` to the phone
as `media` followed by a `mark`, and on `input_audio_buffer.speech_started` send the phone a `clear` and
the engine `conversation.item.truncate` with `audio_end_ms` = the newest inbound media timestamp minus the
one at the reply's first delta (the samples' "elapsed time"), if a mark is still unacknowledged. The "AI
speaks first" variant sends their greeting item and `response.create`.

One change from the samples, the one a well-written bridge makes: `audio_end_ms` is at most the audio of
the item the bridge has received (G.711: 8 bytes a ms). The line clock and the reply's audio drift apart
whenever the reply arrives slower than real time (a loaded server, a slow network): the samples then ask
for a cut past the audio the item holds and get the service's `invalid_value` "Audio content of 2424ms is
already shorter than 2600ms" (speech-assistant-openai-realtime-api-python#45), and the item is not cut.
The phone cannot have played what the bridge never had, so the clamp loses nothing.

The phone is Twilio Media Streams as the bridge sees it: every 20 ms a `media` frame of 160 G.711 bytes
(the caller's words where the script puts them, line silence otherwise) with its `timestamp` in ms since
the stream started; it plays what it is sent at 8 kHz, acknowledges each `mark` once the audio before it
has played, and on `clear` drops what it has not played yet and acknowledges the pending marks (Twilio
Media Streams docs, "clear" and "mark" messages). Real-time pace by default: frames go out on a clock,
so the media timestamps and the played audio move together, as on a call.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from mockengine.audio.g711 import FORMAT_PCMA, G711InputStream, from_pcm16_24k

FRAME_MS = 20
FRAME_BYTES = 160  # 20 ms of 8 kHz G.711, one byte a sample
BYTES_PER_MS = 8
SILENCE_BYTE = {"audio/pcmu": 0xFF, "audio/pcma": 0xD5}  # G.711 codes for zero

SYSTEM_MESSAGE = (
    "You are a helpful and bubbly AI assistant who loves to chat about "
    "anything the user is interested in and is prepared to offer them facts. "
    "You have a penchant for dad jokes, owl jokes, and rickrolling – subtly. "
    "Always stay positive, but work in a joke when appropriate."
)
GREETING = (
    "Greet the user with 'Hello there! I am an AI voice assistant powered by Twilio and the OpenAI Realtime "
    "API. You can ask me for facts, jokes, or anything you can imagine. How can I help you?'"
)


def sample_session_update(format_type: str = "audio/pcmu") -> dict[str, Any]:
    """The samples' `session.update` (the Node one's, which also names the voice), in `format_type`."""
    return {
        "type": "session.update",
        "session": {
            "type": "realtime",
            "model": "gpt-realtime",
            "output_modalities": ["audio"],
            "audio": {
                "input": {"format": {"type": format_type}, "turn_detection": {"type": "server_vad"}},
                "output": {"format": {"type": format_type}, "voice": "alloy"},
            },
            "instructions": SYSTEM_MESSAGE,
        },
    }


def g711_of(pcm_24k: bytes, format_type: str) -> bytes:
    return from_pcm16_24k(pcm_24k, format_type)


def line_audio(pcm_24k: bytes, format_type: str) -> bytes:
    """``pcm_24k`` over a G.711 line as a bridge sends it: 20 ms frames, decoded by the session's stream."""
    encoded = from_pcm16_24k(pcm_24k, format_type)
    stream = G711InputStream(format_type)
    return b"".join(stream.decode(encoded[i : i + 160], format_type) for i in range(0, len(encoded), 160))


@dataclass
class Phone:
    """The Twilio side. ``say(g711, at_ms)`` schedules the caller's words on the line's clock."""

    format_type: str = "audio/pcmu"
    stream_sid: str = "MZ00000000000000000000000000000000"
    to_bridge: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    timestamp_ms: int = 0
    played: bytearray = field(default_factory=bytearray)
    unplayed: bytearray = field(default_factory=bytearray)
    # (mark name, len(played) + len(unplayed) when it arrived): acknowledged once played reaches it.
    pending_marks: list[tuple[str, int]] = field(default_factory=list)
    dropped_bytes: int = 0
    clears: int = 0
    script: list[tuple[int, bytes]] = field(default_factory=list)
    # False: the line runs (frames go to the bridge) but nothing more is played, so every mark pends
    playing: bool = True

    def say(self, g711: bytes, at_ms: int) -> None:
        self.script.append((at_ms, g711))

    def _mic_frame(self) -> bytes:
        frame = bytearray([SILENCE_BYTE[self.format_type]] * FRAME_BYTES)
        for start_ms, words in self.script:
            offset = (self.timestamp_ms - start_ms) * 8
            if -FRAME_BYTES < offset < len(words):
                for i in range(FRAME_BYTES):
                    if 0 <= offset + i < len(words):
                        frame[i] = words[offset + i]
        return bytes(frame)

    def receive(self, message: dict[str, Any]) -> None:
        """A message from the bridge: `media`, `mark` or `clear`."""
        if message["event"] == "media":
            self.unplayed += base64.b64decode(message["media"]["payload"])
        elif message["event"] == "mark":
            self.pending_marks.append((message["mark"]["name"], len(self.played) + len(self.unplayed)))
        elif message["event"] == "clear":
            self.clears += 1
            self.dropped_bytes += len(self.unplayed)
            self.unplayed.clear()
            for name, _ in self.pending_marks:
                self.to_bridge.put_nowait(self._mark(name))
            self.pending_marks.clear()

    def _mark(self, name: str) -> dict[str, Any]:
        return {"event": "mark", "streamSid": self.stream_sid, "mark": {"name": name}}

    def tick(self) -> None:
        """One 20 ms step of the line: a frame goes to the bridge, 20 ms of what it sent is played."""
        payload = base64.b64encode(self._mic_frame()).decode()
        self.to_bridge.put_nowait(
            {
                "event": "media",
                "streamSid": self.stream_sid,
                "media": {"track": "inbound", "timestamp": str(self.timestamp_ms), "payload": payload},
            }
        )
        if self.playing:
            self.played += self.unplayed[:FRAME_BYTES]
            del self.unplayed[:FRAME_BYTES]
        while self.pending_marks and self.pending_marks[0][1] <= len(self.played):
            self.to_bridge.put_nowait(self._mark(self.pending_marks.pop(0)[0]))
        self.timestamp_ms += FRAME_MS

    async def run(self, until: Callable[[], bool], *, max_ms: int = 60_000, realtime: bool = True) -> None:
        """Start the stream and run the line until ``until()`` holds, on the wall clock (``realtime``) or
        as fast as the bridge takes it; more than ``max_ms`` of line time fails the test."""
        if self.timestamp_ms == 0:
            self.to_bridge.put_nowait({"event": "start", "start": {"streamSid": self.stream_sid}})
        loop = asyncio.get_running_loop()
        started = loop.time() - self.timestamp_ms / 1000
        while not until():
            assert self.timestamp_ms < max_ms, f"the call ran {max_ms} ms without getting there"
            self.tick()
            if realtime:
                await asyncio.sleep(max(0.0, started + self.timestamp_ms / 1000 - loop.time()))
            else:
                await asyncio.sleep(0)


@dataclass
class Bridge:
    """The samples' relay between a :class:`Phone` and the engine; every engine event is kept."""

    phone: Phone
    ws: aiohttp.ClientWebSocketResponse
    events: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    stream_sid: str | None = None
    latest_media_timestamp: int = 0
    last_assistant_item: str | None = None
    mark_queue: list[str] = field(default_factory=list)
    response_start_timestamp: int | None = None
    # G.711 bytes of the newest assistant item received from the engine: the most audio_end_ms can be
    received_bytes: int = 0
    # False: truncate at the elapsed line time alone, as the samples do (past the audio when it lags)
    clamp_truncate: bool = True
    line_elapsed_ms: list[int] = field(default_factory=list)  # the elapsed line time at each truncate

    async def send(self, event: dict[str, Any]) -> None:
        self.sent.append(event)
        await self.ws.send_str(json.dumps(event))

    async def greet(self) -> None:
        """The samples' `send_initial_conversation_item` (AI speaks first)."""
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": GREETING}]}
        await self.send({"type": "conversation.item.create", "item": item})
        await self.send({"type": "response.create"})

    async def receive_from_phone(self) -> None:
        while True:
            data = await self.phone.to_bridge.get()
            if data["event"] == "media" and not self.ws.closed:
                self.latest_media_timestamp = int(data["media"]["timestamp"])
                await self.send({"type": "input_audio_buffer.append", "audio": data["media"]["payload"]})
            elif data["event"] == "start":
                self.stream_sid = data["start"]["streamSid"]
                self.response_start_timestamp = None
                self.latest_media_timestamp = 0
                self.last_assistant_item = None
            elif data["event"] == "mark" and self.mark_queue:
                self.mark_queue.pop(0)

    async def send_to_phone(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                return
            response = json.loads(message.data)
            self.events.append(response)
            if response["type"] == "response.output_audio.delta" and "delta" in response:
                self.phone.receive(
                    {"event": "media", "streamSid": self.stream_sid, "media": {"payload": response["delta"]}}
                )
                if response.get("item_id") and response["item_id"] != self.last_assistant_item:
                    self.response_start_timestamp = self.latest_media_timestamp
                    self.last_assistant_item = response["item_id"]
                    self.received_bytes = 0
                self.received_bytes += len(base64.b64decode(response["delta"]))
                self._send_mark()
            if response["type"] == "input_audio_buffer.speech_started" and self.last_assistant_item:
                await self.handle_speech_started_event()

    async def handle_speech_started_event(self) -> None:
        if self.mark_queue and self.response_start_timestamp is not None:
            elapsed_time = self.latest_media_timestamp - self.response_start_timestamp
            self.line_elapsed_ms.append(elapsed_time)
            if self.clamp_truncate:
                elapsed_time = min(elapsed_time, self.received_bytes // BYTES_PER_MS)
            if self.last_assistant_item:
                await self.send(
                    {
                        "type": "conversation.item.truncate",
                        "item_id": self.last_assistant_item,
                        "content_index": 0,
                        "audio_end_ms": elapsed_time,
                    }
                )
            self.phone.receive({"event": "clear", "streamSid": self.stream_sid})
            self.mark_queue.clear()
            self.last_assistant_item = None
            self.response_start_timestamp = None

    def _send_mark(self) -> None:
        if self.stream_sid:
            mark = {"event": "mark", "streamSid": self.stream_sid, "mark": {"name": "responsePart"}}
            self.phone.receive(mark)
            self.mark_queue.append("responsePart")

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [event for event in self.events if event["type"] == kind]


def is_alaw(format_type: str) -> bool:
    return format_type == FORMAT_PCMA
