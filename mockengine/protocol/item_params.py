"""What ``conversation.item.create`` items and ``response.create`` parameters may hold (reference §1.1, §7),
as JSON schemas checked at the parse boundary."""

from __future__ import annotations

from typing import Any

from mockengine.protocol import errors
from mockengine.protocol.plain_schema import verdict
from mockengine.protocol.schema_errors import json_type_name, validate
from mockengine.protocol.session_config import check_mcp_tools, check_tool_schemas
from mockengine.protocol.session_schema import (
    FORMAT_SCHEMA,
    MAX_OUTPUT_TOKENS_SCHEMA,
    OUTPUT_MODALITIES_SCHEMA,
    PROMPT_SCHEMA,
    REASONING_SCHEMA,
    TOOL_CHOICE_SCHEMA,
    TOOLS_SCHEMA,
    VOICE_SCHEMA,
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


def _part(kind: str, required: tuple[str, ...] = (), **props: Any) -> tuple[str, dict[str, Any]]:
    schema: dict[str, Any] = {"properties": {"type": {}, **props}, "additionalProperties": False}
    return kind, {**schema, "required": list(required)} if required else schema


# A text part needs its text (like the real service: "Missing required parameter: 'item.content[0].text'");
# without it an empty user turn went into the conversation.
_INPUT_TEXT = _part("input_text", ("text",), text=_TEXT)
_INPUT_AUDIO = _part("input_audio", audio=_TEXT, transcript={"type": ["string", "null"]})
_INPUT_IMAGE = _part("input_image", image_url=_TEXT, detail={"enum": ["auto", "low", "high"]})
_OUTPUT_TEXT = _part("output_text", ("text",), text=_TEXT)
_PART_SCHEMAS = dict((_INPUT_TEXT, _INPUT_AUDIO, _INPUT_IMAGE, _OUTPUT_TEXT))
ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"enum": ["message", "function_call", "function_call_output", "mcp_approval_response"]}
    },
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
        {
            # openai-python's RealtimeMcpApprovalResponseParam: the answer to an mcp_approval_request.
            "if": {"properties": {"type": {"const": "mcp_approval_response"}}},
            "then": {
                "properties": {
                    **_ITEM_COMMON,
                    "type": {},
                    "approval_request_id": _TEXT,
                    "approve": {"type": "boolean"},
                    "reason": {"type": ["string", "null"]},
                },
                "required": ["approval_request_id", "approve"],
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
            "propertyNames": {"maxLength": 64},  # reference §1.1: keys up to 64 characters, values 512
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
        "prompt": PROMPT_SCHEMA,
        "parallel_tool_calls": {"type": "boolean"},
        "reasoning": REASONING_SCHEMA,
    },
    "additionalProperties": False,
}


# Which content parts each role may carry (reference §7; clients cannot create assistant audio).
PARTS_BY_ROLE = {
    "user": ("input_text", "input_audio", "input_image"),
    "system": ("input_text",),
    "assistant": ("output_text",),
}


def _check_assistant_audio(item: dict[str, Any], prefix: str) -> None:
    """Clients cannot create assistant audio: the live service reads an assistant ``output_audio`` part
    as text and reports its missing ``text`` (reference §8, observed in openai-agents-js#963)."""
    content = item.get("content")
    if item.get("type") != "message" or item.get("role") != "assistant" or not isinstance(content, list):
        return
    for index, part in enumerate(content):
        if isinstance(part, dict) and part.get("type") == "output_audio" and "text" not in part:
            raise errors.missing_parameter(f"{prefix}.content[{index}].text")


def _has_plain_parts(item: dict[str, Any]) -> bool:
    """A message whose content parts are each plainly valid for the schema of its own ``type``: the
    item's schema then checks the rest with no parts. Each part was matched against all four part
    kinds' ``if``/``then`` by ``jsonschema``, ~90 µs a part on the event loop (a 0.8 MB item of 20,000
    short parts held every session for 5 s); looked up by type it is a few µs."""
    content = item.get("content")
    if item.get("type") != "message" or not isinstance(content, list):
        return False
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        schema = _PART_SCHEMAS.get(kind) if isinstance(kind, str) else None
        if schema is None or verdict(part, schema) is not True:
            return False
    return True


def validate_item(item: Any, prefix: str = "item") -> dict[str, Any]:
    if not isinstance(item, dict):
        raise errors.invalid_type(prefix, "an object", json_type_name(item))
    _check_assistant_audio(item, prefix)
    if _has_plain_parts(item):
        validate({**item, "content": []}, ITEM_SCHEMA, prefix)
    else:
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
    check_mcp_tools(response.get("tools"), "response.tools")
    check_tool_schemas(response.get("tools", []), "response.tools")
    for index, entry in enumerate(response.get("input", [])):
        if entry.get("type") == "item_reference":
            validate(entry, _ITEM_REFERENCE, f"response.input[{index}]")
        else:
            validate_item(entry, f"response.input[{index}]")
    return response
