"""The one parse boundary of ``POST /v1/chat/completions``: raw body → validated :class:`ChatRequest`.

Order of checks, as the live service reports the first problem it meets: JSON syntax; ``model``;
``messages`` present and non-empty; the shape of each field (``schema``); the order of tool messages
(every ``tool`` message answers a call of the assistant message before it, every call is answered before
the conversation goes on); each tool's ``parameters`` is a JSON Schema (and follows the strict-mode rules
when ``strict`` is true); ``tool_choice`` names a declared tool. Everything past this module reads typed
fields only. Raises :class:`ChatError` with the live service's status and body.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from mockengine.brain.model import ForcedTool, ToolChoice, ToolSpec
from mockengine.chat import errors, schema
from mockengine.chat.audio import CHAT_VOICES, STREAM_AUDIO_FORMATS, AudioOutput, audio_support
from mockengine.chat.errors import ChatError
from mockengine.chat.limits import check_max_tokens, check_stop, check_temperature, check_tool_count
from mockengine.protocol.codec import loads_strict
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.schema_errors import VALIDATOR_CLASS, json_type_name, validate
from mockengine.protocol.schema_refs import unresolvable_reference

_VALIDATORS = {
    "message": VALIDATOR_CLASS(schema.MESSAGE),
    **{name: VALIDATOR_CLASS(s) for name, s in schema.FIELDS.items()},
}
# Remembered checks keep at most this much JSON each (8192 entries: at most ~130 MB in the worst case).
_CACHED_JSON_MAX_CHARS = 16_384
MAX_STOP_SEQUENCES = 4
# A \uD800–\uDFFF escape: JSON text may pair them; a lone one is no character (``load_json_object``).
# A custom (free-text) tool is offered to the brain as a function taking one string, ``input``.
CUSTOM_TOOL_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ChatRequest:
    """A validated request.

    ``tools`` are what the brain may call (``allowed_tools`` already applied); ``declared_tools`` every tool
    the request declares (more than ``tools`` only under ``allowed_tools``); ``custom_tools`` names those
    declared as ``type: custom``. ``max_tokens`` is ``max_completion_tokens`` or else ``max_tokens`` (None:
    no limit). ``body`` is the parsed JSON, kept for counting prompt tokens and deriving seeded ids.
    """

    model: str
    messages: tuple[dict[str, Any], ...]
    tools: tuple[ToolSpec, ...]
    custom_tools: frozenset[str]
    tool_choice: ToolChoice
    max_tokens: int | None
    n: int
    stream: bool
    include_usage: bool
    include_obfuscation: bool
    stop: tuple[str, ...]
    seed: int | None
    parallel_tool_calls: bool
    body: dict[str, Any]
    # response_format: "text", "json_object", or the JSON Schema of "json_schema".
    response_format: str = "text"
    response_schema: dict[str, Any] | None = None
    # Every declared tool, allowed or not: the brain reads the words against all of them (completion.py).
    declared_tools: tuple[ToolSpec, ...] = ()
    # logprobs: whether to give each text token's log probability; top_logprobs: alternatives per token.
    logprobs: bool = False
    top_logprobs: int = 0
    # The ``audio`` parameter when ``modalities`` includes "audio" (the reply is spoken), else None.
    audio: AudioOutput | None = None
    # Filled in by the server before the brain decides (``chat.audio``): the transcript of each
    # ``input_audio`` part by (message index, part index), the transcript of each assistant message that
    # names an earlier answer's audio by message index, and the prompt's audio tokens.
    heard: Mapping[tuple[int, int], str] = field(default_factory=dict)
    recalled: Mapping[int, str] = field(default_factory=dict)
    prompt_audio_tokens: int = 0
    # The request used the legacy ``functions`` / ``function_call``: the call is answered as
    # ``message.function_call`` with ``finish_reason: "function_call"``, not as ``tool_calls``.
    legacy_functions: bool = False

    def input_audio_parts(self) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """(message index, part index, ``input_audio`` object) of every user audio part, in order."""
        for index, message in enumerate(self.messages):
            content = message.get("content")
            if message["role"] == "user" and isinstance(content, list):
                for number, part in enumerate(content):
                    if part["type"] == "input_audio":
                        yield index, number, part["input_audio"]

    def audio_references(self) -> Iterator[tuple[int, str]]:
        """(message index, audio id) of every assistant message naming an earlier answer's audio."""
        for index, message in enumerate(self.messages):
            if message["role"] == "assistant" and isinstance(message.get("audio"), dict):
                yield index, message["audio"]["id"]


def parse_request(raw: bytes) -> ChatRequest:
    """Parse and validate a Chat Completions request body; raises ChatError (400) for anything the live
    service refuses."""
    body = load_json_object(raw)
    request = parse_body(body)
    # Chat Completions only: the Responses API (parse_body's other caller) words it otherwise.
    check_temperature(request.model, body.get("temperature"))
    return request


def load_json_object(raw: bytes) -> dict[str, Any]:
    """The JSON object ``raw`` holds, or ChatError (400, the live "could not parse" error) for anything
    else: what ``protocol.codec.loads_strict`` refuses (not JSON, ``NaN`` / ``Infinity``, nesting past
    the parser's depth, a lone surrogate escape), or not an object."""
    try:
        # Any depth the parser takes (a client's own fields may nest deep: tested, traced).
        body = loads_strict(raw, max_nesting=None)
    except ValueError as exc:
        raise errors.malformed_json() from exc
    if not isinstance(body, dict):
        raise errors.malformed_json()
    return body


def parse_body(body: dict[str, Any]) -> ChatRequest:
    """Validate a parsed request body (``parse_request`` past the JSON syntax; the Responses API sends
    its translated body here)."""
    if not body.get("model"):
        raise errors.missing_model()
    if "messages" not in body:
        raise errors.missing_parameter("messages")
    if isinstance(body.get("stop"), list) and len(body["stop"]) > MAX_STOP_SEQUENCES:
        raise errors.array_too_long("stop", MAX_STOP_SEQUENCES, len(body["stop"]))
    check_tool_count(body.get("tools"))
    check_tool_count(body.get("functions"))
    _check_fields(body)
    check_max_tokens(body["model"], body.get("max_tokens"))
    check_stop(body["model"], body.get("stop"))
    _check_logit_bias(body.get("logit_bias"))
    if body.get("top_logprobs") is not None and body.get("logprobs") is not True:
        raise errors.top_logprobs_without_logprobs()
    messages = body["messages"]
    if not messages:
        raise errors.empty_array("messages")
    messages = _paired_function_messages(messages)
    _check_message_order(messages)
    legacy = body.get("functions") is not None
    if legacy and body.get("tools") is not None:
        raise errors.functions_with_tools()
    if not legacy and body.get("function_call") is not None:
        raise errors.function_call_without_functions()
    declared = (
        [{"type": "function", "function": function} for function in body["functions"]]
        if legacy
        else body.get("tools") or []
    )
    if "tools" in body and body["tools"] is not None and not declared:
        raise errors.empty_array("tools")
    _check_tool_schemas(declared, legacy)
    wanted = _legacy_choice(body.get("function_call"), declared) if legacy else body.get("tool_choice")
    tools, custom, choice = _tools_and_choice(declared, wanted)
    if body.get("parallel_tool_calls") is not None and not declared:
        raise errors.parallel_tool_calls_without_tools()
    stream = bool(body.get("stream"))
    options = body.get("stream_options")
    if options is not None and not stream:
        raise errors.stream_options_without_stream()
    options = options or {}
    response_format, response_schema = _response_format(body)
    audio = _audio_output(body, stream)
    limit = body.get("max_completion_tokens")
    stop = body.get("stop")
    return ChatRequest(
        model=body["model"],
        messages=tuple(messages),
        tools=tools,
        declared_tools=tuple(_spec(tool) for tool in declared),
        custom_tools=custom,
        tool_choice=choice,
        max_tokens=limit if limit is not None else body.get("max_tokens"),
        n=body.get("n") or 1,
        stream=stream,
        include_usage=bool(options.get("include_usage", False)),
        include_obfuscation=bool(options.get("include_obfuscation", True)),
        stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
        seed=body.get("seed"),
        # a legacy function call is one call
        parallel_tool_calls=body.get("parallel_tool_calls") is not False and not legacy,
        body=body,
        response_format=response_format,
        response_schema=response_schema,
        logprobs=body.get("logprobs") is True,
        top_logprobs=body.get("top_logprobs") or 0,
        audio=audio,
        legacy_functions=legacy,
    )


def _legacy_choice(function_call: Any, declared: list[dict[str, Any]]) -> Any:
    """``function_call`` ("none", "auto", ``{"name": …}``, None) as the ``tool_choice`` it stands for;
    400 when it names no declared function."""
    if isinstance(function_call, dict):
        name = function_call["name"]
        if name not in {tool["function"]["name"] for tool in declared}:
            raise errors.unknown_function_call(name)
        return {"type": "function", "function": {"name": name}}
    return function_call


# The id a legacy ``function_call`` and the ``function`` message answering it share once read as a tool
# call and its result (the legacy messages carry none); the message index keeps each pair apart.
LEGACY_CALL_ID = "call_function_{index}"


def _paired_function_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with each legacy pair, an assistant message's ``function_call`` and the ``function``
    message right after it naming that function, read as a tool call and its ``tool`` result, so the
    brain reads the outcome as it reads a tool's. Anything else stays as it is (a ``function`` message
    after no such call is an output by name)."""
    paired: list[dict[str, Any]] = []
    answered = False  # the message before was a legacy call, now paired with this one
    for index, message in enumerate(messages):
        if answered:
            answered = False
            continue
        call = message.get("function_call") if message["role"] == "assistant" else None
        following = messages[index + 1] if index + 1 < len(messages) else None
        if (
            isinstance(call, dict)
            and isinstance(call.get("name"), str)
            and not message.get("tool_calls")
            and following is not None
            and following["role"] == "function"
            and following.get("name") == call["name"]
        ):
            call_id = LEGACY_CALL_ID.format(index=index)
            arguments = call["arguments"] if isinstance(call.get("arguments"), str) else "{}"
            wire = {
                "id": call_id,
                "type": "function",
                "function": {"name": call["name"], "arguments": arguments},
            }
            paired.append({**message, "tool_calls": [wire]})
            paired.append(
                {"role": "tool", "tool_call_id": call_id, "content": following.get("content") or ""}
            )
            answered = True
        else:
            paired.append(message)
    return paired


def _audio_output(body: dict[str, Any], stream: bool) -> AudioOutput | None:
    """The spoken reply asked for, checked as the live service checks it: ``modalities`` with "audio"
    needs the ``audio`` parameter and a model that speaks; streamed audio is ``pcm16`` only; an audio
    model needs audio in or out; the voice is one of CHAT_VOICES."""
    model = body["model"]
    support = audio_support(model)
    speaks = "audio" in (body.get("modalities") or [])
    if speaks and support == "none":
        raise errors.audio_output_unsupported(model)
    if speaks and body.get("audio") is None:
        raise errors.missing_parameter("audio")
    if support == "required" and not speaks and not _hears_audio(body["messages"]):
        raise errors.audio_required_by_model()
    if not speaks:
        return None
    wanted = body["audio"]
    if stream and wanted["format"] not in STREAM_AUDIO_FORMATS:
        raise errors.audio_format_not_streamable(wanted["format"])
    voice = wanted["voice"]
    name = voice if isinstance(voice, str) else voice["id"]
    if name not in CHAT_VOICES:  # a custom voice ({"id": "voice_…"}) too: mockengine has none
        raise errors.invalid_enum("audio.voice", name, CHAT_VOICES)
    return AudioOutput(name, wanted["format"])


def _hears_audio(messages: list[dict[str, Any]]) -> bool:
    """Whether the conversation holds audio: a user ``input_audio`` part or an earlier spoken answer."""
    for message in messages:
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, list):
            if any(part["type"] == "input_audio" for part in content):
                return True
        elif message["role"] == "assistant" and isinstance(message.get("audio"), dict):
            return True
    return False


def _response_format(body: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The output format asked for: ``json_object`` needs the word "json" in the messages (the live
    service's rule); a ``json_schema`` schema is checked like a function's ``parameters``."""
    wanted = body.get("response_format") or {"type": "text"}
    kind = wanted["type"]
    if kind == "json_object" and "json" not in _canonical(body["messages"]).lower():
        raise errors.json_word_missing()
    if kind != "json_schema":
        return kind, None
    spec = wanted["json_schema"]
    response_schema = spec.get("schema") or {"type": "object", "properties": {}}
    problem = schema_problem(response_schema, bool(spec.get("strict")))
    if problem is not None:
        raise errors.invalid_response_schema(spec["name"], problem)
    return kind, response_schema


# The live service's bounds of a ``logit_bias`` value (documented: "from -100 to 100").
LOGIT_BIAS_RANGE = (-100, 100)


def _check_logit_bias(bias: Any) -> None:
    """``logit_bias`` (already an object or null) maps token ids, non-negative integers written as
    strings, to numbers from -100 to 100; else ChatError (400, ``param: "logit_bias"``)."""
    if not isinstance(bias, dict):
        return
    low, high = LOGIT_BIAS_RANGE
    for key, value in bias.items():
        if not key.isdigit():
            raise errors.logit_bias_key(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise errors.logit_bias_value()


def _check_fields(body: dict[str, Any]) -> None:
    try:
        if not isinstance(body["messages"], list):
            got = json_type_name(body["messages"])
            raise ProtocolError(
                "invalid_type",
                f"Invalid type for 'messages': expected an array, but got {got} instead.",
                "messages",
            )
        for index, message in enumerate(body["messages"]):
            if not _is_valid("message", message):
                validate(message, schema.MESSAGE, f"messages[{index}]")
        for name, field_schema in schema.FIELDS.items():
            # null is the SDK's "not given" for every optional field.
            if body.get(name) is not None and not _is_valid(name, body[name]):
                validate(body[name], field_schema, name)
    except ProtocolError as exc:
        raise ChatError.from_protocol(exc) from exc
    except RecursionError as exc:
        raise errors.malformed_json() from exc


def _check_message_order(messages: list[dict[str, Any]]) -> None:
    """Tool messages answer the calls of the assistant message just before them, each call exactly once,
    before any other message. ``param`` names the message where the rule broke (for unanswered calls:
    the message that came instead of the answer, or the assistant message when nothing followed)."""
    awaited: list[str] = []
    assistant_index = 0
    for index, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            if message["tool_call_id"] not in awaited:
                raise errors.tool_without_calls(index)
            awaited.remove(message["tool_call_id"])
            continue
        if awaited:
            raise errors.unanswered_tool_calls(index, awaited)
        if role == "assistant":
            calls = message.get("tool_calls") or []
            spoken = isinstance(message.get("audio"), dict)
            if (
                not calls
                and message.get("content") is None
                and not message.get("function_call")
                and not spoken
            ):
                raise errors.assistant_without_content(index)
            awaited = [call["id"] for call in calls]
            assistant_index = index
    if awaited:
        raise errors.unanswered_tool_calls(assistant_index, awaited)


def _check_tool_schemas(declared: list[dict[str, Any]], legacy: bool = False) -> None:
    """400 on the first function whose ``parameters`` are refused, named where the request declared it
    (``functions[i]`` when ``legacy``)."""
    for index, tool in enumerate(declared):
        if tool["type"] != "function":
            continue
        function = tool["function"]
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        problem = schema_problem(parameters, bool(function.get("strict")))
        if problem is not None:
            raise errors.invalid_function_parameters(index, function["name"], problem, legacy)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# A text agent resends the whole conversation and the same tools every turn: each message and schema
# is checked once (the metaschema check costs about a millisecond per tool), then remembered.
def _is_valid(kind: str, value: Any) -> bool:
    """Whether ``value`` fits the schema of ``kind`` ("message" or a field name); small values are
    remembered by their canonical JSON, large ones (images as data URLs) checked afresh."""
    canonical = _canonical(value)
    if len(canonical) > _CACHED_JSON_MAX_CHARS:
        return bool(_VALIDATORS[kind].is_valid(value))
    return _is_valid_cached(kind, canonical)


@functools.lru_cache(maxsize=8192)
def _is_valid_cached(kind: str, canonical: str) -> bool:
    return bool(_VALIDATORS[kind].is_valid(json.loads(canonical)))


def schema_problem(parameters: dict[str, Any], strict: bool) -> str | None:
    """Why a function's ``parameters`` (or a response schema) are refused, or None."""
    canonical = _canonical(parameters)
    if len(canonical) > _CACHED_JSON_MAX_CHARS:
        return _schema_problem_of(parameters, strict)
    return _schema_problem_cached(canonical, strict)


@functools.lru_cache(maxsize=1024)
def _schema_problem_cached(canonical: str, strict: bool) -> str | None:
    return _schema_problem_of(json.loads(canonical), strict)


def _schema_problem_of(parameters: dict[str, Any], strict: bool) -> str | None:
    try:
        jsonschema.Draft202012Validator.check_schema(parameters)
    except jsonschema.SchemaError as exc:
        return f"{exc.message}."
    except RecursionError:
        return "schema is nested too deeply."
    reference = unresolvable_reference(parameters, parameters)
    if reference is not None:
        return f"reference '{reference}' cannot be resolved within the schema."
    kind = parameters.get("type", "object")
    if kind != "object":
        return f"schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{kind}\"'."
    return strict_problem(parameters, ()) if strict else None


def strict_problem(node: Any, context: tuple[str, ...]) -> str | None:
    """The first strict-mode (Structured Outputs) rule ``node`` breaks, worded as the service does:
    every object lists all its properties in ``required`` and sets ``additionalProperties: false``."""
    if not isinstance(node, dict):
        return None
    if node.get("type") == "object" or "properties" in node:
        if node.get("additionalProperties") is not False:
            return (
                f"In context={context!r}, 'additionalProperties' is required to be supplied and to be false."
            )
        properties = node.get("properties", {})
        missing = [key for key in properties if key not in (node.get("required") or [])]
        if missing:
            return (
                f"In context={context!r}, 'required' is required to be supplied and to be an array "
                f"including every key in properties. Missing '{missing[0]}'."
            )
        for key, child in properties.items():
            problem = strict_problem(child, (*context, "properties", key))
            if problem is not None:
                return problem
    if isinstance(node.get("items"), dict):
        return strict_problem(node["items"], (*context, "items"))
    for keyword in ("anyOf", "$defs", "definitions"):
        children = node.get(keyword)
        pairs = enumerate(children) if isinstance(children, list) else (children or {}).items()
        for key, child in pairs:
            problem = strict_problem(child, (*context, keyword, str(key)))
            if problem is not None:
                return problem
    return None


def _tools_and_choice(
    declared: list[dict[str, Any]], choice: Any
) -> tuple[tuple[ToolSpec, ...], frozenset[str], ToolChoice]:
    specs = [_spec(tool) for tool in declared]
    custom = frozenset(tool["custom"]["name"] for tool in declared if tool["type"] == "custom")
    names = {spec.name for spec in specs}
    if choice is None:
        return tuple(specs), custom, "auto" if specs else "none"
    if not specs:
        raise errors.tool_choice_without_tools()
    if isinstance(choice, str):
        return tuple(specs), custom, choice  # type: ignore[return-value]
    if choice["type"] in ("function", "custom"):
        name = choice[choice["type"]]["name"]
        if name not in names:
            raise errors.unknown_tool_choice(name, "tool_choice")
        return tuple(specs), custom, ForcedTool(name)
    allowed = choice["allowed_tools"]
    wanted: list[str] = []
    for index, entry in enumerate(allowed["tools"]):
        kind = entry.get("type", "function")
        name = (entry.get(kind) or {}).get("name") if isinstance(entry.get(kind), dict) else entry.get("name")
        if name not in names:
            param = f"tool_choice.allowed_tools.tools[{index}]"
            raise errors.unknown_tool_choice(str(name), param)
        wanted.append(name)
    return tuple(s for s in specs if s.name in wanted), custom, allowed["mode"]


def _spec(tool: dict[str, Any]) -> ToolSpec:
    if tool["type"] == "custom":
        custom = tool["custom"]
        return ToolSpec(custom["name"], custom.get("description", ""), CUSTOM_TOOL_PARAMETERS)
    function = tool["function"]
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    return ToolSpec(function["name"], function.get("description", ""), parameters)
