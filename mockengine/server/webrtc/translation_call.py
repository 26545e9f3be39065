"""``POST /v1/realtime/translations/calls``: a translation session over WebRTC.

Source: the guide https://developers.openai.com/api/docs/guides/realtime-translation ("Use WebRTC when the
browser captures or plays audio. WebRTC sends source audio as a media track and receives translated
speech as a remote audio track"; the browser mints a secret with ``POST
/v1/realtime/translations/client_secrets`` and posts its SDP offer to
``/v1/realtime/translations/calls``). What the guide does not say is chosen as the voice-agent calls
do it (``calls.py``, reference §13): the offer as ``application/sdp`` or ``multipart/form-data`` with
``sdp`` and an optional ``session`` (a translation session-create request), auth by an API key or a
translation ``ek_`` secret, ``201`` with the answer and ``Location:
/v1/realtime/translations/calls/{call_id}``; the REST API's JSON errors (401, 400, 503).

The session is :class:`~mockengine.server.translation_ws.TranslationSession`: the client's events and the
server's (all but the audio) are JSON text on the ``oai-events`` data channel; the microphone's audio,
decoded to 24 kHz PCM16, is appended as ``session.input_audio_buffer.append`` audio would be; the
translated speech goes out on the answer's audio track at real-time pace (``ReplyTrack``), and
``session.output_audio.delta`` events are not sent on the channel (as voice-agent calls send no
``response.output_audio.delta``). ``session.close`` flushes as on the WebSocket; once ``session.closed``
is out and the track has played the rest, the peer connection is closed. Not here: faults, the
sideband WebSocket, hang-up by URL, ``serve --workers`` forwarding.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import pybase64
from aiohttp import web
from aiortc import RTCDataChannel, RTCPeerConnection
from aiortc.mediastreams import MediaStreamTrack

from mockengine.ids import IdFactory
from mockengine.protocol import codec, errors
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.http_errors import error_response
from mockengine.realtime.translation import (
    TRANSLATION_MODELS,
    default_translation_session,
    merge_translation_session,
)
from mockengine.rtc.channel_flow import ChannelSender
from mockengine.rtc.ice import offline_configuration
from mockengine.rtc.inbound import decode_inline
from mockengine.rtc.media import ReplyTrack
from mockengine.server import metrics
from mockengine.server.resources import Resources
from mockengine.server.session_setup import admission_refusal, release_seat, session_seed, take_seat
from mockengine.server.state import RESOURCES, STATS
from mockengine.server.translation_ws import TranslationSession
from mockengine.server.webrtc.call import EVENTS_CHANNEL, serve_events_channel
from mockengine.server.webrtc.calls import (
    CONNECT_TIMEOUT_S,
    BadCall,
    _answer,
    _authorize,
    _read_offer,
    session_json,
)

log = logging.getLogger("mockengine.webrtc")
TRACK_ID = "translation"  # the track's one "response": the speech of every phrase, back to back
DRAIN_POLL_S = 0.05
DRAIN_MAX_S = 60.0
TRANSLATION_CALLS = web.AppKey("translation_calls", dict)  # the serving tasks (as keys)


class TranslationCall(TranslationSession):
    """A translation session whose transport is an aiortc peer connection."""

    def __init__(self, pc: RTCPeerConnection, config: dict[str, Any], ids: IdFactory, resources: Resources):
        super().__init__(config, ids, resources, queue_events=0)  # the microphone cannot wait
        self.pc = pc
        self.channel: RTCDataChannel | None = None
        self.sender: ChannelSender | None = None
        self.channel_open = asyncio.Event()
        self.ended = asyncio.Event()
        self.track = ReplyTrack(lambda _: None, lambda _: None, dtx=resources.settings.webrtc_dtx)
        pc.on("datachannel", self._on_datachannel)
        pc.on("track", self._on_track)
        pc.on("connectionstatechange", self._on_connection_state)

    def _on_datachannel(self, channel: RTCDataChannel) -> None:
        if channel.label != EVENTS_CHANNEL or self.channel is not None:
            return
        self.channel = channel
        self.sender = serve_events_channel(channel, self._on_message, self.ended, self.channel_open)

    def _on_track(self, track: MediaStreamTrack) -> None:
        if track.kind != "audio":
            return
        for transceiver in self.pc.getTransceivers():
            if transceiver.receiver.track is track:
                decode_inline(transceiver.receiver, self.feed_nowait)

    def _on_connection_state(self) -> None:
        if self.pc.connectionState in ("failed", "closed"):
            self.ended.set()

    def _on_message(self, message: str | bytes) -> None:
        self.feed_nowait(None if isinstance(message, bytes) else message)

    def binary_error(self) -> ProtocolError:
        return errors.binary_channel_message()

    async def deliver(self, event: dict[str, Any]) -> None:
        if event["type"] == "session.output_audio.delta":
            self.track.enqueue(TRACK_ID, TRACK_ID, pybase64.b64decode(event["delta"]))
            return
        if not self.channel_open.is_set():
            waiting = asyncio.ensure_future(self.channel_open.wait())
            ending = asyncio.ensure_future(self.ended.wait())
            await asyncio.wait([waiting, ending], return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            ending.cancel()
        if self.sender is not None:
            await self.sender.send(codec.dumps(event))

    async def close_transport(self, failed: bool = False) -> None:
        """After ``session.closed``: the track plays what it holds, then the connection closes."""
        deadline = time.monotonic() + DRAIN_MAX_S
        while not self.track.is_drained and not self.ended.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(DRAIN_POLL_S)
        self.ended.set()

    async def run(self) -> None:
        self.start()
        watchdog = asyncio.get_running_loop().call_later(CONNECT_TIMEOUT_S, self._give_up_unopened)
        try:
            await self.ended.wait()
        finally:
            watchdog.cancel()
            await self.stop()
            self.track.stop()
            await self.pc.close()

    def _give_up_unopened(self) -> None:
        if not self.channel_open.is_set():
            log.warning("translation call: no data channel after %.0f s, ending it", CONNECT_TIMEOUT_S)
            self.ended.set()


def _translation_session(text: str | None) -> dict[str, Any]:
    """A call's ``session`` form field: a translation session-create request (``{}`` when absent)."""
    session = session_json(text)
    if not isinstance(session, dict):
        raise BadCall(
            400, "Invalid type for 'session': expected an object.", param="session", code="invalid_type"
        )
    return session


async def create_translation_call(request: web.Request) -> web.StreamResponse:
    """``POST /v1/realtime/translations/calls`` → 201 with the answer SDP (the module docstring)."""
    resources = request.app[RESOURCES]
    try:
        secret = _authorize(request)
        if secret is not None and secret.session.get("type") != "translation":
            raise BadCall(
                400,
                f"This client secret was created for a '{secret.session.get('type', 'realtime')}' session; "
                "translation calls need one from POST /v1/realtime/translations/client_secrets.",
                code="invalid_client_secret",
            )
        sdp, requested = await _read_offer(request, _translation_session)
        ids = IdFactory(session_seed(request, resources.settings.seed))
        model = requested.get("model") or request.query.get("model") or (secret.model if secret else None)
        model = model or TRANSLATION_MODELS[0]
        config = default_translation_session(
            ids.session(), model, int(time.time()) + resources.settings.session_max_s
        )
        if secret is not None:
            config = merge_translation_session(config, secret.session.get("translation", {}), creating=True)
        config = merge_translation_session(config, {**requested, "model": model}, creating=True)
    except BadCall as exc:
        return exc.response()
    except ProtocolError as exc:
        return error_response(400, exc.message, type=exc.type, param=exc.param, code=exc.code)
    refused = admission_refusal(request)
    if refused is not None:
        return refused
    take_seat(request.app)
    pc = RTCPeerConnection(offline_configuration())
    call = TranslationCall(pc, config, ids, resources)
    try:
        answer = await _answer(pc, sdp, call.track)
    except BadCall as exc:
        await pc.close()
        release_seat(request.app)
        return exc.response()
    request.app[STATS].sessions_total += 1
    metrics.SESSIONS.inc()
    call_id = ids.rtc_call()
    task = asyncio.get_running_loop().create_task(_serve(request.app, call))
    calls = request.app[TRANSLATION_CALLS]
    calls[task] = None
    task.add_done_callback(lambda done: calls.pop(done, None))
    return web.Response(
        status=201,
        body=answer.encode(),
        content_type="application/sdp",
        headers={"Location": f"/v1/realtime/translations/calls/{call_id}"},
    )


async def _serve(app: web.Application, call: TranslationCall) -> None:
    try:
        await call.run()
    except Exception:
        log.exception("translation call failed")
    finally:
        release_seat(app)


async def _calls_context(app: web.Application) -> AsyncIterator[None]:
    app[TRANSLATION_CALLS] = {}
    yield
    tasks: list[asyncio.Task[None]] = list(app[TRANSLATION_CALLS].keys())
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=5)


def add_routes(app: web.Application) -> None:
    app.cleanup_ctx.append(_calls_context)
    app.router.add_post("/v1/realtime/translations/calls", create_translation_call)
