"""Client mistakes as the real service reports them (reference §8).

A :class:`ProtocolError` is raised at the parse boundary or by the session core and becomes one ``error``
event; the session keeps working. Messages are verbatim where the reference has them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


def quote_list(values: tuple[str, ...] | list[str]) -> str:
    """``'a', 'b', and 'c'`` — the enumeration style of the live service's messages."""
    quoted = [f"'{v}'" for v in values]
    if len(quoted) <= 1:
        return "".join(quoted)
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


@dataclass
class ProtocolError(Exception):
    """One ``error`` event's payload. ``event_id`` is the offending client event's id (or None)."""

    code: str | None
    message: str
    param: str | None = None
    type: str = "invalid_request_error"
    event_id: str | None = None
    # The refused frame's ``type`` when the parse boundary refused a JSON object with one (not sent; a
    # replay matches the refused frame to the recorded one by it).
    client_event_type: str | None = None

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def payload(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "code": self.code,
            "message": self.message,
            "param": self.param,
            "event_id": self.event_id,
        }


def json_text(value: Any) -> str:
    """A client's value as a message quotes it: a string as it is, anything else as JSON (``null``,
    ``true``, ``[1, 2]``), never a Python repr (``None``, ``True``)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def invalid_value(value: Any, supported: tuple[str, ...] | list[str], param: str | None) -> ProtocolError:
    return ProtocolError(
        "invalid_value",
        f"Invalid value: '{json_text(value)}'. Supported values are: {quote_list(supported)}.",
        param,
    )


def unknown_event_type(value: Any, supported: list[str]) -> ProtocolError:
    """``supported``: the wire types the transport accepts (``client_events.wire_types``)."""
    return invalid_value(value, supported, "type")


def missing_type() -> ProtocolError:
    return ProtocolError("invalid_event", "The 'type' field is missing.", "type")


def invalid_json(detail: str) -> ProtocolError:
    return ProtocolError(
        "invalid_json",
        f"Invalid event: failed to parse JSON value. Please check your JSON syntax and try again. ({detail})",
    )


def binary_frame() -> ProtocolError:
    return ProtocolError(
        "invalid_event", "Expected a text WebSocket message; binary frames are not supported."
    )


def approval_already_answered(request_id: str, response_item_id: str) -> ProtocolError:
    """A second ``mcp_approval_response`` for a request the conversation holds an answer to. Our choice
    (the live service's behaviour is not public): refused like an answer to no request, ``invalid_value``
    on ``item.approval_request_id``, naming the answer already given; the first answer stands."""
    return ProtocolError(
        "invalid_value",
        f"MCP approval request '{request_id}' has already been answered (item '{response_item_id}').",
        "item.approval_request_id",
    )


def binary_channel_message() -> ProtocolError:
    """A binary message on a WebRTC call's ``oai-events`` channel: refused as the WebSocket refuses a
    binary frame (same code, non-fatal), in the channel's words. The reference is silent on WebRTC; its
    events are JSON text both ways (a browser's ``channel.send(JSON.stringify(event))``)."""
    return ProtocolError(
        "invalid_event",
        "Expected a text message on the oai-events data channel; binary messages are not supported.",
    )


def event_too_large(event_type: str, size_bytes: int, limit_bytes: int) -> ProtocolError:
    """A server event larger than the WebRTC peer's data channel takes (its offer's ``a=max-message-size``)
    was not sent. Our choice: the reference is silent (a WebRTC sender must not exceed the peer's limit,
    RFC 8841), and the event was lost without a word, with everything after it."""
    return ProtocolError(
        "event_too_large",
        f"The server event '{event_type}' ({counted(size_bytes, 'byte')}) is larger than the oai-events data "
        f"channel's max-message-size ({counted(limit_bytes, 'byte')}, from the offer's a=max-message-size), "
        "so it was not sent. "
        "Make what it carries smaller (instructions, tools, item content).",
    )


def counted(count: float, singular: str, plural: str | None = None) -> str:
    """``count`` and its noun in the right number for a message: "1 token", "0 tokens", "2 entries"
    (``plural`` when it is not ``singular`` + "s")."""
    number = f"{count:g}" if isinstance(count, float) else str(count)
    return f"{number} {singular if count == 1 else plural or singular + 's'}"


def unknown_parameter(path: str) -> ProtocolError:
    return ProtocolError("unknown_parameter", f"Unknown parameter: '{path}'.", path)


def missing_parameter(path: str) -> ProtocolError:
    return ProtocolError("missing_required_parameter", f"Missing required parameter: '{path}'.", path)


def invalid_type(path: str, expected: str, got: str) -> ProtocolError:
    return ProtocolError(
        "invalid_type", f"Invalid type for '{path}': expected {expected}, but got {got} instead.", path
    )


# What an append's bytes must be, per session input format (reference §8 quotes the PCM16 wording).
_AUDIO_FORMAT_WORDS = {
    "audio/pcm": "mono PCM16 at 24kHz",
    "audio/pcmu": "mono G.711 μ-law at 8kHz",
    "audio/pcma": "mono G.711 A-law at 8kHz",
}


def invalid_base64_audio(input_format: str = "audio/pcm") -> ProtocolError:
    """Bad base64 in an append; the message names the session's input format (``audio/pcm``,
    ``audio/pcmu`` or ``audio/pcma``), as the service's names PCM16 24 kHz for its default."""
    words = _AUDIO_FORMAT_WORDS.get(input_format, input_format)
    return ProtocolError(
        "invalid_value",
        f"Invalid 'audio'. Expected base64-encoded audio bytes ({words}) but got an invalid value.",
        "audio",
    )


def commit_empty(buffered_ms: float) -> ProtocolError:
    return ProtocolError(
        "input_audio_buffer_commit_empty",
        "Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, "
        f"but buffer only has {buffered_ms:.2f}ms of audio.",
    )


def active_response(response_id: str) -> ProtocolError:
    return ProtocolError(
        "conversation_already_has_active_response",
        f"Conversation already has an active response in progress: {response_id}. "
        "Wait until the response is finished before creating a new one.",
    )


def cancel_not_active() -> ProtocolError:
    return ProtocolError("response_cancel_not_active", "Cancellation failed: no active response found")


def item_not_found(action: str, code: str, item_id: str, param: str | None = "item_id") -> ProtocolError:
    return ProtocolError(code, f"Error {action} item: the item with id '{item_id}' does not exist.", param)


def previous_item_not_found(item_id: str) -> ProtocolError:
    return ProtocolError(
        "item_create_invalid_previous_item_id",
        f"Error adding item: the previous item with id '{item_id}' does not exist.",
        "previous_item_id",
    )


def truncate_too_long(available_ms: int, requested_ms: int) -> ProtocolError:
    return ProtocolError(
        "invalid_value",
        f"Audio content of {available_ms}ms is already shorter than {requested_ms}ms",
        "audio_end_ms",
    )


def truncate_unsupported() -> ProtocolError:
    return ProtocolError("unsupported_content_type", "Only model output audio messages can be truncated")


def cannot_update_voice() -> ProtocolError:
    return ProtocolError(
        "cannot_update_voice",
        "Cannot update a conversation's voice if assistant audio is present.",
        "session.audio.output.voice",
    )


def tracing_locked() -> ProtocolError:
    """A ``session.update`` changing ``tracing`` once it is on. The rule is the API reference's; the live
    code and wording are not public (ours: ``invalid_value``, the reference's sentence)."""
    return ProtocolError(
        "invalid_value",
        "Tracing configuration cannot be modified once tracing is enabled for a session.",
        "session.tracing",
    )


def tool_call_not_found(call_id: str) -> ProtocolError:
    return ProtocolError(
        "invalid_tool_call_id", f"Tool call ID '{call_id}' not found in conversation.", "item.call_id"
    )


def approval_request_not_found(request_id: str) -> ProtocolError:
    """An ``mcp_approval_response`` answering no ``mcp_approval_request`` of the conversation (our
    wording, after the live ``function_call_output`` one; the live service's is not public)."""
    return ProtocolError(
        "invalid_value",
        f"MCP approval request '{request_id}' not found in conversation.",
        "item.approval_request_id",
    )


def session_expired(duration: str) -> ProtocolError:
    """``duration`` as the message words it, e.g. ``"60 minutes"`` (reference §0)."""
    return ProtocolError("session_expired", f"Your session hit the maximum duration of {duration}.")


def session_expired_after(limit_s: int) -> ProtocolError:
    """:func:`session_expired` for a limit of ``limit_s`` seconds (``--session-max-s``), worded in
    minutes when whole ("60 minutes", as the live service), else in seconds ("1 second")."""
    if limit_s % 60 == 0:
        duration = f"{limit_s // 60} minute" + ("s" if limit_s != 60 else "")
    else:
        duration = f"{limit_s} second" + ("s" if limit_s != 1 else "")
    return session_expired(duration)


def input_buffer_full(buffered_ms: float, adding_ms: float, limit_ms: int) -> ProtocolError:
    """mockengine's bound on the input buffer (``max_input_buffer_s``); the live limit is unknown."""
    return ProtocolError(
        "input_audio_buffer_full",
        f"Error appending to input audio buffer: it holds {buffered_ms:.2f}ms of audio, {adding_ms:.2f}ms "
        f"more would pass the limit of {limit_ms}ms. Commit or clear the buffer first.",
        "audio",
    )


def conversation_full(limit: int) -> ProtocolError:
    """mockengine's bound on the conversation's items (``max_conversation_items``) when no item can
    make room for a client's new one: every item held is being written by a response in progress or is
    the one ``previous_item_id`` names (otherwise the oldest items are dropped, announced)."""
    return ProtocolError(
        "conversation_items_limit_reached",
        f"Error adding item: the conversation already holds the maximum of {counted(limit, 'item')}, "
        "and none can be dropped to make room: each is being written by a response in progress or is "
        "the item previous_item_id names. Wait for the response to finish, or place the item elsewhere.",
        "item",
    )


def not_in_transcription_session(event_type: str) -> ProtocolError:
    """``response.create`` or ``conversation.item.create`` in a transcription session, which never
    responds and whose only items are the audio it transcribes (reference §4: the session has only
    ``audio.input`` and ``include``). Refused like an event type the session does not take (code
    ``invalid_value``, param ``type``, as the live refusal of an unknown type); the session goes on. The
    live answer is not public: code, param and message are ours (docs/realtime-protocol.md)."""
    what = {
        "response.create": "does not create responses",
        "conversation.item.create": "takes no conversation items: its items are the audio it transcribes",
    }[event_type]
    return ProtocolError(
        "invalid_value",
        f"A transcription session {what}: '{event_type}' is only supported in realtime sessions "
        "(connect with ?model=gpt-realtime).",
        "type",
    )
