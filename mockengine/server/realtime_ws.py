"""``GET /v1/realtime``: one :class:`RealtimeSession` served over a WebSocket.

The handshake (admission, key, model, scenario) and the socket are here; the session's loop (ordered
writer, transcription and speech lanes, paced-audio timer, flow control, faults, journal) is the
transport-independent :class:`~mockengine.server.session_loop.SessionLoop`, which WebRTC calls share.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from aiohttp import WSMessage, WSMsgType, web

from mockengine.brain.selection import UnknownScenario
from mockengine.faults.state import FAULTS
from mockengine.ids import IdFactory
from mockengine.protocol import errors
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import SessionType
from mockengine.realtime.session import RealtimeSession
from mockengine.server.client_secrets import CLIENT_SECRETS, resolve_client_secret
from mockengine.server.handshake import (
    REQUEST_CLOSE_CODE,
    SESSION_CREATED_DELAY_S,
    Refusal,
    api_key_from,
    check_connection,
    requested_model,
    session_type,
)
from mockengine.server.journal import SessionJournal
from mockengine.server.realtime_faults import HANDLE_HEADER, attach, connection_faults, detach
from mockengine.server.replay import replaying, replays_websocket_sessions, warn_unloaded_scenario
from mockengine.server.resources import Resources
from mockengine.server.session_loop import SessionLoop
from mockengine.server.session_setup import (
    build_session,
    register,
    serve_seated,
    session_seed,
)
from mockengine.server.session_shell import WebSocketTransport, session_websocket
from mockengine.server.state import RESOURCES, RUNNERS, TRACER
from mockengine.server.trace import Tracer
from mockengine.server.webrtc.sideband import sideband_handler
from mockengine.server.ws_dispatch import DispatchingResponse

log = logging.getLogger("mockengine.session")


class SessionRunner(WebSocketTransport, SessionLoop):
    """A session served over the WebSocket: client events arrive as text frames, server events leave as
    text frames, the close is a WebSocket close frame (the shell's :class:`WebSocketTransport`)."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        session: RealtimeSession,
        resources: Resources,
        tracer: Tracer,
        journal: SessionJournal | None = None,
        transport: asyncio.Transport | None = None,
    ) -> None:
        super().__init__(session, resources, tracer, journal)
        self.ws = ws
        self.transport = transport

    async def read(self) -> None:
        dispatcher = self.ws if isinstance(self.ws, DispatchingResponse) else None
        if dispatcher is not None:
            dispatcher.dispatch_to(self.on_text_now)  # text frames skip the queue while this loop runs
        try:
            await self.read_frames(dispatcher)  # every message aiohttp queued (all without a dispatcher)
        finally:
            if dispatcher is not None:
                dispatcher.dispatch_to(None)

    def on_text_now(self, raw: str) -> bool:
        """A text frame straight from aiohttp's parser (``ws_dispatch``); False leaves it to the reader
        loop (a closing session drops it there, a dead peer's fault holds it there, and while the brain
        works out a reply it waits there, under aiohttp's flow control: ``brain_lane``)."""
        if self.faults.is_dead or self.is_closing or self.brain_lane.is_busy:
            return False
        try:
            self.on_client_text(raw)
        except Exception:  # an engine bug, never client input: as when the reader task fails
            log.exception("session %s failed", self.session_id)
            self.shutdown(1011, "internal error")
        return True

    def on_frame(self, msg: WSMessage) -> Awaitable[None] | None:
        """One message the reader loop took from aiohttp's queue. Text that comes while the brain works
        out a reply waits for it (meanwhile the socket fills and TCP holds the client)."""
        if self.brain_lane.is_busy and msg.type == WSMsgType.TEXT:
            return self._after_thinking(msg)
        self._on_queued(msg)
        return None

    async def _after_thinking(self, msg: WSMessage) -> None:
        await self.brain_lane.until_idle()
        self._on_queued(msg)

    def _on_queued(self, msg: WSMessage) -> None:
        if self.is_closing:
            return  # expired or dropped: nothing more is accepted
        if msg.type == WSMsgType.TEXT:
            self.on_client_text(msg.data)
        elif msg.type == WSMsgType.BINARY:
            if self.journal is not None:
                self.journal.client_binary(len(msg.data))
            self.apply(self.session.error(errors.binary_frame(), self.now_ms()))


async def realtime_handler(request: web.Request) -> web.StreamResponse:
    if "call_id" in request.query:
        return await sideband_handler(request)  # attaches to a WebRTC call, is no session of its own
    return await serve_seated(request, _serve_connection)


async def _serve_connection(request: web.Request) -> web.StreamResponse:
    resources = request.app[RESOURCES]
    settings = resources.settings
    fault_specs = connection_faults(request, websocket=True)
    if isinstance(fault_specs, web.StreamResponse):
        return fault_specs  # a refused upgrade (fault), a bad ?fault= or one only a WebRTC call meets
    protocols = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    api_key = api_key_from(request.headers, protocols)
    # An ek_ client secret stands in for the API key and brings its session config (and model).
    secret, refusal = resolve_client_secret(request.app[CLIENT_SECRETS], api_key)
    model = requested_model(request.query)
    if secret is not None and ("model" in secret.session or not model):
        model = secret.model  # the minting server chose it (reference §9: either is accepted)
    # A secret minted for a transcription session opens one, whatever the URL says: also with the
    # ?model=gpt-realtime that client.realtime.connect(model=...) puts there, where the URL's model would
    # otherwise choose a conversation (session_type) and the secret's transcription config would land in
    # a session that answers. Ours (the live behaviour for this mix is not public).
    intent = request.query.get("intent")
    transcription_secret = secret is not None and secret.session.get("type") == "transcription"
    if transcription_secret:
        intent = "transcription"
    kind: SessionType = "transcription" if transcription_secret else session_type(intent, model)
    if refusal is None and secret is not None and secret.session.get("type") == "translation":
        refusal = Refusal(
            ProtocolError(
                "invalid_client_secret",
                "This client secret was created for a 'translation' session; connect with it to "
                "/v1/realtime/translations?model=gpt-realtime-translate.",
            ),
            REQUEST_CLOSE_CODE,
        )
    refusal = refusal or check_connection(
        api_key,
        model,
        request.headers.get("OpenAI-Beta")
        or next((p for p in protocols if p.startswith("openai-beta.")), None),
        None if secret is not None else settings,  # a valid ek_ secret is a vetted key
        resources.scenarios,  # "mockengine-NAME" selects scenario NAME and is a model here
        intent,
    )
    replay_answers = replays_websocket_sessions(request.app)
    if refusal is not None and refusal.error.code == "unknown_scenario" and replay_answers:
        # a recording made against an engine with that scenario: replay does not need it
        warn_unloaded_scenario(request.app, model or "")
        refusal = None
    if refusal is not None and refusal.is_auth and settings.auth_failure == "http":
        return web.json_response(refusal.http_body(), status=401)
    ws = session_websocket(settings)  # DispatchingResponse: pings and text frames without a cost per frame
    try:
        seed = session_seed(request, settings.seed)
    except ProtocolError as exc:  # ?seed=abc: refused like an unknown scenario, not silently unseeded
        seed, refusal = settings.seed, refusal or Refusal(exc, 4000)
    session = None
    if refusal is None:
        scenario = request.query.get("scenario")
        if scenario and replay_answers and scenario not in resources.scenarios.scenarios:
            warn_unloaded_scenario(request.app, scenario)
            scenario = None
        try:
            session = build_session(
                request.app,
                model=model,
                api_key=api_key,
                initial_session=secret.session if secret is not None else None,
                seed=seed,
                session_type=kind,
                scenario=scenario,
                role=request.query.get("role"),
            )
        except UnknownScenario as exc:
            refusal = Refusal(ProtocolError("unknown_scenario", str(exc), "scenario"), 4000)
    handle = None
    if session is not None and refusal is None:
        # Built before the upgrade so that the 101 can name the session's handle for the control
        # endpoints (seeded sessions share their ids; the handle tells them apart).
        handle = request.app[FAULTS].open_handle(session.config["id"])
        ws.headers[HANDLE_HEADER] = handle
    try:
        await ws.prepare(request)
        if refusal is not None or session is None:
            assert refusal is not None
            await refusal.refuse(ws, IdFactory(seed).event())
            return ws
        await asyncio.sleep(SESSION_CREATED_DELAY_S)
        served = await replaying(request, ws, session, seed)  # --replay: answers come from a recording
        if served is None:
            return ws
        journal = register(request.app, session)
        runner = SessionRunner(ws, served, resources, request.app[TRACER], journal, request.transport)
        request.app[RUNNERS].add(runner)  # closed with 1001 if the server stops first
        attach(runner, request, fault_specs, handle)  # listed: control requests waiting for it go on
        try:
            await runner.run()
        finally:
            detach(runner, request)
        return ws
    finally:
        if handle is not None:  # never listed (the client left during the handshake): nothing to wait for
            request.app[FAULTS].opened(handle)
