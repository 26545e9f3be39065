"""A WebRTC Realtime client built on aiortc, as a browser page does it: a microphone track (speech from
PCM at real-time pace, then silence), the ``oai-events`` data channel, the offer posted to
``/v1/realtime/calls``, the reply track recorded as PCM16 24 kHz."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from typing import Any

import aiohttp
import av
import numpy as np
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from mockengine.rtc.closing import close_peer
from mockengine.rtc.ice import include_loopback, offline_configuration
from mockengine.rtc.media import pcm16_frames

RATE_HZ = 24_000
FRAME_SAMPLES = 480
SILENT_PEAK = 600  # a received frame no louder than this is silence (the engine's padding, a pause)


class Microphone(MediaStreamTrack):
    """Plays queued PCM16 24 kHz at real-time pace in 20 ms frames; silence when nothing is queued."""

    kind = "audio"

    def __init__(self) -> None:
        super().__init__()
        self.pending = bytearray()
        self._pts = 0
        self._start: float | None = None

    def say(self, pcm16: bytes) -> None:
        self.pending += pcm16

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        loop = asyncio.get_running_loop()
        if self._start is None:
            self._start = loop.time()
        wait_s = self._start + self._pts / RATE_HZ - loop.time()
        if wait_s > 0:
            await asyncio.sleep(wait_s)
        chunk = bytes(self.pending[: FRAME_SAMPLES * 2])
        del self.pending[: FRAME_SAMPLES * 2]
        chunk += bytes(FRAME_SAMPLES * 2 - len(chunk))
        frame = av.AudioFrame.from_ndarray(
            np.frombuffer(chunk, dtype=np.int16).reshape(1, -1), format="s16", layout="mono"
        )
        frame.sample_rate, frame.pts, frame.time_base = RATE_HZ, self._pts, Fraction(1, RATE_HZ)
        self._pts += FRAME_SAMPLES
        return frame


CLOSE_TIMEOUT_S = 15.0  # a test's peer connection close, at most (close_pcs)


async def close_pcs(*pcs: RTCPeerConnection) -> None:
    """Close every test peer connection in ``pcs`` together, waiting at most CLOSE_TIMEOUT_S for them.

    aiortc's own close can wait forever on a transport that never stops (seen once in a clean-clone CI
    run: test_webrtc_faults' journal test hung 6 minutes in it, the engine's side long done): a
    client's teardown is not what these tests check, so it is bounded and the run goes on. Every test
    closes its aiortc peers through here (the close itself: mockengine.rtc.closing.close_peer)."""
    await asyncio.gather(*(close_peer(pc, CLOSE_TIMEOUT_S) for pc in pcs))


class CallClient:
    """One call. ``events``: every server event from the data channel; ``heard``: the reply track."""

    def __init__(self) -> None:
        self.pc = RTCPeerConnection(offline_configuration())
        self.mic = Microphone()
        self.events: list[dict[str, Any]] = []
        # (len(heard), voiced_bytes) as each event arrived: events[i] ↔ heard_at[i]
        self.heard_at: list[tuple[int, int]] = []
        self.binary_messages = 0  # server events that came as binary, not text, messages (none should)
        self.heard = bytearray()
        self.frames_heard = 0
        self.voiced_bytes = 0  # of ``heard``, in frames louder than SILENT_PEAK
        self.call_id: str | None = None
        self.location: str | None = None
        self.handle: str | None = None
        self.answer_sdp = ""
        self._new_event = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.channel = self.pc.createDataChannel("oai-events")
        self.channel.on("message", self._on_message)
        self.opened = asyncio.Event()
        self.channel.on("open", self.opened.set)
        self.pc.addTrack(self.mic)
        self.pc.on("track", self._on_track)

    def _on_message(self, message: str | bytes) -> None:
        if isinstance(message, bytes):  # a binary message: a browser's JSON.parse(event.data) would fail
            self.binary_messages += 1
        self.events.append(json.loads(message))
        self.heard_at.append((len(self.heard), self.voiced_bytes))
        self._new_event.set()

    def _on_track(self, track: MediaStreamTrack) -> None:
        self._tasks.append(asyncio.ensure_future(self._record(track)))

    async def _record(self, track: MediaStreamTrack) -> None:
        async for pcm in pcm16_frames(track):
            self.heard += pcm
            self.frames_heard += 1
            if pcm and int(np.abs(np.frombuffer(pcm, dtype="<i2")).max()) > SILENT_PEAK:
                self.voiced_bytes += len(pcm)

    async def offer(self) -> str:
        include_loopback(self.pc)
        await self.pc.setLocalDescription(await self.pc.createOffer())
        return self.pc.localDescription.sdp

    async def connect(
        self,
        http_url: str,
        key: str = "sk-test",
        *,
        session: dict[str, Any] | None = None,
        query: str = "",
        path: str = "/v1/realtime/calls",
    ) -> None:
        """Post the offer to ``path`` (multipart with ``session`` when given), apply the answer, wait for
        the channel."""
        sdp = await self.offer()
        headers = {"Authorization": f"Bearer {key}"}
        async with aiohttp.ClientSession() as http:
            if session is None:
                reply = await http.post(
                    f"{http_url}{path}{query}",
                    data=sdp,
                    headers={**headers, "Content-Type": "application/sdp"},
                )
            else:
                form = aiohttp.FormData(default_to_multipart=True)
                form.add_field("sdp", sdp)
                form.add_field("session", json.dumps(session))
                reply = await http.post(f"{http_url}{path}{query}", data=form, headers=headers)
            body = await reply.text()
            assert reply.status == 201, f"{reply.status}: {body}"
            assert reply.content_type == "application/sdp"
            self.location = reply.headers["Location"]
            self.call_id = self.location.rsplit("/", 1)[-1]
            self.handle = reply.headers.get("X-Mockengine-Session-Handle")  # the control endpoints' name
            self.answer_sdp = body
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
        async with asyncio.timeout(10):
            await self.opened.wait()

    async def turn_detection_off(self) -> None:
        """``turn_detection: null`` (turns committed by the client), once the session says so."""
        audio = {"input": {"turn_detection": None}}
        self.send({"type": "session.update", "session": {"type": "realtime", "audio": audio}})
        await self.wait_for("session.updated")

    def send(self, event: dict[str, Any]) -> None:
        self.channel.send(json.dumps(event))

    async def wait_for(self, kind: str, *, after: int = 0, timeout_s: float = 30.0) -> dict[str, Any]:
        """The first event of type ``kind`` at index ≥ ``after``."""
        async with asyncio.timeout(timeout_s):
            while True:
                found = next((e for e in self.events[after:] if e["type"] == kind), None)
                if found is not None:
                    return found
                self._new_event.clear()
                await self._new_event.wait()

    def kinds(self) -> list[str]:
        return [e["type"] for e in self.events]

    async def wait_for_answer(self, *, after: int = 0, timeout_s: float = 40.0) -> dict[str, Any]:
        """The ``response.done`` that answers the turn the microphone spoke after event index ``after``:
        the turn's last answer.

        On a starved machine the microphone's packets can come late (this process's loop stalled past
        the turn's ``silence_duration_ms``): the engine ends the turn early, as it would for a network
        that held them back, and the rest of the speech then cancels the first answer as a barge-in does
        (CI, load ~15). Such an answer (cancelled, reason ``turn_detected``, a ``speech_started`` after
        its ``response.created``) is passed over; any other is returned, for the test to check."""
        mark = after
        async with asyncio.timeout(timeout_s):
            while True:
                done = await self.wait_for("response.done", after=mark, timeout_s=timeout_s)
                cut = next(i for i, e in enumerate(self.events) if e is done)
                response = done["response"]
                created = next(
                    (
                        i
                        for i, e in enumerate(self.events[:cut])
                        if e["type"] == "response.created" and e["response"]["id"] == response["id"]
                    ),
                    cut,
                )
                barged = "input_audio_buffer.speech_started" in self.kinds()[created:cut]
                reason = (response.get("status_details") or {}).get("reason")
                if response["status"] != "cancelled" or reason != "turn_detected" or not barged:
                    return done
                mark = cut + 1

    def heard_text(self, *, after: int = 0) -> str:
        """What the engine transcribed of the microphone after event index ``after``: every completed
        transcription, in order (a turn split by late packets is transcribed in pieces)."""
        return " ".join(
            e["transcript"]
            for e in self.events[after:]
            if e["type"] == "conversation.item.input_audio_transcription.completed"
        )

    def heard_ms_at(self, event: dict[str, Any], *, voiced: bool = False) -> float:
        """How much of the reply track had been heard (ms) when ``event`` arrived: all of it, or with
        ``voiced`` only its frames louder than SILENT_PEAK (not the silence the engine sends between
        replies, or when a reply's audio comes slower than it plays)."""
        index = next(i for i, e in enumerate(self.events) if e is event)
        return self.heard_at[index][1 if voiced else 0] / 2 / RATE_HZ * 1000

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await close_pcs(self.pc)
