"""The one parse boundary: raw WebSocket text → typed client events (reference §1).

Everything past :func:`parse_client_event` handles typed, validated events only. Every rejection is a
:class:`~mockengine.protocol.errors.ProtocolError` carrying the client's ``event_id``.
"""

from __future__ import annotations

import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from mockengine.audio.pcm import strict_b64decode
from mockengine.protocol import errors
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import (
    FORMAT_SCHEMA,
    MAX_OUTPUT_TOKENS_SCHEMA,
    OUTPUT_MODALITIES_SCHEMA,
    REASONING_SCHEMA,
    TOOL_CHOICE_SCHEMA,
    TOOLS_SCHEMA,
    VOICE_SCHEMA,
    check_tool_schemas,
    json_type_name,
    validate,
    validate_session_update,
)

# One append may carry up to 15 MiB (reference §0).
MAX_APPEND_BYTES = 15 * 1024 * 1024
# Deepest JSON nesting accepted; real tool schemas use a handful of levels.
MAX_NESTING = 32
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class SessionUpdate:
    session: dict[str, Any]
    event_id: str | None = None


@dataclass(frozen=True)
class SessionClose:
    event_id: str | None = None


@dataclass(frozen=True)
class InputAudioBufferAppend:
    audio: bytes  # decoded bytes in the session's input format
    event_id: str | None = None


@dataclass(frozen=True)
class InputAudioBufferCommit:
    event_id: str | None = None


@dataclass(frozen=True)
class InputAudioBufferClear:
    event_id: str | None = None


# Sentinel: `previous_item_id` absent (append) differs from explicit null (also append) only in intent.
APPEND = "__append__"


@dataclass(frozen=True)
class ConversationItemCreate:
    item: dict[str, Any]
    previous_item_id: str = APPEND  # APPEND, "root", or an item id
    event_id: str | None = None


@dataclass(frozen=True)
class ConversationItemTruncate:
    item_id: str
    content_index: int
    audio_end_ms: int
    event_id: str | None = None


@dataclass(frozen=True)
class ConversationItemDelete:
    item_id: str
    event_id: str | None = None


@dataclass(frozen=True)
class ConversationItemRetrieve:
    item_id: str
    event_id: str | None = None


@dataclass(frozen=True)
class ResponseCreate:
    response: dict[str, Any] = field(default_factory=dict)
    event_id: str | None = None


@dataclass(frozen=True)
class ResponseCancel:
    response_id: str | None = None
    event_id: str | None = None


ClientEvent = (
    SessionUpdate
    | SessionClose
    | InputAudioBufferAppend
    | InputAudioBufferCommit
    | InputAudioBufferClear
    | ConversationItemCreate
    | ConversationItemTruncate
    | ConversationItemDelete
    | ConversationItemRetrieve
    | ResponseCreate
    | ResponseCancel
)

_TEXT = {"type": "string"}
_ITEM_COMMON = {
    "id": _TEXT,
    "object": {"enum": ["realtime.item"]},
    "status": {"enum": ["completed", "incomplete", "in_progress"]},
}


def _content(*parts: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """Content parts discriminated by ``type``, so a wrong type is reported as such."""
    return {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"type": {"enum": [kind for kind, _ in parts]}},
            "required": ["type"],
            "allOf": [
                {"if": {"properties": {"type": {"const": kind}}}, "then": schema} for kind, schema in parts
            ],
        },
    }


def _part(kind: str, **props: Any) -> tuple[str, dict[str, Any]]:
    return kind, {"properties": {"type": {}, **props}, "additionalProperties": False}


_INPUT_TEXT = _part("input_text", text=_TEXT)
_INPUT_AUDIO = _part("input_audio", audio=_TEXT, transcript={"type": ["string", "null"]})
_INPUT_IMAGE = _part("input_image", image_url=_TEXT, detail={"enum": ["auto", "low", "high"]})
_OUTPUT_TEXT = _part("output_text", text=_TEXT)
ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"type": {"enum": ["message", "function_call", "function_call_output"]}},
    "required": ["type"],
    "allOf": [
        {
            "if": {"properties": {"type": {"const": "message"}}},
            "then": {
                "properties": {
                    **_ITEM_COMMON,
                    "type": {},
                    "role": {"enum": ["user", "system", "assistant"]},
                    "content": _content(_INPUT_TEXT, _INPUT_AUDIO, _INPUT_IMAGE, _OUTPUT_TEXT),
                },
                "required": ["role", "content"],
                "additionalProperties": False,
            },
        },
        {
            "if": {"properties": {"type": {"const": "function_call"}}},
            "then": {
                "properties": {
                    **_ITEM_COMMON,
                    "type": {},
                    "call_id": _TEXT,
                    "name": _TEXT,
                    "arguments": _TEXT,
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            },
        },
        {
            "if": {"properties": {"type": {"const": "function_call_output"}}},
            "then": {
                "properties": {**_ITEM_COMMON, "type": {}, "call_id": _TEXT, "output": _TEXT},
                "required": ["call_id", "output"],
                "additionalProperties": False,
            },
        },
    ],
}
_ITEM_REFERENCE = {
    "type": "object",
    "properties": {"type": {"const": "item_reference"}, "id": _TEXT},
    "required": ["type", "id"],
    "additionalProperties": False,
}
RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "conversation": {"enum": ["auto", "none"]},
        "input": {"type": "array", "items": {"type": "object"}},
        "instructions": _TEXT,
        "tools": TOOLS_SCHEMA,
        "tool_choice": TOOL_CHOICE_SCHEMA,
        "output_modalities": OUTPUT_MODALITIES_SCHEMA,
        "max_output_tokens": MAX_OUTPUT_TOKENS_SCHEMA,
        "metadata": {
            "type": ["object", "null"],
            "maxProperties": 16,
            "additionalProperties": {"type": "string", "maxLength": 512},
        },
        "audio": {
            "type": "object",
            "properties": {
                "output": {
                    "type": "object",
                    "properties": {"format": FORMAT_SCHEMA, "voice": VOICE_SCHEMA},
                    "additionalProperties": False,
                }
            },
            "additionalProperties": False,
        },
        "prompt": {"type": ["object", "null"]},
        "parallel_tool_calls": {"type": "boolean"},
        "reasoning": REASONING_SCHEMA,
    },
    "additionalProperties": False,
}


def _require_str(data: dict[str, Any], key: str) -> str:
    if key not in data:
        raise errors.missing_parameter(key)
    value = data[key]
    if not isinstance(value, str):
        raise errors.invalid_type(key, "a string", json_type_name(value))
    return value


def _require_int(data: dict[str, Any], key: str, minimum: int | None = None) -> int:
    if key not in data:
        raise errors.missing_parameter(key)
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.invalid_type(key, "an integer", json_type_name(value))
    if minimum is not None and value < minimum:
        raise ProtocolError(
            "integer_below_min_value",
            f"Invalid '{key}': integer below minimum value. Expected a value >= {minimum}, "
            f"but got {value} instead.",
            key,
        )
    return value


def decode_audio(data: dict[str, Any]) -> bytes:
    text = _require_str(data, "audio")
    if len(text) > MAX_APPEND_BYTES * 4 // 3 + 4:
        raise ProtocolError("invalid_value", "Invalid 'audio': an append may carry at most 15 MiB.", "audio")
    try:
        return strict_b64decode(text)
    except (binascii.Error, ValueError) as exc:
        raise errors.invalid_base64_audio() from exc


# Which content parts each role may carry (reference §7; clients cannot create assistant audio).
PARTS_BY_ROLE = {
    "user": ("input_text", "input_audio", "input_image"),
    "system": ("input_text",),
    "assistant": ("output_text",),
}


def validate_item(item: Any, prefix: str = "item") -> dict[str, Any]:
    if not isinstance(item, dict):
        raise errors.invalid_type(prefix, "an object", json_type_name(item))
    validate(item, ITEM_SCHEMA, prefix)
    if item["type"] == "message":
        allowed = PARTS_BY_ROLE[item["role"]]
        for index, part in enumerate(item["content"]):
            if part["type"] not in allowed:
                raise errors.invalid_value(part["type"], list(allowed), f"{prefix}.content[{index}].type")
    return item


def validate_response_params(response: Any) -> dict[str, Any]:
    if response is None:
        return {}
    if not isinstance(response, dict):
        raise errors.invalid_type("response", "an object", json_type_name(response))
    validate(response, RESPONSE_SCHEMA, "response")
    check_tool_schemas(response.get("tools", []), "response.tools")
    for index, entry in enumerate(response.get("input", [])):
        if entry.get("type") == "item_reference":
            validate(entry, _ITEM_REFERENCE, f"response.input[{index}]")
        else:
            validate_item(entry, f"response.input[{index}]")
    return response


def _build(kind: str, data: dict[str, Any], event_id: str | None) -> ClientEvent:
    if kind == "session.update":
        if "session" not in data:
            raise errors.missing_parameter("session")
        validate_session_update(data["session"])
        return SessionUpdate(data["session"], event_id)
    if kind in ("input_audio_buffer.append", "session.input_audio_buffer.append"):
        return InputAudioBufferAppend(decode_audio(data), event_id)
    if kind == "input_audio_buffer.commit":
        return InputAudioBufferCommit(event_id)
    if kind == "input_audio_buffer.clear":
        return InputAudioBufferClear(event_id)
    if kind == "conversation.item.create":
        previous = data.get("previous_item_id", APPEND)
        if previous is None:
            previous = APPEND
        elif not isinstance(previous, str):
            raise errors.invalid_type("previous_item_id", "a string", json_type_name(previous))
        if "item" not in data:
            raise errors.missing_parameter("item")
        return ConversationItemCreate(validate_item(data["item"]), previous, event_id)
    if kind == "conversation.item.truncate":
        content_index = _require_int(data, "content_index")
        if content_index != 0:
            raise errors.invalid_value(content_index, ["0"], "content_index")
        return ConversationItemTruncate(
            _require_str(data, "item_id"),
            content_index,
            _require_int(data, "audio_end_ms", minimum=0),
            event_id,
        )
    if kind == "conversation.item.delete":
        return ConversationItemDelete(_require_str(data, "item_id"), event_id)
    if kind == "conversation.item.retrieve":
        return ConversationItemRetrieve(_require_str(data, "item_id"), event_id)
    if kind == "response.create":
        return ResponseCreate(validate_response_params(data.get("response")), event_id)
    if kind == "response.cancel":
        response_id = data.get("response_id")
        if response_id is not None and not isinstance(response_id, str):
            raise errors.invalid_type("response_id", "a string", json_type_name(response_id))
        return ResponseCancel(response_id, event_id)
    if kind == "session.close":
        return SessionClose(event_id)
    raise errors.unknown_event_type(kind)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _has_lone_surrogate(raw: str, data: Any) -> bool:
    """JSON may escape a lone UTF-16 surrogate (``\\ud800``) that no UTF-8 text can carry; it would break
    every reply that echoes it. Only frames that contain such an escape pay for the exact check."""
    if not _SURROGATE_ESCAPE.search(raw):
        return False
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _is_nested_deeper_than(data: Any, limit: int) -> bool:
    """Iteratively, so a hostile frame cannot exhaust the stack here (or later, in copies)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return True
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _echoable_event_id(value: Any) -> str | None:
    """The client's ``event_id`` when the error can echo it (a string UTF-8 can carry)."""
    if not isinstance(value, str):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


# One decoder for every frame: ``json.loads(raw, parse_constant=...)`` builds a new decoder per call,
# which cost more than the parse itself on the 20 ms audio path.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


_APPEND_TYPES = ("input_audio_buffer.append", "session.input_audio_buffer.append")
_APPEND_KEYS = frozenset({"type", "audio", "event_id"})


def _plain_append(raw: str) -> dict[str, Any] | None:
    """The frame as a dict when it is a plain audio append (50 a second per streaming session), parsed
    by orjson, about 4 × faster than the standard library; else None, and the frame takes the general
    path. Plain: only ``type``, a string ``audio`` and a string ``event_id``. The two parsers differ only
    where orjson turns integers beyond 64 bits into floats or refuses NaN, huge floats and lone
    surrogate escapes, none of which a plain append can hold; and it nests nothing."""
    if "input_audio_buffer.append" not in raw:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if (
        isinstance(data, dict)
        and data.keys() <= _APPEND_KEYS
        and data.get("type") in _APPEND_TYPES
        and isinstance(data.get("audio"), str)
        and isinstance(data.get("event_id", ""), str)
    ):
        return data
    return None


def parse_client_event(raw: str) -> ClientEvent:
    """Parse one TEXT frame. Raises ProtocolError (with the frame's ``event_id`` when it has one)."""
    append = _plain_append(raw)
    if append is not None:
        event_id = _echoable_event_id(append.get("event_id"))
        try:
            return InputAudioBufferAppend(decode_audio(append), event_id)
        except ProtocolError as exc:
            exc.event_id = event_id
            raise
    try:
        data = _DECODER.decode(raw)
    except (ValueError, RecursionError) as exc:
        raise errors.invalid_json(str(exc)) from exc
    if not isinstance(data, dict):
        raise errors.invalid_json("expected a JSON object")
    event_id = _echoable_event_id(data.get("event_id"))
    kind = data.get("type")
    try:
        if _has_lone_surrogate(raw, data):
            raise errors.invalid_json("a string holds an unpaired UTF-16 surrogate escape")
        if _is_nested_deeper_than(data, MAX_NESTING):
            raise errors.invalid_json(f"objects and arrays may nest at most {MAX_NESTING} deep")
        if kind is None:
            raise errors.missing_type()
        if not isinstance(kind, str):
            raise errors.unknown_event_type(kind)
        return _build(kind, data, event_id)
    except ProtocolError as exc:
        exc.event_id = event_id
        raise
