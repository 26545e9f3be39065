"""Our ``session.update`` validation against the installed ``openai`` SDK's types of the GA session
(``RealtimeSessionCreateRequestParam``, ``RealtimeTranscriptionSessionCreateRequestParam``): a session
config is built for every field the types declare, with values of the declared type, and each is
accepted; the fields our schemas take beyond them are the few named here. A field a new SDK adds (as
``noise_reduction.strength`` was added) fails here until the schema takes it, or until it is listed as
refused on purpose.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
import typing_extensions
from openai.types.realtime import (
    RealtimeSessionCreateRequestParam,
    RealtimeTranscriptionSessionCreateRequestParam,
)

from mockengine.protocol.session_config import (
    default_session,
    default_transcription_session,
    merge_session,
    validate_session_update,
    validate_turn_detection,
)
from mockengine.protocol.session_schema import SESSION_UPDATE_SCHEMA, TRANSCRIPTION_SESSION_UPDATE_SCHEMA

# Values of a plain type where its field has a documented range that a generic value would miss.
INT_VALUES = {"idle_timeout_ms": 5000, "max_output_tokens": 4096, "post_instructions": 1}
FLOAT_VALUES = {"speed": 1.25, "threshold": 0.6, "retention_ratio": 0.5, "strength": 0.5}
# Fields the SDK's types leave optional that a session cannot do without, so our schemas require them
# (the live refusals are not public): which audio format, a function's name, an MCP server's address.
NEEDED = {"format": {"type"}, "tools": {"name", "server_url"}}
STR_VALUES = {"server_url": "http://127.0.0.1:9/mcp"}
# Refused on purpose (docs/tools.md, "Hosted MCP tools"): MCP connectors and tunnels, which need OpenAI's
# cloud (a config holding one of these fields is left out).
REFUSED_ON_PURPOSE = ("connector_id", "tunnel_id")
# Fields our schemas take that openai-python does not type: the response-only fields of the session
# object (a client may send back what it was given), and turn detection's model_version (both Agents SDKs
# send it).
RESPONSE_ONLY = {"object", "id", "expires_at"}
BEYOND_THE_SDK = {"turn_detection": {"model_version"}}
REQUIRED = {typing.Required, typing_extensions.Required}
WRAPPERS = {*REQUIRED, typing.NotRequired, typing_extensions.NotRequired}


def _bare(annotation: Any) -> Any:
    while get_origin(annotation) in WRAPPERS or get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _is_typed_dict(annotation: Any) -> bool:
    return typing_extensions.is_typeddict(annotation)


def _is_sequence(origin: Any) -> bool:
    """list, Sequence, Iterable, and openai's SequenceNotStr (a Protocol of its own)."""
    if origin is None:
        return False
    if getattr(origin, "__name__", "") == "SequenceNotStr":
        return True
    return isinstance(origin, type) and issubclass(origin, collections.abc.Iterable) and origin is not dict


def values_of(annotation: Any, name: str) -> list[Any]:
    """Values of the declared type: every literal, every branch of a union (None for an Optional), one
    plausible value of a plain type; for a TypedDict one object per value of each of its fields, the
    required fields always filled. A free ``str`` beside named literals (model and voice names) stands
    for names the service knows: the literals are those."""
    annotation = _bare(annotation)
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        branches = get_args(annotation)
        named = any(get_origin(_bare(branch)) is Literal for branch in branches)
        found: list[Any] = []
        for branch in branches:
            if branch is type(None):
                found.append(None)
            elif not (branch is str and named):
                found += values_of(branch, name)
        return found
    if origin is Literal:
        return list(get_args(annotation))
    if _is_typed_dict(annotation):
        hints = get_type_hints(annotation, include_extras=True)
        # (__required_keys__ misses Required[...] written as a string annotation, as the SDK's are)
        required = {field for field, hint in hints.items() if get_origin(hint) in REQUIRED}
        required |= NEEDED.get(name, set()) & set(hints)
        base = {field: values_of(hints[field], field)[0] for field in hints if field in required}
        objects = [base]
        for field, hint in hints.items():
            objects += [
                {**base, field: value} for value in values_of(hint, field) if value != base.get(field)
            ]
        return objects
    if origin is dict:
        return [{"key": value} for value in values_of(get_args(annotation)[1], name)]
    if _is_sequence(origin):
        return [[value] for value in values_of(get_args(annotation)[0], name)]
    if annotation is str:
        return [STR_VALUES.get(name, "x")]
    if annotation is bool:
        return [True, False]
    if annotation is int:
        return [INT_VALUES.get(name, 1)]
    if annotation is float:
        return [FLOAT_VALUES.get(name, 0.5)]
    if annotation is object:
        return [{"any": "json"}]
    raise AssertionError(f"{name}: no values for {annotation!r}: teach values_of this type")


def _mentions(value: Any, word: str) -> bool:
    if isinstance(value, dict):
        return any(k == word or _mentions(v, word) for k, v in value.items())
    if isinstance(value, list):
        return any(_mentions(v, word) for v in value)
    return value == word


def _configs(request_type: Any) -> list[dict[str, Any]]:
    return [
        config
        for config in values_of(request_type, "session")
        if not any(_mentions(config, word) for word in REFUSED_ON_PURPOSE)
    ]


REALTIME_CONFIGS = _configs(RealtimeSessionCreateRequestParam)
TRANSCRIPTION_CONFIGS = _configs(RealtimeTranscriptionSessionCreateRequestParam)


def test_the_configs_reach_every_field_the_sdk_types() -> None:
    # A guard on the generator: the nested fields this suite exists for are in the configs.
    def paths(value: Any, prefix: str = "") -> set[str]:
        if isinstance(value, dict):
            return {
                p for key, item in value.items() for p in {f"{prefix}{key}", *paths(item, f"{prefix}{key}.")}
            }
        if isinstance(value, list):
            return {p for item in value for p in paths(item, prefix)}
        return set()

    realtime = {p for config in REALTIME_CONFIGS for p in paths(config)}
    transcription = {p for config in TRANSCRIPTION_CONFIGS for p in paths(config)}
    for reached in (realtime, transcription):
        assert {
            "audio.input.noise_reduction.strength",
            "audio.input.transcription.delay",
            "audio.input.transcription.keywords",
            "audio.input.turn_detection.idle_timeout_ms",
            "audio.input.turn_detection.eagerness",
            "include",
        } <= reached
    assert {"tracing.metadata", "truncation.token_limits.post_instructions", "reasoning.effort"} <= realtime
    mcp = {"tools.allowed_tools.read_only", "tools.require_approval.never.tool_names", "tools.headers.key"}
    assert mcp | {"tools.server_description", "tool_choice.server_label"} <= realtime


@pytest.mark.parametrize("config", REALTIME_CONFIGS, ids=repr)
def test_every_realtime_session_field_the_sdk_types_is_accepted(config: dict[str, Any]) -> None:
    validate_session_update(config)
    merged = merge_session(default_session("gpt-realtime", "sess_1", 0), config)
    validate_turn_detection(merged["audio"]["input"]["turn_detection"])


@pytest.mark.parametrize("config", TRANSCRIPTION_CONFIGS, ids=repr)
def test_every_transcription_session_field_the_sdk_types_is_accepted(config: dict[str, Any]) -> None:
    validate_session_update(config)
    merged = merge_session(default_transcription_session("sess_1", 0), config)
    validate_turn_detection(merged["audio"]["input"]["turn_detection"])


def _sdk_fields(annotation: Any) -> set[str]:
    """The field names of a TypedDict, or of every TypedDict branch of a union."""
    annotation = _bare(annotation)
    if get_origin(annotation) in (Union, types.UnionType):
        return {f for branch in get_args(annotation) for f in _sdk_fields(branch)}
    if _is_typed_dict(annotation):
        return set(get_type_hints(annotation))
    return set()


def _sdk_field(annotation: Any, *path: str) -> Any:
    for name in path:
        annotation = _bare(annotation)
        branches = (
            get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
        )
        annotation = next(
            get_type_hints(b)[name] for b in branches if _is_typed_dict(b) and name in get_type_hints(b)
        )
    return annotation


def _our_fields(schema: dict[str, Any]) -> set[str]:
    """Every property name a schema (and its if/then/else branches) takes."""
    found = set(schema.get("properties", {}))
    for branch in ("then", "else"):
        if isinstance(schema.get(branch), dict):
            found |= _our_fields(schema[branch])
    return found


@pytest.mark.parametrize(
    ("schema", "request_type"),
    [
        (SESSION_UPDATE_SCHEMA, RealtimeSessionCreateRequestParam),
        (TRANSCRIPTION_SESSION_UPDATE_SCHEMA, RealtimeTranscriptionSessionCreateRequestParam),
    ],
    ids=["realtime", "transcription"],
)
def test_our_schemas_take_no_field_the_sdk_does_not_know_but_the_listed_ones(
    schema: dict, request_type: Any
) -> None:
    assert _our_fields(schema) - _sdk_fields(request_type) == RESPONSE_ONLY
    audio_input = schema["properties"]["audio"]["properties"]["input"]["properties"]
    assert set(audio_input) == _sdk_fields(_sdk_field(request_type, "audio", "input"))
    for name, ours in audio_input.items():
        if name == "format":
            continue
        sdk = _sdk_fields(_sdk_field(request_type, "audio", "input", name))
        assert _our_fields(ours) - sdk == BEYOND_THE_SDK.get(name, set()), name
        assert sdk <= _our_fields(ours), name
