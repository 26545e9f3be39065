"""Tell when a call's peer has gone without a word: its UDP port is closed (ICMP port unreachable).

A peer that closes its ``RTCPeerConnection`` says so (an SCTP ABORT and a DTLS ``close_notify``: the data
channel closes and the call ends at once). A browser tab that is closed, or a client process that is
killed, says nothing: Chromium shuts a closed tab's renderer down without closing its peer connections,
and nothing at all arrives from it afterwards. Left to ICE consent freshness (RFC 7675), the call
then lasted 30 s more, its seat (``sessions_active``) held, and a load test or a person reloading the
console piled up dead calls.

What the peer's host does send is ICMP port unreachable for every packet the engine sends to the closed
port (reply RTP every 20 ms, RTCP, consent checks). Linux reports that on an unconnected UDP socket only
with ``IP_RECVERR`` set; asyncio then calls the protocol's ``error_received`` with
``ConnectionRefusedError``. The call is taken as gone when refusals go on for ``GONE_AFTER_S`` with at
least ``GONE_REFUSALS`` of them and nothing received from the peer meanwhile: a live peer sends something
every few seconds at most (RTP, RTCP, consent checks), which resets the count. A host or network that is
unreachable (``EHOSTUNREACH``, ``ENETUNREACH``: ICE ``disconnected``, which can recover) is not a
refusal and ends nothing; consent freshness still deals with a peer that went silent that way. Across NAT
the ICMP may never come back: then too consent freshness ends the call, as before.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from typing import Any

from aiortc import RTCPeerConnection

from mockengine.rtc.ice import ice_connections

log = logging.getLogger("mockengine.webrtc")
GONE_AFTER_S = 2.0
GONE_REFUSALS = 3
# Linux's values (socket.IP_RECVERR is not exported by Python); elsewhere the watch is skipped.
IP_RECVERR = 11
IPV6_RECVERR = 25


class PeerGoneWatch:
    """Calls ``on_gone()`` once, when the peer's port has refused the engine's packets for a while.

    ``watch()`` once the connection is ``connected``: it hooks the nominated pairs' sockets (one with
    BUNDLE). Nothing is hooked before, when refusals from candidate pairs being checked mean nothing."""

    def __init__(self, pc: RTCPeerConnection, on_gone: Callable[[], None]) -> None:
        self.pc = pc
        self.on_gone = on_gone
        self.refusals = 0
        self.first_refusal_at: float | None = None
        self.is_gone = False
        self._hooked: set[int] = set()

    def watch(self) -> None:
        for connection in ice_connections(self.pc):
            for pair in list(getattr(connection, "_nominated", {}).values()):
                self._hook(pair.protocol)

    def _hook(self, protocol: Any) -> None:
        if id(protocol) in self._hooked:
            return
        sock = protocol.transport.get_extra_info("socket") if protocol.transport is not None else None
        if sock is None or not _receive_errors(sock):
            return
        self._hooked.add(id(protocol))
        received, refused = protocol.datagram_received, protocol.error_received

        def datagram_received(data: bytes, addr: tuple[Any, ...]) -> None:
            self.refusals, self.first_refusal_at = 0, None
            received(data, addr)

        def error_received(exc: Exception) -> None:
            refused(exc)
            if isinstance(exc, ConnectionRefusedError):
                self._refused()

        protocol.datagram_received = datagram_received
        protocol.error_received = error_received

    def _refused(self) -> None:
        now = asyncio.get_running_loop().time()
        if self.first_refusal_at is None:
            self.first_refusal_at = now
        self.refusals += 1
        if self.is_gone or self.refusals < GONE_REFUSALS or now - self.first_refusal_at < GONE_AFTER_S:
            return
        self.is_gone = True
        self.on_gone()


def _receive_errors(sock: socket.socket) -> bool:
    """Ask the kernel for ICMP errors on ``sock`` (False where it cannot: not Linux)."""
    try:
        if sock.family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVERR, 1)
        else:
            sock.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
    except OSError:
        return False
    return True
