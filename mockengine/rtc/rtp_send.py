"""The reply tracks of all calls sent by one 20 ms timer, straight into SRTP, without aiortc's sender loop.

aiortc's ``RTCRtpSender._run_rtp`` is a task per call that, for each 20 ms packet, awaits the track's
``recv`` (a timer of its own), wraps the payload in an ``av.Packet`` only for its Opus "encoder" to
unwrap it again (``convert_timebase`` with ``Fraction`` arithmetic), builds an ``RtpPacket`` with an
absolute send time the audio line never negotiates (a ``datetime`` → NTP conversion per packet),
serialises its header extensions from scratch and awaits four coroutines down to the socket. A py-spy
profile of the engine under 6 talking calls had that loop at ~45 % of the event-loop thread.

:func:`send_on_shared_grid` gives a call's Opus sender to the event loop's :class:`SharedPacer`
instead: one timer on the 20 ms grid all reply tracks already share; at each tick every call's due
frames are taken from its :class:`~mockengine.rtc.media.ReplyTrack` (``pull``: reply audio, the cached
silent packet, DTX and the media-stall fault as before) and sent as aiortc would send them: the RTP
header (payload type, marker, SSRC, the ``mid`` extension) serialised once by aiortc's own
``RtpPacket`` as a template, sequence number and timestamp packed per packet, then
``RTCDtlsTransport._send_rtp`` (SRTP, aioice, the socket; it never suspends, so it is run to its end
at once). The sender's counters that its RTCP sender reports carry are kept as ``_run_rtp`` keeps
them. Audio senders get no NACK (aiortc negotiates none for audio), so no retransmission history.

Where this aiortc keeps its sender elsewhere, the negotiated codec is not Opus, or the line carries
absolute send times (a per-packet header value; aiortc negotiates it for video only), aiortc's own
``_run_rtp`` sends the track (it then pulls it through ``ReplyTrack.recv``).
"""

from __future__ import annotations

import asyncio
import logging
import math
import struct
from typing import Any

from aiortc import RTCRtpSender, clock
from aiortc.mediastreams import MediaStreamError
from aiortc.rtcrtpsender import random_sequence_number
from aiortc.rtp import RtpPacket
from aiortc.utils import random32

from mockengine.rtc.media import FRAME_S, ReplyTrack

log = logging.getLogger("mockengine.webrtc")
_PRIVATE = "_RTCRtpSender__"
_NEEDED = ("rtp_started", "rtp_exited", "track", "mid", "rtp_header_extensions_map", "packet_count")
_HEADER = struct.Struct("!BBHII")  # V/P/X/CC, M/PT, sequence number, timestamp, SSRC (RFC 3550 §5.1)
EARLY_S = FRAME_S / 2  # a timer may fire up to the clock's resolution early: the frame is still due


def send_on_shared_grid(sender: RTCRtpSender, track: ReplyTrack) -> bool:
    """Send ``track`` on ``sender`` from the shared pacer (see the module docstring). Call before the
    sender starts (after ``addTrack``, before the answer is set). False, and aiortc's own loop kept,
    where this aiortc lays its sender out differently."""
    transport = getattr(sender, "transport", None)
    if not all(hasattr(sender, _PRIVATE + name) for name in _NEEDED) or not (
        hasattr(sender, "_enabled") and hasattr(sender, "_ssrc") and hasattr(transport, "_send_rtp")
    ):
        log.warning("reply RTP sent by aiortc's own loop: its sender is not laid out as expected")
        return False

    async def run_rtp(codec: Any) -> None:
        if codec.mimeType.lower() != "audio/opus" or _stamps_send_time(sender):
            await RTCRtpSender._run_rtp(sender, codec)
            return
        await _run_on_pacer(sender, track, codec)

    sender._run_rtp = run_rtp  # type: ignore[method-assign]
    return True


def _stamps_send_time(sender: RTCRtpSender) -> bool:
    """Whether aiortc would stamp each packet's absolute send time (the line negotiated it; aiortc
    never does for audio): a header template cannot carry a per-packet value."""
    extensions = getattr(sender, _PRIVATE + "rtp_header_extensions_map")
    ids = getattr(extensions, "_HeaderExtensionsMap__ids", None)
    return ids is None or getattr(ids, "abs_send_time", None) is not None


async def _run_on_pacer(sender: RTCRtpSender, track: ReplyTrack, codec: Any) -> None:
    """What ``_run_rtp`` is for the sender: started at once, ended when the track or the transport
    ends or the sender stops (cancelled), then the same clean-up as aiortc's."""
    getattr(sender, _PRIVATE + "rtp_started").set()
    stream = _Stream(sender, track, codec.payloadType)
    pacer = SharedPacer.of(asyncio.get_running_loop())
    pacer.add(stream)
    try:
        await stream.ended
    except asyncio.CancelledError:
        pass
    finally:
        pacer.discard(stream)
        track.stop()
        setattr(sender, _PRIVATE + "track", None)
        getattr(sender, _PRIVATE + "rtp_exited").set()


class _Stream:
    """One sender's RTP state: sequence numbers, timestamps, the header template, aiortc's counters."""

    def __init__(self, sender: RTCRtpSender, track: ReplyTrack, payload_type: int) -> None:
        self.sender = sender
        self.track = track
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._send_rtp = sender.transport._send_rtp
        self._ssrc = sender._ssrc
        self._sequence_number = random_sequence_number()
        self._timestamp_origin = random32()
        template = RtpPacket(payload_type=payload_type, sequence_number=0, timestamp=0, ssrc=self._ssrc)
        template.marker = 1  # aiortc marks the last packet of a frame: an audio frame is one packet
        template.extensions.mid = getattr(sender, _PRIVATE + "mid")
        head = template.serialize(getattr(sender, _PRIVATE + "rtp_header_extensions_map"))
        self._first_bytes = (head[0], head[1])
        self._extensions = head[_HEADER.size :]
        self._octets = self._packets = 0

    def header(self, sequence_number: int, timestamp: int) -> bytes:
        """What ``RtpPacket.serialize`` makes for this sender's packet, without its payload."""
        return _HEADER.pack(*self._first_bytes, sequence_number, timestamp, self._ssrc) + self._extensions

    def send_due(self, now_s: float, ntp: int) -> None:
        """Send every frame of the track that has fallen due by ``now_s`` (loop time)."""
        track = self.track
        if track.readyState != "live":
            raise MediaStreamError
        sent = False
        while track.next_due_s(now_s) <= now_s + EARLY_S:
            pulled = track.pull()
            if pulled is not None and self.sender._enabled:
                self._send(*pulled)
                sent = True
        if sent:  # what RTCP sender reports carry (RTCRtpSender._run_rtcp)
            setattr(self.sender, _PRIVATE + "ntp_timestamp", ntp)
            setattr(self.sender, _PRIVATE + "octet_count", self._octets)
            setattr(self.sender, _PRIVATE + "packet_count", self._packets)

    def _send(self, payload: bytes, rtp_pts: int) -> None:
        sequence_number, timestamp = self._sequence_number, (self._timestamp_origin + rtp_pts) & 0xFFFFFFFF
        self._sequence_number = (sequence_number + 1) & 0xFFFF
        sending = self._send_rtp(self.header(sequence_number, timestamp) + payload)
        try:
            sending.send(None)
        except StopIteration:
            pass
        else:  # it wanted to wait: not the path this module knows
            sending.close()
            raise RuntimeError("RTCDtlsTransport._send_rtp suspended")
        setattr(self.sender, _PRIVATE + "rtp_timestamp", timestamp)
        self._octets += len(payload)
        self._packets += 1


class SharedPacer:
    """Every reply stream of one event loop, sent from one timer on the 20 ms grid."""

    _by_loop: dict[asyncio.AbstractEventLoop, SharedPacer] = {}

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._streams: dict[_Stream, None] = {}  # insertion-ordered set
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> SharedPacer:
        pacer = cls._by_loop.get(loop)
        if pacer is None:
            pacer = cls._by_loop[loop] = cls(loop)
        return pacer

    def add(self, stream: _Stream) -> None:
        self._streams[stream] = None
        if self._timer is None:
            self._schedule()

    def discard(self, stream: _Stream) -> None:
        self._streams.pop(stream, None)
        if not self._streams:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._by_loop.get(self._loop) is self:
                del self._by_loop[self._loop]

    def _schedule(self) -> None:
        # (a timer may fire up to the clock's resolution early: the grid point it was for is past)
        next_s = (math.floor((self._loop.time() + EARLY_S) / FRAME_S) + 1) * FRAME_S
        self._timer = self._loop.call_at(next_s, self._tick)

    def _tick(self) -> None:
        now_s, ntp = self._loop.time(), clock.current_ntp_time()
        for stream in list(self._streams):
            try:
                stream.send_due(now_s, ntp)
            except (ConnectionError, MediaStreamError):
                self._end(stream)
            except Exception:
                log.exception("reply RTP stream failed")
                self._end(stream)
        if self._streams:
            self._schedule()

    def _end(self, stream: _Stream) -> None:
        self.discard(stream)
        if not stream.ended.done():
            stream.ended.set_result(None)
