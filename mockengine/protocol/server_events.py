"""Every server event the engine sends: one typed builder per GA wire type (reference §2, §3).

A builder is named after its wire type (``input_audio_buffer.speech_started`` →
:func:`input_audio_buffer_speech_started`), takes the event's ``event_id`` and its fields as keywords,
and returns the wire object: ``type``, ``event_id``, then the fields in the order the live service sends
them. :data:`BUILDERS` maps each wire type to its builder; nothing else in the engine spells a server
event. Nested objects (an item, a response, the session, an error) come whole from their owners
(``Item.wire()``, ``Response.wire()``, ``ProtocolError.payload()``...).

``tests/unit/test_server_events.py`` checks every type here against the ``openai`` SDK's pydantic model
(``openai.types.realtime.RealtimeServerEvent``) on events from real sessions, including that no field
the SDK does not know goes out except :data:`EXTRA_FIELDS` (what the live service sends beyond it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict, TypeVar

ServerEvent = dict[str, Any]
JsonObject = dict[str, Any]
Builder = TypeVar("Builder", bound=Callable[..., ServerEvent])

BUILDERS: dict[str, Callable[..., ServerEvent]] = {}

# Fields the engine sends that the SDK's models do not declare, by event type (dotted paths): what the live
# service sends beyond them, and what a client set that they do not type.
# The session object's response-only fields (reference §1): the SDK types the session of session.created /
# .updated as the create *request*, which has none of them. And turn detection's ``model_version``, which
# the Agents SDKs send and the session echoes as the client set it (openai-python does not type it).
_SESSION_EXTRAS = frozenset(
    {"session.id", "session.object", "session.expires_at", "session.audio.input.turn_detection.model_version"}
)
EXTRA_FIELDS: dict[str, frozenset[str]] = {
    # Random padding against length side channels on text deltas (reference §2).
    "response.output_text.delta": frozenset({"obfuscation"}),
    "response.output_audio_transcript.delta": frozenset({"obfuscation"}),
    "conversation.item.input_audio_transcription.delta": frozenset({"obfuscation"}),
    "session.created": _SESSION_EXTRAS,
    "session.updated": _SESSION_EXTRAS,
}


class ContentPartRef(TypedDict):
    """Where a content part is: the ids every ``response.*`` part event repeats, in wire order."""

    response_id: str
    item_id: str
    output_index: int
    content_index: int


def content_part_ref(response_id: str, item_id: str, output_index: int, content_index: int) -> ContentPartRef:
    return {
        "response_id": response_id,
        "item_id": item_id,
        "output_index": output_index,
        "content_index": content_index,
    }


def _builds(kind: str) -> Callable[[Builder], Builder]:
    """Register the builder of wire type ``kind`` (the test checks it builds that type)."""

    def register(builder: Builder) -> Builder:
        if kind in BUILDERS:
            raise ValueError(f"server event type {kind!r} registered twice")
        BUILDERS[kind] = builder
        return builder

    return register


# -- session and errors ---------------------------------------------------------------------------


@_builds("session.created")
def session_created(event_id: str, *, session: JsonObject) -> ServerEvent:
    return {"type": "session.created", "event_id": event_id, "session": session}


@_builds("session.updated")
def session_updated(event_id: str, *, session: JsonObject) -> ServerEvent:
    return {"type": "session.updated", "event_id": event_id, "session": session}


@_builds("error")
def error(event_id: str, *, error: JsonObject) -> ServerEvent:
    """``error``: ``ProtocolError.payload()`` (type, code, message, param, event_id)."""
    return {"type": "error", "event_id": event_id, "error": error}


@_builds("rate_limits.updated")
def rate_limits_updated(event_id: str, *, rate_limits: list[JsonObject]) -> ServerEvent:
    return {"type": "rate_limits.updated", "event_id": event_id, "rate_limits": rate_limits}


# -- input audio buffer ---------------------------------------------------------------------------


@_builds("input_audio_buffer.speech_started")
def input_audio_buffer_speech_started(event_id: str, *, audio_start_ms: int, item_id: str) -> ServerEvent:
    return {
        "type": "input_audio_buffer.speech_started",
        "event_id": event_id,
        "audio_start_ms": audio_start_ms,
        "item_id": item_id,
    }


@_builds("input_audio_buffer.speech_stopped")
def input_audio_buffer_speech_stopped(event_id: str, *, audio_end_ms: int, item_id: str) -> ServerEvent:
    return {
        "type": "input_audio_buffer.speech_stopped",
        "event_id": event_id,
        "audio_end_ms": audio_end_ms,
        "item_id": item_id,
    }


@_builds("input_audio_buffer.committed")
def input_audio_buffer_committed(event_id: str, *, previous_item_id: str | None, item_id: str) -> ServerEvent:
    return {
        "type": "input_audio_buffer.committed",
        "event_id": event_id,
        "previous_item_id": previous_item_id,
        "item_id": item_id,
    }


@_builds("input_audio_buffer.cleared")
def input_audio_buffer_cleared(event_id: str) -> ServerEvent:
    return {"type": "input_audio_buffer.cleared", "event_id": event_id}


@_builds("input_audio_buffer.timeout_triggered")
def input_audio_buffer_timeout_triggered(
    event_id: str, *, audio_start_ms: int, audio_end_ms: int, item_id: str
) -> ServerEvent:
    return {
        "type": "input_audio_buffer.timeout_triggered",
        "event_id": event_id,
        "audio_start_ms": audio_start_ms,
        "audio_end_ms": audio_end_ms,
        "item_id": item_id,
    }


# -- output audio buffer (WebRTC) -----------------------------------------------------------------


@_builds("output_audio_buffer.started")
def output_audio_buffer_started(event_id: str, *, response_id: str) -> ServerEvent:
    return {"type": "output_audio_buffer.started", "event_id": event_id, "response_id": response_id}


@_builds("output_audio_buffer.stopped")
def output_audio_buffer_stopped(event_id: str, *, response_id: str) -> ServerEvent:
    return {"type": "output_audio_buffer.stopped", "event_id": event_id, "response_id": response_id}


@_builds("output_audio_buffer.cleared")
def output_audio_buffer_cleared(event_id: str, *, response_id: str) -> ServerEvent:
    return {"type": "output_audio_buffer.cleared", "event_id": event_id, "response_id": response_id}


# -- conversation items ---------------------------------------------------------------------------


@_builds("conversation.item.added")
def conversation_item_added(event_id: str, *, previous_item_id: str | None, item: JsonObject) -> ServerEvent:
    return {
        "type": "conversation.item.added",
        "event_id": event_id,
        "previous_item_id": previous_item_id,
        "item": item,
    }


@_builds("conversation.item.done")
def conversation_item_done(event_id: str, *, previous_item_id: str | None, item: JsonObject) -> ServerEvent:
    return {
        "type": "conversation.item.done",
        "event_id": event_id,
        "previous_item_id": previous_item_id,
        "item": item,
    }


@_builds("conversation.item.deleted")
def conversation_item_deleted(event_id: str, *, item_id: str) -> ServerEvent:
    return {"type": "conversation.item.deleted", "event_id": event_id, "item_id": item_id}


@_builds("conversation.item.retrieved")
def conversation_item_retrieved(event_id: str, *, item: JsonObject) -> ServerEvent:
    """``item`` with its audio, base64, in the session's format."""
    return {"type": "conversation.item.retrieved", "event_id": event_id, "item": item}


@_builds("conversation.item.truncated")
def conversation_item_truncated(
    event_id: str, *, item_id: str, content_index: int, audio_end_ms: int
) -> ServerEvent:
    return {
        "type": "conversation.item.truncated",
        "event_id": event_id,
        "item_id": item_id,
        "content_index": content_index,
        "audio_end_ms": audio_end_ms,
    }


@_builds("conversation.item.input_audio_transcription.delta")
def conversation_item_input_audio_transcription_delta(
    event_id: str,
    *,
    item_id: str,
    content_index: int,
    delta: str,
    obfuscation: str,
    logprobs: list[JsonObject] | None = None,
) -> ServerEvent:
    """``logprobs`` (the delta's tokens, ``{"token", "bytes", "logprob"}``) only when the session's
    ``include`` asks for them (None: the field is left out)."""
    event: ServerEvent = {
        "type": "conversation.item.input_audio_transcription.delta",
        "event_id": event_id,
        "item_id": item_id,
        "content_index": content_index,
        "delta": delta,
    }
    if logprobs is not None:
        event["logprobs"] = logprobs
    event["obfuscation"] = obfuscation
    return event


@_builds("conversation.item.input_audio_transcription.completed")
def conversation_item_input_audio_transcription_completed(
    event_id: str,
    *,
    item_id: str,
    content_index: int,
    transcript: str,
    usage: JsonObject,
    logprobs: list[JsonObject] | None = None,
    languages: list[JsonObject] | None = None,
) -> ServerEvent:
    """``logprobs`` (every token of the transcript) only when the session's ``include`` asks for them
    (None: the field is left out); ``languages`` (``[{"code"}]``): only gpt-transcribe's, absent
    otherwise."""
    event: ServerEvent = {
        "type": "conversation.item.input_audio_transcription.completed",
        "event_id": event_id,
        "item_id": item_id,
        "content_index": content_index,
        "transcript": transcript,
    }
    if logprobs is not None:
        event["logprobs"] = logprobs
    if languages is not None:
        event["languages"] = languages
    event["usage"] = usage
    return event


@_builds("conversation.item.input_audio_transcription.segment")
def conversation_item_input_audio_transcription_segment(
    event_id: str,
    *,
    item_id: str,
    content_index: int,
    id: str,
    text: str,
    speaker: str,
    start: float,
    end: float,
) -> ServerEvent:
    """One diarized span of an input transcript (``gpt-4o-transcribe-diarize``): ``id`` the segment's,
    ``speaker`` its label (``"A"``, ``"B"``, … as the audio API's ``diarized_json`` labels them),
    ``start`` / ``end`` seconds from the start of the item's audio."""
    return {
        "type": "conversation.item.input_audio_transcription.segment",
        "event_id": event_id,
        "item_id": item_id,
        "content_index": content_index,
        "id": id,
        "text": text,
        "speaker": speaker,
        "start": start,
        "end": end,
    }


@_builds("conversation.item.input_audio_transcription.failed")
def conversation_item_input_audio_transcription_failed(
    event_id: str, *, item_id: str, content_index: int, error: JsonObject
) -> ServerEvent:
    return {
        "type": "conversation.item.input_audio_transcription.failed",
        "event_id": event_id,
        "item_id": item_id,
        "content_index": content_index,
        "error": error,
    }


# -- responses ------------------------------------------------------------------------------------


@_builds("response.created")
def response_created(event_id: str, *, response: JsonObject) -> ServerEvent:
    return {"type": "response.created", "event_id": event_id, "response": response}


@_builds("response.done")
def response_done(event_id: str, *, response: JsonObject) -> ServerEvent:
    return {"type": "response.done", "event_id": event_id, "response": response}


@_builds("response.output_item.added")
def response_output_item_added(
    event_id: str, *, response_id: str, output_index: int, item: JsonObject
) -> ServerEvent:
    return {
        "type": "response.output_item.added",
        "event_id": event_id,
        "response_id": response_id,
        "output_index": output_index,
        "item": item,
    }


@_builds("response.output_item.done")
def response_output_item_done(
    event_id: str, *, response_id: str, output_index: int, item: JsonObject
) -> ServerEvent:
    return {
        "type": "response.output_item.done",
        "event_id": event_id,
        "response_id": response_id,
        "output_index": output_index,
        "item": item,
    }


@_builds("response.content_part.added")
def response_content_part_added(event_id: str, ref: ContentPartRef, *, part: JsonObject) -> ServerEvent:
    return {"type": "response.content_part.added", "event_id": event_id, **ref, "part": part}


@_builds("response.content_part.done")
def response_content_part_done(event_id: str, ref: ContentPartRef, *, part: JsonObject) -> ServerEvent:
    return {"type": "response.content_part.done", "event_id": event_id, **ref, "part": part}


@_builds("response.output_text.delta")
def response_output_text_delta(
    event_id: str,
    ref: ContentPartRef,
    *,
    delta: str,
    obfuscation: str,
) -> ServerEvent:
    return {
        "type": "response.output_text.delta",
        "event_id": event_id,
        **ref,
        "delta": delta,
        "obfuscation": obfuscation,
    }


@_builds("response.output_text.done")
def response_output_text_done(event_id: str, ref: ContentPartRef, *, text: str) -> ServerEvent:
    return {"type": "response.output_text.done", "event_id": event_id, **ref, "text": text}


@_builds("response.output_audio.delta")
def response_output_audio_delta(event_id: str, ref: ContentPartRef, *, delta: str) -> ServerEvent:
    """``delta``: base64 audio in the response's output format."""
    return {"type": "response.output_audio.delta", "event_id": event_id, **ref, "delta": delta}


@_builds("response.output_audio.done")
def response_output_audio_done(event_id: str, ref: ContentPartRef) -> ServerEvent:
    return {"type": "response.output_audio.done", "event_id": event_id, **ref}


@_builds("response.output_audio_transcript.delta")
def response_output_audio_transcript_delta(
    event_id: str,
    ref: ContentPartRef,
    *,
    delta: str,
    obfuscation: str,
) -> ServerEvent:
    return {
        "type": "response.output_audio_transcript.delta",
        "event_id": event_id,
        **ref,
        "delta": delta,
        "obfuscation": obfuscation,
    }


@_builds("response.output_audio_transcript.done")
def response_output_audio_transcript_done(
    event_id: str, ref: ContentPartRef, *, transcript: str
) -> ServerEvent:
    return {
        "type": "response.output_audio_transcript.done",
        "event_id": event_id,
        **ref,
        "transcript": transcript,
    }


@_builds("response.function_call_arguments.delta")
def response_function_call_arguments_delta(
    event_id: str, *, response_id: str, item_id: str, output_index: int, call_id: str, delta: str
) -> ServerEvent:
    return {
        "type": "response.function_call_arguments.delta",
        "event_id": event_id,
        "response_id": response_id,
        "item_id": item_id,
        "output_index": output_index,
        "call_id": call_id,
        "delta": delta,
    }


@_builds("response.function_call_arguments.done")
def response_function_call_arguments_done(
    event_id: str,
    *,
    response_id: str,
    item_id: str,
    output_index: int,
    call_id: str,
    name: str,
    arguments: str,
) -> ServerEvent:
    return {
        "type": "response.function_call_arguments.done",
        "event_id": event_id,
        "response_id": response_id,
        "item_id": item_id,
        "output_index": output_index,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
    }


# -- hosted MCP tools (docs/tools.md, "Hosted MCP tools"; openai-python's mcp_list_tools_*.py and
# response_mcp_call_*.py) -------------------------------------------------------------------------


def _mcp_list_tools(kind: str) -> Callable[..., ServerEvent]:
    def build(event_id: str, *, item_id: str) -> ServerEvent:
        return {"type": kind, "event_id": event_id, "item_id": item_id}

    build.__name__ = kind.replace(".", "_")
    return _builds(kind)(build)


def _mcp_call_state(kind: str) -> Callable[..., ServerEvent]:
    def build(event_id: str, *, item_id: str, output_index: int) -> ServerEvent:
        return {"type": kind, "event_id": event_id, "item_id": item_id, "output_index": output_index}

    build.__name__ = kind.replace(".", "_")
    return _builds(kind)(build)


mcp_list_tools_in_progress = _mcp_list_tools("mcp_list_tools.in_progress")
mcp_list_tools_completed = _mcp_list_tools("mcp_list_tools.completed")
mcp_list_tools_failed = _mcp_list_tools("mcp_list_tools.failed")
response_mcp_call_in_progress = _mcp_call_state("response.mcp_call.in_progress")
response_mcp_call_completed = _mcp_call_state("response.mcp_call.completed")
response_mcp_call_failed = _mcp_call_state("response.mcp_call.failed")


@_builds("response.mcp_call_arguments.delta")
def response_mcp_call_arguments_delta(
    event_id: str, *, response_id: str, item_id: str, output_index: int, delta: str
) -> ServerEvent:
    return {
        "type": "response.mcp_call_arguments.delta",
        "event_id": event_id,
        "response_id": response_id,
        "item_id": item_id,
        "output_index": output_index,
        "delta": delta,
    }


@_builds("response.mcp_call_arguments.done")
def response_mcp_call_arguments_done(
    event_id: str, *, response_id: str, item_id: str, output_index: int, arguments: str
) -> ServerEvent:
    return {
        "type": "response.mcp_call_arguments.done",
        "event_id": event_id,
        "response_id": response_id,
        "item_id": item_id,
        "output_index": output_index,
        "arguments": arguments,
    }


# -- translation sessions (/v1/realtime/translations) -------------------------------------------------
# Their own event surface (openai-python 3.60 ``RealtimeTranslationServerEvent``), so their own registry:
# BUILDERS is checked against the voice-agent union. ``session.created`` / ``.updated`` and ``error`` are
# the builders above, with a translation session object.

TRANSLATION_BUILDERS: dict[str, Callable[..., ServerEvent]] = {
    "session.created": session_created,
    "session.updated": session_updated,
    "error": error,
}


def _builds_translation(kind: str) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        TRANSLATION_BUILDERS[kind] = builder
        return builder

    return register


@_builds_translation("session.closed")
def translation_session_closed(event_id: str) -> ServerEvent:
    return {"type": "session.closed", "event_id": event_id}


@_builds_translation("session.input_transcript.delta")
def translation_input_transcript_delta(event_id: str, *, delta: str, elapsed_ms: int) -> ServerEvent:
    return {
        "type": "session.input_transcript.delta",
        "event_id": event_id,
        "delta": delta,
        "elapsed_ms": elapsed_ms,
    }


@_builds_translation("session.output_transcript.delta")
def translation_output_transcript_delta(event_id: str, *, delta: str, elapsed_ms: int) -> ServerEvent:
    return {
        "type": "session.output_transcript.delta",
        "event_id": event_id,
        "delta": delta,
        "elapsed_ms": elapsed_ms,
    }


@_builds_translation("session.output_audio.delta")
def translation_output_audio_delta(
    event_id: str, *, delta: str, elapsed_ms: int, sample_rate: int
) -> ServerEvent:
    """``delta``: base64 PCM16 mono at ``sample_rate``."""
    return {
        "type": "session.output_audio.delta",
        "event_id": event_id,
        "delta": delta,
        "elapsed_ms": elapsed_ms,
        "sample_rate": sample_rate,
        "channels": 1,
        "format": "pcm16",
    }
