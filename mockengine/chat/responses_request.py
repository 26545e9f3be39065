"""The parse boundary of ``POST /v1/responses``: a Responses API body → the Chat Completions
:class:`ChatRequest` the rest of the chat pipeline (brain, fitting, token counts) reads.

The translation (``docs/responses.md``):

* ``instructions`` → a leading ``system`` message; ``input`` (a string: one user message; or a list of
  items) → messages: a ``message`` item (``type`` may be left out when ``role`` is given) with
  ``input_text`` / ``output_text`` / ``refusal`` / ``input_image`` parts → a chat message with ``text`` /
  ``image_url`` parts (an assistant's text joined into one string); ``function_call`` items → the
  ``tool_calls`` of an assistant message (joined to the assistant message just before them);
  ``function_call_output`` → a ``tool`` message; ``reasoning`` items are passed over.
* ``tools`` ``{type: function, name, description, parameters, strict}`` → chat function tools; ``tool_choice``
  (``auto`` / ``none`` / ``required``, ``{type: function, name}``, ``{type: allowed_tools, mode, tools}``)
  → its chat form; ``text.format`` (``json_schema`` / ``json_object`` / ``text``) → ``response_format``;
  ``max_output_tokens`` → ``max_completion_tokens``; ``parallel_tool_calls``, ``temperature``, ``top_p``,
  ``metadata``, ``store``, ``user`` are checked as chat checks them.

Then ``chat.request.parse_body`` validates the translation; its errors' ``param`` is named back in
Responses terms (``messages[3]`` → the ``input`` item it came from, ``tools[0].function.parameters`` →
``tools[0].parameters``, ``response_format`` → ``text.format``).

Refused with a 400 (nothing here keeps state or runs hosted tools): built-in tools (``web_search``,
``file_search``, ``computer_use_preview``, ``code_interpreter``, ``mcp``, ``image_generation``…) and
custom tools, ``background: true``, ``conversation``, ``prompt`` templates. ``previous_response_id`` puts
the kept conversation of that response (``responses_store``) before ``input``, and an ``item_reference``
input item stands for the kept item it names (``resolve_references``); an id not kept is refused as the
live service refuses an unknown one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mockengine.chat import errors
from mockengine.chat.errors import ChatError
from mockengine.chat.request import ChatRequest, load_json_object, parse_body
from mockengine.protocol.schema_errors import json_type_name

MIN_OUTPUT_TOKENS = 16  # the live service's minimum for max_output_tokens
# Fields whose chat namesake has the same meaning and the same checks.
_SHARED_FIELDS = ("parallel_tool_calls", "temperature", "top_p", "metadata", "store", "user")
_TEXT_PARTS = ("input_text", "output_text", "text")
_PASSED_OVER_ITEMS = ("reasoning",)
_OUTPUT_PARTS = ("input_text", "input_image", "input_file")  # a function_call_output's list parts
# Settings the response echoes (``responses_shaping._envelope``) and nothing else reads: each must be of
# the SDK's type for the echo to be. Strings: the nullable string settings.
_ECHOED_STRINGS = ("prompt_cache_key", "safety_identifier")
_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
_SUMMARIES = ("auto", "concise", "detailed")


@dataclass(frozen=True)
class ResponsesRequest:
    """A validated Responses request: ``chat`` is its translation, ``body`` the parsed JSON as sent."""

    chat: ChatRequest
    body: dict[str, Any]
    stream: bool
    include_obfuscation: bool = True
    # The conversation's input items: the previous response's (``previous_response_id``), then this input.
    items: tuple[dict[str, Any], ...] = ()
    # Per chat message, the param of what it came from (``responses_param``).
    origins: tuple[str, ...] = ()

    @property
    def model(self) -> str:
        return self.chat.model


def parse_responses_request(raw: bytes) -> ResponsesRequest:
    """Parse, validate and translate a ``POST /v1/responses`` body; raises ChatError (400)."""
    return translate(load_body(raw))


def load_body(raw: bytes) -> dict[str, Any]:
    """The parsed JSON object of a request; ChatError (400) for anything else."""
    return load_json_object(raw)


def translate(body: dict[str, Any], history: Sequence[dict[str, Any]] | None = None) -> ResponsesRequest:
    """The chat translation of a parsed body (module doc); raises ChatError (400). ``history``: the
    stored conversation of the response ``previous_response_id`` names (None: not kept, refused as the
    live service refuses an unknown id)."""
    if not body.get("model"):
        raise errors.missing_parameter("model")
    _refuse_unsupported(body)
    _check_echoed(body)
    previous = body.get("previous_response_id")
    if previous is not None and history is None:
        raise errors.previous_response_not_found(str(previous))
    if body.get("input") is None:
        raise errors.missing_parameter("input")
    earlier = list(history or ()) if previous is not None else []
    items = _input_items(body["input"])
    messages, origins = _messages(body.get("instructions"), [*earlier, *items], len(earlier), body["input"])
    chat_body: dict[str, Any] = {"model": body["model"], "messages": messages}
    for name in _SHARED_FIELDS:
        if body.get(name) is not None:
            chat_body[name] = body[name]
    # An empty array is "no tools" (the Agents SDK sends one for an agent without tools).
    tools = _tools(body["tools"]) if body.get("tools") is not None else []
    if tools:
        chat_body["tools"] = tools
    elif isinstance(body.get("parallel_tool_calls"), bool):
        # The Responses API takes it without tools (and echoes it); the chat side refuses it there.
        del chat_body["parallel_tool_calls"]
    if body.get("tool_choice") is not None:
        chat_body["tool_choice"] = _tool_choice(body["tool_choice"])
    response_format = _response_format(body.get("text"))
    if response_format is not None:
        chat_body["response_format"] = response_format
    limit = body.get("max_output_tokens")
    if limit is not None:
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise _invalid_type("max_output_tokens", "an integer", limit)
        if limit < MIN_OUTPUT_TOKENS:
            raise errors.integer_below_minimum("max_output_tokens", MIN_OUTPUT_TOKENS, limit)
        chat_body["max_completion_tokens"] = limit
    _check_top_logprobs(body.get("top_logprobs"))
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise _invalid_type("stream", "a boolean", stream)
    try:
        chat = parse_body(chat_body)
    except ChatError as exc:
        raise in_responses_terms(exc, origins) from None
    options = body.get("stream_options")
    if options is not None and not stream:
        raise errors.stream_options_without_stream()
    if options is not None and not isinstance(options, dict):
        raise _invalid_type("stream_options", "an object", options)
    padding = (options or {}).get("include_obfuscation")
    if padding is not None and not isinstance(padding, bool):
        raise _invalid_type("stream_options.include_obfuscation", "a boolean", padding)
    obfuscate = (options or {}).get("include_obfuscation") is not False
    return ResponsesRequest(
        chat=chat,
        body=body,
        stream=bool(stream),
        include_obfuscation=obfuscate,
        items=(*earlier, *items),
        origins=tuple(origins),
    )


def resolve_references(
    body: dict[str, Any], lookup: Callable[[str], dict[str, Any] | None]
) -> dict[str, Any]:
    """``body`` with each ``item_reference`` input item (``{"type": "item_reference", "id": …}``) replaced
    by the item it names, found by ``lookup`` (the kept responses' items); raises ChatError: 404
    ``item_not_found`` for an id not kept (as the live service), ``invalid_type`` for an id that is no
    string. The Vercel AI SDK's Responses model sends earlier output items so when ``store`` is on."""
    given = body.get("input")
    if not isinstance(given, list) or not any(_a_reference(item) for item in given):
        return body
    resolved: list[Any] = []
    for index, item in enumerate(given):
        if not _a_reference(item):
            resolved.append(item)
            continue
        item_id = item.get("id")
        if not isinstance(item_id, str):
            raise _invalid_type(f"input[{index}].id", "a string", item_id)
        found = lookup(item_id)
        if found is None:
            raise errors.item_not_found(item_id)
        resolved.append(dict(found))
    return {**body, "input": resolved}


def _a_reference(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == "item_reference"


def in_responses_terms(exc: ChatError, origins: Sequence[str]) -> ChatError:
    """``exc``, a chat error about the translated request, with its ``param`` (and the param quoted in its
    message) named in Responses terms; ``origins``: ``ResponsesRequest.origins``."""
    chat_param = exc.param
    exc.param = responses_param(chat_param, origins)
    if exc.code == "invalid_json_schema":
        exc.param = "text.format.schema"
    if chat_param and exc.param and f"'{chat_param}'" in exc.message:
        exc.message = exc.message.replace(f"'{chat_param}'", f"'{exc.param}'")
    if exc.message == errors.json_word_missing().message:
        exc.message = errors.JSON_WORD_MISSING_RESPONSES
    return exc


def _refuse_unsupported(body: dict[str, Any]) -> None:
    if body.get("background"):
        raise errors.unsupported_by_mockengine("background", "background responses")
    if body.get("conversation") is not None:
        raise errors.unsupported_by_mockengine("conversation", "conversation objects")
    if body.get("prompt") is not None:
        raise errors.unsupported_by_mockengine("prompt", "prompt templates")


# The live bounds of ``top_logprobs`` (as chat.schema's).
TOP_LOGPROBS_RANGE = (0, 20)


def _check_top_logprobs(value: Any) -> None:
    """``top_logprobs`` is echoed (``logprobs`` stay ``[]``, docs/responses.md): an integer from 0 to
    20 or null; else ChatError 400, param ``top_logprobs``. It was read by nothing, so ``"3"`` or
    ``99`` answered 200 with ``top_logprobs: 0``."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise _invalid_type("top_logprobs", "an integer", value)
    low, high = TOP_LOGPROBS_RANGE
    if value < low:
        raise errors.integer_below_minimum("top_logprobs", low, value)
    if value > high:
        raise errors.integer_above_maximum("top_logprobs", high, value)


def _check_echoed(body: dict[str, Any]) -> None:
    """The settings only echoed back (``_ECHOED_STRINGS``, ``truncation``, ``reasoning``,
    ``text.verbosity``) are of the types the ``response`` object gives them."""
    for name in _ECHOED_STRINGS:
        if body.get(name) is not None and not isinstance(body[name], str):
            raise _invalid_type(name, "a string", body[name])
    _check_enum(body, "truncation", "truncation", ("auto", "disabled"))
    reasoning = body.get("reasoning")
    if reasoning is not None:
        if not isinstance(reasoning, dict):
            raise _invalid_type("reasoning", "an object", reasoning)
        _check_enum(reasoning, "effort", "reasoning.effort", _EFFORTS)
        _check_enum(reasoning, "summary", "reasoning.summary", _SUMMARIES)
        _check_enum(reasoning, "generate_summary", "reasoning.generate_summary", _SUMMARIES)
    text = body.get("text")
    if isinstance(text, dict):  # not an object: refused by _response_format
        _check_enum(text, "verbosity", "text.verbosity", ("low", "medium", "high"))


def _check_enum(given: dict[str, Any], key: str, param: str, allowed: tuple[str, ...]) -> None:
    value = given.get(key)
    if value is not None and (not isinstance(value, str) or value not in allowed):
        raise errors.invalid_enum(param, value, allowed)


def _input_items(given: Any) -> list[dict[str, Any]]:
    """``input`` as a list of items (a string is one user message)."""
    if isinstance(given, str):
        return [{"role": "user", "content": given}]
    if not isinstance(given, list):
        raise _invalid_type("input", "a string or an array", given)
    return given


def _messages(
    instructions: Any, items: list[Any], earlier: int, given: Any
) -> tuple[list[dict[str, Any]], list[str]]:
    """The chat messages of ``items`` (the first ``earlier`` of them from the previous response), and for
    each the ``param`` of what it came from."""
    messages: list[dict[str, Any]] = []
    origins: list[str] = []
    if instructions is not None:
        if not isinstance(instructions, str):  # the request's instructions are a string (the SDK's type)
            raise _invalid_type("instructions", "a string", instructions)
        if instructions:
            messages.append({"role": "system", "content": instructions})
            origins.append("instructions")
    _check_calls_answered(items)
    for index, item in enumerate(items):
        if index < earlier:
            param = "previous_response_id"
        else:
            param = "input" if isinstance(given, str) else f"input[{index - earlier}]"
        if not isinstance(item, dict):
            raise _invalid_type(param, "an object", item)
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            message = _message(item, param)
            if message is not None:
                messages.append(message)
                origins.append(param)
        elif kind == "function_call":
            call = _function_call(item, param)
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
                origins.append(param)
        elif kind == "function_call_output":
            call_id = _string(item, "call_id", param)
            messages.append({"role": "tool", "tool_call_id": call_id, "content": _output_text(item, param)})
            origins.append(param)
        elif kind in _PASSED_OVER_ITEMS:
            continue
        else:
            raise errors.unsupported_input_item(f"{param}.type", str(kind))
    if not messages:
        raise errors.empty_array("input")
    return messages, origins


def _check_calls_answered(items: list[Any]) -> None:
    """Every ``function_call`` has its ``function_call_output`` and every output its call (the live
    service's two checks, in its words)."""
    # A call_id that is not a string is left to the item's own check (missing / invalid type).
    kinds = [(i.get("type"), i.get("call_id")) for i in items if isinstance(i, dict)]
    kinds = [(kind, call_id) for kind, call_id in kinds if isinstance(call_id, str)]
    calls = {call_id for kind, call_id in kinds if kind == "function_call"}
    outputs = {call_id for kind, call_id in kinds if kind == "function_call_output"}
    for kind, call_id in kinds:
        if kind == "function_call" and call_id not in outputs:
            raise errors.no_tool_output(str(call_id))
        if kind == "function_call_output" and call_id not in calls:
            raise errors.no_tool_call(str(call_id))


def _message(item: dict[str, Any], param: str) -> dict[str, Any] | None:
    role = item.get("role")
    if role not in ("user", "system", "developer", "assistant"):
        raise errors.invalid_enum(f"{param}.role", role, ("user", "system", "developer", "assistant"))
    content = item.get("content")
    if isinstance(content, str):
        return {"role": role, "content": content}
    if not isinstance(content, list):
        raise _invalid_type(f"{param}.content", "a string or an array", content)
    parts: list[dict[str, Any]] = []
    for number, part in enumerate(content):
        where = f"{param}.content[{number}]"
        if not isinstance(part, dict):
            raise _invalid_type(where, "an object", part)
        kind = part.get("type")
        if kind in _TEXT_PARTS:
            parts.append({"type": "text", "text": _string(part, "text", where)})
        elif kind == "refusal":
            parts.append({"type": "text", "text": _string(part, "refusal", where)})
        elif kind == "input_image":
            url = part.get("image_url")
            if url is not None and not isinstance(url, str):
                raise _invalid_type(f"{where}.image_url", "a string", url)
            if isinstance(url, str) and role == "user":
                parts.append({"type": "image_url", "image_url": {"url": url}})
        elif kind in ("input_file", "input_audio"):
            continue  # as on the chat side: nothing here reads files or audio in a text request
        else:
            raise errors.unsupported_input_item(f"{where}.type", str(kind))
    if role == "user":
        return {"role": role, "content": parts or ""}
    # System, developer and assistant messages: their text, one string.
    return {"role": role, "content": " ".join(p["text"] for p in parts if p.get("text"))}


def _function_call(item: dict[str, Any], param: str) -> dict[str, Any]:
    return {
        "id": _string(item, "call_id", param),
        "type": "function",
        "function": {"name": _string(item, "name", param), "arguments": _string(item, "arguments", param)},
    }


def _output_text(item: dict[str, Any], param: str) -> str:
    """A ``function_call_output``'s output: a string, or the text of its parts."""
    output = item.get("output")
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        for number, part in enumerate(output):
            where = f"{param}.output[{number}]"
            if not isinstance(part, dict):
                raise _invalid_type(where, "an object", part)
            if part.get("type") not in _OUTPUT_PARTS:
                raise errors.invalid_enum(f"{where}.type", part.get("type"), _OUTPUT_PARTS)
            if part["type"] == "input_text":
                _string(part, "text", where)
        return " ".join(p["text"] for p in output if p["type"] == "input_text" and p["text"])
    if output is None:
        raise errors.missing_parameter(f"{param}.output")
    raise _invalid_type(f"{param}.output", "a string or an array", output)


def _tools(tools: Any) -> list[dict[str, Any]]:
    if not isinstance(tools, list):
        raise _invalid_type("tools", "an array", tools)
    translated: list[dict[str, Any]] = []
    for index, tool in enumerate(tools):
        param = f"tools[{index}]"
        if not isinstance(tool, dict):
            raise _invalid_type(param, "an object", tool)
        kind = tool.get("type")
        if kind != "function":
            raise errors.unsupported_tool(f"{param}.type", str(kind))
        function: dict[str, Any] = {"name": _string(tool, "name", param)}
        for key in ("description", "parameters", "strict"):
            if tool.get(key) is not None:
                function[key] = tool[key]
        translated.append({"type": "function", "function": function})
    return translated


def _tool_choice(choice: Any) -> Any:
    if isinstance(choice, str) or not isinstance(choice, dict):
        return choice  # the chat check words a bad one
    kind = choice.get("type")
    if kind == "function":
        return {"type": "function", "function": {"name": _string(choice, "name", "tool_choice")}}
    if kind == "allowed_tools":
        tools = choice.get("tools")
        if not isinstance(tools, list):
            raise _invalid_type("tool_choice.tools", "an array", tools)
        named = []
        for index, tool in enumerate(tools):
            where = f"tool_choice.tools[{index}]"
            if not isinstance(tool, dict) or tool.get("type") != "function":
                raise errors.unsupported_tool(
                    f"{where}.type", str(tool.get("type") if isinstance(tool, dict) else tool)
                )
            named.append({"type": "function", "function": {"name": _string(tool, "name", where)}})
        return {"type": "allowed_tools", "allowed_tools": {"mode": choice.get("mode"), "tools": named}}
    raise errors.unsupported_tool("tool_choice.type", str(kind))


def _response_format(text: Any) -> dict[str, Any] | None:
    if text is None:
        return None
    if not isinstance(text, dict):
        raise _invalid_type("text", "an object", text)
    wanted = text.get("format")
    if wanted is None:
        return None
    if not isinstance(wanted, dict):
        raise _invalid_type("text.format", "an object", wanted)
    kind = wanted.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "json_schema":
        name = _string(wanted, "name", "text.format")
        if wanted.get("schema") is None:
            raise errors.missing_parameter("text.format.schema")
        if not isinstance(wanted["schema"], dict):
            raise _invalid_type("text.format.schema", "an object", wanted["schema"])
        spec = {"name": name, "schema": wanted["schema"]}
        if wanted.get("description") is not None:  # chat does not check it; the response echoes it
            spec["description"] = _string(wanted, "description", "text.format")
        if wanted.get("strict") is not None:
            spec["strict"] = wanted["strict"]
        return {"type": "json_schema", "json_schema": spec}
    raise errors.invalid_enum("text.format.type", kind, ("text", "json_object", "json_schema"))


def _string(item: dict[str, Any], key: str, param: str) -> str:
    value = item.get(key)
    if value is None:
        raise errors.missing_parameter(f"{param}.{key}")
    if not isinstance(value, str):
        raise _invalid_type(f"{param}.{key}", "a string", value)
    return value


def _invalid_type(param: str, expected: str, value: Any) -> ChatError:
    return ChatError(
        400,
        f"Invalid type for '{param}': expected {expected}, but got {json_type_name(value)} instead.",
        param,
        "invalid_type",
    )


_MESSAGE_PARAM = re.compile(r"^messages\.?\[(\d+)\]")


def responses_param(param: str | None, origins: Sequence[str]) -> str | None:
    """A chat error's ``param`` in Responses terms (module doc)."""
    if param is None:
        return None
    found = _MESSAGE_PARAM.match(param)
    if found is not None:
        index = int(found.group(1))
        return origins[index] if index < len(origins) else "input"
    if param == "messages":
        return "input"
    if param.startswith("response_format"):
        rest = param.removeprefix("response_format").removeprefix(".json_schema")
        return "text.format" + rest
    if param == "max_completion_tokens":
        return "max_output_tokens"
    return param.replace(".function.", ".").replace("tool_choice.allowed_tools.", "tool_choice.")
