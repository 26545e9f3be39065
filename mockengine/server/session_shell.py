"""The server side every Realtime session has, whatever its core and its transport.

Two kinds of session are served: voice-agent sessions (:class:`~mockengine.server.session_loop.SessionLoop`
around a :class:`RealtimeSession`) and translation sessions
(:class:`~mockengine.server.translation_ws.TranslationSession`), each over a WebSocket or a WebRTC call.
Their cores differ; what they do at the connection is written here, once:

* **sending** (:meth:`SessionShell.send_filtered`): every server event goes through the session's faults
  (``faults/ws.py``: delayed, held, dropped, rewritten, or acted on once out), then is traced, counted
  for ``/metrics``, journaled and handed to the transport (:meth:`SessionShell._send`);
* **closing** (:meth:`SessionShell.close_or_abort`): a WebSocket close code and reason, or, when the
  peer does not take the close within a second, the connection dropped;
* **expiry** (``--session-max-s``, reference §0): :meth:`SessionShell.arm_expiry` calls the session's
  ``expire`` then, which sends :meth:`SessionShell.expiry_error` and closes with
  :data:`EXPIRED_CLOSE_CODE`;
* **the journal and trace** of the session (:meth:`SessionShell.close_records` at its end);
* over a WebSocket (:class:`WebSocketTransport`): the text frames out, the close frame, the dropped
  connection, and the reader loop (:meth:`WebSocketTransport.read_frames`): a dead peer's fault holds it,
  a socket error ends it, every other message goes to the session's ``on_frame``.

A subclass supplies the transport (:meth:`deliver`, :attr:`is_transport_closed`, :meth:`close_transport`,
:meth:`abort_transport`), the formats its journal records audio in (:meth:`formats`) and ``expire``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from collections.abc import Awaitable
from typing import Any

from aiohttp import WSMessage, WSMsgType, web

from mockengine.faults.ws import NoActions, SessionFaults
from mockengine.protocol import codec, errors
from mockengine.protocol.errors import ProtocolError
from mockengine.server import metrics
from mockengine.server.journal import SessionJournal
from mockengine.server.trace import Tracer
from mockengine.server.ws_dispatch import DispatchingResponse
from mockengine.settings import Settings

log = logging.getLogger("mockengine.session")

EXPIRED_CLOSE_CODE = 1001  # "going away", after the session_expired error (reference §0)
CLOSE_WAIT_S = 1.0  # how long a close may take before the connection is dropped (a peer that does not read)
CLOSE_REASON_BYTES = 120  # a close frame's reason fits in 123 bytes
# Frames up to this size are held and joined (aiohttp writes a larger frame's header and payload apart,
# not to copy it: aiohttp's MSG_SIZE).
HELD_FRAME_MAX_BYTES = 2**14
# What release_frames uses of aiohttp's WebSocketWriter (3.10+); without any of them nothing is held.
_WRITER_FIELDS = ("transport", "protocol", "_closing", "_output_size", "_limit", "compress", "use_mask")
_PACK_LEN1 = struct.Struct("!BB").pack
_PACK_LEN2 = struct.Struct("!BBH").pack
_PACK_LEN3 = struct.Struct("!BBQ").pack
_FIN_TEXT = 0x80 | WSMsgType.TEXT


def text_frame_header(length: int) -> bytes:
    """The header of a final, unmasked, uncompressed text frame of ``length`` payload bytes (RFC 6455
    §5.2), as aiohttp's writer builds it."""
    if length < 126:
        return _PACK_LEN1(_FIN_TEXT, length)
    if length < 65536:
        return _PACK_LEN2(_FIN_TEXT, 126, length)
    return _PACK_LEN3(_FIN_TEXT, 127, length)


class SessionShell:
    """What a session does at its connection (see the module docstring); the core is the subclass's."""

    settings: Settings
    session_id: str
    tracer: Tracer
    trace_name: str
    journal: SessionJournal | None
    faults: SessionFaults

    def init_shell(
        self, settings: Settings, tracer: Tracer, journal: SessionJournal | None, name: str
    ) -> None:
        """Set the shell's state: ``name`` is the session's id (its trace takes a name of its own, as
        seeded ids repeat); the faults are none until the session's are armed."""
        self.settings = settings
        self.session_id = name
        self.tracer = tracer
        self.journal = journal
        self.trace_name = tracer.take_name(name)
        self.faults = SessionFaults([], NoActions())

    # -- what a transport supplies -----------------------------------------------------------------

    async def deliver(self, event: dict[str, Any], data: bytes) -> bool:
        """Send one server event (``data``: its JSON, UTF-8). False when it cannot go out."""
        raise NotImplementedError

    def hold_sends(self) -> bool:
        """From now until :meth:`release_sends`, :meth:`deliver` may keep what it sends and write it all
        at once then (several events in one socket write). True when it does; the default transport
        does not. The caller must not wait on anything in between (the held bytes would wait too)."""
        return False

    async def release_sends(self) -> None:
        """Write what :meth:`deliver` kept since :meth:`hold_sends`, in the order it was sent."""

    @property
    def is_transport_closed(self) -> bool:
        """Nothing more can be sent (events are then neither journaled nor counted)."""
        raise NotImplementedError

    async def close_transport(self, code: int, reason: str) -> None:
        """Close the connection from the server side (a WebSocket close code and reason)."""
        raise NotImplementedError

    def abort_transport(self) -> None:
        """Drop the connection without a goodbye."""
        raise NotImplementedError

    def formats(self) -> tuple[str, str]:
        """The session's input and output audio formats (the journal decodes audio with them)."""
        raise NotImplementedError

    def expire(self) -> None:
        """The maximum duration is reached: ``expiry_error``, then a close with ``EXPIRED_CLOSE_CODE``."""
        raise NotImplementedError

    # -- server events out -------------------------------------------------------------------------

    async def send_filtered(self, event: dict[str, Any], data: bytes | None) -> None:
        """One server event through the session's faults, which may delay, hold, drop or rewrite it, or
        act once it is out (``SessionFaults``). ``data``: its JSON when already made."""
        faults = self.faults
        if not faults.specs and not faults.is_dead:
            # Nothing armed (every event passes here, audio deltas too): before_send would hand the event
            # back as it is; no coroutine and no list per event. A fault armed while the event went out
            # (a scenario rule, the control endpoint) still acts on it once it is out, as after_send would.
            await self._send(event, data)
            faults = self.faults
            if faults.specs:
                for extra in await faults.after_send(event):
                    await self._send(extra, None)
            else:
                faults.count_sent(event)
            return
        for out in await faults.before_send(event):
            await self._send(out, data if out is event else None)
            for extra in await self.faults.after_send(out):
                await self._send(extra, None)

    async def _send(self, event: dict[str, Any], data: bytes | None) -> bool:
        """Send one event (``data``: its JSON when already made): traced, counted, journaled, delivered.
        False when it cannot go out."""
        if self.is_transport_closed:
            return False
        data = data if data is not None else codec.dumps_utf8(event)
        if self.tracer.is_enabled:
            self.tracer.write(self.trace_name, "server_event", event)
        self._observe(event.get("type", ""))
        if self.journal is not None:
            input_format, output_format = self.formats()
            self.journal.server(data, output_format, input_format)
        return await self.deliver(event, data)

    def _observe(self, kind: str) -> None:
        """Count one server event for ``/metrics`` (a core may time its turns here too)."""
        metrics.SERVER_EVENT_COUNTER.count(kind)

    # -- the end -----------------------------------------------------------------------------------

    async def close_or_abort(self, code: int, reason: str) -> None:
        """Close the transport with ``code`` and ``reason``; a peer that does not take the close within
        ``CLOSE_WAIT_S`` (it does not read) has its connection dropped instead."""
        try:
            await asyncio.wait_for(self.close_transport(code, reason), timeout=CLOSE_WAIT_S)
        except (TimeoutError, ConnectionError):
            self.abort_transport()

    def arm_expiry(self) -> asyncio.TimerHandle:
        """Call :meth:`expire` once the session has lasted ``--session-max-s``."""
        return asyncio.get_running_loop().call_later(self.settings.session_max_s, self.expire)

    def expiry_error(self) -> ProtocolError:
        """The ``session_expired`` error the service sends at the maximum duration (reference §0)."""
        return errors.session_expired_after(self.settings.session_max_s)

    def close_records(self) -> None:
        """The session ended: its trace file and journal are closed."""
        self.tracer.end_session(self.trace_name)
        if self.journal is not None:
            self.journal.close()


def session_websocket(
    settings: Settings, response_class: type[web.WebSocketResponse] = DispatchingResponse
) -> web.WebSocketResponse:
    """The response a session's WebSocket upgrade is served with: the ``realtime`` subprotocol, frames
    up to ``--max-frame-bytes``, no compression, keep-alive pings every ``--heartbeat-s`` (0: none)."""
    return response_class(
        protocols=("realtime",),
        max_msg_size=settings.max_frame_bytes,
        heartbeat=settings.heartbeat_s if settings.heartbeat_s > 0 else None,
        compress=False,
    )


class WebSocketTransport(SessionShell):
    """A session served over a WebSocket: server events leave as text frames, the end is a close frame
    (or the TCP connection dropped). Client messages are read by :meth:`read_frames` and handed to
    :meth:`on_frame`."""

    ws: web.WebSocketResponse
    transport: asyncio.Transport | None  # the TCP connection, to drop it (None: it cannot be)

    # The text frames held between hold_sends and release_sends (None: each frame is written as sent).
    _held_frames: list[bytes] | None = None
    _held_bytes = 0
    _can_hold: bool | None = None

    async def deliver(self, event: dict[str, Any], data: bytes) -> bool:
        frames = self._held_frames
        if frames is not None:
            writer = self.ws._writer
            assert writer is not None  # (hold_sends checked it)
            if writer._closing or writer.transport.is_closing():
                return False  # what send_frame would refuse (ClientConnectionResetError)
            if len(data) <= HELD_FRAME_MAX_BYTES:
                header = text_frame_header(len(data))
                frames.append(header)
                frames.append(data)
                self._held_bytes += len(header) + len(data)
                if writer._output_size + self._held_bytes > writer._limit:
                    # aiohttp would look at the peer's reading here (a paused transport is waited
                    # for): so here too, with what is held written first.
                    self._held_frames = None
                    await self.release_frames(frames)
                    self._held_frames = []
                return True
            # A large event (an item retrieved, a long text echoed) goes as aiohttp sends it, after what
            # is held: no copy of it into a joined write.
            self._held_frames = None
            if frames:
                await self.release_frames(frames)
            try:
                await self.ws.send_frame(data, WSMsgType.TEXT)
            except ConnectionError:
                return False
            finally:
                self._held_frames = []
            return True
        try:
            await self.ws.send_frame(data, WSMsgType.TEXT)  # the JSON's UTF-8 as made: no str round trip
        except ConnectionError:
            return False
        return True

    def hold_sends(self) -> bool:
        """Hold the text frames sent until :meth:`release_sends` and write them in one socket write: the
        bytes and their order on the wire are what aiohttp's ``send_frame`` writes one frame at a time (an
        uncompressed, unmasked server frame), with one system call instead of one per event (issue 15,
        seventeenth pass). Declined (False) where aiohttp's writer is not the one this was written for
        or compresses."""
        if self._held_frames is not None:
            return False
        if self._can_hold is None:  # looked at once a connection (its writer is made at the upgrade)
            writer = getattr(self.ws, "_writer", None)
            self._can_hold = (
                writer is not None
                and all(hasattr(writer, name) for name in _WRITER_FIELDS)
                and not writer.compress
                and not writer.use_mask
            )
        if not self._can_hold:
            return False
        self._held_frames = []
        return True

    async def release_sends(self) -> None:
        frames, self._held_frames = self._held_frames, None
        if frames:
            await self.release_frames(frames)

    async def release_frames(self, frames: list[bytes]) -> None:
        """Write the held frames as one, then wait as ``send_frame`` would (aiohttp's flow control: past
        its write limit, until a paused transport drains)."""
        size, self._held_bytes = self._held_bytes, 0
        writer = self.ws._writer
        assert writer is not None
        if writer.transport.is_closing():
            return  # (nothing can be written now; send_frame would have raised, deliver returned False)
        writer.transport.write(b"".join(frames) if len(frames) > 2 else frames[0] + frames[1])
        writer._output_size += size
        if writer._output_size > writer._limit:
            writer._output_size = 0
            if writer.protocol._paused:
                # (a lost connection: what is left is not sent, as deliver's False said before)
                with contextlib.suppress(ConnectionError):
                    await writer.protocol._drain_helper()

    @property
    def is_transport_closed(self) -> bool:
        return self.ws.closed

    @property
    def is_gone(self) -> bool:
        """The connection is closed or lost (by the client, or by unanswered pings)."""
        return self.ws.closed or (self.transport is not None and self.transport.is_closing())

    async def close_transport(self, code: int, reason: str) -> None:
        await self.ws.close(code=code, message=reason.encode()[:CLOSE_REASON_BYTES])

    def abort_transport(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def on_frame(self, msg: WSMessage) -> Awaitable[None] | None:
        """One client message (text or binary) that the reader took; what it returns is awaited before
        the next is read (the session cannot take it yet: TCP then holds the client)."""
        raise NotImplementedError

    async def read_frames(self, dispatcher: DispatchingResponse | None = None) -> None:
        """Read the client's messages until it leaves or the socket fails. A dead peer (fault) reads
        nothing more, until it is gone. ``dispatcher``: told of every message taken (``ws_dispatch``)."""
        async for msg in self.ws:
            if self.faults.is_dead:  # checked here: no coroutine per frame on the audio path
                await self.faults.reader_gate()
                return
            if msg.type is WSMsgType.ERROR:
                log.warning("session %s: websocket error: %s", self.session_id, self.ws.exception())
                return
            pending = self.on_frame(msg)
            if pending is not None:
                await pending
            if dispatcher is not None:
                dispatcher.taken(msg)  # handled: text may skip the queue again once nothing else waits
