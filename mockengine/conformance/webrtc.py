"""The conformance checks over a WebRTC call (``mockengine conformance --transport webrtc``).

:class:`WebRtcConnection` has the :class:`~mockengine.conformance.connection.Connection` interface the
checks use, over a call instead of a WebSocket: the offer goes to ``POST /v1/realtime/calls`` (the
``--url``'s host, model and key), client events go on the ``oai-events`` data channel, and
``input_audio_buffer.append`` becomes microphone audio: its PCM16 plays on the outgoing Opus track at
real-time pace (the checks' microphone already sends at that pace). What the engine says arrives on the
incoming track; as the HRP checks read reply audio from ``response.output_audio.delta`` events, the
track's audio while a reply plays (between ``output_audio_buffer.started`` and ``.stopped`` /
``.cleared``) is recorded as such deltas, 100 ms each, stamped when the audio arrived and marked
``"transport": "webrtc-track"``. So the timing figures (speech end → first reply audio) are what a WebRTC
client hears, jitter buffer included.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Coroutine
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import numpy as np
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamTrack

from mockengine.conformance.connection import (
    Connection,
    ConnectionFailed,
    EngineUnreachable,
    JsonObject,
    describe_failure,
    now_ms,
    trim_front,
    unreachable_reason,
)
from mockengine.rtc.closing import PC_CLOSE_WAIT_S, close_peer
from mockengine.rtc.ice import include_loopback, offline_configuration
from mockengine.rtc.inbound import discard_inbound
from mockengine.rtc.media import ReplyTrack, pcm16_frames
from mockengine.rtc.rtp_send import send_on_shared_grid

DELTA_BYTES = 4800  # 100 ms of PCM16 24 kHz per recorded delta
FRAME_PEAKS_KEPT = 3000  # with keep_events: 60 s of 20 ms frames, past any reply a driver waits for
ITEMS_KEPT = 64  # responses whose audio item is remembered: a reply's audio starts within a few of its own


def calls_url(ws_url: str) -> str:
    """``ws://host/v1/realtime?model=m`` → ``http://host/v1/realtime/calls?model=m``."""
    parts = urlsplit(ws_url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + "/calls", parts.query, ""))


class WebRtcConnection(Connection):
    transport = "webrtc"

    def __init__(self, listen: bool = True, keep_events: int | None = None) -> None:
        # The Connection state the checks read; keep_events as Connection's (a load driver bounds it).
        self.listen = listen  # False: the reply track is received but never decoded (a load driver)
        self.keep_events = keep_events
        self.events = []
        self.send_lock = asyncio.Lock()
        self.close_code = None
        self.close_reason = ""
        self._changed = asyncio.Condition()
        self._closed = False
        self.pc = RTCPeerConnection(offline_configuration())
        self.mic = ReplyTrack(lambda _: None, lambda _: None)  # plays what it is given, silence otherwise
        self.channel = self.pc.createDataChannel("oai-events")
        send_on_shared_grid(self.pc.addTrack(self.mic), self.mic)  # one timer for all the process's mics
        self._opened = asyncio.Event()
        self.channel.on("open", self._opened.set)
        self.channel.on("message", self._on_message)
        self.channel.on("close", self._on_close)
        self.pc.on("track", self._on_track)
        self._tasks: set[asyncio.Future[None]] = set()  # those not done yet, cancelled at close
        self._playing: tuple[str, str] | None = None  # (response id, item id) on the track now
        self._items: dict[str, str] = {}  # response id → its audio item
        self._heard = bytearray()
        # (arrival ms, peak sample) of every received frame: what the client heard, when (checks_webrtc).
        self.frame_peaks: list[tuple[float, int]] = []

    @classmethod
    async def open(
        cls,
        url: str,
        api_key: str | None,
        *,
        timeout_ms: int,
        listen: bool = True,
        keep_events: int | None = None,
    ) -> WebRtcConnection:
        conn = cls(listen, keep_events)
        try:
            include_loopback(conn.pc)
            await conn.pc.setLocalDescription(await conn.pc.createOffer())
            headers = {"Content-Type": "application/sdp"}
            if api_key:
                headers["Authorization"] = f"Bearer {api_key}"
            timeout = aiohttp.ClientTimeout(total=timeout_ms / 1000.0)
            async with aiohttp.ClientSession(timeout=timeout) as http:
                reply = await http.post(calls_url(url), data=conn.pc.localDescription.sdp, headers=headers)
                body = await reply.text()
            if reply.status != 201:
                raise ConnectionFailed(f"POST {calls_url(url)} answered {reply.status}: {body[:300]}")
            await conn.pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
            await asyncio.wait_for(conn._opened.wait(), timeout_ms / 1000.0)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            await conn.close()
            if (reason := unreachable_reason(exc)) is not None:
                raise EngineUnreachable(calls_url(url), reason) from exc
            raise ConnectionFailed(
                f"cannot open a call at {calls_url(url)}: {describe_failure(exc, timeout_ms)}"
            ) from exc
        except ConnectionFailed:
            await conn.close()
            raise
        return conn

    def _on_message(self, message: str | bytes) -> None:
        data = json.loads(message)
        kind = data.get("type")
        if kind == "response.output_item.added" and data.get("item", {}).get("type") == "message":
            self._items[data["response_id"]] = data["item"]["id"]
            if len(self._items) > ITEMS_KEPT:  # replies that never played (text only, cancelled early)
                del self._items[next(iter(self._items))]
        elif kind == "output_audio_buffer.started":
            rid = data["response_id"]
            self._playing = (rid, self._items.pop(rid, ""))
        elif kind in ("output_audio_buffer.stopped", "output_audio_buffer.cleared"):
            self._flush_heard()
            self._playing = None
        self._start(self._record(data))

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task held until done: a list of every task ever started grew by one a
        message for the whole call."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_close(self) -> None:
        self._closed = True
        self.close_code = 1000
        self._start(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _on_track(self, track: MediaStreamTrack) -> None:
        if not self.listen:
            for transceiver in self.pc.getTransceivers():
                if transceiver.receiver.track is track:
                    discard_inbound(transceiver.receiver)
            return
        self._start(self._listen(track))

    async def _listen(self, track: MediaStreamTrack) -> None:
        async for pcm in pcm16_frames(track):
            if pcm:
                self.frame_peaks.append((now_ms(), int(np.abs(np.frombuffer(pcm, dtype="<i2")).max())))
                trim_front(self.frame_peaks, None if self.keep_events is None else FRAME_PEAKS_KEPT)
            if self._playing is not None:
                self._heard += pcm
                if len(self._heard) >= DELTA_BYTES:
                    self._flush_heard()

    def _flush_heard(self) -> None:
        if not self._heard or self._playing is None:
            self._heard.clear()
            return
        response_id, item_id = self._playing
        delta = {
            "type": "response.output_audio.delta",
            "response_id": response_id,
            "item_id": item_id,
            "output_index": 0,
            "content_index": 0,
            "delta": base64.b64encode(bytes(self._heard)).decode("ascii"),
            "transport": "webrtc-track",
        }
        self._heard.clear()
        self._start(self._record(delta))

    async def send_unlocked(self, event: JsonObject) -> float:
        sent_ms = now_ms()
        if event.get("type") == "input_audio_buffer.append":
            pcm = base64.b64decode(event.get("audio") or "")
            self.mic.enqueue("mic", "mic", pcm[: len(pcm) - len(pcm) % 2])
            return sent_ms
        if self.channel.readyState != "open":
            raise ConnectionResetError("the data channel is closed")
        self.channel.send(json.dumps(event))
        return sent_ms

    async def close(self) -> None:
        self.mic.stop()
        for task in list(self._tasks):
            task.cancel()
        await close_peer(self.pc, PC_CLOSE_WAIT_S)
        self._closed = True
