"""A peer connection's close, bounded: every ``RTCPeerConnection.close()`` in mockengine and its tests
goes through :func:`close_peer` (or :func:`start_close` where nothing may wait).

aiortc's ``close()`` stops each transceiver, the SCTP association and the DTLS and ICE transports one
after the other, and nothing in it is bounded: a transport that never stops keeps it waiting for good
(seen once in a clean-clone CI run, a test client's close hung for minutes after the engine had ended
the call). It also marks the connection closed at its start and resolves only at its end, and a later
``close()`` waits for that end: a close cancelled half-way (``asyncio.wait_for`` on a loaded loop) makes
every later one wait forever. So the close runs in a task of its own that is never cancelled, and the
caller waits for it at most ``timeout_s``; the close goes on by itself after that.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from aiortc import RTCPeerConnection

log = logging.getLogger("mockengine.webrtc")
# How long the engine waits for a call's peer connection to close (~10 ms idle; seconds on a loaded
# loop) before the call is freed anyway (the close goes on by itself).
PC_CLOSE_WAIT_S = 10.0

# Closes still running, held here so that a close no caller waits for any more is not collected
# mid-way (the event loop keeps only a weak reference to its tasks).
_CLOSING: set[asyncio.Future[None]] = set()


def start_close(pc: RTCPeerConnection) -> asyncio.Future[None]:
    """Start ``pc``'s close in a task of its own (never cancelled by a caller that stops waiting) and
    return it. A second start on the same connection is a task waiting for the first's end (aiortc's
    own rule), as cheap as that."""
    closing = asyncio.ensure_future(pc.close())
    _CLOSING.add(closing)
    closing.add_done_callback(_closed)
    return closing


async def close_peer(pc: RTCPeerConnection, timeout_s: float) -> bool:
    """Close ``pc``, waiting at most ``timeout_s`` seconds → whether it closed in that time. Never raises
    for the close itself (a failure is logged); cancelling the caller leaves the close running."""
    closing = start_close(pc)
    done, _ = await asyncio.wait([closing], timeout=timeout_s)
    if not done:
        log.warning(
            "a peer connection took over %.0f s to close; its close goes on by itself (%s)",
            timeout_s,
            where_closing_waits(pc, closing),
        )
    return bool(done)


def where_closing_waits(pc: RTCPeerConnection, closing: asyncio.Future[Any]) -> str:
    """``"waiting in …"`` (:func:`waiting_in` of the close ``closing``), then what else it may be waiting
    for: aiortc's own close (started when every DTLS transport
    has closed, ``__closeTask``; a later ``close()`` waits for its end), and a media task that ended
    with an exception (a sender's or receiver's ``stop()`` waits for an event only the task's normal end
    sets: seen with ``AttributeError`` from a UDP socket closed under aiortc, whose sends then hit
    Python 3.11's ``sendto`` on a closed unconnected transport)."""
    notes = [f"waiting in {waiting_in(closing)}"]
    own = getattr(pc, "_RTCPeerConnection__closeTask", None)
    if isinstance(own, asyncio.Task) and not own.done():
        notes.append(f"aiortc's own close waits in {waiting_in(own)}")
    for transceiver in pc.getTransceivers():
        for side, part, name in (
            ("sender", transceiver.sender, "_RTCRtpSender__rtp_task"),
            ("sender", transceiver.sender, "_RTCRtpSender__rtcp_task"),
            ("receiver", transceiver.receiver, "_RTCRtpReceiver__rtcp_task"),
        ):
            task = getattr(part, name, None)
            if not isinstance(task, asyncio.Task) or not task.done() or task.cancelled():
                continue
            if (error := task.exception()) is not None:
                kind = f"{transceiver.kind} {side}"
                notes.append(f"the {kind}'s {name.rsplit('__', 1)[1]} ended with {error!r}")
    return "; ".join(notes)


def waiting_in(task: asyncio.Future[Any]) -> str:
    """Where a pending task is suspended, outermost first: ``"RTCPeerConnection.close
    (rtcpeerconnection.py:390) → RTCRtpSender.stop (rtcrtpsender.py:239) → Event.wait (locks.py:213)"``
    (each coroutine's frame, down the chain of awaits; the future at its end is not named).

    A close that hangs happens about once in a CI run of thousands of calls and not on demand: the
    warning says which of aiortc's steps it hangs in, so the next one names its cause. ``"?"`` for a
    future that is not a task."""
    coro = task.get_coro() if isinstance(task, asyncio.Task) else None
    if coro is None:
        return "?"
    steps: list[str] = []
    awaited: object = coro
    for _ in range(64):  # an await chain is a few frames deep; the bound guards a cycle
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is None:
            break
        code = frame.f_code
        steps.append(f"{code.co_qualname} ({os.path.basename(code.co_filename)}:{frame.f_lineno})")
        inner = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
        if inner is None:
            break
        awaited = inner
    return " → ".join(steps) or "?"


def _closed(closing: asyncio.Future[None]) -> None:
    _CLOSING.discard(closing)
    if not closing.cancelled() and closing.exception() is not None:
        log.warning("a peer connection failed to close", exc_info=closing.exception())
