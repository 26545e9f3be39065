"""Admission control under load: refuse a new session cleanly when this process is saturated, and hold
REST requests' speech work back so that it never queues a session's.

A refused connection gets HTTP 503 *before* the WebSocket upgrade, with an OpenAI-shaped JSON body and
``Retry-After``, so a client (or a load balancer's retry) learns at once and no session already running
slows down. ``session_setup.admission_refusal`` is the one place that decides: the configured session limit
(``max_sessions``, issue 7), then ``saturation_refusal`` here, which looks at:

* ``admission_max_loop_lag_ms``: the event loop ran its 100 ms probe timer later than this on every
  probe of the last second (a sustained lag, not one slow callback; 0 = off);
* ``admission_max_queue``: engine calls (whisper, piper) waiting for a thread (0 = off).

REST requests (Chat Completions and Responses with audio, ``/v1/audio/*``) are not refused: their speech
jobs go through :func:`speech_admitted`, which lets at most one worker fewer than an executor has (at
least one) run them at once, the rest waiting on the event loop, so a session's next sentence or
transcript never waits behind more than one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator

from aiohttp import web

from mockengine.server.gc_watch import LOOP_LAG_PROBES
from mockengine.server.gc_watch import flush as flush_gc_pauses
from mockengine.server.metrics import EVENT_LOOP_LAG, REQUESTS_WAITING, SESSIONS_REFUSED, flush_event_counts
from mockengine.server.state import RESOURCES

PROBE_INTERVAL_S = 0.1
PROBES_KEPT = 10  # one second of probes
RETRY_AFTER_S = 2


class LoopLagMonitor:
    """Samples how late the event loop runs a timer (``recent_min_lag_ms``: the smallest of the last
    second's samples, so a single slow callback never counts as saturation)."""

    def __init__(self) -> None:
        self.samples_ms: deque[float] = deque(maxlen=PROBES_KEPT)

    @property
    def recent_min_lag_ms(self) -> float:
        return min(self.samples_ms) if len(self.samples_ms) == PROBES_KEPT else 0.0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            expected = loop.time() + PROBE_INTERVAL_S
            await asyncio.sleep(PROBE_INTERVAL_S)
            lag_s = max(0.0, loop.time() - expected)
            self.samples_ms.append(lag_s * 1000)
            EVENT_LOOP_LAG.set(lag_s)
            LOOP_LAG_PROBES.observe(lag_s)
            flush_gc_pauses()
            flush_event_counts()  # this loop's event counts reach /metrics at most 100 ms late


LOOP_LAG = web.AppKey("loop_lag", LoopLagMonitor)


async def monitor_context(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: run the loop-lag monitor while the application runs."""
    monitor = app[LOOP_LAG]
    task = asyncio.create_task(monitor.run())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def overloaded(reason: str, message: str) -> web.Response:
    """HTTP 503 with the body the OpenAI API uses for an overloaded server."""
    SESSIONS_REFUSED.labels(reason=reason).inc()
    body = {"error": {"message": message, "type": "server_error", "param": None, "code": reason}}
    return web.json_response(body, status=503, headers={"Retry-After": str(RETRY_AFTER_S)})


def saturation_refusal(app: web.Application) -> web.Response | None:
    """The 503 response for a new session when this process is saturated, else None."""
    settings = app[RESOURCES].settings
    lag_ms = app[LOOP_LAG].recent_min_lag_ms
    if settings.admission_max_loop_lag_ms and lag_ms > settings.admission_max_loop_lag_ms:
        return overloaded(
            "server_overloaded",
            f"The server is overloaded (event loop {lag_ms:.0f} ms behind). Please retry later.",
        )
    resources = app[RESOURCES]
    queued = resources.stt_executor.queue_depth + resources.tts_executor.queue_depth
    if settings.admission_max_queue and queued > settings.admission_max_queue:
        return overloaded(
            "server_overloaded",
            f"The server is overloaded ({queued} speech jobs waiting). Please retry later.",
        )
    return None


SPEECH_GATES = web.AppKey("speech_gates", dict)  # executor name ("stt", "tts") → asyncio.Semaphore


def install_speech_gates(app: web.Application) -> None:
    app[SPEECH_GATES] = {}


def _speech_gate(app: web.Application, executor: str) -> asyncio.Semaphore:
    gates: dict[str, asyncio.Semaphore] = app[SPEECH_GATES]
    if executor not in gates:
        settings = app[RESOURCES].settings
        workers = settings.tts_threads if executor == "tts" else 1  # whisper runs on one thread
        gates[executor] = asyncio.Semaphore(max(1, workers - 1))
    return gates[executor]


@contextlib.asynccontextmanager
async def speech_admitted(app: web.Application, executor: str) -> AsyncIterator[None]:
    """Hold a REST request's speech job (``executor``: ``"stt"`` or ``"tts"``, the executors the Realtime
    sessions share) until one of the gate's places is free: one worker fewer than the executor has, at
    least one. Waiting requests are counted in ``mockengine_requests_waiting{executor}``."""
    gate = _speech_gate(app, executor)
    if gate.locked():
        waiting = REQUESTS_WAITING.labels(executor=executor)
        waiting.inc()
        try:
            await gate.acquire()
        finally:
            waiting.dec()
    else:
        await gate.acquire()
    try:
        yield
    finally:
        gate.release()
