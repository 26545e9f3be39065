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

Not wired here (yet): faults (``?fault=``), the session journal, ``--replay``, the session's maximum
duration. WebRTC calls (``/v1/realtime/translations/calls``) are ``webrtc/translation_call.py``, on the
same :class:`TranslationSession`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from functools import partial
from typing import Any

from aiohttp import WSMsgType, web

from mockengine.audio.pcm import InvalidAudio, decode_base64_audio, encode_base64_audio
from mockengine.engines.stt import Transcript
from mockengine.engines.tts import SpeechSegment
from mockengine.ids import IdFactory
from mockengine.protocol import codec, errors
from mockengine.protocol import server_events as se
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
from mockengine.server.resources import Resources
from mockengine.server.session_setup import (
    serve_seated,
    session_seed,
)
from mockengine.server.state import RESOURCES, STATS

log = logging.getLogger("mockengine.translation")

TRANSLATION_VOICE = "marin"  # the service picks the voice itself; ours is fixed (one piper profile)
QUEUE_EVENTS = 64  # client events waiting for the session task before the reader stops reading


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
    if refusal is not None and refusal.is_auth and settings.auth_failure == "http":
        return web.json_response(refusal.http_body(), status=401)
    try:
        seed = session_seed(request, settings.seed)
    except ProtocolError as exc:
        seed, refusal = settings.seed, refusal or Refusal(exc, REQUEST_CLOSE_CODE)
    ids = IdFactory(seed)
    ws = web.WebSocketResponse(
        protocols=("realtime",),
        max_msg_size=settings.max_frame_bytes,
        heartbeat=settings.heartbeat_s if settings.heartbeat_s > 0 else None,
        compress=False,
    )
    await ws.prepare(request)
    if refusal is not None:
        await ws.send_str(codec.dumps(se.error(ids.event(), error=refusal.error.payload())))
        await ws.close(code=refusal.close_code, message=refusal.close_reason.encode())
        return ws
    assert model is not None
    config = default_translation_session(ids.session(), model, int(time.time()) + settings.session_max_s)
    if secret is not None:
        config = merge_translation_session(config, secret.session.get("translation", {}), creating=True)
    request.app[STATS].sessions_total += 1
    metrics.SESSIONS.inc()
    await asyncio.sleep(SESSION_CREATED_DELAY_S)  # as the voice-agent endpoint (handshake)
    await TranslationSocket(ws, config, ids, resources).run()
    return ws


class TranslationSession:
    """One translation session, whatever its transport: the task that applies client messages in order
    (:meth:`_work`). A transport gives :meth:`deliver` and :meth:`close_transport` and feeds messages
    with :meth:`feed`: client text (an event's JSON), ``None`` for a binary message, or ``bytes`` of
    24 kHz PCM16 from a WebRTC microphone (taken as an append's audio)."""

    def __init__(
        self,
        config: dict[str, Any],
        ids: IdFactory,
        resources: Resources,
        *,
        queue_events: int = QUEUE_EVENTS,
    ):
        self.config = config
        self.ids = ids
        self.resources = resources
        self.frames = FrameBuffer()
        self.segmenter = PhraseSegmenter()
        self.output = OutputQueue()
        self.said_input = False  # whether an input transcript delta was sent (the next needs a space)
        self.said_output = False
        self.closing = False
        self._queue: asyncio.Queue[str | bytes | None] = asyncio.Queue(queue_events)
        self.worker: asyncio.Task[None] | None = None

    async def deliver(self, event: dict[str, Any]) -> None:
        raise NotImplementedError

    async def close_transport(self, failed: bool = False) -> None:
        """End the transport: after ``session.closed``, or ``failed`` (an engine bug: 1011 on a socket)."""
        raise NotImplementedError

    async def send(self, event: dict[str, Any]) -> None:
        await self.deliver(event)

    async def send_error(self, error: ProtocolError) -> None:
        await self.send(se.error(self.ids.event(), error=error.payload()))

    def start(self) -> None:
        """``session.created``'s place is first: the worker sends it before any message's answer."""
        self.worker = asyncio.get_running_loop().create_task(self._work())

    @property
    def accepts(self) -> bool:
        """Whether messages are still read (not after ``session.close``, nor once the worker ended)."""
        return not self.closing and self.worker is not None and not self.worker.done()

    async def feed(self, message: str | bytes | None) -> None:
        """Queue one client message; waits while the queue is full (TCP then holds the client)."""
        if self.accepts:
            await self._queue.put(message)

    def feed_nowait(self, message: str | bytes | None) -> None:
        """:meth:`feed` for a transport that cannot wait (a WebRTC microphone: an unbounded queue)."""
        if self.accepts:
            self._queue.put_nowait(message)

    async def stop(self) -> None:
        """The transport is gone: a ``session.close`` under way finishes, anything else is cancelled."""
        worker = self.worker
        if worker is None or worker.done():
            return
        if self.closing:
            await asyncio.shield(worker)
        else:
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)

    async def _parse(self, raw: str) -> dict[str, Any] | None:
        """A client event with a known ``type``, or None after sending the ``error`` the voice-agent
        endpoint sends for the same mistake (bad JSON, no ``type``, an unknown ``type``: ``response.create``
        and every other voice-agent event included, refused as ``invalid_value`` on ``type`` naming the
        three translation events)."""
        try:
            event = loads_strict(raw)
        except ValueError as exc:
            await self.send_error(errors.invalid_json(str(exc)))
            return None
        if not isinstance(event, dict):
            await self.send_error(errors.invalid_type("event", "an object", json_type_name(event)))
            return None
        event_id = event.get("event_id") if isinstance(event.get("event_id"), str) else None
        if "type" not in event:
            error = errors.missing_type()
        elif event["type"] not in CLIENT_EVENT_TYPES:
            error = errors.unknown_event_type(event["type"], CLIENT_EVENT_TYPES)
        else:
            return event
        error.event_id = event_id
        await self.send_error(error)
        return None

    async def _work(self) -> None:
        """Every client message in order: parse errors, ``error`` events and output keep the order of
        the client's events."""
        await self.send(se.session_created(self.ids.event(), session=self.config))
        try:
            while True:
                raw = await self._queue.get()
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
            await self.close_transport(failed=True)
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
        await self.close_transport()


class TranslationSocket(TranslationSession):
    """A translation session on a WebSocket: events are text frames both ways."""

    def __init__(
        self, ws: web.WebSocketResponse, config: dict[str, Any], ids: IdFactory, resources: Resources
    ):
        super().__init__(config, ids, resources)
        self.ws = ws

    async def deliver(self, event: dict[str, Any]) -> None:
        if self.ws.closed:
            return
        with contextlib.suppress(ConnectionError):
            await self.ws.send_str(codec.dumps(event))

    async def close_transport(self, failed: bool = False) -> None:
        await self.ws.close(code=1011 if failed else 1000, message=b"internal error" if failed else b"")

    async def run(self) -> None:
        self.start()
        try:
            async for msg in self.ws:
                if msg.type == WSMsgType.TEXT:
                    await self.feed(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    await self.feed(None)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            await self.stop()


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
