"""JSON Schemas of the Chat Completions request fields we check, after the ``openai`` SDK's typed params
(``openai/types/chat/completion_create_params.py`` and the message/tool param types beside it).

Only shapes are checked here; unknown fields are accepted and ignored, as the issue asks (mockengine is
more lenient than the live service, which refuses unknown top-level arguments). Ordering rules (tool
messages, unanswered calls) and tool schemas are checked in ``request``.
"""

from __future__ import annotations

from typing import Any

from mockengine.chat.audio import AUDIO_FORMATS, INPUT_AUDIO_FORMATS

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
# OpenAI's rule for function names.
FUNCTION_NAME = {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"}

_TEXT_PART = {
    "type": "object",
    "required": ["type", "text"],
    "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
}
# "items" constrains arrays only, so a string-or-array field needs no anyOf (whose errors read worse).
_TEXT_CONTENT = {"type": ["string", "array"], "items": _TEXT_PART}
_USER_PART = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"enum": ["text", "image_url", "input_audio", "file"]}},
    "allOf": [
        {"if": {"properties": {"type": {"const": "text"}}}, "then": _TEXT_PART},
        {
            "if": {"properties": {"type": {"const": "image_url"}}},
            "then": {
                "required": ["image_url"],
                "properties": {
                    "image_url": {
                        "type": "object",
                        "required": ["url"],
                        "properties": {
                            "url": {"type": "string"},
                            "detail": {"enum": ["auto", "low", "high"]},
                        },
                    }
                },
            },
        },
        {
            "if": {"properties": {"type": {"const": "input_audio"}}},
            "then": {
                "required": ["input_audio"],
                "properties": {
                    "input_audio": {
                        "type": "object",
                        "required": ["data", "format"],
                        "properties": {
                            "data": {"type": "string"},
                            "format": {"enum": list(INPUT_AUDIO_FORMATS)},
                        },
                    }
                },
            },
        },
    ],
}
_ASSISTANT_PART = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"enum": ["text", "refusal"]}},
    "allOf": [
        {"if": {"properties": {"type": {"const": "text"}}}, "then": _TEXT_PART},
        {
            "if": {"properties": {"type": {"const": "refusal"}}},
            "then": {"required": ["refusal"], "properties": {"refusal": {"type": "string"}}},
        },
    ],
}
_TOOL_CALL = {
    "type": "object",
    "required": ["id", "type"],
    "properties": {"id": {"type": "string"}, "type": {"enum": ["function", "custom"]}},
    "allOf": [
        {
            "if": {"properties": {"type": {"const": "function"}}},
            "then": {
                "required": ["function"],
                "properties": {
                    "function": {
                        "type": "object",
                        "required": ["name", "arguments"],
                        "properties": {"name": {"type": "string"}, "arguments": {"type": "string"}},
                    }
                },
            },
        },
        {
            "if": {"properties": {"type": {"const": "custom"}}},
            "then": {
                "required": ["custom"],
                "properties": {
                    "custom": {
                        "type": "object",
                        "required": ["name", "input"],
                        "properties": {"name": {"type": "string"}, "input": {"type": "string"}},
                    }
                },
            },
        },
    ],
}


def _role(role: str, then: dict[str, Any]) -> dict[str, Any]:
    return {"if": {"properties": {"role": {"const": role}}}, "then": then}


_TEXT_MESSAGE = {"required": ["content"], "properties": {"content": _TEXT_CONTENT}}
MESSAGE = {
    "type": "object",
    "required": ["role"],
    "properties": {"role": {"enum": list(ROLES)}, "name": {"type": "string"}},
    "allOf": [
        _role("system", _TEXT_MESSAGE),
        _role("developer", _TEXT_MESSAGE),
        _role(
            "user",
            {
                "required": ["content"],
                "properties": {"content": {"type": ["string", "array"], "items": _USER_PART}},
            },
        ),
        _role(
            "assistant",
            {
                "properties": {
                    "content": {"type": ["string", "null", "array"], "items": _ASSISTANT_PART},
                    "tool_calls": {"type": ["array", "null"], "items": _TOOL_CALL},
                    "refusal": {"type": ["string", "null"]},
                    "audio": {
                        "type": ["object", "null"],
                        "required": ["id"],
                        "properties": {"id": {"type": "string"}},
                    },
                }
            },
        ),
        _role(
            "tool",
            {
                "required": ["content", "tool_call_id"],
                "properties": {"content": _TEXT_CONTENT, "tool_call_id": {"type": "string"}},
            },
        ),
        _role(
            "function",
            {
                "required": ["name", "content"],
                "properties": {"content": {"type": ["string", "null"]}},
            },
        ),
    ],
}
MESSAGES = {"type": "array", "items": MESSAGE}

# A function tool's ``function`` (and each of the legacy ``functions``).
_FUNCTION: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": FUNCTION_NAME,
        "description": {"type": "string"},
        "parameters": {"type": "object"},
        "strict": {"type": ["boolean", "null"]},
    },
}
_FUNCTION_TOOL = {"required": ["function"], "properties": {"function": _FUNCTION}}
_CUSTOM_TOOL = {
    "required": ["custom"],
    "properties": {
        "custom": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": FUNCTION_NAME, "description": {"type": "string"}},
        }
    },
}
TOOLS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": ["function", "custom"]}},
        "allOf": [
            {"if": {"properties": {"type": {"const": "function"}}}, "then": _FUNCTION_TOOL},
            {"if": {"properties": {"type": {"const": "custom"}}}, "then": _CUSTOM_TOOL},
        ],
    },
}

_NAMED = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}
TOOL_CHOICE = {
    "type": ["string", "object"],
    "if": {"type": "string"},
    "then": {"enum": ["none", "auto", "required"]},
    "else": {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": ["function", "custom", "allowed_tools"]}},
        "allOf": [
            {
                "if": {"properties": {"type": {"const": "function"}}},
                "then": {"required": ["function"], "properties": {"function": _NAMED}},
            },
            {
                "if": {"properties": {"type": {"const": "custom"}}},
                "then": {"required": ["custom"], "properties": {"custom": _NAMED}},
            },
            {
                "if": {"properties": {"type": {"const": "allowed_tools"}}},
                "then": {
                    "required": ["allowed_tools"],
                    "properties": {
                        "allowed_tools": {
                            "type": "object",
                            "required": ["mode", "tools"],
                            "properties": {
                                "mode": {"enum": ["auto", "required"]},
                                "tools": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["type"],
                                        "properties": {"type": {"enum": ["function", "custom"]}},
                                    },
                                },
                            },
                        }
                    },
                },
            },
        ],
    },
}

_NULLABLE_INT_MIN_1 = {"type": ["integer", "null"], "minimum": 1}
# Field → schema for the other top-level fields we read or that the SDK types (so a wrong type gets the
# live service's ``invalid_type`` error rather than being silently ignored).
FIELDS: dict[str, dict[str, Any]] = {
    "model": {"type": "string"},
    "stream": {"type": ["boolean", "null"]},
    "stream_options": {
        "type": ["object", "null"],
        "properties": {"include_usage": {"type": "boolean"}, "include_obfuscation": {"type": "boolean"}},
    },
    "max_tokens": _NULLABLE_INT_MIN_1,
    "max_completion_tokens": _NULLABLE_INT_MIN_1,
    "n": {"type": ["integer", "null"], "minimum": 1, "maximum": 128},
    "seed": {"type": ["integer", "null"]},
    "stop": {"type": ["string", "null", "array"], "items": {"type": "string"}, "maxItems": 4},
    "parallel_tool_calls": {"type": ["boolean", "null"]},
    "temperature": {"type": ["number", "null"], "minimum": 0, "maximum": 2},
    "top_p": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
    "presence_penalty": {"type": ["number", "null"], "minimum": -2, "maximum": 2},
    "frequency_penalty": {"type": ["number", "null"], "minimum": -2, "maximum": 2},
    "logprobs": {"type": ["boolean", "null"]},
    # token id (a non-negative integer, as a string) → bias; keys and range checked in ``request``
    "logit_bias": {"type": ["object", "null"]},
    "top_logprobs": {"type": ["integer", "null"], "minimum": 0, "maximum": 20},
    "user": {"type": "string"},
    "metadata": {
        "type": ["object", "null"],
        "maxProperties": 16,
        "propertyNames": {"maxLength": 64},  # keys up to 64 characters, values strings up to 512
        "additionalProperties": {"type": "string", "maxLength": 512},
    },
    "store": {"type": ["boolean", "null"]},
    "response_format": {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": ["text", "json_object", "json_schema"]}},
        "if": {"properties": {"type": {"const": "json_schema"}}},
        "then": {
            "required": ["json_schema"],
            "properties": {
                "json_schema": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": FUNCTION_NAME,
                        "schema": {"type": "object"},
                        "strict": {"type": ["boolean", "null"]},
                    },
                }
            },
        },
    },
    "tools": TOOLS,
    "tool_choice": TOOL_CHOICE,
    # The legacy (deprecated) function calling: ``functions`` are function tools' ``function`` objects,
    # ``function_call`` is "none", "auto" or ``{"name": …}``.
    "functions": {
        "type": ["array", "null"],
        "minItems": 1,
        "items": _FUNCTION,
    },
    "function_call": {
        "anyOf": [
            {"type": "null"},
            {"enum": ["none", "auto"]},
            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        ]
    },
    "modalities": {"type": ["array", "null"], "items": {"enum": ["text", "audio"]}},
    "audio": {
        "type": ["object", "null"],
        "required": ["voice", "format"],
        "properties": {
            # A built-in voice name, or a custom voice ``{"id": "voice_…"}`` (which mockengine has none of).
            "voice": {
                "type": ["string", "object"],
                "required": ["id"],
                "properties": {"id": {"type": "string"}},
            },
            "format": {"enum": list(AUDIO_FORMATS)},
        },
    },
}
