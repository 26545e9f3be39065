"""Calls under ``serve --workers N``: a request about a call reaches the worker that holds it.

The kernel spreads connections over the workers (SO_REUSEPORT), so the ``POST …/hangup`` or the sideband
WebSocket (``/v1/realtime?call_id=``) for a call often lands on another worker than the one that answered
its offer and holds its peer connection. Each worker therefore also listens on a unix socket of its own
(``{dir}/w{index}.sock``, the directory made by the parent), and with more than one worker the last
character of a call id names its worker (``BASE62[index]``; the id keeps the ``rtc_u1_`` + 32 hex digits shape
up to 16 workers). A worker asked about a call of a sibling forwards the request to the sibling's socket:
the hang-up as an HTTP request (its answer is passed back as is), the sideband as a WebSocket whose messages
are relayed both ways until either side closes. The owner checks the key as usual. A ``/metrics`` scrape
asks every sibling the same way to flush its event counts first (``server/metrics.py``). Forwarded
requests carry :data:`FORWARDED` and are never forwarded again; answers carry :data:`WORKER_HEADER` (the
owner's index) and :data:`VIA_HEADER` (the worker that forwarded).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import WSMsgType, web

from mockengine.ids import BASE62

FORWARDED = "X-Mockengine-Forwarded-By"
WORKER_HEADER = "X-Mockengine-Worker"
VIA_HEADER = "X-Mockengine-Via"
WORKER_DIR_ENV = "MOCKENGINE_WORKER_DIR"
_PASSED_REQUEST_HEADERS = ("Authorization", "Content-Type", "Origin")


@dataclass(frozen=True)
class Siblings:
    """This worker's index among ``count`` workers whose unix sockets are in ``directory``."""

    index: int
    count: int
    directory: str

    def socket_path(self, index: int) -> str:
        return os.path.join(self.directory, f"w{index}.sock")

    def tag(self, call_id: str) -> str:
        """``call_id`` with this worker's mark as its last character."""
        return call_id[:-1] + BASE62[self.index]

    def owner_elsewhere(self, request: web.Request, call_id: str) -> int | None:
        """The sibling that holds ``call_id``; None for this worker's own, an unmarked id, or a request
        that was already forwarded."""
        if FORWARDED in request.headers or not call_id.startswith("rtc_"):
            return None
        owner = BASE62.find(call_id[-1])
        return owner if 0 <= owner < self.count and owner != self.index else None


SIBLINGS = web.AppKey("webrtc_siblings", Siblings)


def sibling_owner(request: web.Request, call_id: str) -> tuple[Siblings, int] | None:
    siblings = request.app.get(SIBLINGS)
    if siblings is None:
        return None
    owner = siblings.owner_elsewhere(request, call_id)
    return None if owner is None else (siblings, owner)


def _forward_headers(request: web.Request, siblings: Siblings) -> dict[str, str]:
    headers = {k: request.headers[k] for k in _PASSED_REQUEST_HEADERS if k in request.headers}
    headers[FORWARDED] = str(siblings.index)
    return headers


def _session(siblings: Siblings, owner: int) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=siblings.socket_path(owner)))


async def forward_request(request: web.Request, siblings: Siblings, owner: int) -> web.Response:
    """Send ``request`` (method, path, body) to worker ``owner``; its answer is returned as is."""
    body = await request.read()
    async with (
        _session(siblings, owner) as http,
        http.request(
            request.method,
            f"http://worker{owner}{request.path_qs}",
            data=body or None,
            headers=_forward_headers(request, siblings),
        ) as reply,
    ):
        answer = await reply.read()
        headers = {k: v for k, v in reply.headers.items() if k.lower() in ("content-type", "retry-after")}
    headers.update({WORKER_HEADER: str(owner), VIA_HEADER: str(siblings.index)})
    return web.Response(status=reply.status, body=answer, headers=headers)


async def ask_siblings(siblings: Siblings, method: str, path: str, timeout_s: float) -> list[int]:
    """Send ``method path`` (marked forwarded) to every other worker at once and wait up to
    ``timeout_s`` for all; the statuses of those that answered in time (a sibling that is stopping or
    stalled is left out, not waited for). ``/metrics`` uses it to have the siblings flush their counts."""

    async def ask(owner: int) -> int | None:
        try:
            async with (
                _session(siblings, owner) as http,
                http.request(
                    method,
                    f"http://worker{owner}{path}",
                    headers={FORWARDED: str(siblings.index)},
                    timeout=aiohttp.ClientTimeout(total=timeout_s),
                ) as reply,
            ):
                return reply.status
        except (TimeoutError, aiohttp.ClientError, OSError):
            return None

    others = [i for i in range(siblings.count) if i != siblings.index]
    answers = await asyncio.gather(*(ask(owner) for owner in others))
    return [status for status in answers if status is not None]


async def forward_websocket(
    request: web.Request, siblings: Siblings, owner: int, protocols: list[str], max_msg_size: int
) -> web.StreamResponse:
    """Open the same WebSocket on worker ``owner`` and relay both ways until one side closes."""
    async with _session(siblings, owner) as http:
        try:
            upstream = await http.ws_connect(
                f"http://worker{owner}{request.path_qs}",
                headers=_forward_headers(request, siblings),
                protocols=protocols,
                max_msg_size=max_msg_size,
                autoclose=False,
            )
        except aiohttp.WSServerHandshakeError as exc:  # e.g. a 401 under --auth-failure http
            return web.json_response(
                {"error": {"message": exc.message, "type": "invalid_request_error"}}, status=exc.status
            )
        ws = web.WebSocketResponse(
            protocols=(upstream.protocol,) if upstream.protocol else (),
            max_msg_size=max_msg_size,
            compress=False,
            autoclose=False,
        )
        ws.headers.update({WORKER_HEADER: str(owner), VIA_HEADER: str(siblings.index)})
        await ws.prepare(request)
        await _relay(ws, upstream)
    return ws


async def _relay(ws: web.WebSocketResponse, upstream: aiohttp.ClientWebSocketResponse) -> None:
    await asyncio.gather(_pump(ws, upstream), _pump(upstream, ws), return_exceptions=True)


async def _pump(source: Any, sink: Any) -> None:
    """Messages from ``source`` to ``sink``; ``source``'s close (code and reason) closes ``sink``."""
    code, reason = 1000, ""
    while True:
        msg = await source.receive()
        if msg.type == WSMsgType.TEXT:
            await sink.send_str(msg.data)
        elif msg.type == WSMsgType.BINARY:
            await sink.send_bytes(msg.data)
        elif msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
            if msg.type == WSMsgType.CLOSE:
                code, reason = int(msg.data), str(msg.extra or "")
            break
    if not source.closed:
        await source.close(code=code, message=reason.encode())
    if not sink.closed:
        await sink.close(code=code, message=reason.encode())
