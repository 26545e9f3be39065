"""A WebRTC call on the pion media plane (``serve --media-plane pion``; ``mockengine/rtc/pion/``).

The same :class:`~mockengine.server.webrtc.call.CallRunner` as an aiortc call — session core, data
channel events, reply track, playback events, barge-in truncation, faults, sideband, hang-up — with
its peer connection in the sidecar instead of aiortc:

- the ``oai-events`` channel is :class:`PionChannel`, which has the face of aiortc's ``RTCDataChannel``
  that :func:`~mockengine.server.webrtc.call.serve_events_channel` and
  :class:`~mockengine.rtc.channel_flow.ChannelSender` use (its sends go to the sidecar at once; the
  sidecar says when its SCTP buffer holds over 1 MiB and when it is down to 256 KiB, and the sender
  waits in between, as on aiortc);
- the microphone's Opus packets come in the sidecar's 20 ms batches and go through the same
  :class:`~mockengine.rtc.inbound.InlineDecoder` (in arrival order: the sidecar reorders nothing, and on
  loopback or a LAN nothing is reordered);
- the reply track's due frames are taken on the same batches' clock (:meth:`due_frames`);
- the call ends when the sidecar says so (ICE failed: a client gone for ~10 s, or its connection closed),
  on hang-up, or when the sidecar ends.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import Any

from aiortc import RTCPeerConnection

from mockengine.realtime.session import RealtimeSession
from mockengine.rtc.answer_sdp import with_opus_fec
from mockengine.rtc.channel_flow import HIGH_WATER_BYTES
from mockengine.rtc.inbound import InlineDecoder
from mockengine.rtc.pion.plane import (
    EARLY_S,
    STATE_CHANNEL_CLOSED,
    STATE_CHANNEL_OPEN,
    STATE_CONGESTED,
    STATE_DRAINED,
    STATE_ENDED,
    OfferRefused,
    PionPlane,
)
from mockengine.server.journal import SessionJournal
from mockengine.server.resources import Resources
from mockengine.server.trace import Tracer
from mockengine.server.webrtc.call import EVENTS_CHANNEL, CallRunner, serve_events_channel

log = logging.getLogger("mockengine.webrtc")
DEFAULT_MAX_MESSAGE_BYTES = 65_536  # RFC 8841 §6: an offer without a=max-message-size allows 64 KiB
# What the sidecar's SCTP sends at most, whatever the offer allows: aiortc's own cap (its
# LOCAL_MAX_MESSAGE_SIZE), which build.sh gives pion/sctp in place of its 64 KiB; a larger event goes
# without its audio or is refused as too large, as on the aiortc plane.
PION_MAX_MESSAGE_BYTES = 262_144
CONGESTED_BYTES = HIGH_WATER_BYTES + 1  # what a congested channel's bufferedAmount reads (no exact figure)
_AUDIO_SECTION = re.compile(r"^m=audio [^\r\n]*(?:\r?\n(?!m=)[^\r\n]*)*", re.MULTILINE)
_OPUS = re.compile(r"^a=rtpmap:\d+ opus/48000", re.MULTILINE | re.IGNORECASE)
# The aiortc plane takes a G.711-only offer (aiortc's PCMU / PCMA codecs, the reply re-encoded): the
# sidecar negotiates Opus only, its reply frames and the engine's decoder are Opus. Such an offer is
# refused in words that say so, not with pion's "RTPSender created with no codecs".
NO_OPUS = (
    "its microphone (m=audio) offers no Opus; this engine's pion media plane takes Opus only "
    "(PCMU / PCMA calls are served on its default aiortc plane)"
)
_MAX_MESSAGE = re.compile(r"^a=max-message-size:(\d+)\s*$", re.MULTILINE)


def offers_opus(offer_sdp: str) -> bool:
    """Whether the microphone (the first audio section of ``offer_sdp``, the one the sidecar takes; none:
    True) offers Opus (``a=rtpmap:<pt> opus/48000``)."""
    microphone = _AUDIO_SECTION.search(offer_sdp)
    return microphone is None or _OPUS.search(microphone.group(0)) is not None


class _Opus:
    """The codec the sidecar negotiates (the only one it offers), as InlineDecoder reads a codec."""

    name = "opus"


OPUS = _Opus()


class _Packet:
    """A received packet as InlineDecoder reads a jitter buffer's frame."""

    __slots__ = ("data", "timestamp", "rtp_timestamp", "sequence_number")

    def __init__(self, data: bytes, timestamp: int, sequence_number: int) -> None:
        self.data = data
        self.timestamp = self.rtp_timestamp = timestamp
        self.sequence_number = sequence_number


class PionChannel:
    """A call's ``oai-events`` channel in the sidecar, with the part of ``RTCDataChannel``'s face the
    engine uses (``on``, ``send``, ``close``, ``readyState``, ``bufferedAmount``)."""

    label = EVENTS_CHANNEL

    def __init__(self, plane: PionPlane, call: int) -> None:
        self._plane = plane
        self._call = call
        self.readyState = "connecting"
        self.bufferedAmount = 0
        self.bufferedAmountLowThreshold = 0
        self._handlers: dict[str, list[Callable[..., Any]]] = {}

    def on(self, event: str, handler: Callable[..., Any]) -> None:
        self._handlers.setdefault(event, []).append(handler)

    def emit(self, event: str, *args: Any) -> None:
        for handler in self._handlers.get(event, ()):
            handler(*args)

    def send(self, text: str) -> None:
        if self.readyState == "open":
            self._plane.send_text(self._call, text)

    def close(self) -> None:
        """Close the channel (fault ``datachannel_close``); its 'close' follows from the sidecar."""
        self._plane.close_channel(self._call)

    def on_flow(self, state: int) -> None:
        """The sidecar's SCTP buffer went over its high-water mark (``STATE_CONGESTED``: the next send
        of :class:`~mockengine.rtc.channel_flow.ChannelSender` waits) or back under its low one
        (``STATE_DRAINED``: the wait ends, as on aiortc's ``bufferedamountlow``)."""
        if state == STATE_CONGESTED:
            self.bufferedAmount = CONGESTED_BYTES
        elif state == STATE_DRAINED:
            self.bufferedAmount = 0
            self.emit("bufferedamountlow")


class PionCallRunner(CallRunner):
    """A call whose media plane is the pion sidecar (see the module docstring)."""

    def __init__(
        self,
        plane: PionPlane,
        call_id: str,
        session: RealtimeSession,
        resources: Resources,
        tracer: Tracer,
        journal: SessionJournal | None = None,
    ) -> None:
        self.plane = plane
        self.call_number = plane.new_call()
        self.offer_sdp = ""
        # The microphone's packets: received, missing from the sequence, and out of order.
        self.packets_received = self.packets_missed = self.packets_late = 0
        self._last_sequence_number: int | None = None
        super().__init__(None, call_id, session, resources, tracer, journal)  # type: ignore[arg-type]

    def _wire_peer(self, pc: RTCPeerConnection) -> None:
        channel = PionChannel(self.plane, self.call_number)
        self.channel = channel  # type: ignore[assignment]
        self.sender = serve_events_channel(channel, self.on_channel_message, self.ended, self.channel_open)  # type: ignore[arg-type]
        self.microphones.append(InlineDecoder(self._on_microphone, clock=self.plane.clock))

    async def answer(self, offer_sdp: str) -> str:
        """The sidecar's answer to the client's offer (OfferRefused: pion's reason, or a microphone
        offered without Opus)."""
        self.offer_sdp = offer_sdp
        if not offers_opus(offer_sdp):
            raise OfferRefused(NO_OPUS)
        # FEC asked for as on the aiortc path (calls.py): pion's answer copies the offer's Opus
        # parameters, and an aiortc or pion client's offer has none.
        return with_opus_fec(await self.plane.answer(self.call_number, self, offer_sdp))

    # -- the plane's endpoint ----------------------------------------------------------------------

    def on_state(self, state: int, reason: str) -> None:
        channel = self.channel
        assert isinstance(channel, PionChannel)
        if state == STATE_CHANNEL_OPEN:
            channel.readyState = "open"
            channel.emit("open")
        elif state == STATE_CHANNEL_CLOSED:
            if channel.readyState != "closed":
                channel.readyState = "closed"
                channel.emit("close")
        elif state in (STATE_CONGESTED, STATE_DRAINED):
            channel.on_flow(state)
        elif state == STATE_ENDED:
            log.info(
                "call %s: the media plane ended it (%s); microphone packets %d, missed %d, late %d",
                self.call_id,
                reason,
                self.packets_received,
                self.packets_missed,
                self.packets_late,
            )
            channel.readyState = "closed"
            self.ended.set()

    def on_message(self, data: bytes, is_text: bool) -> None:
        assert isinstance(self.channel, PionChannel)
        self.channel.emit("message", data.decode("utf-8", "replace") if is_text else data)

    def on_packet(self, sequence_number: int, timestamp: int, payload: bytes) -> None:
        last = self._last_sequence_number
        if last is not None and sequence_number != (last + 1) & 0xFFFF:
            ahead = (sequence_number - last) & 0xFFFF
            if ahead < 0x8000:
                self.packets_missed += ahead - 1
            else:
                self.packets_late += 1
        self._last_sequence_number = sequence_number
        self.packets_received += 1
        self.microphones[0].put((OPUS, _Packet(payload, timestamp, sequence_number)))

    def due_frames(self, now_s: float) -> list[tuple[bytes, int]]:
        track = self.track
        if track.readyState != "live":
            return []
        frames = []
        while track.next_due_s(now_s) <= now_s + EARLY_S:
            pulled = track.pull()
            if pulled is not None:
                frames.append(pulled)
        return frames

    # -- CallRunner's peer connection ----------------------------------------------------------------

    def _channel_limit_bytes(self) -> int:
        found = _MAX_MESSAGE.search(self.offer_sdp)
        offered = int(found.group(1)) if found else DEFAULT_MAX_MESSAGE_BYTES
        return min(offered or PION_MAX_MESSAGE_BYTES, PION_MAX_MESSAGE_BYTES)

    def _close_pc(self) -> asyncio.Future[None]:
        if self._pc_closing is None:
            log.info(
                "call %s: microphone packets %d, missed %d, late %d",
                self.call_id,
                self.packets_received,
                self.packets_missed,
                self.packets_late,
            )
            self.plane.hang_up(self.call_number)
            self.plane.forget(self.call_number)
            for microphone in self.microphones:
                microphone.put(None)  # its quiet timer stops
            self._pc_closing = asyncio.get_running_loop().create_future()
            self._pc_closing.set_result(None)
        return self._pc_closing
