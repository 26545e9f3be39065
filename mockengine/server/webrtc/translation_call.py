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
is out and the track has played the rest, the peer connection is closed.

As voice-agent calls: faults (``?fault=`` on the ``POST``, the profile, the control endpoint; the call
kinds ``refuse_call``, ``slow_call``, ``datachannel_close`` (the k-th ``session.output_audio.delta`` of
the session), ``media_stall``, ``server_hangup``, beside the WebSocket kinds a translation session
takes), hang-up by URL (``POST /v1/realtime/translations/calls/{call_id}/hangup``: neither SDK has a
method for it; the path mirrors the voice-agent call's), the control endpoint's list, the journal, the
maximum duration. Not here: the sideband WebSocket (no SDK has one for translation calls: refused with
``sideband_not_supported``), ``serve --workers`` forwarding.
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

from mockengine.faults.state import FAULTS
from mockengine.faults.ws import TRANSLATION_STREAM
from mockengine.ids import IdFactory
from mockengine.protocol import errors
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.http_errors import error_response
from mockengine.realtime.translation import (
    TRANSLATION_MODELS,
    default_translation_session,
    merge_translation_session,
)
from mockengine.rtc.channel_flow import ChannelSender
from mockengine.rtc.closing import PC_CLOSE_WAIT_S, close_peer
from mockengine.rtc.ice import offline_configuration
from mockengine.rtc.inbound import InlineDecoder, decode_inline
from mockengine.rtc.media import ReplyTrack
from mockengine.server.realtime_faults import HANDLE_HEADER, connection_faults, unlist_live
from mockengine.server.resources import Resources
from mockengine.server.session_setup import count_session, release_seat, session_seed
from mockengine.server.state import RESOURCES
from mockengine.server.translation_ws import TranslationSession, replay_refusal
from mockengine.server.webrtc.call import EVENTS_CHANNEL, channel_opened, serve_events_channel
from mockengine.server.webrtc.calls import (
    CONNECT_TIMEOUT_S,
    BadCall,
    FaultClock,
    _answer,
    _authorize,
    _new_call_id,
    _read_offer,
    hang_up,
    seat_call,
    session_json,
)
from mockengine.server.webrtc.faults import CallFaults

log = logging.getLogger("mockengine.webrtc")
TRACK_ID = "translation"  # the track's one "response": the speech of every phrase, back to back
DRAIN_POLL_S = 0.05
DRAIN_MAX_S = 60.0
TRANSLATION_CALLS = web.AppKey("translation_calls", dict)  # call id → TranslationCall, while it lasts
TRANSLATION_CLOCK = web.AppKey("translation_fault_clock", FaultClock)  # ticks their timed faults


class TranslationCall(TranslationSession):
    """A translation session whose transport is an aiortc peer connection."""

    def __init__(
        self,
        pc: RTCPeerConnection,
        config: dict[str, Any],
        ids: IdFactory,
        resources: Resources,
        call_id: str = "",
    ):
        super().__init__(config, ids, resources, queue_events=0)  # the microphone cannot wait
        self.pc = pc
        self.call_id = call_id
        self.loop = asyncio.get_running_loop()
        self.channel: RTCDataChannel | None = None
        self.sender: ChannelSender | None = None
        self.channel_open = asyncio.Event()
        self.ended = asyncio.Event()
        self.is_media_stalled = False
        self.microphones: list[InlineDecoder] = []  # the client's audio, decoded (rtc/inbound.py)
        self.track = ReplyTrack(lambda _: None, lambda _: None, dtx=resources.settings.webrtc_dtx)
        self.call_faults = CallFaults(self)
        self.serving: asyncio.Task[None] | None = None
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
                self.microphones.append(decode_inline(transceiver.receiver, self._on_microphone))

    def _on_microphone(self, pcm16: bytes) -> None:
        if not self.faults.is_dead:  # (stalled, the decoders hand on silence in real time)
            self.feed_nowait(pcm16)

    def _on_connection_state(self) -> None:
        if self.pc.connectionState in ("failed", "closed"):
            self.ended.set()

    def _on_message(self, message: str | bytes) -> None:
        if self.faults.is_dead:
            return
        if isinstance(message, bytes) and self.journal is not None and self.accepts:
            self.journal.client_binary(len(message))
        self.feed_nowait(None if isinstance(message, bytes) else message)

    def binary_error(self) -> ProtocolError:
        return errors.binary_channel_message()

    async def deliver(self, event: dict[str, Any], data: bytes) -> bool:
        if event["type"] == "session.output_audio.delta":
            if not self.is_media_stalled:
                self.track.enqueue(TRACK_ID, TRACK_ID, pybase64.b64decode(event["delta"]))
            self.call_faults.on_audio_delta(TRANSLATION_STREAM)
            return True
        if not self.channel_open.is_set():
            await channel_opened(self.channel_open, self.ended)
        if self.sender is None:
            return False
        return await self.sender.send(data.decode("utf-8"))  # a text message, as the WebSocket's frames

    async def close_transport(self, code: int, reason: str) -> None:
        """After ``session.closed`` (or an engine failure, 1011): the track plays what it holds, then the
        connection closes. A call has no close codes."""
        deadline = time.monotonic() + DRAIN_MAX_S
        while not self.track.is_drained and not self.ended.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(DRAIN_POLL_S)
        self.ended.set()

    async def close_with(self, code: int, reason: str) -> None:
        log.info("translation call %s: closing (%d %s)", self.call_id, code, reason)
        self.shutdown(code, reason)

    def abort_transport(self) -> None:
        self.shutdown(1006, "dropped")

    def shutdown(self, code: int, reason: str) -> None:
        """The server ends the call (hang-up by URL, a fault, expiry): the peer connection closes."""
        self.ending = True
        self.ended.set()

    @property
    def is_closing(self) -> bool:
        return self.ended.is_set() or self.closing or self.ending

    @property
    def is_gone(self) -> bool:
        return self.ended.is_set()

    def stall_media(self) -> None:
        """Media stops both ways (fault): nothing more on the track, the microphone's packets are lost.

        As on a voice-agent call (``call.CallRunner.stall_media``), lost packets are a sender that
        stopped sending: the session hears silence in real time, so the phrase being spoken ends after
        its pause and is translated, and the output the input paces goes on. (Ignored outright, as it
        was, the session heard nothing more: the open phrase and its output waited for the rest of the
        call.)"""
        self.is_media_stalled = True
        self.track.stall()
        for microphone in self.microphones:
            microphone.drop_frames()

    async def run(self) -> None:
        self.start()
        watchdog = asyncio.get_running_loop().call_later(CONNECT_TIMEOUT_S, self._give_up_unopened)
        try:
            await self.ended.wait()
        finally:
            watchdog.cancel()
            self.track.stop()
            self.call_faults.close()
            try:
                await self.stop()
            finally:
                self.close_records()
                await close_peer(self.pc, PC_CLOSE_WAIT_S)  # the call is freed after it

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
    if resources.settings.replay_dir is not None:
        refusal = replay_refusal().error
        return error_response(400, refusal.message, type=refusal.type, code=refusal.code)
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
    fault_specs = connection_faults(request, translation="webrtc")  # or a ?fault= that does not apply
    if isinstance(fault_specs, web.StreamResponse):
        return fault_specs
    refused = await seat_call(request, fault_specs)  # refuse_call, slow_call, admission control
    if refused is not None:
        return refused
    pc = RTCPeerConnection(offline_configuration())
    call_id = _new_call_id(request.app, session_seed(request, resources.settings.seed))
    call = TranslationCall(pc, config, ids, resources, call_id)
    try:
        answer = await _answer(pc, sdp, call.track)
    except BadCall as exc:
        await close_peer(pc, PC_CLOSE_WAIT_S)
        release_seat(request.app)
        return exc.response()
    count_session(request.app)
    call.open_records(request.app, "webrtc")
    live = call.list_live(request.app[FAULTS], fault_specs, None, "webrtc")
    calls = request.app[TRANSLATION_CALLS]
    calls[call_id] = call
    request.app[TRANSLATION_CLOCK].wake()
    call.serving = asyncio.get_running_loop().create_task(_serve(request.app, call))
    return web.Response(
        status=201,
        body=answer.encode(),
        content_type="application/sdp",
        headers={"Location": f"/v1/realtime/translations/calls/{call_id}", HANDLE_HEADER: live.handle},
    )


async def _serve(app: web.Application, call: TranslationCall) -> None:
    try:
        await call.run()
    except Exception:
        log.exception("translation call failed")
    finally:
        unlist_live(app[FAULTS], call.faults, call.session_id)
        if app[TRANSLATION_CALLS].get(call.call_id) is call:
            del app[TRANSLATION_CALLS][call.call_id]
        release_seat(app)


async def hangup_translation_call(request: web.Request) -> web.Response:
    """``POST /v1/realtime/translations/calls/{call_id}/hangup`` → 200; 401 for a bad key, 404 for a
    call that is not live. Neither openai-python 3.60 nor openai-node 7.60 has a method for it: the
    path mirrors the voice-agent call's ``/v1/realtime/calls/{call_id}/hangup`` (our choice)."""
    call_id = request.match_info["call_id"]
    return hang_up(request, call_id, request.app[TRANSLATION_CALLS].get(call_id))


async def _calls_context(app: web.Application) -> AsyncIterator[None]:
    calls: dict[str, TranslationCall] = {}
    app[TRANSLATION_CALLS] = calls
    app[TRANSLATION_CLOCK] = FaultClock(calls)  # media_stall, server_hangup
    yield
    app[TRANSLATION_CLOCK].stop()
    serving = [call.serving for call in calls.values() if call.serving is not None]
    for task in serving:
        task.cancel()
    if serving:
        await asyncio.wait(serving, timeout=5)


def add_routes(app: web.Application) -> None:
    app.cleanup_ctx.append(_calls_context)
    app.router.add_post("/v1/realtime/translations/calls", create_translation_call)
    app.router.add_post("/v1/realtime/translations/calls/{call_id}/hangup", hangup_translation_call)
