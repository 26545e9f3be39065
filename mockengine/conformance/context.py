"""What a check works with: its own session (after the HRP handshake), expectations, and its findings.

A check records soft findings with ``ctx.fail`` and carries on; ``ctx.expect`` (and ``ctx.abort``) end the
check at the first expectation that cannot be met, because every later step depends on it.

Time scaling (``realtime_factor``, tests against a fake engine only): the microphone pace and the windows
in which the runner merely *watches* (``sleep_ms``, the no-reply window) shrink by the factor. Thresholds
that bound the engine's own reaction time (onset delay, response start, cancel-to-done, ack timeouts) stay
as the spec gives them: at a factor above 1 they are only more lenient in audio terms.
"""

from __future__ import annotations

import asyncio
import base64
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from .audio import Clip, Microphone, pcm_duration_ms
from .connection import Connection, JsonObject, ReceivedEvent, now_ms
from .report import Figure
from .spec import Suite, Thresholds, session_update
from .webrtc import WebRtcConnection

INSTRUCTIONS = (
    "You are a participant in a HyperStudy study, being tested for conformance. Messages that start with "
    "[context] describe what happens in the study. When the user asks you to send a chat message, you must "
    "call the send_chat tool. When a question is shown, answer it by calling the answer tool it names. "
    "Keep spoken answers to one or two sentences unless you are asked for a story."
)


class CheckAborted(Exception):
    """An expectation failed and the rest of the check depends on it; the message is the failure."""


@dataclass
class CheckContext:
    """One check's session and findings. ``turn_detection`` is the HRP object under test (or the default)."""

    conn: Connection
    suite: Suite
    clips: dict[str, Clip]
    turn_detection: JsonObject
    realtime_factor: float = 1.0
    figures: dict[str, Figure] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _microphones: list[Microphone] = field(default_factory=list)

    @property
    def thresholds(self) -> Thresholds:
        return self.suite.thresholds

    def fail(self, message: str) -> None:
        self.failures.append(message)

    def abort(self, message: str) -> NoReturn:
        raise CheckAborted(message)

    def clip(self, name: str) -> Clip:
        """The named speech clip. Aborts the check if the clips directory lacks it."""
        if name not in self.clips:
            self.abort(f"speech clip {name!r} is missing (have: {', '.join(sorted(self.clips)) or 'none'})")
        return self.clips[name]

    def microphone(self) -> Microphone:
        """A started microphone on this session (stopped by the runner when the check ends)."""
        mic = Microphone(self.conn, self.realtime_factor)
        mic.start()
        self._microphones.append(mic)
        return mic

    async def stop_microphones(self) -> None:
        for mic in self._microphones:
            await mic.stop()

    async def sleep_ms(self, ms: float) -> None:
        """Watch the session for ``ms`` of (scaled) wall time."""
        await asyncio.sleep(ms / 1000.0 / self.realtime_factor)

    def scaled_ms(self, ms: float) -> float:
        return ms / self.realtime_factor

    async def expect(
        self,
        event_type: str,
        predicate: Callable[[ReceivedEvent], bool] | None = None,
        *,
        since_ms: float,
        timeout_ms: float,
        what: str = "",
        stop_on_error: bool = True,
    ) -> ReceivedEvent:
        """The first ``event_type`` event (matching ``predicate``) at or after ``since_ms``.

        Aborts with "expected <what> within <timeout> ms; got <what arrived>" on timeout, on close, or when an
        ``error`` event arrives first (if ``stop_on_error``).
        """
        event = await self.conn.wait_match(
            lambda e: (
                (e.type == event_type and (predicate is None or predicate(e)))
                or (stop_on_error and e.type == "error")
            ),
            since_ms=since_ms,
            timeout_ms=timeout_ms,
        )
        if event is not None and event.type == event_type:
            return event
        expected = what or event_type
        self.abort(f"expected {expected} within {timeout_ms:.0f} ms; got {self.describe(since_ms, event)}")

    async def expect_for_response(
        self, event_type: str, created: ReceivedEvent, timeout_ms: float
    ) -> ReceivedEvent:
        """The first ``event_type`` of the response that ``created`` (its ``response.created``) opened."""
        rid = response_id_of(created) or ""
        return await self.expect(
            event_type,
            lambda e: response_id_of(e) == rid,
            since_ms=created.received_ms,
            timeout_ms=timeout_ms,
            what=f"{event_type} for {rid}",
        )

    async def expect_response_done(self, created: ReceivedEvent, timeout_ms: float) -> ReceivedEvent:
        """``response.done`` of the response ``created`` (its ``response.created``) opened, waiting up to
        ``timeout_ms`` for each next event of that response rather than for the whole of it.

        A spoken answer streams for as long as it speaks: the engine_turn question draws ~17 s of audio
        from mockengine, which a machine starved of CPU synthesizes at about real time, so a bound on the
        whole response failed an engine that was answering steadily (CI: 76 deltas in 15 s). The HRP
        spec gives eventTimeoutMs without saying what it bounds; read as the wait for the next event, it
        still fails an engine whose response stalls or never ends with ``response.done``; the runner's
        per-check limit (CHECK_TIMEOUT_S) bounds an answer that streams forever. Aborts like ``expect``
        (an ``error`` event, a close, or no event of the response within ``timeout_ms``).
        """
        rid = response_id_of(created) or ""
        progress_ms = created.received_ms
        while True:
            event = await self.conn.wait_match(
                lambda e: (e.type == "response.done" and response_id_of(e) == rid) or e.type == "error",
                since_ms=created.received_ms,
                timeout_ms=max(0.0, progress_ms + timeout_ms - now_ms()),
            )
            if event is not None and event.type == "response.done":
                return event
            latest = [e.received_ms for e in self.conn.events_after(progress_ms) if response_id_of(e) == rid]
            if event is not None or self.conn.is_closed or not latest or max(latest) <= progress_ms:
                self.abort(
                    f"expected response.done for {rid}, each of its events within {timeout_ms:.0f} ms of "
                    f"the last; got {self.describe(created.received_ms, event)}"
                )
            progress_ms = max(latest)

    def describe(self, since_ms: float, error: ReceivedEvent | None = None) -> str:
        """What arrived since ``since_ms``: an error, a close, or a compact count of event types."""
        if error is not None:
            return describe_error(error)
        arrived = summarize(self.conn.events_after(since_ms))
        if self.conn.is_closed:
            closed = f"connection closed (code {self.conn.close_code} {self.conn.close_reason!r})"
            return f"{closed} after {arrived}" if arrived != "nothing" else closed
        return arrived


def describe_error(event: ReceivedEvent) -> str:
    error = event.get("error") or {}
    return f"error code={error.get('code')!r} message={error.get('message')!r}"


def summarize(events: list[ReceivedEvent], limit: int = 10) -> str:
    """``type×count`` in first-arrival order, with a response's status: ``response.done(cancelled)``."""
    counts: Counter[str] = Counter()
    for event in events:
        name = event.type
        if name == "response.done":
            name = f"response.done({(event.get('response') or {}).get('status')})"
        elif name == "error":
            name = f"error({(event.get('error') or {}).get('code')})"
        counts[name] += 1
    if not counts:
        return "nothing"
    parts = [name if n == 1 else f"{name}×{n}" for name, n in list(counts.items())[:limit]]
    more = len(counts) - limit
    return ", ".join(parts) + (f", … {more} more types" if more > 0 else "")


def response_id_of(event: ReceivedEvent) -> str | None:
    """The response an event belongs to (``response_id`` or ``response.id``)."""
    if "response_id" in event.data:
        return str(event.data["response_id"])
    response = event.get("response")
    return str(response.get("id")) if isinstance(response, dict) else None


def audio_delta_ms(event: ReceivedEvent) -> float:
    """Audio duration (ms, 24 kHz PCM16) carried by one ``response.output_audio.delta``."""
    return pcm_duration_ms(len(base64.b64decode(event.get("delta") or "")))


def response_events(conn: Connection, response_id: str, event_type: str) -> list[ReceivedEvent]:
    return [e for e in conn.events if e.type == event_type and response_id_of(e) == response_id]


async def open_session(
    url: str,
    api_key: str | None,
    suite: Suite,
    turn_detection: JsonObject | None,
    transport: str = "websocket",
) -> tuple[Connection, dict[str, Figure], list[str]]:
    """Connect and do the HRP handshake; returns (connection, figures, failures). ``transport``
    ``"webrtc"`` opens a call instead (``conformance/webrtc.py``).

    Figures: ``created_ms`` (connect → session.created), ``update_to_updated_ms``. Raises CheckAborted when
    there is no usable session (the connection is closed first).
    """
    timeout_ms = suite.thresholds.event_timeout_ms
    started_ms = now_ms()
    opener = WebRtcConnection.open if transport == "webrtc" else Connection.open
    conn = await opener(url, api_key, timeout_ms=timeout_ms)
    try:
        return conn, *await _handshake(conn, suite, turn_detection, started_ms)
    except BaseException:
        await conn.close()
        raise


async def _handshake(
    conn: Connection, suite: Suite, turn_detection: JsonObject | None, started_ms: float
) -> tuple[dict[str, Figure], list[str]]:
    timeout_ms = suite.thresholds.event_timeout_ms
    failures: list[str] = []
    first = await conn.wait_match(lambda e: True, since_ms=0, timeout_ms=timeout_ms)
    if first is None:
        raise CheckAborted(f"expected session.created first; got {_closed_or_nothing(conn)}")
    if first.type != "session.created":
        detail = describe_error(first) if first.type == "error" else first.type
        raise CheckAborted(f"expected session.created as the first event; got {detail}")
    figures: dict[str, Figure] = {"created_ms": round(first.received_ms - started_ms)}
    sent_ms = await conn.send(session_update(suite, turn_detection, INSTRUCTIONS))
    reply = await conn.wait_match(
        lambda e: e.type in ("session.updated", "error"), since_ms=sent_ms, timeout_ms=timeout_ms
    )
    if reply is None or reply.type == "error":
        got = describe_error(reply) if reply else _closed_or_nothing(conn)
        raise CheckAborted(
            f"expected session.updated within {timeout_ms} ms of the HRP session.update; got {got}"
        )
    figures["update_to_updated_ms"] = round(reply.received_ms - sent_ms)
    session = reply.get("session") or {}
    for direction in ("input", "output"):
        fmt = ((session.get("audio") or {}).get(direction) or {}).get("format")
        if fmt != suite.session_update_example["session"]["audio"][direction]["format"]:
            failures.append(
                f"session.updated audio.{direction}.format: expected audio/pcm rate 24000; got {fmt}"
            )
    return figures, failures


def _closed_or_nothing(conn: Connection) -> str:
    if conn.is_closed:
        return f"connection closed (code {conn.close_code} {conn.close_reason!r})"
    return "nothing"
