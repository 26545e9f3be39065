"""``GET /v1/realtime/translations?model=gpt-realtime-translate`` (a WebSocket) and
``POST /v1/realtime/translations/client_secrets``: Realtime translation sessions.

Source: openai-python 3.60 ``resources/realtime/translations/translations.py`` (the WebSocket URL
``{websocket_base_url}/realtime/translations?model=…`` and the client-secrets path) and
``types/realtime/realtime_translation_*.py``; the guide
https://developers.openai.com/api/docs/guides/realtime-translation. The session's behaviour (frames,
phrases, the identity "translation", ``elapsed_ms``) is :mod:`mockengine.realtime.translation`'s, and
docs/translation.md describes it for users.

The handshake reuses the voice-agent endpoint's parts: admission control and seats, the key policy
(``handshake``), ``ek_`` client secrets (``client_secrets``: a translation secret is minted by the same
store, refused when expired), per-session seeds (``?seed=``) and ids (``IdFactory``), whisper and piper
through the engine's executors and caches. Refusals follow the voice-agent endpoint: after the upgrade,
one ``error`` event and a close with 3000 (auth) or 4000 (request).

Client events are handled one at a time, in order, by one task (the reader hands them over through a
bounded queue, so a client that outruns whisper is held back by TCP, as the voice-agent endpoint's
reader does). That order is what makes a seeded session's events and audio repeat byte for byte: output
is tied to input frames, never to the wall clock.

What voice-agent sessions have and these share is the session shell
(:class:`~mockengine.server.session_shell.SessionShell`, written once for both): the maximum duration
(``--session-max-s``: the ``session_expired`` error and close 1001), the session faults (``faults/ws.py``'s
:class:`SessionFaults` filters every server event; the kinds a translation session takes are
``faults.spec.TRANSLATION_KINDS``, the others are refused), the journal and trace, the event counters of
``/metrics``, the close (1 s for the peer to take it, else the connection is dropped) and, on a
WebSocket, the frames out and the reader loop (a dead peer's fault, a socket error). Also shared: the
control endpoint's list (``realtime_faults.list_live``). ``--replay`` does not serve translation
sessions: they are refused with ``replay_not_supported``. WebRTC calls
(``/v1/realtime/translations/calls``) are ``webrtc/translation_call.py``, on the same
:class:`TranslationSession`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from functools import partial
from typing import Any

from aiohttp import WSMessage, WSMsgType, web

from mockengine.audio.pcm import InvalidAudio, decode_base64_audio, encode_base64_audio
from mockengine.engines.stt import Transcript
from mockengine.engines.tts import SpeechSegment
from mockengine.faults.spec import FaultSpec, translation_misfit
from mockengine.faults.state import FAULTS, FaultState
from mockengine.faults.ws import SessionFaults
from mockengine.ids import IdFactory
from mockengine.protocol import errors
from mockengine.protocol import server_events as se
from mockengine.protocol.client_events import check_event_id
from mockengine.protocol.codec import loads_strict
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.http_errors import error_response
from mockengine.protocol.schema_errors import json_type_name
from mockengine.realtime.translation import (
    CLIENT_EVENT_TYPES,
    OUTPUT_RATE_HZ,
    TRANSLATION_MODELS,
    FrameBuffer,
    OutputQueue,
    Phrase,
    PhraseSegmenter,
    default_translation_session,
    merge_translation_session,
    schedule_output,
    transcript_deltas,
    unsupported_translation_model,
)
from mockengine.server import metrics
from mockengine.server.client_secrets import (
    CLIENT_SECRETS,
    DEFAULT_TTL_S,
    resolve_client_secret,
    secret_request_body,
)
from mockengine.server.handshake import (
    REQUEST_CLOSE_CODE,
    SESSION_CREATED_DELAY_S,
    Refusal,
    api_key_from,
    auth_refusal,
)
from mockengine.server.realtime_faults import (
    HANDLE_HEADER,
    ShellActions,
    connection_faults,
    list_live,
    unlist_live,
)
from mockengine.server.resources import Resources
from mockengine.server.session_setup import (
    count_session,
    serve_seated,
    session_seed,
)
from mockengine.server.session_shell import (
    EXPIRED_CLOSE_CODE,
    SessionShell,
    WebSocketTransport,
    session_websocket,
)
from mockengine.server.state import JOURNAL, RESOURCES, TRACER
from mockengine.server.trace import Tracer, loggable_client_event

log = logging.getLogger("mockengine.translation")

TRANSLATION_VOICE = "marin"  # the service picks the voice itself; ours is fixed (one piper profile)
QUEUE_EVENTS = 64  # client events waiting for the session task before the reader stops reading
PCM = "audio/pcm"  # a translation session's audio, both ways (the journal's format)
ENDING_WAIT_S = 2.0  # how long a transport that closed waits for the session task's own close


class _Expire:
    """The session task's cue that the maximum duration is reached (queued ahead of nothing)."""


EXPIRE = _Expire()


def replay_refusal() -> Refusal:
    """``--replay`` answers voice-agent sessions from a recording; a translation session has no
    recorded counterpart, so it is refused rather than served live unannounced."""
    return Refusal(
        ProtocolError(
            "replay_not_supported",
            "This engine replays a recording (--replay), which serves voice-agent sessions only; "
            "translation sessions are not replayed.",
        ),
        REQUEST_CLOSE_CODE,
    )


def sideband_refusal() -> Refusal:
    """A sideband WebSocket (``?call_id=``) for a translation call: not served (neither openai-python
    3.60 nor openai-node 7.60 has one for translation calls)."""
    return Refusal(
        ProtocolError(
            "sideband_not_supported",
            "Sideband connections (?call_id=) are not served for translation calls.",
            "call_id",
        ),
        REQUEST_CLOSE_CODE,
    )


def translation_refusal(model: str | None, secret_type: str | None) -> Refusal | None:
    """The refusal of these connection parameters once the key is vetted: a secret minted for another
    kind of session, no model, or a model that is not a translation model (``invalid_model``; a
    voice-agent model is told to use ``/v1/realtime``)."""
    if secret_type is not None and secret_type != "translation":
        return Refusal(
            ProtocolError(
                "invalid_client_secret",
                f"This client secret was created for a '{secret_type}' session; translation sessions need "
                "one from POST /v1/realtime/translations/client_secrets.",
            ),
            REQUEST_CLOSE_CODE,
        )
    if not model:
        return Refusal(
            ProtocolError(
                "missing_model",
                "You must provide a model parameter, for example "
                "wss://api.openai.com/v1/realtime/translations?model=gpt-realtime-translate",
                "model",
            ),
            REQUEST_CLOSE_CODE,
        )
    if model not in TRANSLATION_MODELS:
        return Refusal(unsupported_translation_model(model, "model"), REQUEST_CLOSE_CODE)
    return None


async def translations_handler(request: web.Request) -> web.StreamResponse:
    return await serve_seated(request, _serve)


async def _serve(request: web.Request) -> web.StreamResponse:
    resources = request.app[RESOURCES]
    settings = resources.settings
    fault_specs = connection_faults(request, translation="websocket")
    if isinstance(fault_specs, web.StreamResponse):
        return fault_specs  # a refused upgrade (fault), or a ?fault= that does not parse or apply
    protocols = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    api_key = api_key_from(request.headers, protocols)
    secret, refusal = resolve_client_secret(request.app[CLIENT_SECRETS], api_key)
    model = request.query.get("model")
    if secret is not None and (secret.model or not model):
        model = secret.model
    if refusal is None and secret is None:
        refusal = auth_refusal(settings, api_key)
    if refusal is None:
        refusal = translation_refusal(
            model, None if secret is None else secret.session.get("type", "realtime")
        )
    if refusal is None and "call_id" in request.query:
        refusal = sideband_refusal()
    if refusal is None and settings.replay_dir is not None:
        refusal = replay_refusal()
    if refusal is not None and refusal.is_auth and settings.auth_failure == "http":
        return web.json_response(refusal.http_body(), status=401)
    try:
        seed = session_seed(request, settings.seed)
    except ProtocolError as exc:
        seed, refusal = settings.seed, refusal or Refusal(exc, REQUEST_CLOSE_CODE)
    ids = IdFactory(seed)
    ws = session_websocket(settings, web.WebSocketResponse)  # (aiohttp's own heartbeat, as before)
    config: dict[str, Any] | None = None
    if refusal is None:
        assert model is not None
        config = default_translation_session(ids.session(), model, int(time.time()) + settings.session_max_s)
        if secret is not None:
            config = merge_translation_session(config, secret.session.get("translation", {}), creating=True)
        handle = request.app[FAULTS].open_handle(config["id"])  # named in the 101, as voice-agent sessions
        ws.headers[HANDLE_HEADER] = handle
    try:
        await ws.prepare(request)
        if refusal is not None or config is None:
            assert refusal is not None
            await refusal.refuse(ws, ids.event())
            return ws
        count_session(request.app)
        await asyncio.sleep(SESSION_CREATED_DELAY_S)  # as the voice-agent endpoint (handshake)
        session = TranslationSocket(ws, config, ids, resources, request.transport)
        session.open_records(request.app, "websocket")
        live = session.list_live(request.app[FAULTS], fault_specs, handle, "websocket")
        try:
            await session.run()
        finally:
            unlist_live(request.app[FAULTS], live.faults, config["id"])
        return ws
    finally:
        if config is not None:  # never listed (the client left during the handshake): nothing to wait for
            request.app[FAULTS].opened(handle)


class TranslationSession(SessionShell):
    """One translation session, whatever its transport: the task that applies client messages in order
    (:meth:`_work`). A transport gives the shell's ``deliver``, ``close_transport`` and
    ``abort_transport``, :attr:`is_gone`, :meth:`close_with`, and feeds messages with :meth:`feed`: client
    text (an event's JSON), ``None`` for a binary message, or ``bytes`` of 24 kHz PCM16 from a WebRTC
    microphone (taken as an append's audio)."""

    def __init__(
        self,
        config: dict[str, Any],
        ids: IdFactory,
        resources: Resources,
        *,
        queue_events: int = QUEUE_EVENTS,
    ):
        # The journal and trace are the app's, once open_records() is called.
        self.init_shell(resources.settings, Tracer(None), None, str(config["id"]))
        self.config = config
        self.ids = ids
        self.resources = resources
        self.frames = FrameBuffer()
        self.segmenter = PhraseSegmenter()
        self.output = OutputQueue()
        self.said_input = False  # whether an input transcript delta was sent (the next needs a space)
        self.said_output = False
        self.closing = False  # session.close under way: it finishes even if the transport goes
        self.expiring = False  # the maximum duration is reached: the session task ends the session
        self.ending = False  # the server closed or dropped the transport (expiry, a fault)
        self._queue: asyncio.Queue[str | bytes | None | _Expire] = asyncio.Queue(queue_events)
        self.worker: asyncio.Task[None] | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self._idle = False  # the worker waits for a message (nothing of its own under way)

    async def close_with(self, code: int, reason: str) -> None:
        """End the transport from the server side with a WebSocket close ``code`` and ``reason``
        (expiry, a fault): what is queued goes unread."""
        raise NotImplementedError

    def abort(self) -> None:
        """Drop the transport without a goodbye (a fault, ``/mockengine/sessions/{id}/kill``)."""
        self.ending = True
        self.abort_transport()

    @property
    def is_gone(self) -> bool:
        """The transport is closed or lost."""
        raise NotImplementedError

    @property
    def is_transport_closed(self) -> bool:
        return self.is_gone

    def formats(self) -> tuple[str, str]:
        return PCM, PCM

    # -- what every session gets: records, faults, expiry --------------------------------------------

    def open_records(self, app: web.Application, transport: str) -> None:
        """The session's journal (``--journal-dir``) and trace (``--trace-dir``), when on; the journal's
        first line marks the session's kind (an engine record ``session_type``)."""
        self.journal = app[JOURNAL].open(self.session_id)
        self.tracer = app[TRACER]
        self.trace_name = self.tracer.take_name(self.session_id)  # its own file, though seeded ids repeat
        marker = {"type": "translation", "transport": transport, "model": self.config["model"]}
        if self.journal is not None:
            self.journal.engine("session_type", marker)
        if self.tracer.is_enabled:
            self.tracer.write(self.trace_name, "session_type", marker)

    def list_live(self, state: FaultState, specs: list[FaultSpec], handle: str | None, transport: str) -> Any:
        """Arm the connection's faults and list the session for the control endpoint (its
        ``LiveHandle``; the caller unlists it with ``unlist_live`` once the session ended)."""
        actions = TranslationActions(self, state)
        self.faults = SessionFaults(specs, actions)
        return list_live(
            state,
            self.faults,
            actions,
            self.session_id,
            journal=self.journal.path.name if self.journal is not None else None,
            handle=handle,
            transport=transport,
            session_type="translation",
            misfit=lambda spec: translation_misfit(spec, transport),
        )

    def expire(self) -> None:
        """The maximum duration is reached (``--session-max-s``), or a ``session_expired`` fault: as a
        voice-agent session, the ``session_expired`` error, then close 1001. Input not yet handled is
        dropped; a ``session.close`` under way finishes instead."""
        if self.closing or self.expiring or self.ending or self.worker is None or self.worker.done():
            return
        self.expiring = True
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait(EXPIRE)

    async def _expire(self) -> None:
        error = self.expiry_error()
        await self.send_error(error)
        await self.close_with(EXPIRED_CLOSE_CODE, error.message)

    # -- events out ----------------------------------------------------------------------------------

    async def send(self, event: dict[str, Any]) -> None:
        """One server event through the session's faults, counted, journaled and traced (the shell's
        ``send_filtered``, as the voice-agent writer sends)."""
        await self.send_filtered(event, None)

    async def send_error(self, error: ProtocolError) -> None:
        await self.send(se.error(self.ids.event(), error=error.payload()))

    def start(self) -> None:
        """``session.created``'s place is first: the worker sends it before any message's answer."""
        self.worker = asyncio.get_running_loop().create_task(self._work())
        self._expiry = self.arm_expiry()

    @property
    def accepts(self) -> bool:
        """Whether messages are still read (not after ``session.close`` or once the server ends the
        session, nor once the worker ended)."""
        ended = self.closing or self.expiring or self.ending
        return not ended and self.worker is not None and not self.worker.done()

    async def feed(self, message: str | bytes | None) -> None:
        """Queue one client message; waits while the queue is full (TCP then holds the client)."""
        if self.accepts:
            await self._queue.put(message)

    def feed_nowait(self, message: str | bytes | None) -> None:
        """:meth:`feed` for a transport that cannot wait (a WebRTC microphone: an unbounded queue)."""
        if self.accepts:
            self._queue.put_nowait(message)

    async def stop(self) -> None:
        """The transport is gone: a ``session.close`` under way finishes, the server's own end (expiry)
        gets a moment to finish its close, anything else is cancelled."""
        if self._expiry is not None:
            self._expiry.cancel()
        worker = self.worker
        if worker is None or worker.done():
            return
        if self.closing:
            await asyncio.shield(worker)
            return
        if (self.expiring or self.ending) and not self._idle:  # it is sending the end: let it finish
            await asyncio.wait([worker], timeout=ENDING_WAIT_S)
        worker.cancel()
        await asyncio.gather(worker, return_exceptions=True)

    def _record_client(self, raw: str | bytes | None) -> None:
        """Journal and trace one client message as the session takes it (microphone audio as the
        ``session.input_audio_buffer.append`` it stands for, as voice-agent calls journal theirs)."""
        if raw is None:
            return  # a binary message: its transport journaled its size
        if isinstance(raw, bytes):  # (not traced: 50 a second, as voice-agent calls' microphones)
            if self.journal is not None:
                audio = encode_base64_audio(raw)
                text = f'{{"type":"session.input_audio_buffer.append","audio":"{audio}"}}'
                self.journal.client_text(text, PCM, PCM)
            return
        if self.journal is not None:
            self.journal.client_text(raw, PCM, PCM)
        if self.tracer.is_enabled:
            self.tracer.write(self.trace_name, "client_event", loggable_client_event(raw))

    async def _parse(self, raw: str) -> dict[str, Any] | None:
        """A client event with a known ``type``, or None after sending the ``error`` the voice-agent
        endpoint sends for the same mistake (bad JSON, no ``type``, an unknown ``type``: ``response.create``
        and every other voice-agent event included, refused as ``invalid_value`` on ``type`` naming the
        three translation events)."""
        try:
            event = loads_strict(raw)
        except ValueError as exc:
            metrics.CLIENT_EVENT_COUNTER.count("invalid")
            await self.send_error(errors.invalid_json(str(exc)))
            return None
        if not isinstance(event, dict):
            metrics.CLIENT_EVENT_COUNTER.count("invalid")
            await self.send_error(errors.invalid_type("event", "an object", json_type_name(event)))
            return None
        event_id = event.get("event_id") if isinstance(event.get("event_id"), str) else None
        if "type" not in event:
            error = errors.missing_type()
        elif event["type"] not in CLIENT_EVENT_TYPES:
            error = errors.unknown_event_type(event["type"], CLIENT_EVENT_TYPES)
        else:
            try:
                check_event_id(event)
            except ProtocolError as exc:
                error = exc
            else:
                metrics.CLIENT_EVENT_COUNTER.count(event["type"])
                return event
        metrics.CLIENT_EVENT_COUNTER.count("invalid")
        error.event_id = event_id
        await self.send_error(error)
        return None

    async def _work(self) -> None:
        """Every client message in order: parse errors, ``error`` events and output keep the order of
        the client's events."""
        await self.send(se.session_created(self.ids.event(), session=self.config))
        try:
            while not self.ending:  # (the server closed the transport: what is queued goes unread)
                self._idle = True
                raw = await self._queue.get()
                self._idle = False
                if isinstance(raw, _Expire):
                    await self._expire()
                    return
                self._record_client(raw)
                if raw is None:
                    await self.send_error(self.binary_error())
                    continue
                if isinstance(raw, bytes):
                    for frame in self.frames.push(raw):
                        await self._frame(frame)
                    continue
                event = await self._parse(raw)
                if event is None:
                    continue
                if event["type"] == "session.close":
                    self.closing = True  # the reader takes nothing more
                try:
                    await self._apply(event)
                except ProtocolError as exc:
                    exc.event_id = event.get("event_id") if isinstance(event.get("event_id"), str) else None
                    await self.send_error(exc)
                if self.closing:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:  # an engine bug, never client input
            self.closing = True
            log.exception("translation session %s failed", self.config["id"])
            await self.send_error(
                ProtocolError("server_error", "The server had an error.", type="server_error")
            )
            await self.close_transport(1011, "internal error")
        finally:
            while not self._queue.empty():  # a reader waiting to queue one more message goes on
                self._queue.get_nowait()

    def binary_error(self) -> ProtocolError:
        return errors.binary_frame()

    async def _apply(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "session.update":
            if "session" not in event:
                raise errors.missing_parameter("session")
            self.config = merge_translation_session(self.config, event["session"])
            await self.send(se.session_updated(self.ids.event(), session=self.config))
        elif kind == "session.input_audio_buffer.append":
            audio = event.get("audio")
            if not isinstance(audio, str):
                if audio is None:
                    raise errors.missing_parameter("audio")
                raise errors.invalid_type("audio", "a string", json_type_name(audio))
            try:
                pcm = decode_base64_audio(audio)
            except InvalidAudio:
                raise errors.invalid_base64_audio() from None
            for frame in self.frames.push(pcm):
                await self._frame(frame)
        else:  # session.close
            await self._close()

    async def _frame(self, frame: bytes) -> None:
        """One input frame: it may end a phrase (whose output is queued), then it releases one chunk."""
        phrase = self.segmenter.push(frame)
        if phrase is not None:
            await self._phrase(phrase)
        await self._release()

    async def _phrase(self, phrase: Phrase) -> None:
        loop = asyncio.get_running_loop()
        resources = self.resources
        transcript: Transcript = await loop.run_in_executor(
            resources.stt_executor, partial(resources.transcriber.transcribe, phrase.pcm16, language="en")
        )
        words = transcript.text.strip()
        if not words:
            return
        if self.config["audio"]["input"]["transcription"] is not None:
            for delta in transcript_deltas(words, self.said_input):
                await self.send(
                    se.translation_input_transcript_delta(
                        self.ids.event(), delta=delta, elapsed_ms=self.segmenter.elapsed_ms
                    )
                )
            self.said_input = True
        segments: list[SpeechSegment] = await loop.run_in_executor(
            resources.tts_executor, partial(resources.synthesizer.synthesize, words, voice=TRANSLATION_VOICE)
        )
        spoken = [(s.text, s.pcm16) for s in segments if s.pcm16]
        if spoken:
            self.output.extend(schedule_output(spoken, self.said_output))
            self.said_output = True

    async def _release(self) -> None:
        chunk = self.output.take()
        if chunk is None:
            return
        elapsed_ms = self.segmenter.elapsed_ms
        if chunk.text:
            await self.send(
                se.translation_output_transcript_delta(
                    self.ids.event(), delta=chunk.text, elapsed_ms=elapsed_ms
                )
            )
        audio = encode_base64_audio(chunk.pcm16)
        await self.send(
            se.translation_output_audio_delta(
                self.ids.event(), delta=audio, elapsed_ms=elapsed_ms, sample_rate=OUTPUT_RATE_HZ
            )
        )

    async def _close(self) -> None:
        """``session.close``: the pending partial frame (padded with silence) and the open phrase are
        flushed, silent frames run until every output chunk is out, then ``session.closed`` and a normal
        close of the socket."""
        last = self.frames.flush()
        if last is not None:
            await self._frame(last)
        phrase = self.segmenter.flush()
        if phrase is not None:
            await self._phrase(phrase)
            await self._release()
        while len(self.output):
            self.segmenter.elapsed_ms += 200  # a silent frame of model time
            await self._release()
        await self.send(se.translation_session_closed(self.ids.event()))
        await self.close_transport(1000, "")


class TranslationActions(ShellActions):
    """:class:`~mockengine.faults.ws.SessionActions` on a translation session (what a fault does to it).
    It has no responses: ``fail_response`` is never asked for (``response_failed`` and ``rate_limits``
    are refused on translation sessions, ``faults.spec.translation_misfit``)."""

    def __init__(self, session: TranslationSession, state: FaultState) -> None:
        super().__init__(session, state)
        self.session = session

    async def close(self, code: int, reason: str) -> None:
        await self.session.close_with(code, reason)

    def kill(self) -> None:
        self.session.abort()

    def fail_response(self, response_id: str, error: dict[str, Any]) -> None:
        raise AssertionError("a translation session has no responses")

    def event_id(self) -> str:
        return self.session.ids.event()

    def model(self) -> str:
        return str(self.session.config["model"])

    def is_gone(self) -> bool:
        return self.session.is_gone


class TranslationSocket(WebSocketTransport, TranslationSession):
    """A translation session on a WebSocket: events are text frames both ways (the shell's
    :class:`WebSocketTransport`)."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        config: dict[str, Any],
        ids: IdFactory,
        resources: Resources,
        transport: asyncio.Transport | None = None,
    ):
        super().__init__(config, ids, resources)
        self.ws = ws
        self.transport = transport

    async def close_with(self, code: int, reason: str) -> None:
        self.ending = True
        await self.close_or_abort(code, reason)

    @property
    def is_transport_closed(self) -> bool:
        # Unlike a voice-agent session's, nothing is sent (or journaled) once the TCP connection closes.
        return self.is_gone

    def on_frame(self, msg: WSMessage) -> Awaitable[None] | None:
        if msg.type == WSMsgType.TEXT:
            return self.feed(msg.data)
        if msg.type == WSMsgType.BINARY:
            if self.journal is not None and self.accepts:
                self.journal.client_binary(len(msg.data))
            return self.feed(None)
        return None

    async def run(self) -> None:
        self.start()
        try:
            await self.read_frames()
        finally:
            try:
                await self.stop()
            finally:
                self.close_records()


async def create_translation_client_secret(request: web.Request) -> web.Response:
    """``POST /v1/realtime/translations/client_secrets`` with ``{session: {model, audio?},
    expires_after?}`` → 200 ``{value: "ek_…", expires_at, session}`` (``RealtimeTranslationClientSecret
    CreateResponse``; ``session.expires_at`` 0, as the voice-agent secrets show). 400 for a bad body
    (``session`` and its ``model`` are required, validated as ``session.update`` is), 401 for bad auth.
    The secret opens translation sessions only, until it expires."""
    body = await secret_request_body(request)
    if isinstance(body, web.Response):
        return body
    try:
        if "session" not in body:
            raise errors.missing_parameter("session")
        session = body["session"]
        if not isinstance(session, dict):
            raise errors.invalid_type("session", "an object", json_type_name(session))
        if "model" not in session:
            raise errors.missing_parameter("session.model")
        store = request.app[CLIENT_SECRETS]
        effective = merge_translation_session(
            default_translation_session(store.new_session_id(), session["model"], 0),
            session,
            creating=True,
        )
        ttl_s = body.get("expires_after", {}).get("seconds", DEFAULT_TTL_S)
        secret = store.mint_translation(session, effective["model"], ttl_s)
    except ProtocolError as exc:
        return error_response(400, exc.message, type=exc.type, param=exc.param, code=exc.code)
    return web.json_response({"value": secret.value, "expires_at": secret.expires_at, "session": effective})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/v1/realtime/translations", translations_handler)
    app.router.add_post("/v1/realtime/translations/client_secrets", create_translation_client_secret)
