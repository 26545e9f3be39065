"""The one parse boundary: raw WebSocket text → typed client events (reference §1).

Each event class names its wire type once (``type``) and registers itself with :func:`client_event`; the
parser, the supported-types message, the metrics labels and the session's dispatch
(``on_<type with dots as underscores>``) all derive from :data:`REGISTRY`. Everything past
:func:`parse_client_event` handles typed, validated events only. Every rejection is a
:class:`~mockengine.protocol.errors.ProtocolError` carrying the client's ``event_id``.
"""

from __future__ import annotations

import binascii
import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Self, TypeVar

import orjson
import pybase64

from mockengine.audio.pcm import strict_b64decode
from mockengine.protocol import errors
from mockengine.protocol.codec import MAX_NESTING, is_nested_deeper_than
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.item_params import validate_item, validate_response_params
from mockengine.protocol.nulls import drop_not_given
from mockengine.protocol.schema_errors import json_type_name
from mockengine.protocol.session_config import validate_session_update

# One append may carry up to 15 MiB (reference §0).
MAX_APPEND_BYTES = 15 * 1024 * 1024
# Deepest JSON nesting accepted. A tool schema with OpenAI's strict-mode limit of 10 levels of nested
# objects, each a list of objects under `anyOf` (an optional field), sits ~57 deep in its session.update.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


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


_MAX_AUDIO_CHARS = MAX_APPEND_BYTES * 4 // 3 + 4  # the base64 of MAX_APPEND_BYTES, with padding


def decode_audio(data: dict[str, Any], input_format: str = "audio/pcm") -> bytes:
    """An append's ``audio`` decoded; ProtocolError naming ``input_format`` (the session's) when it is not
    base64."""
    text = _require_str(data, "audio")
    if len(text) > _MAX_AUDIO_CHARS:
        raise ProtocolError("invalid_value", "Invalid 'audio': an append may carry at most 15 MiB.", "audio")
    try:
        return strict_b64decode(text)
    except (binascii.Error, ValueError) as exc:
        raise errors.invalid_base64_audio(input_format) from exc


# -- the registry: each client event class names its wire type once ----------------------------------

Transport = Literal["websocket", "webrtc"]
ALL_TRANSPORTS: frozenset[Transport] = frozenset({"websocket", "webrtc"})


class WireEvent:
    """Base of the client event classes. ``type`` is the wire name; ``aliases`` are other names the
    service accepts for the same event; ``transports`` are where the service accepts it (reference §1,
    §13: ``output_audio_buffer.clear`` is WebRTC only). ``from_wire`` builds the event from the frame's
    decoded JSON object, raising :class:`ProtocolError` on a bad field."""

    type: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    transports: ClassVar[frozenset[Transport]] = ALL_TRANSPORTS
    event_id: str | None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        return cls(event_id=event_id)  # type: ignore[call-arg]


# Wire name (and alias) → class, in the order the live service lists its accepted types (reference §8).
REGISTRY: dict[str, type[WireEvent]] = {}
E = TypeVar("E", bound=type[WireEvent])


def client_event(cls: E) -> E:
    """Class decorator: register ``cls`` under its ``type`` and ``aliases``."""
    for name in (cls.type, *cls.aliases):
        if name in REGISTRY:
            raise ValueError(f"client event type {name!r} registered twice")
        REGISTRY[name] = cls
    return cls


def wire_types(transport: Transport) -> list[str]:
    """The wire names ``transport`` accepts, in the live list's order: the ``invalid_value`` message of an
    unknown type quotes them."""
    return [name for name, cls in REGISTRY.items() if transport in cls.transports]


def handler_name(wire_type: str) -> str:
    """``input_audio_buffer.commit`` → ``on_input_audio_buffer_commit``: the session method handling it."""
    return "on_" + wire_type.replace(".", "_")


@client_event
@dataclass(frozen=True)
class SessionUpdate(WireEvent):
    type: ClassVar[str] = "session.update"
    session: dict[str, Any]
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        if "session" not in data:
            raise errors.missing_parameter("session")
        validate_session_update(data["session"])
        return cls(data["session"], event_id)


@client_event
@dataclass(frozen=True)
class SessionClose(WireEvent):
    type: ClassVar[str] = "session.close"
    event_id: str | None = None


@client_event
@dataclass(frozen=True)
class InputAudioBufferAppend(WireEvent):
    type: ClassVar[str] = "input_audio_buffer.append"
    aliases: ClassVar[tuple[str, ...]] = ("session.input_audio_buffer.append",)
    audio: bytes  # decoded bytes in the session's input format
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        return cls(decode_audio(data), event_id)


@client_event
@dataclass(frozen=True)
class InputAudioBufferCommit(WireEvent):
    type: ClassVar[str] = "input_audio_buffer.commit"
    event_id: str | None = None


@client_event
@dataclass(frozen=True)
class InputAudioBufferClear(WireEvent):
    type: ClassVar[str] = "input_audio_buffer.clear"
    event_id: str | None = None


# Sentinel: `previous_item_id` absent (append) differs from explicit null (also append) only in intent.
APPEND = "__append__"


@client_event
@dataclass(frozen=True)
class ConversationItemCreate(WireEvent):
    type: ClassVar[str] = "conversation.item.create"
    item: dict[str, Any]
    previous_item_id: str = APPEND  # APPEND, "root", or an item id
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        previous = data.get("previous_item_id", APPEND)
        if previous is None:
            previous = APPEND
        elif not isinstance(previous, str):
            raise errors.invalid_type("previous_item_id", "a string", json_type_name(previous))
        if "item" not in data:
            raise errors.missing_parameter("item")
        return cls(validate_item(data["item"]), previous, event_id)


@client_event
@dataclass(frozen=True)
class ConversationItemTruncate(WireEvent):
    type: ClassVar[str] = "conversation.item.truncate"
    item_id: str
    content_index: int
    audio_end_ms: int
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        content_index = _require_int(data, "content_index")
        if content_index != 0:
            raise errors.invalid_value(content_index, ["0"], "content_index")
        return cls(
            _require_str(data, "item_id"),
            content_index,
            _require_int(data, "audio_end_ms", minimum=0),
            event_id,
        )


@client_event
@dataclass(frozen=True)
class ConversationItemDelete(WireEvent):
    type: ClassVar[str] = "conversation.item.delete"
    item_id: str
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        return cls(_require_str(data, "item_id"), event_id)


@client_event
@dataclass(frozen=True)
class ConversationItemRetrieve(WireEvent):
    type: ClassVar[str] = "conversation.item.retrieve"
    item_id: str
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        return cls(_require_str(data, "item_id"), event_id)


@client_event
@dataclass(frozen=True)
class ResponseCreate(WireEvent):
    type: ClassVar[str] = "response.create"
    response: dict[str, Any] = field(default_factory=dict)
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        return cls(validate_response_params(data.get("response")), event_id)


@client_event
@dataclass(frozen=True)
class ResponseCancel(WireEvent):
    type: ClassVar[str] = "response.cancel"
    response_id: str | None = None
    event_id: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any], event_id: str | None) -> Self:
        response_id = data.get("response_id")
        if response_id is not None and not isinstance(response_id, str):
            raise errors.invalid_type("response_id", "a string", json_type_name(response_id))
        return cls(response_id, event_id)


@client_event
@dataclass(frozen=True)
class OutputAudioBufferClear(WireEvent):
    """Stop the audio the client is playing (reference §13): only where the server plays it, WebRTC."""

    type: ClassVar[str] = "output_audio_buffer.clear"
    transports: ClassVar[frozenset[Transport]] = frozenset({"webrtc"})
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
    | OutputAudioBufferClear
)


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


def _echoable_event_id(value: Any) -> str | None:
    """The client's ``event_id`` when the error can echo it (a string UTF-8 can carry)."""
    if not isinstance(value, str):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def check_event_id(event: dict[str, Any]) -> None:
    """An ``event_id`` other than a string (openai-python's ``event_id: str`` on every client event) is
    refused as the live service refuses a mistyped field: ``invalid_type`` naming ``event_id``, rather
    than dropped so that the event ran with nothing to match its errors to. ``null`` is "not given"
    (nulls.py); the error cannot echo the id, so it carries none."""
    event_id = event.get("event_id")
    if event_id is not None and not isinstance(event_id, str):
        raise errors.invalid_type("event_id", "a string", json_type_name(event_id))


# One decoder for every frame: ``json.loads(raw, parse_constant=...)`` builds a new decoder per call,
# which cost more than the parse itself on the 20 ms audio path.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


_APPEND_TYPES = (InputAudioBufferAppend.type, *InputAudioBufferAppend.aliases)
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


# A bare append (``type`` and ``audio`` only) as clients serialize it: JavaScript's ``JSON.stringify`` and
# Python's ``json.dumps`` (default separators), either key order. The text between a prefix and its
# suffix is the audio whenever it is canonical base64 (below): such text holds no ``"`` or ``\``, so the
# frame is exactly that JSON object, and orjson would give the same.
_BARE_APPENDS = (
    ('{"type":"input_audio_buffer.append","audio":"', '"}'),
    ('{"type": "input_audio_buffer.append", "audio": "', '"}'),
    ('{"audio":"', '","type":"input_audio_buffer.append"}'),
    ('{"audio": "', '", "type": "input_audio_buffer.append"}'),
)


_b64decode = pybase64.b64decode  # (a module global: one look-up fewer per append)


def _bare_append_audio_py(raw: str) -> bytes | None:
    """The decoded audio of a bare append in one of ``_BARE_APPENDS``' shapes whose audio is canonical
    base64 (a length that is a multiple of 4, ``=`` only in the last two places: what
    ``strict_b64decode`` hands to pybase64) within ``_MAX_AUDIO_CHARS``; None for anything else, which
    the general parse then takes (and refuses as it does). Skips orjson's parse and its copy of the audio
    text: a fifth of a quiet append's cost (docs/cpu.md, tenth pass). :data:`bare_append_audio` is this,
    in C where ``mockengine.audio._fastpath`` is built (the same answers: test_audio_fast_path.py)."""
    for prefix, suffix in _BARE_APPENDS:
        if raw.startswith(prefix) and raw.endswith(suffix):
            start, end = len(prefix), len(raw) - len(suffix)
            length = end - start  # (negative where the prefix and the suffix overlap: not an append)
            if not 0 <= length <= _MAX_AUDIO_CHARS or length % 4 or raw.find("=", start, end - 2) != -1:
                return None
            try:
                # pybase64 validates as it decodes: any character outside the alphabet (a quote, a
                # backslash, a space) refuses the text, and the frame takes the general parse.
                # `validate` by position: as a keyword, the C function's argument parser turns its
                # keyword names into str objects and looks them up on every call (~2 k instructions,
                # a seventh of this function; docs/cpu.md, eighteenth pass).
                return _b64decode(raw[start:end], None, True)  # (s, altchars, validate)
            except (binascii.Error, ValueError):
                return None
    return None


_native_bare_append_audio: Callable[[tuple[tuple[str, str], ...], int, Any, str], bytes | None] | None
try:
    from mockengine.audio._fastpath import bare_append_audio as _native_bare_append_audio
except ImportError:  # pragma: no cover - depends on the build (`pip install -e .` builds it)
    _native_bare_append_audio = None

bare_append_audio: Callable[[str], bytes | None] = (
    _bare_append_audio_py
    if _native_bare_append_audio is None
    # The same function in one C call (its ~10 Python-level calls were ~10 k instructions of a quiet
    # append's ~150 k; docs/cpu.md, twenty-first pass); partial() adds no Python frame.
    else functools.partial(_native_bare_append_audio, _BARE_APPENDS, _MAX_AUDIO_CHARS, _b64decode)
)
"""``raw`` (a client's text frame) → the decoded audio of a bare append, or None: ``_bare_append_audio_py``,
in C where it is built."""


def parse_plain_append(raw: str, input_format: str = "audio/pcm") -> tuple[bytes, str | None] | None:
    """A plain audio append's decoded audio and ``event_id``, or None for any other frame (which
    :func:`parse_client_event` then parses). What ``parse_client_event`` would make of it, without the
    event object: the shell's audio path takes it straight to the session (50 a second per session).
    Raises ProtocolError (bad base64, too long) as ``parse_client_event`` does, with the ``event_id``.
    Appends are accepted on every transport, so none is asked for; ``input_format`` (the session's) is
    what the bad-base64 error names."""
    audio = bare_append_audio(raw)
    if audio is not None:
        return audio, None
    return parse_general_plain_append(raw, input_format)


def parse_general_plain_append(raw: str, input_format: str = "audio/pcm") -> tuple[bytes, str | None] | None:
    """:func:`parse_plain_append` through orjson only, without the bare-append shortcut (which
    ``tests/unit/test_audio_fast_path.py`` checks against this)."""
    append = _plain_append(raw)
    if append is None:
        return None
    event_id = append.get("event_id")
    if event_id is not None:  # (most appends carry none: no call)
        event_id = _echoable_event_id(event_id)
    try:
        text = append["audio"]  # a string: `_plain_append` checked
        if len(text) > _MAX_AUDIO_CHARS:
            return decode_audio(append, input_format), event_id  # (raises its error)
        # `decode_audio` without its two calls around `strict_b64decode` (50 a second per session).
        try:
            return strict_b64decode(text), event_id
        except (binascii.Error, ValueError) as exc:
            raise errors.invalid_base64_audio(input_format) from exc
    except ProtocolError as exc:
        exc.event_id = event_id
        exc.client_event_type = append["type"]  # as parse_client_event does: a replay matches on it
        raise


def parse_client_event(
    raw: str, transport: Transport = "websocket", input_format: str = "audio/pcm"
) -> ClientEvent:
    """Parse one TEXT frame (a WebSocket message, or a WebRTC data-channel message) into a typed event.
    Raises ProtocolError (with the frame's ``event_id`` when it has one); a type ``transport`` does not
    accept is refused like an unknown one, with the list it does accept. ``input_format``: the session's,
    which an append's bad-base64 error names."""
    plain = parse_plain_append(raw, input_format)
    if plain is not None:
        return InputAudioBufferAppend(*plain)
    try:
        data = _DECODER.decode(raw)
    except (ValueError, RecursionError) as exc:
        raise errors.invalid_json(str(exc)) from exc
    if not isinstance(data, dict):
        raise errors.invalid_json("expected a JSON object")
    event_id = _echoable_event_id(data.get("event_id"))
    client_type = data.get("type")
    try:
        if _has_lone_surrogate(raw, data):
            raise errors.invalid_json("a string holds an unpaired UTF-16 surrogate escape")
        if is_nested_deeper_than(data, MAX_NESTING):
            raise errors.invalid_json(f"objects and arrays may nest at most {MAX_NESTING} deep")
        data = drop_not_given(data)
        kind = data.get("type")
        if kind is None:
            raise errors.missing_type()
        event_class = REGISTRY.get(kind) if isinstance(kind, str) else None
        if event_class is None or transport not in event_class.transports:
            raise errors.unknown_event_type(kind, wire_types(transport))
        check_event_id(data)
        if event_class is InputAudioBufferAppend:  # the one event whose error names the session's format
            return InputAudioBufferAppend(decode_audio(data, input_format), event_id)
        return event_class.from_wire(data, event_id)  # type: ignore[return-value]
    except ProtocolError as exc:
        exc.event_id = event_id
        exc.client_event_type = client_type if isinstance(client_type, str) else None
        raise
