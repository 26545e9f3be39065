"""aiohttp handlers: ``POST /v1/audio/transcriptions``, ``POST /v1/audio/translations``,
``POST /v1/audio/speech`` (docs/audio.md).

Every route checks the bearer key first (``chat_routes.authenticate``), as the live service does. Audio
is decoded (PyAV) and transcribed by the engine's whisper in the stt executor the Realtime sessions
use; speech is spoken by piper and encoded in the tts executor: the event loop never waits on a model
or a codec. Each job is admitted as a spoken chat request's is (``admission.speech_admitted``): at most
one worker fewer than the executor has runs these requests' jobs, the others wait on the event loop, so
a burst of them never queues a Realtime session's next sentence or transcript behind all of them.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal, TypeVar

from aiohttp import web

from mockengine.chat import errors, speech, transcription
from mockengine.chat.audio import (
    BYTES_PER_MS,
    MAX_INPUT_AUDIO_MS,
    STREAMED_ENCODINGS,
    InputAudioTooLong,
    StreamEncoder,
    decode_audio_file,
)
from mockengine.chat.errors import ChatError
from mockengine.chat.transcription import TranscriptionRequest
from mockengine.engines.stt import Transcriber, Transcript
from mockengine.protocol.codec import loads_strict
from mockengine.server.admission import speech_admitted
from mockengine.server.chat_routes import authenticate, error_response, read_body
from mockengine.server.state import RESOURCES
from mockengine.server.streamed import SSE_CONTENT_TYPE, compact_json, send_streamed, sse_frame

log = logging.getLogger("mockengine.audio")
T = TypeVar("T")
# A known speaker's reference clip is decoded no further than this (they last 2-10 s).
REFERENCE_DECODE_MAX_MS = 60_000


async def _off_loop(request: web.Request, executor: Literal["stt", "tts"], work: Callable[[], T]) -> T:
    """``work`` in the sessions' ``stt`` or ``tts`` executor, once admitted."""
    resources = request.app[RESOURCES]
    pool = resources.stt_executor if executor == "stt" else resources.tts_executor
    async with speech_admitted(request.app, executor):
        return await asyncio.get_running_loop().run_in_executor(pool, work)


def _request_id(prefix: str, data: bytes) -> str:
    """A request id derived from what was answered (same request, same id)."""

    return "req_" + hashlib.blake2b(prefix.encode() + data, digest_size=16).hexdigest()


async def _form(request: web.Request) -> Any:
    """The multipart (or urlencoded) form; ChatError 413 past the body limit, 400 for a body that is
    not a form."""
    if not request.content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        # Wording ours: the live service reads these routes' bodies as multipart forms only.
        raise ChatError(
            400,
            f"Invalid Content-Type header ({request.content_type or 'none'}), expected multipart/form-data.",
        )
    try:
        return await request.post()
    except web.HTTPRequestEntityTooLarge as exc:
        raise ChatError(413, f"Request body too large: {exc.text}") from exc
    except (ValueError, AssertionError, web.RequestPayloadError) as exc:
        raise ChatError(400, f"Could not read the multipart form: {exc}", close_connection=True) from exc


def _file(form: Any) -> tuple[str, bytes]:
    field = form.get("file")
    if field is None:
        transcription.check_file(None, 0)
    if isinstance(field, str):  # a plain text field named file
        raise errors.missing_parameter("file")
    data = field.file.read()
    filename = field.filename or ""
    transcription.check_file(filename, len(data))
    return filename, data


def _hear(raw: bytes, wanted: TranscriptionRequest, transcriber: Transcriber) -> Transcript:
    try:
        pcm16 = decode_audio_file(raw)
    except InputAudioTooLong as exc:
        raise errors.input_audio_too_long("file", int(MAX_INPUT_AUDIO_MS / 1000)) from exc
    except ValueError as exc:
        log.debug("audio: undecodable file: %s", exc)
        raise transcription.undecodable_file() from exc
    transcription.check_chunking(wanted, len(pcm16) / BYTES_PER_MS)
    for index, reference in enumerate(wanted.speaker_references):
        _check_reference(index, reference)
    language = "en" if wanted.task == "translate" else wanted.whisper_language
    return transcriber.transcribe(pcm16, language=language, prompt=wanted.whisper_prompt)


def _check_reference(index: int, reference: bytes) -> None:
    """A known speaker's reference clip decodes, in any accepted container, and lasts 2-10 s."""
    param = f"known_speaker_references[{index}]"
    limit_ms = REFERENCE_DECODE_MAX_MS
    try:
        pcm16 = decode_audio_file(reference, max_ms=limit_ms)
    except InputAudioTooLong:
        transcription.check_speaker_reference(index, limit_ms + 1)
        return
    except ValueError as exc:
        log.debug("audio: undecodable speaker reference %d: %s", index, exc)
        raise ChatError(
            400, f"Invalid '{param}': the audio might be corrupted or unsupported.", param, "invalid_value"
        ) from exc
    transcription.check_speaker_reference(index, len(pcm16) / BYTES_PER_MS)


async def _transcribe(request: web.Request, task: str) -> web.StreamResponse:
    resources = request.app[RESOURCES]
    try:
        authenticate(request.headers, resources.settings)
        form = await _form(request)
        wanted = transcription.parse_request(form, task)
        _filename, raw = _file(form)
        work = functools.partial(_hear, raw, wanted, resources.transcriber)
        heard = await _off_loop(request, "stt", work)
    except ChatError as exc:
        return error_response(exc)
    headers = {"x-request-id": _request_id(task, raw)}
    log.debug(
        "audio %s model=%s format=%s words=%d",
        task,
        wanted.model,
        wanted.response_format,
        len(heard.text.split()),
    )
    if wanted.stream:
        frames = [sse_frame(event) for event in transcription.stream_events(wanted, heard, resources.tokens)]
        return await send_streamed(
            request, frames, {**headers, "Content-Type": SSE_CONTENT_TYPE}, what="audio stream"
        )
    content_type, body = transcription.rendered(wanted, heard, resources.tokens)
    if isinstance(body, dict):
        return web.json_response(body, headers=headers, dumps=compact_json)
    return web.Response(text=body, content_type=content_type, charset="utf-8", headers=headers)


async def transcriptions(request: web.Request) -> web.StreamResponse:
    """``POST /v1/audio/transcriptions``: the file's words in ``response_format``, or (``stream=true``,
    gpt models) ``transcript.text.delta`` / ``transcript.text.done`` server-sent events."""
    return await _transcribe(request, "transcribe")


async def translations(request: web.Request) -> web.StreamResponse:
    """``POST /v1/audio/translations`` (``whisper-1``): the file's speech in English. The engine's whisper
    decodes in English, which for English speech is its transcript (docs/audio.md, Translations)."""
    return await _transcribe(request, "translate")


def _speak(wanted: speech.SpeechRequest, resources: Any) -> tuple[bytes, bytes]:
    pcm16 = speech.speak(wanted, resources.synthesizer)
    return pcm16, speech.encoded(wanted, pcm16)


async def speech_handler(request: web.Request) -> web.StreamResponse:
    """``POST /v1/audio/speech``: the input spoken, as chunked audio bytes of ``response_format`` or as
    ``speech.audio.*`` server-sent events."""
    resources = request.app[RESOURCES]
    try:
        authenticate(request.headers, resources.settings)
        raw = await read_body(request)
        try:
            body = loads_strict(raw)
        except ValueError:
            raise errors.malformed_json() from None
        wanted = speech.parse_request(body)
        if wanted.response_format in SENTENCE_FORMATS and wanted.stream_format == "audio":
            return await _speak_by_sentence(request, wanted, _request_id("speech", raw))
        if wanted.response_format in SENTENCE_FORMATS:
            return await _speak_events_by_sentence(request, wanted, _request_id("speech", raw))
        work = functools.partial(_speak, wanted, resources)
        pcm16, audio = await _off_loop(request, "tts", work)
    except ChatError as exc:
        return error_response(exc)
    headers = {"x-request-id": _request_id("speech", raw)}
    if wanted.stream_format == "sse":
        events = speech.sse_events(audio, speech.usage(wanted, len(pcm16), resources.tokens))
        frames = [sse_frame(event) for event in events]
        return await send_streamed(
            request, frames, {**headers, "Content-Type": SSE_CONTENT_TYPE}, what="audio stream"
        )
    return await send_streamed(
        request, speech.pieces(audio), {**headers, "Content-Type": wanted.content_type}, what="audio stream"
    )


# Formats whose bytes leave sentence by sentence: raw PCM, and the encodings whose container is written
# front to back. WAV and FLAC are made whole (their headers hold the length).
SENTENCE_FORMATS = frozenset(("pcm", *STREAMED_ENCODINGS))


async def _sentence_audio(
    request: web.Request, wanted: speech.SpeechRequest
) -> AsyncIterator[tuple[bytes, int]]:
    """Each sentence's audio in ``wanted.response_format`` as soon as piper has spoken it (and the encoder
    has muxed it: an Ogg page may hold it back), then the encoder's last bytes; with each, the PCM16
    bytes spoken so far (for usage). A pipeline starts playing after the first sentence, as with the
    live service's chunked answer; before, an encoded answer was spoken and encoded whole first (4.3 s
    to the first byte for three sentences)."""
    resources = request.app[RESOURCES]
    encoder = StreamEncoder(wanted.response_format) if wanted.response_format != "pcm" else None
    spoken_bytes = 0

    def speak_and_encode(sentence: str) -> tuple[bytes, int]:
        pcm16 = speech.speak(wanted, resources.synthesizer, sentence)
        return (encoder.feed(pcm16) if encoder is not None else pcm16), len(pcm16)

    for sentence in speech.sentences(wanted):
        audio, size = await _off_loop(request, "tts", functools.partial(speak_and_encode, sentence))
        spoken_bytes += size
        yield audio, spoken_bytes
    if encoder is not None:
        yield await _off_loop(request, "tts", encoder.finish), spoken_bytes


async def _speak_by_sentence(
    request: web.Request, wanted: speech.SpeechRequest, request_id: str
) -> web.StreamResponse:
    """The audio bytes, chunked, sentence by sentence (``_sentence_audio``)."""

    async def pieces() -> AsyncIterator[bytes]:
        async for audio, _ in _sentence_audio(request, wanted):
            for piece in speech.pieces(audio):
                yield piece

    headers = {"x-request-id": request_id, "Content-Type": wanted.content_type}
    return await send_streamed(request, pieces(), headers, what="audio stream")


async def _speak_events_by_sentence(
    request: web.Request, wanted: speech.SpeechRequest, request_id: str
) -> web.StreamResponse:
    """``speech.audio.delta`` events sentence by sentence (``_sentence_audio``), then
    ``speech.audio.done`` with the usage of all of it: LiveKit's ``openai.TTS(response_format="pcm")``
    (SSE with gpt-4o-mini-tts) starts playing after the first sentence."""

    async def frames() -> AsyncIterator[bytes]:
        spoken_bytes = 0
        async for audio, spoken_so_far in _sentence_audio(request, wanted):
            spoken_bytes = spoken_so_far
            for event in speech.delta_events(audio):
                yield sse_frame(event)
        yield sse_frame(speech.done_event(speech.usage(wanted, spoken_bytes, request.app[RESOURCES].tokens)))

    headers = {"x-request-id": request_id, "Content-Type": SSE_CONTENT_TYPE}
    return await send_streamed(request, frames(), headers, what="audio stream")


def add_routes(app: web.Application) -> None:
    app.router.add_post("/v1/audio/transcriptions", transcriptions)
    app.router.add_post("/v1/audio/translations", translations)
    app.router.add_post("/v1/audio/speech", speech_handler)
