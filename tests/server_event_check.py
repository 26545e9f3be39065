"""Checking server events against the ``openai`` SDK's pydantic models, strictly: the event must validate
(strict mode) as the union member for its type, and carry no field the SDK does not declare, at any
depth, except the live-service extras listed in ``protocol.server_events.EXTRA_FIELDS``."""

from __future__ import annotations

from typing import Any

from openai.types.realtime import RealtimeServerEvent
from pydantic import BaseModel, TypeAdapter, ValidationError

from mockengine.protocol.server_events import EXTRA_FIELDS

SERVER_EVENT = TypeAdapter(RealtimeServerEvent)


def sdk_deviations(event: dict[str, Any]) -> list[str]:
    """What in ``event`` the SDK's model rejects or does not know (empty: it matches)."""
    try:
        model = SERVER_EVENT.validate_python(_custom_voice_as_id(event), strict=True)
    except ValidationError as exc:
        return [f"{event.get('type')}: {error['loc']} {error['msg']}" for error in exc.errors()]
    allowed = EXTRA_FIELDS.get(event["type"], frozenset())
    return [
        f"{event['type']}: unknown field {path}" for path in _unknown_fields(model, "") if path not in allowed
    ]


def _custom_voice_as_id(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with a response's custom voice ``{"id": "voice_…"}`` as its id: the live service echoes the
    object, which openai-python's ``RealtimeResponse`` does not type yet (the Agents SDK maps it the same
    way before validating, ``_normalize_custom_voice_for_server_event_validation``)."""
    response = event.get("response")
    output = ((response or {}).get("audio") or {}).get("output") or {}
    voice = output.get("voice")
    if event.get("type") not in ("response.created", "response.done") or not isinstance(voice, dict):
        return event
    audio = {**response["audio"], "output": {**output, "voice": voice.get("id")}}
    return {**event, "response": {**response, "audio": audio}}


def _unknown_fields(value: Any, path: str) -> list[str]:
    """Dotted paths (list indices dropped) of fields a model kept as extras."""
    if isinstance(value, BaseModel):
        found = [f"{path}.{key}".lstrip(".") for key in value.model_extra or {}]
        for name in type(value).model_fields:
            found += _unknown_fields(getattr(value, name), f"{path}.{name}")
        return found
    if isinstance(value, list | tuple):
        return [p for item in value for p in _unknown_fields(item, path)]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _unknown_fields(item, f"{path}.{key}")]
    return []


# The keys of the live service's frames (reference/realtime-api.md: the [live] captures of §2–§4, §6 and
# §10, quoted there from S6 / S8), by event type: dotted path (list indices dropped, "" for the event
# itself) → the keys a frame there carries. Types and paths without a live capture are not listed.
_SESSION_KEYS: dict[str, tuple[str, ...]] = {
    "": ("type", "event_id", "session"),
    "session": (
        "type", "object", "id", "model", "output_modalities", "instructions", "tools", "tool_choice",
        "max_output_tokens", "tracing", "truncation", "prompt", "expires_at", "audio", "include",
    ),
    "session.audio": ("input", "output"),
    "session.audio.input": ("format", "transcription", "noise_reduction", "turn_detection"),
    "session.audio.input.transcription": ("model", "language", "prompt"),
    "session.audio.output": ("format", "voice", "speed"),
}  # fmt: skip
_SERVER_VAD_KEYS = (
    "type", "threshold", "prefix_padding_ms", "silence_duration_ms", "idle_timeout_ms", "create_response",
    "interrupt_response",
)  # fmt: skip
_RESPONSE_KEYS: dict[str, tuple[str, ...]] = {
    "": ("type", "event_id", "response"),
    "response": (
        "object", "id", "status", "status_details", "output", "conversation_id", "output_modalities",
        "max_output_tokens", "audio", "usage", "metadata",
    ),
    "response.audio": ("output",),
    "response.audio.output": ("format", "voice"),
    "response.usage": ("total_tokens", "input_tokens", "output_tokens", "input_token_details",
                       "output_token_details"),
    "response.usage.input_token_details": ("text_tokens", "audio_tokens", "image_tokens", "cached_tokens",
                                           "cached_tokens_details"),
    "response.usage.input_token_details.cached_tokens_details": ("text_tokens", "audio_tokens",
                                                                 "image_tokens"),
    "response.usage.output_token_details": ("text_tokens", "audio_tokens"),
}  # fmt: skip
_MESSAGE_ITEM = ("id", "type", "status", "role", "content")
_PART_REF = ("type", "event_id", "response_id", "item_id", "output_index", "content_index")
LIVE_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "session.created": _SESSION_KEYS,
    "session.updated": _SESSION_KEYS,
    "input_audio_buffer.speech_started": {"": ("type", "event_id", "audio_start_ms", "item_id")},
    "input_audio_buffer.speech_stopped": {"": ("type", "event_id", "audio_end_ms", "item_id")},
    "input_audio_buffer.committed": {"": ("type", "event_id", "previous_item_id", "item_id")},
    "conversation.item.added": {"": ("type", "event_id", "previous_item_id", "item"), "item": _MESSAGE_ITEM},
    "conversation.item.done": {"": ("type", "event_id", "previous_item_id", "item"), "item": _MESSAGE_ITEM},
    "response.created": _RESPONSE_KEYS,
    "response.done": _RESPONSE_KEYS,
    "response.output_item.added": {"": ("type", "event_id", "response_id", "output_index", "item"),
                                   "item": _MESSAGE_ITEM},
    "response.output_item.done": {"": ("type", "event_id", "response_id", "output_index", "item"),
                                  "item": _MESSAGE_ITEM, "item.content": ("type", "transcript")},
    "response.content_part.added": {"": (*_PART_REF, "part")},
    "response.content_part.done": {"": (*_PART_REF, "part")},
    "response.output_text.delta": {"": (*_PART_REF, "delta", "obfuscation")},
    "response.output_text.done": {"": (*_PART_REF, "text")},
    "response.output_audio_transcript.delta": {"": (*_PART_REF, "delta", "obfuscation")},
    "response.output_audio_transcript.done": {"": (*_PART_REF, "transcript")},
    "response.output_audio.done": {"": _PART_REF},
    "conversation.item.input_audio_transcription.delta": {
        "": ("type", "event_id", "item_id", "content_index", "delta", "obfuscation")
    },
    "conversation.item.input_audio_transcription.completed": {
        "": ("type", "event_id", "item_id", "content_index", "transcript", "usage")
    },
    "rate_limits.updated": {"": ("type", "event_id", "rate_limits"),
                            "rate_limits": ("name", "limit", "remaining", "reset_seconds")},
    "error": {"": ("type", "event_id", "error"), "error": ("type", "code", "message", "param", "event_id")},
}  # fmt: skip
# By event type and path: keys a frame carries only when the client set them (fields newer than the
# captures, echoed as set), asked for them (``include`` logprobs), or a model gives them (gpt-transcribe's
# ``languages``).
_OPTIONAL_SESSION_KEYS = {
    "session": frozenset({"parallel_tool_calls", "reasoning"}),
    "session.audio.input.transcription": frozenset({"delay", "keywords", "languages"}),
}
OPTIONAL_LIVE_KEYS: dict[str, dict[str, frozenset[str]]] = {
    "session.created": _OPTIONAL_SESSION_KEYS,
    "session.updated": _OPTIONAL_SESSION_KEYS,
    "conversation.item.input_audio_transcription.delta": {"": frozenset({"logprobs"})},
    "conversation.item.input_audio_transcription.completed": {"": frozenset({"logprobs", "languages"})},
}
# Turn detection's ``model_version``: the Agents SDKs send it, the session echoes it (server_events).
_ECHOED_TURN_DETECTION_KEYS = frozenset({"model_version"})


# Nested objects compared only when of the type captured: a message item, an output_audio part.
_COMPARED_ONLY = {"item": "message", "item.content": "output_audio"}


def live_key_deviations(event: dict[str, Any]) -> list[str]:
    """Where ``event``'s keys differ from a live capture of its type (:data:`LIVE_KEYS`; empty: they match
    or there is none). The session keeps the captured key order too (reference §4: "emulate this
    literally (key order as seen)"). Only message items, output_audio parts and a server_vad turn
    detection are compared (the captures show no other); a transcription session's are not (none
    captured)."""
    kind = event.get("type", "")
    if (event.get("session") or {}).get("type") == "transcription":
        return []  # the captures are of realtime sessions
    found: list[str] = []
    for path, keys in LIVE_KEYS.get(kind, {}).items():
        for value in _at(event, path):
            if path in _COMPARED_ONLY and value.get("type") != _COMPARED_ONLY[path]:
                continue
            got = list(value)
            optional = OPTIONAL_LIVE_KEYS.get(kind, {}).get(path, frozenset())
            if set(keys) - set(got) or set(got) - set(keys) - optional:
                found.append(f"{kind}: {path or 'event'} has {sorted(got)}, live {sorted(keys)}")
            elif path.startswith("session") and [k for k in got if k in keys] != list(keys):
                found.append(f"{kind}: {path} keys in order {got}, live {list(keys)}")
    for value in _at(event, "session.audio.input.turn_detection"):
        keys = [key for key in value if key not in _ECHOED_TURN_DETECTION_KEYS]
        if value.get("type") == "server_vad" and keys != list(_SERVER_VAD_KEYS):
            found.append(f"{kind}: turn_detection has {list(value)}, live {list(_SERVER_VAD_KEYS)}")
    if kind == "conversation.item.input_audio_transcription.completed":
        found += _transcript_usage_deviations(event.get("usage"))
    return found


# An input transcript's usage, by its type (reference §10: live tokens S6, live duration S7).
_TRANSCRIPT_USAGE_KEYS = {
    "tokens": ("type", "total_tokens", "input_tokens", "input_token_details", "output_tokens"),
    "duration": ("type", "seconds"),
}
_TRANSCRIPT_INPUT_DETAILS_KEYS = ("text_tokens", "audio_tokens")


def _transcript_usage_deviations(usage: Any) -> list[str]:
    if not isinstance(usage, dict) or usage.get("type") not in _TRANSCRIPT_USAGE_KEYS:
        return [f"transcript usage {usage!r} is neither of the live kinds"]
    found = []
    keys = _TRANSCRIPT_USAGE_KEYS[usage["type"]]
    if set(usage) != set(keys):
        found.append(f"transcript usage has {sorted(usage)}, live {sorted(keys)}")
    details = usage.get("input_token_details")
    if isinstance(details, dict) and set(details) != set(_TRANSCRIPT_INPUT_DETAILS_KEYS):
        found.append(
            f"transcript usage.input_token_details has {sorted(details)}, "
            f"live {sorted(_TRANSCRIPT_INPUT_DETAILS_KEYS)}"
        )
    return found


def _at(value: Any, path: str) -> list[dict[str, Any]]:
    """The objects at dotted ``path`` in ``value`` (each element of a list on the way; nulls skipped)."""
    values = [value]
    for name in path.split(".") if path else []:
        values = [v.get(name) for v in values if isinstance(v, dict)]
        values = [item for v in values for item in (v if isinstance(v, list) else [v])]
    return [v for v in values if isinstance(v, dict)]
