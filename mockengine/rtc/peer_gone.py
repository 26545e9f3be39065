"""Tell when a call's peer has gone without a word: its UDP port is closed (ICMP port unreachable).

A peer that closes its ``RTCPeerConnection`` says so (an SCTP ABORT and a DTLS ``close_notify``: the data
channel closes and the call ends at once). A browser tab that is closed, or a client process that is
killed, says nothing: Chromium shuts a closed tab's renderer down without closing its peer connections,
and nothing at all arrives from it afterwards. Left to ICE consent freshness (RFC 7675), the call
then lasted 30 s more, its seat (``sessions_active``) held, and a load test or a person reloading the
console piled up dead calls.

What the peer's host does send is ICMP port unreachable for every packet the engine sends to the closed
port (reply RTP every 20 ms, RTCP, consent checks). Linux reports that on an unconnected UDP socket only
with ``IP_RECVERR`` set: asyncio then calls the protocol's ``error_received``, and each error waits in
the socket's error queue with the address the refused packet went to. The queue must be read
(``MSG_ERRQUEUE``): while it holds anything the socket polls as ready (``EPOLLERR``) and asyncio's
reader spins (a whole core, measured), and what it holds is charged to the socket's receive buffer.

The call is taken as gone when the nominated pair's remote address (where the call's packets go) has
refused them with ``ECONNREFUSED`` for ``GONE_AFTER_S``, ``GONE_REFUSALS`` times at least, with nothing
received on the socket meanwhile: a live peer sends something every few seconds at most (RTP, RTCP,
consent checks), which resets the count. A host or network that is unreachable (``EHOSTUNREACH``,
``ENETUNREACH``: ICE ``disconnected``, which can recover) is not a refusal and ends nothing; consent
freshness still deals with a peer that went silent that way. Across NAT the ICMP may never come back:
then too consent freshness ends the call, as before.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import logging
import socket
import struct
from collections.abc import Callable
from typing import Any

from aiortc import RTCPeerConnection

from mockengine.rtc.ice import ice_connections

log = logging.getLogger("mockengine.webrtc")
GONE_AFTER_S = 2.0
GONE_REFUSALS = 3
# Linux's values (the socket module does not export them); elsewhere the watch is skipped.
IP_RECVERR = 11
IPV6_RECVERR = 25
MSG_ERRQUEUE = 0x2000
# struct sock_extended_err (linux/errqueue.h): ee_errno, ee_origin, ee_type, ee_code, ee_pad, ee_info,
# ee_data; the cmsg data of an IP_RECVERR / IPV6_RECVERR message begins with it.
EXTENDED_ERR = struct.Struct("=IBBBBII")
ERRORS_PER_DRAIN = 64  # at most read per error_received (the rest wait for the next)


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
        # Every socket of the ICE agent, and the nominated pair looked up when a refusal comes: the
        # controlling peer may nominate another pair after the connection is up (Chromium moves to a
        # better pair seconds into a call), and the call's packets then leave from another socket to
        # another address. Hooked on the pair of the moment only, a closed browser's call was left to
        # consent expiry (~30 s) whenever Chromium had moved.
        for connection in ice_connections(self.pc):
            protocols = [pair.protocol for pair in getattr(connection, "_nominated", {}).values()]
            protocols += [p for p in getattr(connection, "_protocols", []) if p not in protocols]
            for protocol in protocols:
                self._hook(protocol, functools.partial(_nominated_remotes, connection))

    def _hook(self, protocol: Any, remotes: Callable[[], set[tuple[str, int]]]) -> None:
        """Watch ``protocol``'s socket: a refusal counts when it comes from one of ``remotes()`` (the
        addresses the call's packets go to now)."""
        if id(protocol) in self._hooked or getattr(protocol, "transport", None) is None:
            return
        sock = protocol.transport.get_extra_info("socket")
        if sock is None or not _receive_errors(sock):
            return
        self._hooked.add(id(protocol))
        received, reported = protocol.datagram_received, protocol.error_received

        def datagram_received(data: bytes, addr: tuple[Any, ...]) -> None:
            self.refusals, self.first_refusal_at = 0, None
            received(data, addr)

        def error_received(exc: Exception) -> None:
            reported(exc)
            refused = [addr for code, addr in _drain_errors(sock) if code == errno.ECONNREFUSED]
            if refused and {(addr[0], addr[1]) for addr in refused} & remotes():
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


def _nominated_remotes(connection: Any) -> set[tuple[str, int]]:
    """Where an aioice connection's packets go now: its nominated pairs' remote addresses."""
    return {pair.remote_addr for pair in getattr(connection, "_nominated", {}).values()}


def _receive_errors(sock: Any) -> bool:
    """Ask the kernel for ICMP errors on ``sock`` (False where it cannot: not Linux)."""
    try:
        if sock.family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVERR, 1)
        else:
            sock.setsockopt(socket.IPPROTO_IP, IP_RECVERR, 1)
    except OSError:
        return False
    return True


def _drain_errors(sock: Any) -> list[tuple[int, tuple[Any, ...]]]:
    """Read ``sock``'s error queue: (errno, the address the refused packet went to) for each error.

    ``sock`` is asyncio's ``TransportSocket``, which has no ``recvmsg``: a socket object over the same
    file descriptor reads it, detached after so that the descriptor stays the transport's."""
    found: list[tuple[int, tuple[Any, ...]]] = []
    reader = socket.socket(sock.family, sock.type, fileno=sock.fileno())
    try:
        for _ in range(ERRORS_PER_DRAIN):
            try:
                _, ancillary, _, address = reader.recvmsg(1, 512, MSG_ERRQUEUE | socket.MSG_DONTWAIT)
            except OSError:  # BlockingIOError: the queue is empty
                break
            for _level, _type, data in ancillary:
                if len(data) >= EXTENDED_ERR.size:
                    found.append((EXTENDED_ERR.unpack_from(data)[0], address))
    finally:
        reader.detach()
    return found
