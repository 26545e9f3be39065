"""What every Realtime session gets before its transport serves it, whichever transport that is: a seat
under admission control, its brain and :class:`RealtimeSession` from the server's settings, and its
place in the live-session list, the counters and the journal."""

from __future__ import annotations

import time

from aiohttp import web

from mockengine.brain.image import describe_image
from mockengine.ids import IdFactory
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.server import metrics
from mockengine.server.client_secrets import ClientSecret
from mockengine.server.journal import SessionJournal
from mockengine.server.state import JOURNAL, LIVE_SESSIONS, RESOURCES, STATS


def take_seat(app: web.Application) -> None:
    """Count a session as active (admission control counts seats; see ``realtime_ws.admission_refusal``).
    Taken before the session is set up, so concurrent openings cannot pass the limit together."""
    app[STATS].sessions_active += 1
    metrics.SESSIONS_ACTIVE.inc()


def release_seat(app: web.Application) -> None:
    app[STATS].sessions_active -= 1
    metrics.SESSIONS_ACTIVE.dec()


def build_session(
    app: web.Application,
    *,
    model: str | None,
    api_key: str | None,
    secret: ClientSecret | None,
    seed: int | None,
    scenario: str | None,
    role: str | None,
) -> RealtimeSession:
    """A new session with the server's settings. Raises ``UnknownScenario`` for a bad ``scenario``."""
    resources = app[RESOURCES]
    settings = resources.settings
    brain = resources.brain(seed, model=model, api_key=api_key, scenario=scenario, role=role)
    options = SessionOptions(
        model=model or "gpt-realtime",
        pacing=Pacing(
            pace=settings.audio_pace,
            first_delta_delay_ms=settings.first_delta_delay_ms,
            delta_ms=settings.audio_delta_ms,
        ),
        session_max_s=settings.session_max_s,
        created_at_s=int(time.time()),
        voice=brain.scenario.persona_for(role).voice,
        initial_session=secret.session if secret is not None else None,
        max_input_buffer_ms=settings.max_input_buffer_s * 1000,
        max_conversation_items=settings.max_conversation_items,
        max_conversation_audio_ms=settings.max_conversation_audio_s * 1000,
    )
    return RealtimeSession(
        options, brain=brain, ids=IdFactory(seed), tokens=resources.tokens, describe_image=describe_image
    )


def register(app: web.Application, session: RealtimeSession) -> SessionJournal | None:
    """List a session that is about to be served; its journal (None when journaling is off)."""
    app[LIVE_SESSIONS].add(session)
    app[STATS].sessions_total += 1
    metrics.SESSIONS.inc()
    return app[JOURNAL].open(session.config["id"])


def session_seed(request: web.Request, default: int | None) -> int | None:
    """``?seed=N`` on the URL overrides the server's seed for this session (handy for tests)."""
    raw = request.query.get("seed")
    try:
        return int(raw) if raw is not None and raw.isascii() else default
    except ValueError:
        return default
