"""Replay's aiohttp glue (the sans-IO part is ``mockengine.recordings``): ``install(app, settings)`` from
``create_app`` loads ``--replay``'s recording and answers chat completions from it; ``replaying(...)``
from the Realtime handler wraps a session that a recording answers. Both do nothing without one."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

from aiohttp import web

from mockengine.protocol import codec
from mockengine.protocol import server_events as se
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.session import RealtimeSession
from mockengine.recordings.chat_match import CHAT_PATH, ChatReplay
from mockengine.recordings.format import RecordingError
from mockengine.recordings.recording import Recording, load_recording
from mockengine.recordings.replay_session import TRACE_KIND, ReplayingSession
from mockengine.recordings.restamp import IdMap, Restamper
from mockengine.recordings.walk import ReplayWalk
from mockengine.server.metrics import REPLAY_DIVERGENCES
from mockengine.server.state import RESOURCES, TRACER
from mockengine.server.streamed import SSE_CONTENT_TYPE, send_streamed
from mockengine.settings import Settings

RECORDING = web.AppKey("recording", Recording)
CHAT_REPLAY = web.AppKey("chat_replay", ChatReplay)
SCENARIO_RECORDINGS = web.AppKey("scenario_recordings", dict)
RECORDING_QUERY = "recording"  # ?recording=realtime-0002 picks a recorded session by name
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
log = logging.getLogger("mockengine.replay")


def install(app: web.Application, settings: Settings) -> None:
    """With ``settings.replay_dir``: load the recording (RecordingError when it is not one) and answer
    chat completions from it. A scenario of kind ``recording`` whose directory holds no recording is a
    RecordingError too (naming the scenario file): a start-up mistake, like any other in a scenario."""
    app[SCENARIO_RECORDINGS] = loaded = {}
    for scenario in app[RESOURCES].scenarios.scenarios.values():
        if scenario.recording is not None and scenario.recording not in loaded:
            try:  # read once, here: its first session read it all again (hundreds of MB for a study)
                loaded[scenario.recording] = load_recording(scenario.recording)
            except RecordingError as exc:
                where = f"{scenario.source}: {scenario.recording_line}at $.recording"
                raise RecordingError(f"{where}: {exc}") from exc
    if not settings.replay_dir:
        return
    recording = load_recording(settings.replay_dir)
    app[RECORDING] = recording
    app[CHAT_REPLAY] = ChatReplay(recording.exchanges, settings.replay_speed, settings.replay_strict)
    app.middlewares.append(chat_replay_middleware)


def replays_websocket_sessions(app: web.Application) -> bool:
    """Whether ``--replay``'s recording answers this engine's WebSocket sessions (it holds at least one
    recorded session). Then a scenario name the engine has not loaded (``?scenario=NAME``, the model
    ``mockengine-NAME``: the recording was made against an engine that had it) is not refused: the
    recording answers, and only a fallback after a divergence is the default scenario's
    (docs/record-replay.md)."""
    recording = app.get(RECORDING)
    return recording is not None and bool(recording.session_paths)


def warn_unloaded_scenario(app: web.Application, name: str) -> None:
    """Log, once per session, that ``name`` is not loaded here and who answers a fallback instead."""
    default = app[RESOURCES].scenarios.default_scenario.name
    log.warning(
        "replay: scenario %r is not loaded here; the recording answers, a fallback after a divergence is "
        "scenario %r's (load it with --scenarios-dir to have it answer)",
        name,
        default,
    )


async def replaying(
    request: web.Request, ws: web.WebSocketResponse, session: RealtimeSession, seed: int | None
) -> RealtimeSession | None:
    """``session`` itself (no replay, or a recording that holds no WebSocket session), or (replay on) a
    :class:`ReplayingSession` shadowed by it, typed as what the runner drives (the two have the same
    surface). None when ``?recording=NAME`` names no recorded
    session: the client got an ``error`` (``unknown_recording``) and the close 4000, as for an unknown
    scenario."""
    settings = request.app[RESOURCES].settings
    try:
        recording = _recording_for(request.app, session)
        name = request.query.get(RECORDING_QUERY)
        if recording is None or (name is None and not recording.session_paths):
            # nothing recorded to replay (a recording of chat completions only): the engine serves the
            # session, as it serves WebRTC calls under a replay; refusing it named a mistake the
            # client did not make
            return session
        recorded = recording.session(name)
    except RecordingError as exc:
        error = ProtocolError("unknown_recording", str(exc), RECORDING_QUERY)
        await ws.send_str(codec.dumps(se.error(session.ids.event(), error=error.payload())))
        await ws.close(code=4000, message=b"invalid_request_error.unknown_recording")
        return None
    ids = IdMap(seed)
    now_ms = asyncio.get_running_loop().time() * 1000.0
    walk = ReplayWalk(recorded, ids, Restamper(recorded, ids, time.time()), settings.replay_speed, now_ms)
    counter = REPLAY_DIVERGENCES.labels(mode="strict" if settings.replay_strict else "fallback")
    replayed = ReplayingSession(session, walk, settings.replay_strict, lambda _divergence: counter.inc())
    return cast(RealtimeSession, replayed)


def _recording_for(app: web.Application, session: RealtimeSession) -> Recording | None:
    """``--replay``'s recording, else the one of the session's scenario when it is of kind
    ``recording`` (loaded at start-up by :func:`install`; on first use for a scenario added since), else
    None."""
    recording = app.get(RECORDING)
    if recording is not None:
        return recording
    directory = getattr(getattr(session.brain, "scenario", None), "recording", None)
    if not isinstance(directory, str):
        return None
    loaded = app[SCENARIO_RECORDINGS]
    if directory not in loaded:
        loaded[directory] = load_recording(directory)
    return cast(Recording, loaded[directory])


@web.middleware
async def chat_replay_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.method != "POST" or request.path != CHAT_PATH:
        return await handler(request)
    replay = request.app[CHAT_REPLAY]
    raw = await request.read()  # aiohttp keeps the body: the handler can read it again
    try:
        body = json.loads(raw)
    except ValueError:
        return await handler(request)  # the engine answers malformed JSON as usual
    exchange = replay.match(body)
    if exchange is not None:
        return await _answer_as_recorded(request, exchange, replay.speed)
    REPLAY_DIVERGENCES.labels(mode="strict" if replay.is_strict else "fallback").inc()
    data = {"request": "chat.completions", "recorded_requests": sum(map(len, replay.by_key.values()))}
    request.app[TRACER].write("chat-completions", TRACE_KIND, data)
    log.warning(
        "chat replay: no recorded request matches this one (%d messages)", len(body.get("messages") or [])
    )
    if replay.is_strict:
        message = (
            "Replay divergence: no recorded chat completion matches this request "
            "(messages and tools, normalised as in docs/record-replay.md)."
        )
        error = {
            "message": message,
            "type": "invalid_request_error",
            "param": "messages",
            "code": "replay_divergence",
        }
        return web.json_response({"error": error}, status=400)
    return await handler(request)


async def _answer_as_recorded(
    request: web.Request, exchange: dict[str, Any], speed: float
) -> web.StreamResponse:
    status = int(exchange.get("status", 200))
    if not exchange.get("stream"):
        body = exchange.get("response_body")
        if isinstance(body, str):
            return web.Response(text=body, status=status)
        return web.json_response(body, status=status)

    async def chunks() -> AsyncIterator[bytes]:
        previous_ms = None
        for chunk in exchange.get("chunks") or []:
            at_ms = float(chunk.get("ms", 0.0))
            if previous_ms is not None and speed > 0 and at_ms > previous_ms:
                await asyncio.sleep((at_ms - previous_ms) / speed / 1000.0)
            previous_ms = at_ms
            yield b"data: " + str(chunk.get("data", "")).encode() + b"\n\n"

    headers = {"Content-Type": SSE_CONTENT_TYPE}
    return await send_streamed(request, chunks(), headers, status=status, what="chat replay stream")
