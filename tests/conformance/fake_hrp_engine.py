"""A small scripted HRP engine for testing the conformance runner (no mockengine imports).

It speaks the Realtime GA event sequences the suite relies on: energy-based turn detection on 10 ms
frames, paced sine-tone "speech" for audio responses, scripted tool calls, cancel / barge-in, truncation
and the listening pause. ``Faults`` switches on one misbehaviour at a time.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from aiohttp import WSMsgType, web

RATE_HZ = 24_000
FRAME_SAMPLES = 240
LOUD_RMS = 500.0
ONSET_FRAMES = 2
DELTA_MS = 200
# Output pace: DELTA_MS of audio every DELTA_WALL_S, i.e. 10x faster than real time.
DELTA_WALL_S = 0.02
MS_PER_CHAR = 60
STORY = (
    "Once upon a time a lighthouse keeper named Tom lived alone on a rocky island. Every night he climbed "
    "the stairs to light the lamp. One stormy night a small boat lost its way in the fog. Tom rang the bell "
    "and waved his lantern. The sailors followed the light and reached the harbour safely. From then on the "
    "village brought him bread every Sunday, and he was never lonely again."
)
VAD_DEFAULTS: dict[str, dict[str, Any]] = {
    "server_vad": {
        "type": "server_vad",
        "threshold": 0.5,
        "prefix_padding_ms": 300,
        "silence_duration_ms": 200,
        "idle_timeout_ms": None,
        "create_response": True,
        "interrupt_response": True,
    },
    "semantic_vad": {
        "type": "semantic_vad",
        "eagerness": "auto",
        "create_response": True,
        "interrupt_response": True,
    },
}


@dataclass(frozen=True)
class Faults:
    """One misbehaviour each, for the runner's negative tests."""

    audio_after_cancel: bool = False
    drop_silence_duration: bool = False
    ignore_barge_in: bool = False
    reply_after_manual_commit: bool = False
    # Seconds between a spoken reply's audio deltas (None: DELTA_WALL_S): an engine that synthesizes at
    # about real time, as mockengine does on a machine starved of CPU.
    speech_delta_wall_s: float | None = None
    # Stop a spoken reply after this many audio deltas, without a response.done: a stalled engine.
    stall_speech_after_deltas: int | None = None


@dataclass
class Response:
    id: str
    item_id: str
    task: asyncio.Task[None] | None = None
    finished: bool = False
    leak_deltas: int = 0
    transcript: str = ""


@dataclass
class Vad:
    in_speech: bool = False
    loud_frames: int = 0
    quiet_ms: int = 0
    floor_samples: int = 0
    item_id: str | None = None


@dataclass
class FakeSession:
    ws: web.WebSocketResponse
    faults: Faults
    counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    session: dict[str, Any] = field(default_factory=dict)
    samples: int = 0
    committed_samples: int = 0
    remainder: bytes = b""
    vad: Vad = field(default_factory=Vad)
    pending_item: str | None = None
    active: Response | None = None
    audio_ms: dict[str, float] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self.counter):021d}"

    async def send(self, event_type: str, **fields: Any) -> None:
        if not self.ws.closed:
            await self.ws.send_str(
                json.dumps({"type": event_type, "event_id": self.new_id("event"), **fields})
            )

    async def error(self, code: str, message: str) -> None:
        await self.send(
            "error",
            error={
                "type": "invalid_request_error",
                "code": code,
                "message": message,
                "param": None,
                "event_id": None,
            },
        )

    @property
    def turn_detection(self) -> dict[str, Any] | None:
        return self.session["audio"]["input"]["turn_detection"]

    async def start(self) -> None:
        self.session = {
            "type": "realtime",
            "object": "realtime.session",
            "id": self.new_id("sess"),
            "model": "gpt-realtime",
            "output_modalities": ["audio"],
            "instructions": "",
            "tools": [],
            "tool_choice": "auto",
            "audio": {
                "input": {
                    "format": {"type": "audio/pcm", "rate": 24000},
                    "transcription": None,
                    "turn_detection": dict(VAD_DEFAULTS["server_vad"]),
                },
                "output": {"format": {"type": "audio/pcm", "rate": 24000}, "voice": "alloy", "speed": 1.0},
            },
        }
        await self.send("session.created", session=self.session)

    async def handle(self, event: dict[str, Any]) -> None:
        handler = getattr(self, "on_" + str(event.get("type", "")).replace(".", "_"), None)
        if handler is None:
            await self.error("invalid_value", f"Invalid value: {event.get('type')!r}.")
        else:
            await handler(event)

    async def on_session_update(self, event: dict[str, Any]) -> None:
        update = event["session"]
        for key, value in update.items():
            if key != "audio":
                self.session[key] = value
        for direction, fields in update.get("audio", {}).items():
            for key, value in fields.items():
                if key == "turn_detection":
                    await self.set_turn_detection(value)
                else:
                    self.session["audio"][direction][key] = value
        echoed = json.loads(json.dumps(self.session))
        td = echoed["audio"]["input"]["turn_detection"]
        if self.faults.drop_silence_duration and td is not None:
            td.pop("silence_duration_ms", None)
        await self.send("session.updated", session=echoed)

    async def set_turn_detection(self, value: dict[str, Any] | None) -> None:
        was_on = self.turn_detection is not None
        self.session["audio"]["input"]["turn_detection"] = (
            None if value is None else {**VAD_DEFAULTS[value["type"]], **value}
        )
        if value is None and was_on and self.vad.in_speech:
            self.pending_item = self.vad.item_id
        if value is None or not was_on:
            # Off ends the turn in progress; on starts VAD afresh from this position.
            self.vad = Vad(floor_samples=self.samples)

    async def on_input_audio_buffer_append(self, event: dict[str, Any]) -> None:
        data = self.remainder + base64.b64decode(event["audio"])
        usable = len(data) - len(data) % (FRAME_SAMPLES * 2)
        self.remainder = data[usable:]
        for start in range(0, usable, FRAME_SAMPLES * 2):
            frame = np.frombuffer(data[start : start + FRAME_SAMPLES * 2], dtype="<i2").astype(np.float64)
            self.samples += FRAME_SAMPLES
            if self.turn_detection is not None:
                await self.vad_frame(math.sqrt(float((frame**2).mean())) >= LOUD_RMS)

    async def vad_frame(self, loud: bool) -> None:
        td, vad = self.turn_detection or {}, self.vad
        if not vad.in_speech:
            vad.loud_frames = vad.loud_frames + 1 if loud else 0
            if vad.loud_frames >= ONSET_FRAMES:
                await self.speech_started(td)
            return
        vad.quiet_ms = 0 if loud else vad.quiet_ms + 10
        if vad.quiet_ms >= int(td.get("silence_duration_ms", 500)):
            item_id = vad.item_id or self.new_id("item")
            self.vad = Vad(floor_samples=self.samples)
            await self.send(
                "input_audio_buffer.speech_stopped", audio_end_ms=self.samples // 24, item_id=item_id
            )
            await self.commit(item_id, audio=True)
            if td.get("create_response", True):
                await self.start_response({})

    async def speech_started(self, td: dict[str, Any]) -> None:
        vad = self.vad
        onset = self.samples - ONSET_FRAMES * FRAME_SAMPLES
        start = max(vad.floor_samples, onset - int(td.get("prefix_padding_ms", 300)) * 24)
        vad.in_speech, vad.quiet_ms, vad.item_id = True, 0, self.new_id("item")
        await self.send("input_audio_buffer.speech_started", audio_start_ms=start // 24, item_id=vad.item_id)
        if self.active and td.get("interrupt_response", True) and not self.faults.ignore_barge_in:
            await self.finish_response(self.active, "cancelled", "turn_detected")

    async def commit(self, item_id: str, audio: bool) -> None:
        self.committed_samples = self.samples
        item = {
            "id": item_id,
            "type": "message",
            "status": "completed",
            "role": "user",
            "content": [{"type": "input_audio", "transcript": None}],
        }
        await self.send("input_audio_buffer.committed", previous_item_id=None, item_id=item_id)
        await self.add_item(item)

    async def add_item(self, item: dict[str, Any]) -> None:
        self.items.append(item)
        await self.send("conversation.item.added", previous_item_id=None, item=item)
        await self.send("conversation.item.done", previous_item_id=None, item=item)

    async def on_input_audio_buffer_commit(self, event: dict[str, Any]) -> None:
        if (self.samples - self.committed_samples) < 2400:
            await self.error("input_audio_buffer_commit_empty", "buffer too small")
            return
        item_id = self.pending_item or self.vad.item_id or self.new_id("item")
        self.pending_item = None
        self.vad = Vad(floor_samples=self.samples)
        await self.commit(item_id, audio=True)
        if self.faults.reply_after_manual_commit:
            await self.start_response({})

    async def on_conversation_item_create(self, event: dict[str, Any]) -> None:
        await self.add_item({"id": self.new_id("item"), "status": "completed", **event["item"]})

    async def on_conversation_item_truncate(self, event: dict[str, Any]) -> None:
        item_id, end_ms = event["item_id"], int(event["audio_end_ms"])
        if item_id not in self.audio_ms:
            await self.error("item_truncate_invalid_item_id", f"the item with id '{item_id}' does not exist.")
        elif end_ms > self.audio_ms[item_id]:
            await self.error(
                "invalid_value",
                f"Audio content of {self.audio_ms[item_id]:.0f}ms is already shorter than {end_ms}ms",
            )
        else:
            self.audio_ms[item_id] = end_ms
            await self.send(
                "conversation.item.truncated", item_id=item_id, content_index=0, audio_end_ms=end_ms
            )

    async def on_response_create(self, event: dict[str, Any]) -> None:
        if self.active is not None:
            await self.error("conversation_already_has_active_response", f"active: {self.active.id}")
            return
        await self.start_response(event.get("response") or {})

    async def on_response_cancel(self, event: dict[str, Any]) -> None:
        if self.active is None:
            await self.error("response_cancel_not_active", "Cancellation failed: no active response found")
            return
        if self.faults.audio_after_cancel:
            self.active.leak_deltas = 3
        await self.finish_response(self.active, "cancelled", "client_cancelled")

    async def start_response(self, params: dict[str, Any]) -> None:
        response = Response(self.new_id("resp"), self.new_id("item"))
        self.active = response
        await self.send("response.created", response=self.response_body(response, "in_progress", None, []))
        response.task = asyncio.create_task(self.run_response(response, params))

    def response_body(
        self, r: Response, status: str, reason: str | None, output: list[Any]
    ) -> dict[str, Any]:
        usage = {"total_tokens": 30 if status == "completed" else 0, "input_tokens": 20, "output_tokens": 10}
        return {
            "object": "realtime.response",
            "id": r.id,
            "status": status,
            "output": output,
            "status_details": None if reason is None else {"type": status, "reason": reason},
            "usage": usage if status != "in_progress" else None,
        }

    async def run_response(self, r: Response, params: dict[str, Any]) -> None:
        tool_choice = params.get("tool_choice") or "auto"
        modalities = params.get("output_modalities") or self.session["output_modalities"]
        call = self.scripted_call(tool_choice)
        if call is not None:
            await self.call_tool(r, *call)
        elif modalities == ["text"]:
            await self.finish_response(r, "completed", None)
        else:
            await self.speak(r, self.scripted_reply())

    def scripted_call(self, tool_choice: Any) -> tuple[str, dict[str, Any]] | None:
        last = self.items[-1] if self.items else {}
        text = " ".join(str(c.get("text", "")) for c in last.get("content", []) if isinstance(c, dict))
        if isinstance(tool_choice, dict):
            name = tool_choice["name"]
            if name == "answer_scale":
                return name, {"value": 70}
            has_image = any(c.get("type") == "input_image" for i in self.items for c in i.get("content", []))
            return name, {"text": "Red" if has_image else "I do not know"}
        if "send a chat" in text:
            return "send_chat", {"message": "Hello Alex!"}
        return None

    def scripted_reply(self) -> str:
        last = self.items[-1] if self.items else {}
        if last.get("type") == "function_call_output":
            return "I sent the message."
        text = " ".join(str(c.get("text", "")) for c in last.get("content", []) if isinstance(c, dict))
        return STORY if "long story" in text else "A lighthouse keeper kept the light burning all night."

    async def call_tool(self, r: Response, name: str, args: dict[str, Any]) -> None:
        item = {
            "id": r.item_id,
            "type": "function_call",
            "status": "completed",
            "name": name,
            "call_id": self.new_id("call"),
            "arguments": json.dumps(args),
        }
        await self.send(
            "response.output_item.added",
            response_id=r.id,
            output_index=0,
            item={**item, "status": "in_progress", "arguments": ""},
        )
        await self.send(
            "response.function_call_arguments.done",
            response_id=r.id,
            item_id=r.item_id,
            output_index=0,
            call_id=item["call_id"],
            name=name,
            arguments=item["arguments"],
        )
        self.items.append(item)
        await self.send("response.output_item.done", response_id=r.id, output_index=0, item=item)
        await self.finish_response(r, "completed", None, [item])

    async def speak(self, r: Response, text: str) -> None:
        total_ms = len(text) * MS_PER_CHAR
        self.audio_ms[r.item_id] = 0.0
        await self.send(
            "response.output_item.added",
            response_id=r.id,
            output_index=0,
            item={
                "id": r.item_id,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            },
        )
        words = text.split()
        for index, start_ms in enumerate(range(0, total_ms, DELTA_MS)):
            if r.finished and r.leak_deltas <= 0:
                return
            if index == self.faults.stall_speech_after_deltas:
                return
            r.leak_deltas -= 1 if r.finished else 0
            pcm = tone(min(DELTA_MS, total_ms - start_ms))
            await self.send(
                "response.output_audio.delta",
                response_id=r.id,
                item_id=r.item_id,
                output_index=0,
                content_index=0,
                delta=base64.b64encode(pcm).decode(),
            )
            self.audio_ms[r.item_id] += len(pcm) / 48
            word = words[index] if index < len(words) else ""
            r.transcript += (" " if r.transcript and word else "") + word
            await asyncio.sleep(self.faults.speech_delta_wall_s or DELTA_WALL_S)
        if not r.finished:
            await self.finish_response(r, "completed", None)

    async def finish_response(self, r: Response, status: str, reason: str | None, output: Any = None) -> None:
        if r.finished:
            return
        r.finished = True
        if self.active is r:
            self.active = None
        if r.item_id in self.audio_ms:
            await self.send("response.output_audio.done", response_id=r.id, item_id=r.item_id)
            await self.send(
                "response.output_audio_transcript.done",
                response_id=r.id,
                item_id=r.item_id,
                transcript=r.transcript,
            )
            output = [
                {
                    "id": r.item_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_audio", "transcript": r.transcript}],
                }
            ]
        await self.send("response.done", response=self.response_body(r, status, reason, output or []))

    async def close(self) -> None:
        if self.active and self.active.task:
            self.active.task.cancel()


def tone(duration_ms: int) -> bytes:
    t = np.arange(duration_ms * 24) / RATE_HZ
    return (4000 * np.sin(2 * np.pi * 220 * t)).astype("<i2").tobytes()


def create_app(faults: Faults | None = None) -> web.Application:
    """The fake engine: ``GET /v1/realtime`` upgrades to a Realtime WebSocket session."""

    async def realtime(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        session = FakeSession(ws, faults or Faults())
        await session.start()
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await session.handle(json.loads(msg.data))
        finally:
            await session.close()
        return ws

    app = web.Application()
    app.router.add_get("/v1/realtime", realtime)
    return app
