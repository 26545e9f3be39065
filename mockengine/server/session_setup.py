"""What every Realtime session gets before its transport serves it, whichever transport that is: a seat
under admission control, its brain and :class:`RealtimeSession` from the server's settings, and its
place in the live-session list, the counters and the journal."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from mockengine.brain.image import describe_image
from mockengine.ids import IdFactory
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import SessionType
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.server import metrics
from mockengine.server.admission import saturation_refusal
from mockengine.server.http_fallbacks import asks_for_websocket
from mockengine.server.journal import SessionJournal
from mockengine.server.state import JOURNAL, LIVE_SESSIONS, RECLAIMER, RESOURCES, STATS

log = logging.getLogger("mockengine.session")


def admission_refusal(request: web.Request) -> web.Response | None:
    """HTTP 503 before the upgrade when the engine is serving ``settings.max_sessions`` sessions (0 = no
    limit), with the OpenAI REST error body and ``Retry-After``: a clean refusal instead of a slowdown for
    every session. Beside the session limit, ``admission.saturation_refusal`` refuses while the event loop
    lags or speech jobs queue (issue 8)."""
    settings = request.app[RESOURCES].settings
    active = request.app[STATS].sessions_active
    if settings.max_sessions <= 0 or active < settings.max_sessions:
        return saturation_refusal(request.app)
    metrics.SESSIONS_REFUSED.labels(reason="too_many_sessions").inc()
    log.warning("refusing a session: %d of %d sessions in use", active, settings.max_sessions)
    body = {
        "error": {
            "message": f"The engine is serving its maximum of {settings.max_sessions} concurrent sessions "
            "(max_sessions). Try again later.",
            "type": "server_error",
            "param": None,
            "code": "too_many_sessions",
        }
    }
    return web.json_response(body, status=503, headers={"Retry-After": "1"})


def take_seat(app: web.Application) -> None:
    """Count a session as active (admission control counts seats; see :func:`admission_refusal`).
    Taken before the session is set up, so concurrent openings cannot pass the limit together."""
    app[STATS].sessions_active += 1
    metrics.SESSIONS_ACTIVE.inc()


def release_seat(app: web.Application) -> None:
    app[STATS].sessions_active -= 1
    metrics.SESSIONS_ACTIVE.dec()
    app[RECLAIMER].session_ended()  # its memory goes back to the system a while later (issue 15)


async def serve_seated(
    request: web.Request, serve: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """One WebSocket session under admission control: :func:`admission_refusal`'s 503 when the engine is
    full, else ``serve(request)`` holding a seat for as long as it runs. A request that does not ask for
    the upgrade is no session: it is served as when the engine has room (``http_fallbacks``' 426, or the
    401 of ``--auth-failure http``) without a seat. It got the 503 while the engine was full, so a
    health probe's or a person's plain GET said "full" one moment and "upgrade required" the next."""
    if not asks_for_websocket(request):
        return await serve(request)
    refused = admission_refusal(request)
    if refused is not None:
        return refused
    take_seat(request.app)
    try:
        return await serve(request)
    finally:
        release_seat(request.app)


def build_session(
    app: web.Application,
    *,
    model: str | None,
    api_key: str | None,
    initial_session: dict[str, Any] | None,
    seed: int | None,
    scenario: str | None,
    role: str | None,
    session_type: SessionType = "realtime",
) -> RealtimeSession:
    """A new session with the server's settings, starting from ``initial_session`` (an ``ek_`` secret's
    session config, a call's ``session``). ``session_type="transcription"``: a transcription session
    (``model`` is then a transcription model or None, and the brain gets the default one). Raises
    ``UnknownScenario`` for a bad ``scenario``."""
    if session_type == "transcription":
        model = None
    resources = app[RESOURCES]
    settings = resources.settings
    brain = resources.brain(seed, model=model, api_key=api_key, scenario=scenario, role=role)
    options = SessionOptions(
        model=model or "gpt-realtime",
        pacing=Pacing(
            pace=settings.audio_pace,
            first_delta_delay_ms=settings.first_delta_delay_ms,
            delta_ms=settings.audio_delta_ms,
            text_tokens_per_s=settings.text_tokens_per_s,
        ),
        session_max_s=settings.session_max_s,
        created_at_s=int(time.time()),
        voice=brain.scenario.persona_for(role).voice,
        initial_session=initial_session,
        max_input_buffer_ms=settings.max_input_buffer_s * 1000,
        max_conversation_items=settings.max_conversation_items,
        max_conversation_audio_ms=settings.max_conversation_audio_s * 1000,
        audio_memory_ms=int(settings.audio_memory_s * 1000),
        audio_spill_dir=settings.audio_spill_dir,
        session_type=session_type,
    )
    return RealtimeSession(
        options, brain=brain, ids=IdFactory(seed), tokens=resources.tokens, describe_image=describe_image
    )


def register(app: web.Application, session: RealtimeSession) -> SessionJournal | None:
    """List a session that is about to be served; its journal (None when journaling is off)."""
    app[LIVE_SESSIONS].add(session)
    count_session(app)
    return app[JOURNAL].open(session.config["id"])


def count_session(app: web.Application) -> None:
    """One more session served, of any kind: ``sessions_total`` of the engine's stats and
    ``mockengine_sessions_total`` of ``/metrics``."""
    app[STATS].sessions_total += 1
    metrics.SESSIONS.inc()


def session_seed(request: web.Request, default: int | None) -> int | None:
    """``?seed=N`` on the URL overrides the server's seed for this session (handy for tests); empty is
    not given. Raises ``ProtocolError`` (``invalid_value``, param ``seed``) for anything but an integer:
    a typo had left the session unseeded without a word."""
    raw = request.query.get("seed")
    if not raw:
        return default
    if raw.isascii() and raw.strip().lstrip("+-").isdigit():
        return int(raw)
    raise ProtocolError(
        "invalid_value", f"Invalid 'seed': expected an integer, but got '{raw}' instead.", "seed"
    )
