"""``create_app()``: the aiohttp application — ``/v1/realtime``, ``/v1/models``, ``/v1/chat/completions``,
``/v1/responses``, ``/v1/audio/*``, ``/healthz``, ``/metrics``."""

from __future__ import annotations

import dataclasses
import gc
import logging
import os
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web

from mockengine import __version__
from mockengine.faults.state import FAULTS
from mockengine.faults.wiring import install as install_faults
from mockengine.rtc.pion.plane import pion_plane_context
from mockengine.server import gc_watch
from mockengine.server.admission import LOOP_LAG, LoopLagMonitor, install_speech_gates, monitor_context
from mockengine.server.allocator import active_python_malloc
from mockengine.server.audio_routes import add_routes as add_audio_routes
from mockengine.server.chat_routes import add_routes as add_chat_routes
from mockengine.server.client_secrets import CLIENT_SECRETS, ClientSecretStore, create_client_secret
from mockengine.server.console import add_routes as add_console_routes
from mockengine.server.cors import install as install_cors
from mockengine.server.event_loop import running_loop_name
from mockengine.server.http_fallbacks import AZURE_REALTIME_PATHS, fallback_middleware
from mockengine.server.journal import Journal
from mockengine.server.lifecycle import track_runners
from mockengine.server.memory import add_routes as add_memory_routes
from mockengine.server.metrics import FAULTS_INJECTED, REQUESTS, metrics_handler
from mockengine.server.realtime_ws import realtime_handler
from mockengine.server.reclaim import Reclaimer
from mockengine.server.replay import install as install_replay
from mockengine.server.resources import Resources, load_resources
from mockengine.server.scenario_warnings import scenario_warnings
from mockengine.server.state import JOURNAL, LIVE_SESSIONS, RECLAIMER, RESOURCES, STATS, TRACER, Stats
from mockengine.server.trace import Tracer
from mockengine.server.translation_ws import add_routes as add_translation_routes
from mockengine.server.webrtc.calls import add_routes as add_webrtc_routes
from mockengine.server.webrtc.translation_call import add_routes as add_translation_call_routes
from mockengine.settings import Settings

log = logging.getLogger("mockengine")

# The largest HTTP request body accepted (a 413 above it). The live Chat Completions endpoint takes up to
# 50 MB of image bytes per request (20 MB per image, OpenAI's vision guide), which as base64 data URLs in
# the JSON body is about 67 MB; aiohttp's default of 1 MiB refused a single 1.5 MB photo.
MAX_REQUEST_BODY_BYTES = 72 * 1024 * 1024

# The REST routes counted in /metrics (``mockengine_requests_total{route,status}``): the ones the brain or
# the models answer.
COUNTED_ROUTES = frozenset(
    {
        "/v1/chat/completions",
        "/v1/responses",
        "/v1/audio/transcriptions",
        "/v1/audio/translations",
        "/v1/audio/speech",
    }
)

REALTIME_MODELS = (
    "gpt-realtime",
    "gpt-realtime-mini",
    "gpt-realtime-2025-08-28",
    "gpt-realtime-1.5",
    "gpt-realtime-2",
    "gpt-realtime-2.1",
    "gpt-realtime-2.1-mini",
    "gpt-realtime-translate",  # /v1/realtime/translations only (server/translation_ws.py)
)


async def healthz(request: web.Request) -> web.Response:
    """200 with JSON once the models are loaded (they load before the server listens)."""
    resources = request.app[RESOURCES]
    body: dict[str, Any] = {
        "status": "ok",
        "version": __version__,
        "models": resources.model_info,
        "models_load_seconds": round(resources.load_seconds, 3),
        "seeded": resources.settings.is_seeded,
        "audio_pace": resources.settings.audio_pace,
        "pid": os.getpid(),  # which worker answered, with serve --workers
        "event_loop": running_loop_name(),
        "python_malloc": active_python_malloc(),  # docs/memory.md: what sessions free goes back on malloc
    }
    body.update(dataclasses.asdict(request.app[STATS]))
    body["faults_injected"] = dict(request.app[FAULTS].injected)
    body["caches"] = {
        name: {**dataclasses.asdict(stats), "hit_rate": stats.hit_rate}
        for name, cache in resources.caches.items()
        for stats in (cache.stats(),)
    }
    body["executor_queue_depth"] = {
        "stt": resources.stt_executor.queue_depth,
        "tts": resources.tts_executor.queue_depth,
        "brain": resources.brain_executor.queue_depth,  # participant replies (server/brain_lane.py)
    }
    body["event_loop_lag_ms"] = round(request.app[LOOP_LAG].recent_min_lag_ms, 1)
    return web.json_response(body)


@web.middleware
async def request_metrics(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Count each request of a COUNTED_ROUTES route by its final status (outermost: a fault's or the
    fallback's answer counts as what the client got)."""
    resource = request.match_info.route.resource
    route = resource.canonical if resource is not None else ""
    if route not in COUNTED_ROUTES or request.method != "POST":
        return await handler(request)
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        REQUESTS.labels(route=route, status=str(exc.status)).inc()
        raise
    REQUESTS.labels(route=route, status=str(response.status)).inc()
    return response


def create_app(settings: Settings, resources: Resources | None = None) -> web.Application:
    """The application. Models are loaded here unless ``resources`` is given (tests share one set)."""
    app = web.Application(  # fallback_middleware next to outermost: OpenAI-shaped errors
        middlewares=[request_metrics, fallback_middleware], client_max_size=MAX_REQUEST_BODY_BYTES
    )
    app[RESOURCES] = resources if resources is not None else load_resources(settings)
    app[TRACER] = Tracer(settings.trace_dir)
    app[STATS] = Stats()
    app[JOURNAL] = Journal(settings.journal_dir)
    app[LIVE_SESSIONS] = weakref.WeakSet()
    app[RECLAIMER] = Reclaimer(settings.reclaim_interval_s, active=lambda: app[STATS].sessions_active)
    track_runners(app)
    app.router.add_get("/v1/realtime", realtime_handler)
    for path in AZURE_REALTIME_PATHS:  # Azure OpenAI's clients, pointed at the engine's host
        app.router.add_get(path, realtime_handler)
    # /v1/models, /v1/models/{model}, /v1/chat/completions, /v1/responses
    install_speech_gates(app)  # REST requests' speech jobs (admission.speech_admitted)
    add_chat_routes(app, REALTIME_MODELS)
    add_audio_routes(app)  # /v1/audio/transcriptions, /v1/audio/translations, /v1/audio/speech
    app.router.add_get("/healthz", healthz)
    add_memory_routes(app)  # /mockengine/memory: resident memory by owner (docs/memory.md)
    app[CLIENT_SECRETS] = ClientSecretStore(settings.seed)
    app.router.add_post("/v1/realtime/client_secrets", create_client_secret)
    add_translation_routes(app)  # /v1/realtime/translations, /v1/realtime/translations/client_secrets
    if settings.media_plane == "pion":  # calls' media in the Go sidecar (rtc/pion/); it outlives the calls
        app.cleanup_ctx.append(pion_plane_context(settings.media_udp_port, settings.host))
    add_webrtc_routes(app)  # /v1/realtime/calls, /v1/realtime/calls/{call_id}/hangup
    add_translation_call_routes(app)  # /v1/realtime/translations/calls (WebRTC)
    install_faults(app, settings, app[RESOURCES].scenarios.scenarios.values())
    app[FAULTS].on_injected = lambda kind: FAULTS_INJECTED.labels(kind=kind).inc()
    install_replay(app, settings)  # --replay DIR (mockengine.record)
    for warning in scenario_warnings(app[RESOURCES].scenarios.scenarios.values()):
        log.warning("%s", warning)  # e.g. {role} in a rule that may fire with no role
    app[LOOP_LAG] = LoopLagMonitor()
    gc_watch.install()  # the collector's pauses beside the loop's stalls in /metrics
    app.router.add_get("/metrics", metrics_handler)
    install_cors(app)  # browser pages on other origins (default: localhost dev servers)
    add_console_routes(app)  # the console page at /
    app.cleanup_ctx.append(monitor_context)

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        yield
        app[RECLAIMER].close()
        app[TRACER].close()
        app[JOURNAL].close()
        if resources is None:
            app[RESOURCES].close()

    app.cleanup_ctx.append(lifetime)
    return app


def settle_heap() -> None:
    """Once the models and scenarios are loaded: move every object alive now out of the collector's
    sight (``gc.freeze``) and collect the young generation less often.

    A streaming session allocates a few dicts per 20 ms append; with the default thresholds the
    collector ran several times a second and each older-generation pass walked every object the models
    and scenarios left behind (3 % of the event loop's time at 200 sessions). Nothing loaded at start-up
    is freed later, so freezing it loses nothing; cycles made while serving are still collected.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])


# Allocations between young-generation collections (CPython's default is 700).
GC_GEN0_THRESHOLD = 20_000
