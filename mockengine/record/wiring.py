"""Hooks that put replay into the engine: ``install(app, settings)`` from ``create_app`` and
``replaying(request, session, seed)`` from the Realtime handler. Both do nothing without a recording."""

from __future__ import annotations

import asyncio
import json
import time
from typing import cast

from aiohttp import web

from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.session import RealtimeSession
from mockengine.record.chat_replay import ChatReplay, chat_replay_middleware
from mockengine.record.format import RecordingError
from mockengine.record.recording import Recording, load_recording
from mockengine.record.replay_session import ReplayingSession
from mockengine.record.restamp import IdMap, Restamper
from mockengine.record.walk import ReplayWalk
from mockengine.server.state import RESOURCES
from mockengine.settings import Settings

RECORDING = web.AppKey("recording", Recording)
CHAT_REPLAY = web.AppKey("chat_replay", ChatReplay)
SCENARIO_RECORDINGS = web.AppKey("scenario_recordings", dict)
RECORDING_QUERY = "recording"  # ?recording=realtime-0002 picks a recorded session by name


def install(app: web.Application, settings: Settings) -> None:
    """With ``settings.replay_dir``: load the recording (RecordingError when it is not one) and answer
    chat completions from it."""
    app[SCENARIO_RECORDINGS] = {}
    if not settings.replay_dir:
        return
    recording = load_recording(settings.replay_dir)
    app[RECORDING] = recording
    app[CHAT_REPLAY] = ChatReplay(recording.exchanges, settings.replay_speed, settings.replay_strict)
    app.middlewares.append(chat_replay_middleware)


async def replaying(
    request: web.Request, ws: web.WebSocketResponse, session: RealtimeSession, seed: int | None
) -> RealtimeSession | None:
    """``session`` itself, or (replay on) a :class:`ReplayingSession` shadowed by it, typed as what the
    runner drives (the two have the same surface). None when ``?recording=NAME`` names no recorded
    session: the client got an ``error`` (``unknown_recording``) and the close 4000, as for an unknown
    scenario."""
    settings = request.app[RESOURCES].settings
    try:
        recording = _recording_for(request.app, session)
        if recording is None:
            return session
        recorded = recording.session(request.query.get(RECORDING_QUERY))
    except RecordingError as exc:
        error = ProtocolError("unknown_recording", str(exc), RECORDING_QUERY)
        await ws.send_str(
            json.dumps({"type": "error", "event_id": session.ids.event(), "error": error.payload()})
        )
        await ws.close(code=4000, message=b"invalid_request_error.unknown_recording")
        return None
    ids = IdMap(seed)
    now_ms = asyncio.get_running_loop().time() * 1000.0
    walk = ReplayWalk(recorded, ids, Restamper(recorded, ids, time.time()), settings.replay_speed, now_ms)
    return cast(RealtimeSession, ReplayingSession(session, walk, settings.replay_strict))


def _recording_for(app: web.Application, session: RealtimeSession) -> Recording | None:
    """``--replay``'s recording, else the one of the session's scenario when it is of kind
    ``recording`` (loaded on first use, then kept), else None."""
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
