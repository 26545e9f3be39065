"""Client text frames handed to the session as aiohttp parses them, without a reader task's wake-up each.

aiohttp puts every parsed WebSocket message in a queue; the handler's ``async for msg in ws`` takes it
out. For each message that costs a future resolved, a callback scheduled and the reader task resumed
through ``receive()`` — per 20 ms append of every streaming session, the largest per-frame cost of the
engine's event loop after the audio path itself (issue 15). :class:`DispatchingResponse` keeps aiohttp's
parser, its queue and its ``receive()`` for everything, and lets a TEXT message skip the queue: its
queue's ``feed_data`` (which aiohttp's parser calls, in the protocol's ``data_received``) hands it to
``on_text`` at once when

* a handler is set (the session's reader loop runs: :meth:`DispatchingResponse.dispatch_to`),
* nothing the reader loop has yet to take is queued (so messages are handled in the order they came),
* and the handler accepts it (``on_text`` returns False to decline: the session is closing, or a fault
  holds its reader; then the message is queued and the reader loop sees it as before).

Control frames (ping, pong, close), binary frames and errors always take the queue and ``receive()``,
which answers pings and closes as aiohttp does. The reader loop reports each message it takes
(:meth:`DispatchingResponse.taken`), so the queue knows when it is empty again.

It needs aiohttp's ``WebSocketDataQueue`` (aiohttp 3.11+), replaced while ``prepare`` builds the parser;
where that is missing, nothing is dispatched and every message takes the queue
(``tests/unit/test_ws_dispatch.py`` fails loudly then).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web, web_ws

from mockengine.server.ws_heartbeat import HEARTBEAT_RESPONSE

_BaseQueue: Any = getattr(web_ws, "WebSocketDataQueue", None)
# What receive() answers itself and never returns (autoping): not counted as waiting for the reader.
_ANSWERED_INSIDE = (WSMsgType.PING, WSMsgType.PONG)


if _BaseQueue is not None:

    class DispatchingQueue(_BaseQueue):  # type: ignore[misc,valid-type]
        """aiohttp's queue with the TEXT bypass (see the module docstring)."""

        on_text: Callable[[str], bool] | None = None
        waiting = 0  # messages queued that the reader loop has not taken yet

        def feed_data(self, data: Any, size: int) -> None:
            on_text = self.on_text
            is_text = data.type is WSMsgType.TEXT
            if on_text is not None and is_text and not self.waiting and on_text(data.data):
                return
            if data.type not in _ANSWERED_INSIDE:
                self.waiting += 1
            super().feed_data(data, size)


class DispatchingResponse(HEARTBEAT_RESPONSE):  # type: ignore[misc,valid-type]
    """``WebSocketResponse`` (with the cheap heartbeat) whose TEXT messages may skip the queue."""

    def _post_start(self, *args: Any, **kwargs: Any) -> None:
        if _BaseQueue is None:
            super()._post_start(*args, **kwargs)
            return
        # aiohttp builds its queue and parser here, from the module's name for the queue class: ours
        # is built instead (no await in between: no other handler can see the swap on this thread, and
        # another thread's queue built meanwhile would just be a plain one, never given a handler).
        web_ws.WebSocketDataQueue = DispatchingQueue
        try:
            super()._post_start(*args, **kwargs)
        finally:
            web_ws.WebSocketDataQueue = _BaseQueue

    @property
    def _queue(self) -> Any:
        reader = getattr(self, "_reader", None)
        return reader if _BaseQueue is not None and isinstance(reader, DispatchingQueue) else None

    @property
    def can_dispatch(self) -> bool:
        """Whether TEXT messages can skip the queue on this aiohttp (False: all go through it)."""
        return self._queue is not None

    def dispatch_to(self, on_text: Callable[[str], bool] | None) -> None:
        """Hand TEXT messages to ``on_text`` from now on (None: stop); it returns False to decline one."""
        queue = self._queue
        if queue is not None:
            queue.on_text = on_text

    def taken(self, msg: Any) -> None:
        """The reader loop took ``msg`` from ``receive()``."""
        queue = self._queue
        if queue is not None and queue.waiting and msg.type not in _ANSWERED_INSIDE:
            queue.waiting -= 1


def _check() -> bool:
    return _BaseQueue is not None and issubclass(DispatchingResponse, web.WebSocketResponse)


IS_AVAILABLE = _check()
