"""The pion media plane (``serve --media-plane pion``): every call's ICE, DTLS, SRTP, RTP and SCTP in a Go
sidecar (``sidecar.go``, pion/webrtc v3), the session core in the engine as for aiortc's calls.

One sidecar per engine process, started with the application (:func:`pion_plane_context`), on one UDP
port for every call (ICE UDP mux; loopback candidates, so a client on the same machine connects).
The engine and the sidecar share a Unix socket pair; the frames on it are described at the top of
``sidecar.go``. The sidecar sends one batch of received Opus packets per 20 ms tick (``'R'``): that
batch is the engine's clock for the media. On each one :class:`PionPlane` hands every packet to its
call's microphone decoder (the same :class:`~mockengine.rtc.inbound.InlineDecoder` an aiortc call uses:
libopus at 24 kHz, RTP gaps, concealment, the quiet timer) and takes every connected call's due reply
frames from its :class:`~mockengine.rtc.media.ReplyTrack` (``pull``, as the aiortc path's shared pacer
does), which go back in one batch (``'F'``). The answer to an offer, data-channel messages and call
states travel as single messages.

Why packets and not PCM: decoding in the engine keeps the microphone path the aiortc calls use, byte for
byte, and costs ~25 µs a frame in C (docs/webrtc.md, "Ninth pass", measured both ways).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Protocol

from aiohttp import web

from mockengine.rtc.media import FRAME_S
from mockengine.rtc.stamp_clock import StampClock

log = logging.getLogger("mockengine.webrtc")

BINARY_NAME = "mockengine-pion"
BINARY_ENV = "MOCKENGINE_PION_BIN"  # where the built sidecar is, when not beside sidecar.go
HERE = Path(__file__).resolve().parent
READY_TIMEOUT_S = 10.0
EARLY_S = FRAME_S / 2  # a tick may come up to half a frame early: the frame is still due
STOP_WAIT_S = 3.0

STATE_CONNECTED = 1
STATE_CHANNEL_OPEN = 2
STATE_CHANNEL_CLOSED = 3
STATE_ENDED = 4
STATE_CONGESTED = 5  # the channel holds over 1 MiB the client has not taken
STATE_DRAINED = 6  # down to 256 KiB again

_LENGTH = struct.Struct("<I")
_CALL = struct.Struct("<I")
_STAMP = struct.Struct("<Q")  # CLOCK_MONOTONIC ns
_RECEIVED = struct.Struct("<IHIH")  # call, RTP sequence number, RTP timestamp, payload length
_FRAME = struct.Struct("<IIH")  # call, RTP timestamp (48 kHz, from 0), payload length


BUILD_NEEDS = "Debian's golang-go and golang-github-pion-webrtc.v3-dev"


class SidecarMissing(RuntimeError):
    """The sidecar is not built (``make pion``, or ``mockengine/rtc/pion/build.sh``)."""


class OfferRefused(Exception):
    """The sidecar could not answer the offer; the message says why (pion's words)."""


class Endpoint(Protocol):
    """A call as the plane sees it (:class:`~mockengine.server.webrtc.pion_call.PionCallRunner`)."""

    def on_state(self, state: int, reason: str) -> None: ...

    def on_message(self, data: bytes, is_text: bool) -> None: ...

    def on_packet(self, sequence_number: int, timestamp: int, payload: bytes) -> None: ...

    def due_frames(self, now_s: float) -> list[tuple[bytes, int]]:
        """The reply frames due by ``now_s`` (loop time): (Opus payload, RTP timestamp from 0)."""
        ...


def sidecar_binary() -> Path:
    """The built sidecar: ``$MOCKENGINE_PION_BIN``, or ``mockengine-pion`` beside ``sidecar.go``.
    Raises :class:`SidecarMissing` saying how to build it."""
    path = Path(os.environ.get(BINARY_ENV) or HERE / BINARY_NAME)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise SidecarMissing(
            f"the pion media plane needs its sidecar at {path}: build it with `make pion` ({BUILD_NEEDS})"
        )
    return path


SOURCES = ("sidecar.go", "build.sh")  # what `make pion` rebuilds the sidecar from


def stale_against_source(binary: Path) -> str | None:
    """The name of a source beside this module changed after ``binary`` was built (mtime), or None.
    Its frames across the socket may have changed with it: a sidecar from before a ``git pull`` talks an
    older protocol than the engine (as ``make`` judges, by the files' modification times)."""
    built_s = binary.stat().st_mtime
    for name in SOURCES:
        source = HERE / name
        if source.is_file() and source.stat().st_mtime > built_s:
            return name
    return None


def is_built() -> bool:
    try:
        sidecar_binary()
    except SidecarMissing:
        return False
    return True


class PionPlane(asyncio.Protocol):
    """The sidecar process and the engine's end of its socket (see the module docstring)."""

    def __init__(self) -> None:
        self.udp_port = 0
        self.process: asyncio.subprocess.Process | None = None
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._endpoints: dict[int, Endpoint] = {}
        self._connected: set[int] = set()  # calls whose reply frames are taken (ICE + DTLS done)
        self._answers: dict[int, asyncio.Future[str]] = {}
        self._next_call = 1
        self._ready: asyncio.Future[int] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.ticks = 0
        self.gone = asyncio.Event()
        self.clock = StampClock()

    # -- the process -------------------------------------------------------------------------------

    @classmethod
    async def start(cls, *, udp_port: int = 0, host: str = "") -> PionPlane:
        """Start the sidecar; returns once it listens on its UDP port (``udp_port``; 0: a free one).
        ``host``: gather candidates on that IP only ("" or a wildcard: every interface and loopback)."""
        binary = sidecar_binary()
        changed = stale_against_source(binary)
        if changed is not None:
            log.warning(
                "pion media plane: the sidecar %s is older than %s: rebuild it with `make pion`",
                binary,
                changed,
            )
        plane = cls()
        loop = plane._loop = asyncio.get_running_loop()
        plane._ready = loop.create_future()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        args = [str(binary), "-udp-port", str(udp_port), "-fd", str(theirs.fileno())]
        if host and host not in ("0.0.0.0", "::", "localhost"):
            args += ["-host", host]
        try:
            plane.process = await asyncio.create_subprocess_exec(*args, pass_fds=(theirs.fileno(),))
        finally:
            theirs.close()
        await loop.create_unix_connection(lambda: plane, sock=ours)
        try:
            plane.udp_port = await asyncio.wait_for(asyncio.shield(plane._ready), READY_TIMEOUT_S)
        except BaseException:
            await plane.stop()
            raise
        log.info("pion media plane: sidecar pid %d on UDP port %d", plane.process.pid, plane.udp_port)
        return plane

    async def stop(self) -> None:
        """End the sidecar (its calls end with it): closing its socket ends it; killed if it lingers."""
        if self._transport is not None:
            self._transport.close()
        process = self.process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), STOP_WAIT_S)
            except TimeoutError:
                process.kill()
                await process.wait()

    # -- calls -------------------------------------------------------------------------------------

    def new_call(self) -> int:
        """A number for a new call (the sidecar's name for it)."""
        number, self._next_call = self._next_call, self._next_call + 1
        return number

    async def answer(self, call: int, endpoint: Endpoint, offer_sdp: str) -> str:
        """The sidecar's answer to ``offer_sdp`` for ``call``, whose media and events then go to
        ``endpoint``. Raises :class:`OfferRefused` with pion's reason."""
        if self._transport is None or self.gone.is_set():
            raise OfferRefused("the media plane's sidecar is not running")
        assert self._loop is not None
        self._endpoints[call] = endpoint
        answer = self._answers[call] = self._loop.create_future()
        self._send(b"O", _CALL.pack(call), offer_sdp.encode())
        try:
            return await answer
        except OfferRefused:
            self._endpoints.pop(call, None)
            raise
        finally:
            self._answers.pop(call, None)

    def send_text(self, call: int, text: str) -> None:
        self._send(b"D", _CALL.pack(call), text.encode())

    def close_channel(self, call: int) -> None:
        self._send(b"X", _CALL.pack(call))

    def hang_up(self, call: int) -> None:
        """End ``call`` in the sidecar (its peer connection closes; its 'ended' state follows)."""
        self._connected.discard(call)
        self._send(b"H", _CALL.pack(call))

    def forget(self, call: int) -> None:
        """The engine is done with ``call``: nothing more is delivered to it."""
        self._endpoints.pop(call, None)
        self._connected.discard(call)

    @property
    def calls(self) -> int:
        return len(self._endpoints)

    # -- the socket --------------------------------------------------------------------------------

    def _send(self, kind: bytes, *parts: bytes) -> None:
        if self._transport is None or self._transport.is_closing():
            return
        size = 1 + sum(len(p) for p in parts)
        self._transport.write(b"".join((_LENGTH.pack(size), kind, *parts)))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self._transport = None
        self.gone.set()
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(RuntimeError("the pion sidecar ended before it was ready"))
        for future in self._answers.values():
            if not future.done():
                future.set_exception(OfferRefused("the media plane's sidecar ended"))
        for endpoint in list(self._endpoints.values()):
            endpoint.on_state(STATE_ENDED, "media plane gone")
        self._endpoints.clear()

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        offset = 0
        end = len(buffer)
        while end - offset >= 4:
            (size,) = _LENGTH.unpack_from(buffer, offset)
            if end - offset - 4 < size:
                break
            body = bytes(buffer[offset + 4 : offset + 4 + size])
            offset += 4 + size
            try:
                self._dispatch(body)
            except Exception:
                log.exception("pion media plane: message %r failed", body[:1])
        del buffer[:offset]

    def _dispatch(self, body: bytes) -> None:
        kind = body[0]
        if kind == 0x52:  # 'R': this tick's received packets, then the due reply frames
            self._tick(body)
            return
        if kind == 0x50:  # 'P': ready, on this UDP port
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(struct.unpack_from("<H", body, 1)[0])
            return
        (call,) = _CALL.unpack_from(body, 1)
        if kind == 0x41:  # 'A': the answer (or why not)
            future = self._answers.get(call)
            if future is not None and not future.done():
                text = body[6:].decode("utf-8", "replace")
                if body[5]:
                    future.set_result(text)
                else:
                    future.set_exception(OfferRefused(text))
            return
        endpoint = self._endpoints.get(call)
        if endpoint is None:
            return
        if kind == 0x4D:  # 'M': a data-channel message
            endpoint.on_message(body[6:], bool(body[5]))
        elif kind == 0x53:  # 'S': a state
            state = body[5]
            if state == STATE_CONNECTED:
                self._connected.add(call)
            elif state == STATE_ENDED:
                self._connected.discard(call)
            endpoint.on_state(state, body[6:].decode("utf-8", "replace"))

    def _tick(self, body: bytes) -> None:
        self.ticks += 1
        endpoints = self._endpoints
        (stamp_ns,) = _STAMP.unpack_from(body, 1)
        offset, end = 9, len(body)
        unpack = _RECEIVED.unpack_from
        packets: dict[int, list[tuple[int, int, bytes]]] = {}
        swapped: set[int] = set()  # calls whose packets in this batch are out of order
        while offset + 12 <= end:
            call, sequence_number, timestamp, size = unpack(body, offset)
            offset += 12
            held = packets.get(call)
            if held is None:
                held = packets[call] = []
            elif (sequence_number - held[-1][0]) & 0xFFFF >= 0x8000:
                swapped.add(call)
            held.append((sequence_number, timestamp, body[offset : offset + size]))
            offset += size
        for call in swapped:
            # Put back in order what the link swapped within the batch (a burst after a hiccup): the
            # decoder's timeline goes forward only, and a swapped pair was one frame owed as silence
            # and one appended late (the input ran ~60 ms ahead of the wall clock per hiccup). Packets
            # swapped across batches are not (no jitter buffer: docs/webrtc.md, "Ninth pass").
            first = packets[call][0][0]
            packets[call].sort(key=lambda packet: ((packet[0] - first + 0x8000) & 0xFFFF) - 0x8000)
        for call, held in packets.items():
            endpoint = endpoints.get(call)
            if endpoint is not None:
                for sequence_number, timestamp, payload in held:
                    endpoint.on_packet(sequence_number, timestamp, payload)
        # The packets came before the stamp: the quiet timers due by it run after them.
        self.clock.advance(stamp_ns / 1e9)
        if not self._connected:
            return
        assert self._loop is not None
        now_s = self._loop.time()
        out: list[bytes] = []
        pack = _FRAME.pack
        for call in list(self._connected):
            endpoint = endpoints.get(call)
            if endpoint is None:
                continue
            for payload, timestamp in endpoint.due_frames(now_s):
                out.append(pack(call, timestamp, len(payload)))
                out.append(payload)
        if out:
            self._send(b"F", *out)


PION_PLANE = web.AppKey("pion_plane", PionPlane)


def pion_plane_context(udp_port: int, host: str) -> Callable[[web.Application], AsyncIterator[None]]:
    """An aiohttp cleanup context that runs the sidecar while the application runs."""

    async def context(app: web.Application) -> AsyncIterator[None]:
        app[PION_PLANE] = await PionPlane.start(udp_port=udp_port, host=host)
        yield
        await app[PION_PLANE].stop()

    return context
