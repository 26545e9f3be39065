"""The Realtime WebSocket's keep-alive pings, at a fixed cost per session instead of one per frame.

aiohttp's heartbeat (``WebSocketResponse(heartbeat=…)``) pings a peer that has sent nothing for
``heartbeat`` seconds and drops it when the pong does not come within half of that. To know when the
peer last sent something it re-arms its timer for every frame received: a callback scheduled and run per
frame, about 3.5 µs each (measured, issue 15) — 50 a second per streaming session, 5–7 % of the engine's
CPU under load, and more than a sixth of what the bare baseline server spends per frame.

:class:`CheapHeartbeatResponse` keeps the rule and drops the per-frame work: a frame only sets a flag,
and a timer every ``heartbeat / 2`` looks at it. A peer that has sent nothing for two looks in a row
(≥ ``heartbeat`` s) is pinged, and dropped when nothing (pong or data) arrives within ``heartbeat / 2``
— the same ping and the same drop as aiohttp's, which come ``heartbeat`` and ``1.5 × heartbeat`` after
the last frame; here they come at most half an interval later (the look is periodic). A peer that
sends anything, pongs included, is never dropped.

It overrides three private aiohttp methods (``_on_data_received``, ``_send_heartbeat``,
``_pong_not_received``, aiohttp 3.10+). Where the installed aiohttp lacks any of them the plain
``WebSocketResponse`` is used (:data:`HEARTBEAT_RESPONSE`), so an upgrade can cost speed, never
correctness; ``tests/unit/test_ws_heartbeat.py`` fails loudly when that happens.
"""

from __future__ import annotations

from aiohttp import web

_HOOKS = ("_on_data_received", "_send_heartbeat", "_pong_not_received", "_heartbeat_cb", "_pong_response_cb")
QUIET_LOOKS_BEFORE_PING = 2  # looks every heartbeat / 2: at least `heartbeat` s of silence


class CheapHeartbeatResponse(web.WebSocketResponse):
    """``WebSocketResponse`` whose heartbeat costs nothing per frame (see the module docstring)."""

    _heard = False  # something arrived since the last look
    _quiet_looks = 0

    def _on_data_received(self) -> None:
        self._heard = True

    def _send_heartbeat(self) -> None:
        """The periodic look (aiohttp arms the first one at ``heartbeat`` after the upgrade)."""
        self._heartbeat_cb = None
        if self._heard:
            self._heard = False
            self._quiet_looks = 0
        else:
            self._quiet_looks += 1
        if self._quiet_looks < QUIET_LOOKS_BEFORE_PING:
            self._look_again()
            return
        self._quiet_looks = 0
        # aiohttp's own ping: a pong deadline (_pong_not_received), then the PING frame.
        self._heartbeat_when = 0.0
        super()._send_heartbeat()

    def _pong_not_received(self) -> None:
        if self._heard:  # the pong, or any frame: the peer is there
            self._pong_response_cb = None
            self._heard = False
            self._look_again()
            return
        super()._pong_not_received()

    def _look_again(self) -> None:
        if self._loop is None or self._heartbeat is None or self.closed:
            return
        self._heartbeat_cb = self._loop.call_at(self._loop.time() + self._heartbeat / 2, self._send_heartbeat)


def _has_hooks() -> bool:
    response = web.WebSocketResponse(heartbeat=1.0)
    return all(hasattr(response, name) for name in _HOOKS) and hasattr(
        web.WebSocketResponse, "_flush_heartbeat_reset"
    )


HEARTBEAT_RESPONSE: type[web.WebSocketResponse] = (
    CheapHeartbeatResponse if _has_hooks() else web.WebSocketResponse
)
