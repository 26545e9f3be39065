"""Sideband control of a WebRTC call: ``GET /v1/realtime?call_id={call_id}`` (a WebSocket, reference §13).

The pattern of a server that keeps tools and monitoring to itself while the browser holds the call: with an
API key (an ``ek_`` secret is the browser's and does not open a sideband) it attaches to a live call,
receives the call's server events as the data channel does (reply audio stays on the track) and its own
client events act on the call exactly as if they came over ``oai-events``. Several sidebands may attach;
they close (1000) when the call ends.

Choices where the reference is silent (docs/webrtc.md): a sideband's first event is ``session.created``
with the call's session as it is at that moment, 5 ms after the 101 (``SESSION_CREATED_DELAY_S``), so
clients that wait for it work unchanged; an unknown
or ended call gets the Realtime handshake's refusal shape, an ``error`` event (``invalid_request_error``,
code ``call_not_found``, param ``call_id``) and close 4000. A translation call has no sideband (no SDK
has one): its id is refused the same way with code ``sideband_not_supported``.
"""

from __future__ import annotations

import asyncio
import copy

from aiohttp import WSMsgType, web

from mockengine.ids import IdFactory
from mockengine.protocol import codec, errors
from mockengine.protocol import server_events as se
from mockengine.protocol.errors import ProtocolError
from mockengine.server.client_secrets import SECRET_PREFIX
from mockengine.server.handshake import (
    REQUEST_CLOSE_CODE,
    SESSION_CREATED_DELAY_S,
    Refusal,
    api_key_from,
    auth_refusal,
    bad_key_refusal,
)
from mockengine.server.state import RESOURCES
from mockengine.server.translation_ws import sideband_refusal
from mockengine.server.webrtc.call import CallRunner
from mockengine.server.webrtc.calls import CALLS
from mockengine.server.webrtc.siblings import forward_websocket, sibling_owner
from mockengine.server.webrtc.translation_call import TRANSLATION_CALLS


async def sideband_handler(request: web.Request) -> web.StreamResponse:
    """Attach a WebSocket to the call named by ``?call_id=``."""
    protocols = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    api_key = api_key_from(request.headers, protocols)
    settings = request.app[RESOURCES].settings
    call_id = request.query["call_id"]
    elsewhere = sibling_owner(request, call_id) if call_id not in request.app[CALLS] else None
    if elsewhere is not None:  # serve --workers N: the call lives on a sibling worker
        return await forward_websocket(request, *elsewhere, protocols, settings.max_frame_bytes)
    refusal = auth_refusal(settings, api_key)
    if refusal is None and api_key is not None and api_key.startswith(SECRET_PREFIX):
        refusal = bad_key_refusal(api_key)
    runner: CallRunner | None = request.app[CALLS].get(call_id)
    if refusal is None and runner is None and call_id in request.app[TRANSLATION_CALLS]:
        refusal = sideband_refusal()  # not served for translation calls (no SDK has one)
    if refusal is None and (runner is None or runner.is_closing):
        message = f"Call '{call_id}' not found (it never existed or has ended)."
        refusal = Refusal(ProtocolError("call_not_found", message, "call_id"), REQUEST_CLOSE_CODE)
    if refusal is not None and refusal.is_auth and settings.auth_failure == "http":
        return web.json_response(refusal.http_body(), status=401)
    ws = web.WebSocketResponse(protocols=("realtime",), max_msg_size=settings.max_frame_bytes, compress=False)
    await ws.prepare(request)
    if refusal is not None or runner is None:
        assert refusal is not None
        event = se.error(IdFactory(None).event(), error=refusal.error.payload())
        await ws.send_str(codec.dumps(event))
        await ws.close(code=refusal.close_code, message=refusal.close_reason.encode())
        return ws
    # As a session's own WebSocket does (realtime_ws.py): written with the 101, Node's ws emits it
    # before code that awaits 'open' has attached its listener.
    await asyncio.sleep(SESSION_CREATED_DELAY_S)
    if runner.is_closing:
        await ws.close(code=1000, message=b"call ended")
        return ws
    session = runner.session
    created = se.session_created(session.ids.event(), session=copy.deepcopy(session.config))
    await ws.send_str(codec.dumps(created))
    runner.sidebands.add(ws)
    try:
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                runner.on_channel_message(msg.data)
            elif msg.type == WSMsgType.BINARY:
                runner.apply(runner.session.error(errors.binary_frame(), runner.now_ms()))
    finally:
        runner.sidebands.discard(ws)
    return ws
