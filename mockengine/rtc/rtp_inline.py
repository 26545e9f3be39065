"""The microphone's RTP packets handled where they arrive, without aiortc's per-packet task hop.

aioice puts every datagram of a call on an ``asyncio.Queue`` that aiortc's DTLS transport task reads
(``RTCDtlsTransport.__run`` → ``_recv_next``): for the 50 microphone packets a second of every call that
is a queue hand-off, a task wake-up and a chain of five coroutines before SRTP, RTP parsing and the
receiver even start. :func:`receive_rtp_inline` makes the ICE connection hand an SRTP packet (not RTCP,
which stays on aiortc's path) straight to what ``_recv_next`` would run for it — unprotect, parse, route
to the receiver, ``RTCRtpReceiver._handle_rtp_packet`` — in the datagram callback itself (a packet
for another receiver than the microphone's gets a task of its own). The
receiver's handler is a coroutine that, for an audio receiver, never suspends (it awaits only to send
REMB, NACK or PLI feedback, which aiortc does for video), so it is run to its end at once. Everything
else (DTLS, the data channel's SCTP, RTCP, packets before the handshake, other receivers) still goes
through aioice's queue as before. Packets that SRTP refuses are dropped, as aiortc drops them.

:func:`drop_rtp_inline` is the load driver's variant (a client that never listens to the replies): its
SRTP packets are counted in aiortc's transport statistics and dropped right there, before SRTP.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pylibsrtp
from aiortc import RTCRtpReceiver, clock
from aiortc.rtp import RtpPacket, is_rtcp

log = logging.getLogger("mockengine.webrtc")
_RX_BYTES = "_RTCDtlsTransport__rx_bytes"
_RX_PACKETS = "_RTCDtlsTransport__rx_packets"


def receive_rtp_inline(receiver: RTCRtpReceiver) -> bool:
    """Route ``receiver``'s SRTP packets past aioice's queue (see the module docstring). An audio
    receiver only; call it before the receiver starts (from the peer connection's ``track`` event).
    False (and aiortc's own path kept) where this aiortc / aioice keeps its receive path elsewhere."""
    found = _receive_path(receiver, "handled")
    if found is None:
        return False
    dtls, connection, queued = found
    connection.data_received = _inline(dtls, receiver, queued)
    return True


Sink = Callable[[bytes, int], None]  # aioice's Connection.data_received(data, component)


def drop_rtp_inline(receiver: RTCRtpReceiver) -> bool:
    """Drop the SRTP packets of ``receiver``'s transport where they arrive, counted in aiortc's
    transport statistics (``bytesReceived`` / ``packetsReceived``) but not unprotected, parsed or
    queued: for a load driver that never listens (aiortc's path cost it ~a third of its CPU per
    call-second). RTCP, DTLS and SCTP keep aiortc's path. False where aiortc lays it out otherwise."""
    found = _receive_path(receiver, "dropped")
    if found is None:
        return False
    dtls, connection, queued = found
    connection.data_received = _dropping(dtls, queued)
    return True


def _receive_path(receiver: RTCRtpReceiver, verb: str) -> tuple[Any, Any, Sink] | None:
    """``receiver``'s DTLS transport, its aioice connection and that connection's ``data_received``;
    None (and a warning) where this aiortc / aioice lays them out otherwise."""
    dtls = receiver.transport
    connection = getattr(getattr(dtls, "transport", None), "_connection", None)
    queued = getattr(connection, "data_received", None)
    if connection is None or queued is None or not hasattr(dtls, _RX_BYTES):
        log.warning("RTP %s through aiortc's queue: its receive path is not where expected", verb)
        return None
    return dtls, connection, queued


def _dropping(dtls: Any, queued: Sink) -> Sink:
    def data_received(data: bytes, component: int) -> None:
        if dtls._rx_srtp is None or not 127 < data[0] < 192 or is_rtcp(data):
            queued(data, component)
            return
        setattr(dtls, _RX_BYTES, getattr(dtls, _RX_BYTES) + len(data))
        setattr(dtls, _RX_PACKETS, getattr(dtls, _RX_PACKETS) + 1)

    return data_received


def _inline(dtls: Any, receiver: RTCRtpReceiver, queued: Sink) -> Sink:
    def data_received(data: bytes, component: int) -> None:
        srtp = dtls._rx_srtp
        if srtp is None or not 127 < data[0] < 192 or is_rtcp(data):
            queued(data, component)
            return
        setattr(dtls, _RX_BYTES, getattr(dtls, _RX_BYTES) + len(data))
        setattr(dtls, _RX_PACKETS, getattr(dtls, _RX_PACKETS) + 1)
        try:
            packet = RtpPacket.parse(srtp.unprotect(data), dtls._rtp_header_extensions_map)
        except (pylibsrtp.Error, ValueError):
            return  # as aiortc: an undecryptable or malformed packet is dropped
        target = dtls._rtp_router.route_rtp(packet)
        if target is None:
            return  # as aiortc: no receiver for it
        handling = target._handle_rtp_packet(packet, arrival_time_ms=clock.current_ms())
        if target is not receiver:  # another receiver (a client's second track): as a task of its own
            asyncio.ensure_future(handling)
            return
        try:
            handling.send(None)
        except StopIteration:
            return
        handling.close()  # it wanted to wait (video feedback): not an audio receiver's path
        log.warning("inline RTP handling suspended; packet %d dropped", packet.sequence_number)

    return data_received
