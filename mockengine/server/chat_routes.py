"""aiohttp handlers: ``GET /v1/models``, ``GET /v1/models/{model}``, ``POST /v1/chat/completions``,
``POST /v1/responses``.

Every route checks the bearer key first (``authenticate``), as the live service does, so a refused key is
a 401 whatever the body. The brain for a completion comes from ``Resources.brain`` with the request's
model and key and the ``X-Mockengine-Scenario`` / ``X-Mockengine-Role`` headers as selection hints; an
unknown scenario name in the header is a 400 ``unknown_scenario``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import itertools
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from aiohttp import web

from mockengine.brain.image import describe_chat_image
from mockengine.brain.model import Brain
from mockengine.brain.selection import MODEL_PREFIX, UnknownScenario
from mockengine.chat import errors
from mockengine.chat.audio import (
    AUDIO_MODEL_PREFIXES,
    BYTES_PER_MS,
    MAX_INPUT_AUDIO_MS,
    AudioStore,
    InputAudioTooLong,
    decode_input_audio,
    input_audio_tokens,
    output_audio_tokens,
)
from mockengine.chat.completion import Completion, body_ids, complete, speak
from mockengine.chat.errors import ChatError
from mockengine.chat.request import ChatRequest, parse_request
from mockengine.chat.responses_request import in_responses_terms, load_body, resolve_references, translate
from mockengine.chat.responses_shaping import shape_response
from mockengine.chat.responses_store import ResponseStore, StoredResponse, listed_input_items
from mockengine.chat.speech import SPEECH_MODELS
from mockengine.chat.transcription import TRANSCRIBE_MODELS
from mockengine.engines.stt import Transcriber
from mockengine.ids import IdFactory
from mockengine.protocol.session_schema import TRANSCRIPTION_MODELS
from mockengine.server.admission import speech_admitted
from mockengine.server.chat_models import check_chat_model
from mockengine.server.client_secrets import SECRET_PREFIX
from mockengine.server.handshake import key_accepted
from mockengine.server.state import RESOURCES, TRACER
from mockengine.server.streamed import SSE_CONTENT_TYPE, compact_json, send_streamed, sse_frame
from mockengine.server.trace import Tracer
from mockengine.settings import Settings

T = TypeVar("T")
log = logging.getLogger("mockengine.chat")

# Listed first by GET /v1/models: HRP's connection test uses the first id as a text agent's model name,
# so it must be a chat model. These are the ones listed; /v1/chat/completions serves every OpenAI chat
# model family and the scenario models (server/chat_models.py).
CHAT_MODELS = (
    "gpt-4o-mini",
    "gpt-4o",
    "gpt-4.1-mini",
    "gpt-4.1",
    "gpt-4.1-nano",
    "gpt-5-mini",
    "gpt-5",
    "gpt-5-nano",
)
SCENARIO_HEADER = "X-Mockengine-Scenario"
ROLE_HEADER = "X-Mockengine-Role"
TRACE_NAME = "chat-completions"  # the trace file (``<trace_dir>/chat-completions.jsonl``)
RESPONSES_TRACE_NAME = "responses"  # ``<trace_dir>/responses.jsonl``
TOO_DEEP_TO_TRACE = "<nested too deeply to trace>"
MODEL_IDS = web.AppKey("chat_model_ids", tuple)
# The audio models the engine serves, listed after the realtime ones as the live list has them: apps and
# gateways look ids up (models.retrieve("whisper-1")) before using /v1/audio/* or audio in chat.
AUDIO_MODELS = tuple(
    dict.fromkeys((*TRANSCRIBE_MODELS, *TRANSCRIPTION_MODELS, *SPEECH_MODELS, *AUDIO_MODEL_PREFIXES))
)
RESPONSE_STORE = web.AppKey("response_store", ResponseStore)  # for previous_response_id
AUDIO_STORE = web.AppKey("chat_audio_store", AudioStore)  # audio ids a later message may name


def authenticate(headers: Mapping[str, str], settings: Settings) -> str:
    """The caller's bearer key, or ChatError 401: missing/empty key, a key the engine's key policy
    (``handshake.key_accepted``: any non-empty key unless keys are configured) refuses, or an ``ek_``
    client secret. A client secret "grants access to the Realtime API" (openai-python's
    ``realtime.client_secrets.create``; the beta types: "to authenticate connections to the Realtime
    API"): these REST routes refuse it as minting secrets does (``client_secrets.rest_key_error``); the
    live wording of that refusal is not public."""
    auth = headers.get("Authorization", "")
    scheme, _, key = auth.partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        raise errors.missing_api_key()
    if key.startswith(SECRET_PREFIX) or not key_accepted(settings, key):
        raise errors.incorrect_api_key(key)
    return key


def error_response(error: ChatError) -> web.Response:
    """The OpenAI-shaped error body at its status, with an ``x-request-id`` of its own (``req_`` + 32 hex
    digits, as every live response carries one; the SDK's ``APIStatusError.request_id``)."""
    headers = {"x-request-id": "req_" + secrets.token_hex(16)}
    response = web.json_response(error.body(), status=error.status, headers=headers)
    if error.close_connection:
        response.force_close()
    return response


def _model(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "mockengine"}


async def list_models(request: web.Request) -> web.Response:
    """``GET /v1/models``: the OpenAI list shape, chat models first, then the realtime models."""
    try:
        authenticate(request.headers, request.app[RESOURCES].settings)
    except ChatError as exc:
        return error_response(exc)
    data = [_model(model_id) for model_id in _model_ids(request.app)]
    return web.json_response({"object": "list", "data": data})


def _model_ids(app: web.Application) -> list[str]:
    """CHAT_MODELS, the realtime models, then ``mockengine-NAME`` for every loaded scenario (a model
    name that selects that scenario)."""
    scenarios = [MODEL_PREFIX + name for name in app[RESOURCES].scenarios.names()]
    return [*app[MODEL_IDS], *scenarios]


async def retrieve_model(request: web.Request) -> web.Response:
    """``GET /v1/models/{model}``: one listed model, else 404 ``model_not_found``."""
    model_id = request.match_info["model"]
    try:
        authenticate(request.headers, request.app[RESOURCES].settings)
        if model_id not in _model_ids(request.app):
            raise errors.model_not_found(model_id)
    except ChatError as exc:
        return error_response(exc)
    return web.json_response(_model(model_id))


async def chat_completions(request: web.Request) -> web.StreamResponse:
    """``POST /v1/chat/completions``: a ``chat.completion`` body, or an SSE stream of chunks.

    With ``--trace-dir`` each request becomes one line of ``chat-completions.jsonl`` there: the request,
    the brain's rule per choice and the answer (or the error)."""
    resources = request.app[RESOURCES]
    tracer = request.app[TRACER]
    raw: bytes | None = None
    try:
        key = authenticate(request.headers, resources.settings)
        raw = await read_body(request)
        parsed = await _checked(request, raw, parse_request, raw)
        _check_model(request, parsed.model)  # before the audio is heard: a refused request costs nothing
        chat = await hear(request, recall(request.app[AUDIO_STORE], parsed))
        completion = await speak_completion(request, chat, await decide(request, chat, key))
    except ChatError as exc:
        return _refuse(tracer, raw, exc)
    for choice in completion.choices:
        if choice.audio is not None:
            request.app[AUDIO_STORE].put(choice.audio)
    log.debug("chat %s model=%s rules=%s", completion.envelope.id, chat.model, ",".join(completion.rules))
    body = completion.body()
    if tracer.is_enabled:
        trace = {
            "request": elide_data_urls(chat.body),
            "rules": completion.rules,
            "response": elide_data_urls(body),
        }
        tracer.write(TRACE_NAME, "chat.completion", trace)
    headers = {"x-request-id": "req_" + completion.envelope.id.removeprefix("chatcmpl-")}
    if not chat.stream:
        return web.json_response(body, headers=headers, dumps=compact_json)
    frames = (sse_frame(chunk) for chunk in completion.chunks(chat))
    return await send_streamed(
        request,
        itertools.chain(frames, [b"data: [DONE]\n\n"]),
        {**headers, "Content-Type": SSE_CONTENT_TYPE},
        what="chat stream",
    )


async def responses(request: web.Request) -> web.StreamResponse:
    """``POST /v1/responses`` (the Responses API): the request is translated into a chat request
    (``chat.responses_request``), decided as ``/v1/chat/completions`` decides one, and shaped as a
    ``response`` object or its SSE stream of ``response.*`` events (``chat.responses_shaping``). Key
    policy, faults, brain selection and traces (``responses.jsonl``) as for chat. Each response is kept
    (unless ``store: false``) for a later ``previous_response_id`` (``chat.responses_store``)."""
    resources = request.app[RESOURCES]
    tracer = request.app[TRACER]
    raw: bytes | None = None
    try:
        key = authenticate(request.headers, resources.settings)
        raw = await read_body(request)
        store = request.app[RESPONSE_STORE]
        body = resolve_references(load_body(raw), store.item)
        previous = body.get("previous_response_id")
        history = store.get(previous) if isinstance(previous, str) else None
        wanted = await _checked(request, raw, translate, body, history)
        chat = wanted.chat
        _check_model(request, chat.model)
        ids = body_ids(wanted.body, resources.settings.seed)
        try:
            completion = await decide(request, chat, key, ids)
        except ChatError as exc:  # e.g. an image that is none, the context window: named in Responses terms
            raise in_responses_terms(exc, wanted.origins) from None
    except ChatError as exc:
        return _refuse(tracer, raw, exc, RESPONSES_TRACE_NAME)
    shaped = shape_response(wanted, completion)
    if wanted.body.get("store") is not False:
        # Items given without ids get them now, and keep them in the responses that follow this one.
        inputs = listed_input_items(wanted.items, ids)
        conversation = (*inputs, *shaped.body["output"])
        request.app[RESPONSE_STORE].put(shaped.id, conversation, len(raw), body=shaped.body, inputs=inputs)
    log.debug("responses %s model=%s rules=%s", shaped.id, chat.model, ",".join(completion.rules))
    if tracer.is_enabled:
        trace = {"request": elide_data_urls(wanted.body), "rules": completion.rules, "response": shaped.body}
        tracer.write(RESPONSES_TRACE_NAME, "response", trace)
    headers = {"x-request-id": "req_" + shaped.id.removeprefix("resp_")[:32]}
    if not wanted.stream:
        return web.json_response(shaped.body, headers=headers, dumps=compact_json)
    frames = (
        f"event: {event['type']}\ndata: {compact_json(event)}\n\n".encode()
        for event in shaped.events(obfuscate=wanted.include_obfuscation)
    )
    return await send_streamed(
        request, frames, {**headers, "Content-Type": SSE_CONTENT_TYPE}, what="responses stream"
    )


async def retrieve_response(request: web.Request) -> web.Response:
    """``GET /v1/responses/{id}``: the kept ``response`` object (as it was when it completed); 404 for
    one not kept (``store: false``, forgotten, deleted, another worker's). ``stream=true`` (replaying
    the events) is refused as not supported."""
    try:
        authenticate(request.headers, request.app[RESOURCES].settings)
        if request.query.get("stream", "").lower() == "true":
            raise errors.unsupported_by_mockengine("stream", "replaying a stored response's events")
        kept = _kept_response(request)
    except ChatError as exc:
        return error_response(exc)
    return web.json_response(kept.body, dumps=compact_json)


async def delete_response(request: web.Request) -> web.Response:
    """``DELETE /v1/responses/{id}``: ``{"id", "object": "response", "deleted": true}``; 404 for one not
    kept. A deleted response can no longer be continued (``previous_response_id``)."""
    try:
        authenticate(request.headers, request.app[RESOURCES].settings)
        _kept_response(request)
    except ChatError as exc:
        return error_response(exc)
    response_id = request.match_info["response_id"]
    request.app[RESPONSE_STORE].delete(response_id)
    return web.json_response({"id": response_id, "object": "response", "deleted": True})


async def list_input_items(request: web.Request) -> web.Response:
    """``GET /v1/responses/{id}/input_items``: the response's input items (the previous responses'
    conversation first, then its own input), as an ``openai.types.responses.ResponseItemList`` page:
    ``order`` ``desc`` (default) or ``asc``, ``limit`` 1–100 (default 20), ``after`` an item id of the
    list; ``include`` is accepted and changes nothing. 404 for a response not kept."""
    try:
        authenticate(request.headers, request.app[RESOURCES].settings)
        kept = _kept_response(request)
        order = request.query.get("order", "desc")
        if order not in ("asc", "desc"):
            raise errors.invalid_enum("order", order, ("asc", "desc"))
        limit = _query_int(request, "limit", 20, 1, 100)
        items = list(kept.inputs if order == "asc" else reversed(kept.inputs))
        after = request.query.get("after")
        if after is not None:
            ids = [item["id"] for item in items]
            items = items[ids.index(after) + 1 :] if after in ids else []
    except ChatError as exc:
        return error_response(exc)
    page = items[:limit]
    body = {
        "object": "list",
        "data": page,
        "first_id": page[0]["id"] if page else None,
        "last_id": page[-1]["id"] if page else None,
        "has_more": len(items) > limit,
    }
    return web.json_response(body, dumps=compact_json)


def _kept_response(request: web.Request) -> StoredResponse:
    response_id = request.match_info["response_id"]
    kept = request.app[RESPONSE_STORE].stored(response_id)
    if kept is None or kept.body is None:
        raise errors.response_not_found(response_id)
    return kept


def _query_int(request: web.Request, name: str, default: int, minimum: int, maximum: int) -> int:
    """An integer query parameter within [minimum, maximum]: ChatError 400 in the live words otherwise."""
    given = request.query.get(name)
    if given is None:
        return default
    try:
        value = int(given)
    except ValueError:
        raise errors.invalid_integer(name, given) from None
    if value < minimum:
        raise errors.integer_below_minimum(name, minimum, value)
    if value > maximum:
        raise errors.integer_above_maximum(name, maximum, value)
    return value


async def read_body(request: web.Request) -> bytes:
    """The request body; ChatError 413 past aiohttp's ``client_max_size``, 400 for a body that cannot be
    read (a ``Content-Encoding`` it is not in, a broken chunked encoding)."""
    try:
        return await request.read()
    except web.HTTPRequestEntityTooLarge as exc:
        # Wording ours: the body exceeds what this server accepts (aiohttp's client_max_size).
        raise ChatError(413, f"Request body too large: {exc.text}") from exc
    except web.RequestPayloadError as exc:
        # Wording ours, with aiohttp's reason (e.g. "Can not decode content-encoding: gzip").
        reason = " ".join(str(exc).split()).removeprefix("400, message: ")
        message = f"Could not read the request body: {reason}"
        raise ChatError(400, message, close_connection=True) from exc


def recall(store: AudioStore, chat: ChatRequest) -> ChatRequest:
    """``chat`` with each assistant message that names an earlier answer's audio standing for that
    answer's transcript (its audio counted as prompt audio tokens); ChatError 400 for an id the engine
    did not give or that expired."""
    recalled: dict[int, str] = {}
    audio_tokens = 0
    for index, audio_id in chat.audio_references():
        heard = store.get(audio_id)
        if heard is None:
            raise errors.unknown_audio_id(index, audio_id)
        recalled[index] = heard.transcript
        audio_tokens += output_audio_tokens(heard.duration_ms)
    if not recalled:
        return chat
    return dataclasses.replace(
        chat, recalled=recalled, prompt_audio_tokens=chat.prompt_audio_tokens + audio_tokens
    )


async def hear(request: web.Request, chat: ChatRequest) -> ChatRequest:
    """``chat`` with the words of each user ``input_audio`` part, decoded (PyAV) and transcribed by the
    engine's whisper off the event loop, in the stt executor the Realtime sessions use; ChatError 400
    for audio that cannot be decoded."""
    parts = list(chat.input_audio_parts())
    if not parts:
        return chat
    resources = request.app[RESOURCES]
    work = functools.partial(_transcribe_parts, parts, resources.transcriber)
    async with speech_admitted(request.app, "stt"):
        heard, duration_ms = await asyncio.get_running_loop().run_in_executor(resources.stt_executor, work)
    tokens = chat.prompt_audio_tokens + sum(input_audio_tokens(ms) for ms in duration_ms)
    return dataclasses.replace(chat, heard=heard, prompt_audio_tokens=tokens)


def _transcribe_parts(
    parts: list[tuple[int, int, dict[str, Any]]], transcriber: Transcriber
) -> tuple[dict[tuple[int, int], str], list[float]]:
    heard: dict[tuple[int, int], str] = {}
    durations: list[float] = []
    left_ms = float(MAX_INPUT_AUDIO_MS)
    for index, number, audio in parts:
        try:
            pcm16 = decode_input_audio(audio["data"], audio["format"], max_ms=left_ms)
        except InputAudioTooLong as exc:
            param = f"messages[{index}].content[{number}].input_audio"
            raise errors.input_audio_too_long(param, MAX_INPUT_AUDIO_MS // 1000) from exc
        except ValueError as exc:
            log.debug("chat: undecodable input audio: %s", exc)
            param = f"messages[{index}].content[{number}].input_audio"
            raise errors.undecodable_input_audio(param) from exc
        heard[(index, number)] = transcriber.transcribe(pcm16).text
        durations.append(len(pcm16) / BYTES_PER_MS)
        left_ms -= durations[-1]
    return heard, durations


async def speak_completion(request: web.Request, chat: ChatRequest, completion: Completion) -> Completion:
    """``completion`` spoken (``chat.completion.speak``) off the event loop, in the tts executor."""
    if chat.audio is None:
        return completion
    resources = request.app[RESOURCES]
    work = functools.partial(speak, completion, chat, resources.synthesizer)
    async with speech_admitted(request.app, "tts"):
        return await asyncio.get_running_loop().run_in_executor(resources.tts_executor, work)


# A body up to this size is checked on the event loop (a few milliseconds at most, and a resent
# conversation's messages are remembered as checked); a larger one, in the brain executor: a 1 MB
# history of 20,000 new messages takes about 2 s to check (tests/integration/test_chat_parse_off_loop.py).
CHECKED_ON_LOOP_BYTES = 16 * 1024


async def _checked(request: web.Request, raw: bytes, check: Callable[..., T], *args: Any) -> T:
    """``check(*args)`` (a request's parse and validation; raises ChatError), off the event loop in the
    brain executor when ``raw`` is larger than CHECKED_ON_LOOP_BYTES, so other requests, sessions and
    /healthz go on meanwhile."""
    if len(raw) <= CHECKED_ON_LOOP_BYTES:
        return check(*args)
    executor = request.app[RESOURCES].brain_executor
    return await asyncio.get_running_loop().run_in_executor(executor, functools.partial(check, *args))


async def decide(
    request: web.Request, chat: ChatRequest, key: str, ids: IdFactory | None = None
) -> Completion:
    """The brain's completion of ``chat``, decided off the event loop (other sessions' audio and
    /healthz go on); ``ids``: the id factory (default: from the chat request)."""
    resources = request.app[RESOURCES]
    brain = _brain(request, chat, key)
    work = functools.partial(
        complete,
        chat,
        brain,
        tokens=resources.tokens,
        describe_image=describe_chat_image,
        server_seed=resources.settings.seed,
        ids=ids,
    )
    return await asyncio.get_running_loop().run_in_executor(resources.brain_executor, work)


def _refuse(
    tracer: Tracer, raw: bytes | None, error: ChatError, trace_name: str = TRACE_NAME
) -> web.Response:
    """The error response; traced with the start of the body that caused it (first 2000 bytes)."""
    if tracer.is_enabled:
        request = raw[:2000].decode("utf-8", "replace") if raw is not None else None
        kind = "chat.error" if trace_name == TRACE_NAME else "response.error"
        tracer.write(trace_name, kind, {"request": request, "status": error.status, **error.body()})
    return error_response(error)


def elide_data_urls(value: Any) -> Any:
    """``value`` with every long ``data:`` URL and base64 audio replaced by its size, for traces; a value
    nested too deeply to walk (a body the JSON parser took can be) is traced as a note."""
    try:
        return _elide(value)
    except RecursionError:
        return TOO_DEEP_TO_TRACE


def _elide(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("data:") and len(value) > 100:
        return f"<data URL, {len(value)} chars>"
    if isinstance(value, list):
        return [_elide(v) for v in value]
    if isinstance(value, dict):
        return {k: _elided_audio(v) if k == "data" else _elide(v) for k, v in value.items()}
    return value


def _elided_audio(value: Any) -> Any:
    """Base64 audio (``input_audio.data``, ``message.audio.data``) as its size."""
    if isinstance(value, str) and len(value) > 100:
        return f"<base64 audio, {len(value)} chars>"
    return _elide(value)


def _check_model(request: web.Request, model: str) -> None:
    """ChatError 404 ``model_not_found`` for a model name the engine does not serve (``chat_models``)."""
    resources = request.app[RESOURCES]
    listed: tuple[str, ...] = request.app[MODEL_IDS]
    check_chat_model(
        model,
        listed=listed,
        scenarios=resources.scenarios,
        any_model=resources.settings.any_chat_model,
    )


def _brain(request: web.Request, chat: ChatRequest, key: str) -> Brain:
    """The brain for this request; the scenario follows the selection rules of
    ``mockengine.brain.selection`` (prompt marker, header, key, model name, server default)."""
    resources = request.app[RESOURCES]
    try:
        return resources.brain(
            chat.seed if chat.seed is not None else resources.settings.seed,
            model=chat.model,
            api_key=key,
            scenario=request.headers.get(SCENARIO_HEADER),
            role=request.headers.get(ROLE_HEADER),
        )
    except UnknownScenario as exc:
        raise ChatError(400, str(exc), SCENARIO_HEADER, "unknown_scenario") from exc


def add_routes(app: web.Application, realtime_models: Sequence[str]) -> None:
    """Register the Chat Completions routes; ``GET /v1/models`` lists CHAT_MODELS, then
    ``realtime_models``, AUDIO_MODELS, then the scenario model names."""
    app[MODEL_IDS] = tuple(dict.fromkeys((*CHAT_MODELS, *realtime_models, *AUDIO_MODELS)))
    app[RESPONSE_STORE] = ResponseStore()
    app[AUDIO_STORE] = AudioStore()
    app.router.add_get("/v1/models", list_models)
    app.router.add_get("/v1/models/{model}", retrieve_model)
    app.router.add_post("/v1/chat/completions", chat_completions)
    app.router.add_post("/v1/responses", responses)
    app.router.add_get("/v1/responses/{response_id}", retrieve_response)
    app.router.add_delete("/v1/responses/{response_id}", delete_response)
    app.router.add_get("/v1/responses/{response_id}/input_items", list_input_items)
