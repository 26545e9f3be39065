"""Prometheus metrics of the engine, served as ``GET /metrics`` (text exposition format 0.0.4).

Named metrics live here at module level so any part of the server can import and update them, e.g.::

    from mockengine.server.metrics import SESSIONS_REFUSED
    SESSIONS_REFUSED.labels(reason="too_many_sessions").inc()

With ``serve --workers N`` every process keeps its own values; the parent sets
``PROMETHEUS_MULTIPROC_DIR`` before starting them, and ``/metrics`` then reports the sum over all
processes (prometheus-client's multiprocess mode), whichever process answers the scrape.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

if TYPE_CHECKING:
    from mockengine.engines.cache import FingerprintSearch

_LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5, 5.0, 10.0)

SESSIONS_ACTIVE = Gauge(
    "mockengine_sessions_active", "Realtime sessions open now", multiprocess_mode="livesum"
)
SESSIONS = Counter("mockengine_sessions", "Realtime sessions accepted since start")
SESSIONS_REFUSED = Counter(
    "mockengine_sessions_refused", "Connections refused by admission control (HTTP 503)", ["reason"]
)
CLIENT_EVENTS = Counter("mockengine_client_events", "Client events received, by type", ["type"])
SERVER_EVENTS = Counter("mockengine_server_events", "Server events sent, by type", ["type"])
TURN_LATENCY = Histogram(
    "mockengine_turn_latency_seconds",
    "Engine-side turn latencies: speech_stopped → first audio delta sent (response_start), "
    "response.cancel received → response.done sent (cancel)",
    ["stage"],
    buckets=_LATENCY_BUCKETS_S,
)
ENGINE_SECONDS = Histogram(
    "mockengine_engine_call_seconds",
    "Time a transcription or synthesis call ran in its thread (queueing excluded)",
    ["engine"],
    buckets=_LATENCY_BUCKETS_S,
)
EXECUTOR_QUEUE_DEPTH = Gauge(
    "mockengine_executor_queue_depth",
    "Engine calls waiting for a thread",
    ["executor"],
    multiprocess_mode="livesum",
)
EXECUTOR_RUNNING = Gauge(
    "mockengine_executor_running", "Engine calls running", ["executor"], multiprocess_mode="livesum"
)
CACHE_LOOKUPS = Counter("mockengine_cache_lookups", "Cache lookups by result", ["cache", "result"])
# The transcript cache's fingerprint searches (engines/cache.py CachingTranscriber._similar), in the stt
# executor: audio that matched no cached entry byte for byte. A hit is also a transcripts "hit" above.
FINGERPRINT_SEARCHES = Counter(
    "mockengine_transcript_fingerprint_searches", "Transcript fingerprint searches by result", ["result"]
)
for _result in ("hit", "miss"):  # both shown from the start, 0 until a search (a bench reads the change)
    FINGERPRINT_SEARCHES.labels(result=_result)
FINGERPRINT_COMPARISONS = Counter(
    "mockengine_transcript_fingerprint_comparisons", "Cached fingerprints compared by the searches"
)
FINGERPRINT_CPU_SECONDS = Counter(
    "mockengine_transcript_fingerprint_search_cpu_seconds", "CPU time of the fingerprint searches"
)
FINGERPRINT_SECONDS = Counter(
    "mockengine_transcript_fingerprint_search_seconds", "Wall time of the fingerprint searches"
)
EVENT_LOOP_LAG = Gauge(
    "mockengine_event_loop_lag_seconds",
    "How late the event loop ran a 100 ms timer, last sample",
    multiprocess_mode="max",
)
# Every fault the engine injects on purpose (FaultState.on_injected, set in server/app.py).
# Replay (--replay, recordings): live clients departing from the recording they are replayed.
REPLAY_DIVERGENCES = Counter(
    "mockengine_replay_divergences", "Clients departing from the recording being replayed", ["mode"]
)
FAULTS_INJECTED = Counter("mockengine_faults_injected", "Faults injected on purpose, by kind", ["kind"])
# The REST requests the engine answers with its brain or models (server/app.py's request_metrics):
# Chat Completions, Responses, the audio endpoints; ``route`` is the route's path, ``status`` the HTTP one.
REQUESTS = Counter("mockengine_requests", "REST requests answered, by route and status", ["route", "status"])
REQUESTS_WAITING = Gauge(
    "mockengine_requests_waiting",
    "REST requests whose speech job waits for its turn (server/admission.py speech_admitted)",
    ["executor"],
    multiprocess_mode="livesum",
)


class EventCounter:
    """Counts events by type. Counts gather in a plain dict of the counting thread (the audio path runs
    50 times a second per session: a locked counter update each time cost 3 % of the event loop at 200
    sessions) and reach the Prometheus counter at ``flush``, which the same thread runs: every 100 ms
    from the loop-lag monitor, and before ``/metrics`` is answered. So each count lands once, however
    many engines a process runs (tests run several, each on its own thread)."""

    def __init__(self, counter: Counter) -> None:
        self._counter = counter
        self._children: dict[str, Callable[[float], None]] = {}
        self._local = threading.local()

    def count(self, kind: str) -> None:
        try:
            pending = self._local.pending
        except AttributeError:
            pending = self._local.pending = {}
        pending[kind] = pending.get(kind, 0) + 1

    def flush(self) -> None:
        """Add this thread's gathered counts to the Prometheus counter."""
        pending = getattr(self._local, "pending", None)
        if not pending:
            return
        self._local.pending = {}
        for kind, n in pending.items():
            inc = self._children.get(kind)
            if inc is None:
                inc = self._children[kind] = self._counter.labels(type=kind).inc
            inc(n)


CLIENT_EVENT_COUNTER = EventCounter(CLIENT_EVENTS)
SERVER_EVENT_COUNTER = EventCounter(SERVER_EVENTS)


def flush_event_counts() -> None:
    """Move the calling thread's gathered event counts into the Prometheus counters."""
    CLIENT_EVENT_COUNTER.flush()
    SERVER_EVENT_COUNTER.flush()


def cache_observer(cache: str) -> Callable[[bool], None]:
    """An observer for ``engines.cache.ByteLRU`` counting its hits and misses under ``cache``."""
    hit = CACHE_LOOKUPS.labels(cache=cache, result="hit").inc
    miss = CACHE_LOOKUPS.labels(cache=cache, result="miss").inc
    return lambda is_hit: hit() if is_hit else miss()


def count_fingerprint_search(search: FingerprintSearch) -> None:
    """``CachingTranscriber(on_search=…)``: one fingerprint search into the counters above."""
    FINGERPRINT_SEARCHES.labels(result="hit" if search.hit else "miss").inc()
    FINGERPRINT_COMPARISONS.inc(search.comparisons)
    FINGERPRINT_CPU_SECONDS.inc(search.cpu_s)
    FINGERPRINT_SECONDS.inc(search.wall_s)


def _registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


# How long a scrape waits for the sibling workers to flush their event counts: a worker that does not
# answer in time (its loop stalled) is reported as its files hold it, as before the flush existed.
SIBLING_FLUSH_TIMEOUT_S = 0.5


async def metrics_handler(request: web.Request) -> web.Response:
    """``GET /metrics``: every metric above in the Prometheus text format. Under ``serve --workers N``
    the answering worker first asks each sibling, over its unix socket, to flush its gathered event
    counts (``mockengine_client_events_total``, ``mockengine_server_events_total``), so the sum holds
    every event counted before the scrape arrived, not only those of the last 100 ms timer. A request
    forwarded so (header ``X-Mockengine-Forwarded-By``) only flushes: 204, no body."""
    from mockengine.server.webrtc.siblings import FORWARDED, SIBLINGS, ask_siblings

    flush_event_counts()
    if FORWARDED in request.headers:
        return web.Response(status=204)
    siblings = request.app.get(SIBLINGS)
    if siblings is not None and siblings.count > 1:
        await ask_siblings(siblings, "GET", "/metrics", SIBLING_FLUSH_TIMEOUT_S)
    body = generate_latest(_registry())
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
