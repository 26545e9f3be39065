"""One completion, decided by the brain: a validated ``ChatRequest`` in, fitted choices and their envelope
out. No aiohttp here, so the same path serves the handler, the benchmark and unit tests.

Determinism: with a seed (the request's ``seed`` field, else the server's ``--seed``) the ids come from
``IdFactory(f"{seed}:{digest}")`` where ``digest`` hashes the canonical request JSON (without ``stream``
and ``stream_options``), so the same request gets the same ``chatcmpl-…``, ``call_…`` and ``audio_…`` ids,
streamed or not, and a different request different ones. The brain is
deterministic on its own (its seed, the conversation). Only ``created`` (wall clock) differs between two
identical seeded requests. Without any seed, ids are random like the live service's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mockengine import __version__
from mockengine.brain.arguments import ArgumentsError, unbuildable_reason
from mockengine.brain.model import Brain, ForcedTool, Reply, ReplyRequest
from mockengine.chat import errors
from mockengine.chat.audio import AUDIO_EXPIRY_S, AUDIO_ID_LENGTH, AUDIO_ID_PREFIX, ChoiceAudio, encode_audio
from mockengine.chat.conversation import ImageReader, reply_request
from mockengine.chat.limits import check_context_length
from mockengine.chat.request import ChatRequest
from mockengine.chat.shaping import (
    CHAT_ID_LENGTH,
    CHAT_ID_PREFIX,
    Choice,
    Envelope,
    completion_body,
    fit_choice,
    message_tokens,
    reported_tier,
    stream_chunks,
    tool_tokens,
)
from mockengine.chat.snapshots import reported_model
from mockengine.engines.tokens import TokenCounter
from mockengine.engines.tts import Synthesizer
from mockengine.ids import IdFactory

log = logging.getLogger("mockengine.chat")
SYSTEM_FINGERPRINT = "fp_" + hashlib.sha256(f"mockengine {__version__}".encode()).hexdigest()[:10]
# Choice i of a turn is decided at response_index turn + i * CHOICE_STRIDE: independent phrasing draws,
# and choice 0 is exactly what n=1 gives.
CHOICE_STRIDE = 1000
TRANSPORT_FIELDS = ("stream", "stream_options")


@dataclass(frozen=True)
class Completion:
    envelope: Envelope
    choices: list[Choice]
    prompt_tokens: int
    ids: IdFactory
    rules: tuple[str, ...]  # the brain rule behind each choice, for logs and traces
    prompt_audio_tokens: int = 0  # part of prompt_tokens

    def body(self) -> dict[str, Any]:
        return completion_body(self.envelope, self.choices, self.prompt_tokens, self.prompt_audio_tokens)

    def chunks(self, request: ChatRequest) -> Iterator[dict[str, Any]]:
        obfuscation = self.ids if request.include_obfuscation else None
        return stream_chunks(
            self.envelope,
            self.choices,
            self.prompt_tokens,
            include_usage=request.include_usage,
            obfuscation=obfuscation,
            prompt_audio_tokens=self.prompt_audio_tokens,
        )


def speak(completion: Completion, request: ChatRequest, synthesizer: Synthesizer) -> Completion:
    """``completion`` with each choice that has text and no tool call spoken in ``request.audio``'s voice
    and format (blocking: piper and the codecs; run it in an executor). The transcript is the text as
    synthesised (whitespace normalised); audio ids come from the completion's id factory, so a seeded
    request gets the same ids and, with a seeded engine, the same bytes. Its tokens join the choice's
    completion tokens. Unchanged when the request asks for no audio."""
    wanted = request.audio
    if wanted is None:
        return completion
    choices: list[Choice] = []
    for choice in completion.choices:
        if choice.calls or not choice.text:
            choices.append(choice)  # a tool call has no audio (nor a reply cut to nothing)
            continue
        segments = synthesizer.synthesize(choice.text, voice=wanted.catalogue_voice)
        pcm16 = b"".join(segment.pcm16 for segment in segments)
        ends = tuple(itertools.accumulate(len(segment.pcm16) for segment in segments))
        audio = ChoiceAudio(
            id=completion.ids.new(AUDIO_ID_PREFIX, AUDIO_ID_LENGTH),
            expires_at=completion.envelope.created + AUDIO_EXPIRY_S,
            transcript=" ".join(segment.text for segment in segments),
            data=encode_audio(pcm16, wanted.format),
            pcm16=pcm16,
            sentence_ends=tuple(zip((s.text for s in segments), ends, strict=True)),
        )
        # The transcript's log probabilities have no place in a message whose content is null.
        logprobs = None if choice.logprobs is None else {"content": None, "refusal": None}
        spoken = dataclasses.replace(
            choice, audio=audio, completion_tokens=choice.completion_tokens + audio.tokens, logprobs=logprobs
        )
        choices.append(spoken)
    return dataclasses.replace(completion, choices=choices)


def request_ids(request: ChatRequest, server_seed: int | None) -> IdFactory:
    return body_ids(request.body, request.seed if request.seed is not None else server_seed)


def body_ids(body: dict[str, Any], seed: int | None) -> IdFactory:
    """``IdFactory`` seeded by ``seed`` and the digest of ``body`` without its transport fields (random
    ids without a seed); shared with the Responses API."""
    if seed is None:
        return IdFactory(None)
    # Streaming is only how the answer travels: a streamed request gets the ids of its plain twin.
    decisive = {k: v for k, v in body.items() if k not in TRANSPORT_FIELDS}
    canonical = json.dumps(decisive, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return IdFactory(f"{seed}:{hashlib.sha256(canonical.encode()).hexdigest()[:16]}")


def _decided(brain: Brain, asked: ReplyRequest, request: ChatRequest) -> Reply:
    """The brain's reply to ``asked``, read first against every declared tool with the choice left to it
    where ``tool_choice`` names a tool or ``allowed_tools`` leaves some out, so the words pick which of
    them each request is for; its calls to the tools the choice permits are then kept.

    - ``allowed_tools``: of "the time in Tokyo and the weather in Paris" with only ``get_weather``
      allowed, ``get_weather(Paris)``, never ``get_weather(Tokyo)`` too; a text reply stands unless the
      mode is ``required``.
    - a named tool: of "the weather in Paris and the time in Tokyo" forced to ``get_time``,
      ``get_time(Tokyo)``, not the first city said (of two tools or more).

    When that reply calls none of the permitted tools (or writes under ``required``), the brain is asked
    again as the request stands (only the allowed tools offered, or the tool forced)."""
    forced = request.tool_choice if isinstance(request.tool_choice, ForcedTool) else None
    if forced is not None and len(request.declared_tools) < 2:
        # one tool: nothing to tell apart, and a forced call reads statements ("John Doe is 30") for
        # extraction where a call the brain chose would not be made
        return brain.reply(asked)
    if forced is None and len(request.declared_tools) <= len(request.tools):
        return brain.reply(asked)
    permitted = {forced.name} if forced is not None else {tool.name for tool in request.tools}
    open_choice = "auto" if forced is not None else asked.tool_choice
    wide = brain.reply(dataclasses.replace(asked, tools=request.declared_tools, tool_choice=open_choice))
    kept = tuple(call for call in wide.tool_calls if call.name in permitted)
    if forced is not None and kept:
        # a forced call comes alone, with no words beside it (``content: null``), as a forced reply does
        return dataclasses.replace(wide, text=None, tool_calls=kept[:1])
    if kept:
        return dataclasses.replace(wide, tool_calls=kept)
    if forced is None and not wide.tool_calls and request.tool_choice != "required":
        return wide
    return brain.reply(asked)


def complete(
    request: ChatRequest,
    brain: Brain,
    *,
    tokens: TokenCounter,
    describe_image: ImageReader,
    server_seed: int | None,
    ids: IdFactory | None = None,
) -> Completion:
    """Decide and fit every choice. Raises ChatError (a bad image: 400; arguments no value of the tool's
    schema satisfies: 500 ``server_error``) or BrainDisobeyed (a bug). ``ids``: the id factory to use
    (default: ``request_ids``)."""
    ids = ids if ids is not None else request_ids(request, server_seed)
    view = reply_request(request, describe_image)
    images = sum(len(item.images) for item in view.history)
    in_messages, in_tools = message_tokens(request, tokens, images), tool_tokens(request, tokens)
    check_context_length(request.model, in_messages, in_tools)
    choices: list[Choice] = []
    rules: list[str] = []
    for index in range(request.n):
        asked = dataclasses.replace(view, response_index=view.response_index + index * CHOICE_STRIDE)
        try:
            reply = _decided(brain, asked, request)
            choices.append(fit_choice(reply, request, index, ids, tokens))
        except (ArgumentsError, RecursionError) as exc:
            # A schema the metaschema accepts but no value satisfies (minLength > maxLength, a required
            # property that is not allowed, one that refers back to the root): the real model would still
            # write something; we say plainly that we could not, and keep serving.
            log.warning("chat: no valid arguments: %r", exc)
            raise errors.arguments_unbuildable(unbuildable_reason(exc)) from exc
        rules.append(f"{reply.rule} ({reply.why})" if reply.why else reply.rule)
    envelope = Envelope(
        id=ids.new(CHAT_ID_PREFIX, CHAT_ID_LENGTH),
        created=int(time.time()),
        model=reported_model(request.model),
        system_fingerprint=SYSTEM_FINGERPRINT,
        service_tier=reported_tier(request.body.get("service_tier")),
    )
    prompt_audio = request.prompt_audio_tokens
    return Completion(
        envelope, choices, in_messages + in_tools + prompt_audio, ids, tuple(rules), prompt_audio
    )
