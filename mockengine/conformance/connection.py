"""A recording Realtime WebSocket client: every server event is kept with its arrival time.

All times are monotonic milliseconds from the running loop's clock (``loop.time() * 1000``), so the
arrival time of an event and the send time of a client event can be subtracted directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

JsonObject = dict[str, Any]


def now_ms() -> float:
    """Monotonic wall time in ms, the clock every recorded timestamp uses."""
    return asyncio.get_running_loop().time() * 1000.0


@dataclass(frozen=True)
class ReceivedEvent:
    """One server frame as it arrived: ``index`` in arrival order, ``received_ms`` on the ``now_ms`` clock."""

    index: int
    received_ms: float
    data: JsonObject

    @property
    def type(self) -> str:
        return str(self.data.get("type", ""))

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


class ConnectionFailed(Exception):
    """The WebSocket could not be opened (network error or HTTP refusal of the upgrade)."""


class EngineUnreachable(ConnectionFailed):
    """Nothing answered at the URL's host and port (connection refused, host not resolved): no check can
    run, so the runner says so once instead of failing every check alike. ``url``: what was dialled;
    ``reason``: one readable line (``unreachable_reason``)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"cannot reach the engine at {url}: {reason}")
        self.url = url
        self.reason = reason


def unreachable_reason(exc: BaseException) -> str | None:
    """Why nothing answered, when ``exc`` says no connection was made at all (refused, unresolvable,
    unroutable); None for anything else (an HTTP refusal, a timeout: an engine that is there, misbehaving)."""
    if not isinstance(exc, aiohttp.ClientConnectorError):
        return None
    where = f"{exc.host}:{exc.port}"
    if isinstance(exc.os_error, ConnectionRefusedError):
        return f"connection refused (nothing listens on {where})"
    return f"{where}: {exc.os_error.strerror or exc.os_error}"


def describe_failure(exc: BaseException, timeout_ms: float) -> str:
    """One readable line for why a connection could not be made, for the report (not a repr: aiohttp's
    reprs spell out the whole connection key).

    ``exc``: what the attempt raised (aiohttp's ``ClientError`` family, ``OSError`` or ``TimeoutError``);
    ``timeout_ms``: the connect timeout the attempt had, named when it ran out.
    """
    if isinstance(exc, aiohttp.WSServerHandshakeError):
        return f"the upgrade was answered HTTP {exc.status} instead of 101 ({exc.message})"
    if isinstance(exc, aiohttp.ClientResponseError):
        return f"HTTP {exc.status} ({exc.message})"
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout_ms / 1000.0:g} s"
    return str(exc) or type(exc).__name__


def trim_front(record: list[Any], keep: int | None) -> int:
    """Drop the oldest entries of ``record`` once it holds twice ``keep`` (None: keep all), leaving the
    newest ``keep``; how many were dropped. Trimming at twice the bound makes a long run's cost per entry
    constant (one ``del`` of ``keep`` entries every ``keep`` appends) and its memory at most 2 × ``keep``."""
    if keep is None or len(record) < 2 * keep:
        return 0
    dropped = len(record) - keep
    del record[:dropped]
    return dropped


class Connection:
    """One Realtime session: a background reader records events; ``wait_for`` waits on that record.

    Sends are serialised by ``send_lock`` so that a caller holding the lock can read state that must be
    exact at the moment of a send (the audio position, for ``Microphone.send_marked``).

    ``keep_events``: None (the checks) keeps every event for the session; a number keeps about the
    newest that many (between ``keep_events`` and twice that), for a load driver holding calls for an
    hour, whose waits only look at the last turn. ``events_received`` counts them all.
    """

    transport = "websocket"  # the checks that differ by transport read this ("webrtc": conformance/webrtc.py)
    keep_events: int | None = None
    events_dropped = 0  # events trimmed off the front of ``events`` (``keep_events``)

    def __init__(
        self, http: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse, keep_events: int | None = None
    ) -> None:
        self._http = http
        self._ws = ws
        self.keep_events = keep_events
        self.events: list[ReceivedEvent] = []
        self.send_lock = asyncio.Lock()
        self.close_code: int | None = None
        self.close_reason: str = ""
        self._changed = asyncio.Condition()
        self._closed = False
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(
        cls, url: str, api_key: str | None, *, timeout_ms: int, keep_events: int | None = None
    ) -> Connection:
        """Connect with ``Authorization: Bearer <api_key>``. Raises ConnectionFailed."""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=timeout_ms / 1000.0))
        try:
            ws = await http.ws_connect(
                url,
                headers=headers,
                timeout=aiohttp.ClientWSTimeout(ws_close=2.0),
                max_msg_size=0,
                autoping=True,
            )
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            await http.close()
            if (reason := unreachable_reason(exc)) is not None:
                raise EngineUnreachable(url, reason) from exc
            raise ConnectionFailed(f"cannot open {url}: {describe_failure(exc, timeout_ms)}") from exc
        return cls(http, ws, keep_events)

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def events_received(self) -> int:
        """Every event recorded since the session opened, the trimmed ones included."""
        return self.events_dropped + len(self.events)

    async def _read(self) -> None:
        try:
            while True:
                msg = await self._ws.receive()
                if msg.type == aiohttp.WSMsgType.TEXT:
                    await self._record(_parse(msg.data))
                elif msg.type == aiohttp.WSMsgType.BINARY:
                    await self._record({"type": "<binary frame>", "bytes": len(msg.data)})
                else:
                    if msg.type == aiohttp.WSMsgType.CLOSE:
                        self.close_reason = str(msg.extra or "")
                    break
        finally:
            self.close_code = self._ws.close_code
            self._closed = True
            async with self._changed:
                self._changed.notify_all()

    async def _record(self, data: JsonObject) -> None:
        self.events.append(ReceivedEvent(self.events_received, now_ms(), data))
        self.events_dropped += trim_front(self.events, self.keep_events)
        async with self._changed:
            self._changed.notify_all()

    async def send(self, event: JsonObject) -> float:
        """Send one client event; returns its send time (ms). Raises ConnectionResetError once closed."""
        async with self.send_lock:
            return await self.send_unlocked(event)

    async def send_unlocked(self, event: JsonObject) -> float:
        """``send`` for a caller that already holds ``send_lock``."""
        sent_ms = now_ms()
        await self._ws.send_str(json.dumps(event))
        return sent_ms

    def events_after(self, since_ms: float, event_type: str | None = None) -> list[ReceivedEvent]:
        """Events received at or after ``since_ms``, optionally of one type, in arrival order."""
        return [e for e in self.events if e.received_ms >= since_ms and event_type in (None, e.type)]

    async def wait_match(
        self, match: Callable[[ReceivedEvent], bool], *, since_ms: float, timeout_ms: float
    ) -> ReceivedEvent | None:
        """The first event at or after ``since_ms`` for which ``match`` holds, waiting up to ``timeout_ms``.

        Returns None on timeout or when the connection closed without such an event.
        """
        deadline = now_ms() + timeout_ms
        cursor = 0  # in events_received's count, so a trim between two looks skips nothing it kept
        while True:
            for event in self.events[max(0, cursor - self.events_dropped) :]:
                if event.received_ms >= since_ms and match(event):
                    return event
            cursor = self.events_received
            remaining = deadline - now_ms()
            if remaining <= 0 or self.is_closed:
                return None
            async with self._changed:
                if self.events_received == cursor and not self.is_closed:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(self._changed.wait(), remaining / 1000.0)

    async def wait_for(
        self,
        event_type: str,
        predicate: Callable[[ReceivedEvent], bool] | None = None,
        *,
        since_ms: float,
        timeout_ms: float,
    ) -> ReceivedEvent | None:
        """``wait_match`` for one event type and an optional extra predicate."""
        return await self.wait_match(
            lambda e: e.type == event_type and (predicate is None or predicate(e)),
            since_ms=since_ms,
            timeout_ms=timeout_ms,
        )

    async def close(self) -> None:
        """Close the socket and the HTTP session; safe to call twice."""
        try:
            await self._ws.close()
        finally:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
            await self._http.close()


def _parse(text: str) -> JsonObject:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {"type": "<invalid json>", "text": text[:200]}
    return data if isinstance(data, dict) else {"type": "<non-object json>", "text": text[:200]}
