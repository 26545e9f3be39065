"""The JSON Schemas of the realtime session object (``session.update``), shared with items and responses.

Source: reference §4 (fields, types and ranges as the live service accepts them) and §5 (turn detection).
"""

from __future__ import annotations

from typing import Any

from mockengine.engines.voices import VOICE_NAMES

EAGERNESS = ("low", "medium", "high", "auto")

FORMAT_SCHEMA = {
    "type": "object",
    "properties": {"type": {"enum": ["audio/pcm", "audio/pcmu", "audio/pcma"]}, "rate": {"type": "integer"}},
    "required": ["type"],
    "additionalProperties": False,
    "if": {"properties": {"type": {"const": "audio/pcm"}}},
    "then": {"properties": {"rate": {"minimum": 24000, "maximum": 24000}}},
    # G.711 has no rate in openai-python's AudioPCMU / AudioPCMA: 8 kHz is implied. A client that names
    # it anyway is taken at its word when it says 8000 (the echo drops it: G711_FORMATS); any other
    # rate is refused as the PCM one is, with the bound in the message.
    "else": {"properties": {"rate": {"minimum": 8000, "maximum": 8000}}},
}
G711_FORMATS = ("audio/pcmu", "audio/pcma")
# A turn detector's model, as both OpenAI Agents SDKs send it (agents-python's RealtimeTurnDetectionConfig
# and agents-js's RealtimeTurnDetectionConfigAsIs: "Optional backend-specific VAD model identifier",
# openai-agents-python#2450, openai-agents-js#968); not in openai-python's types. Echoed, no effect: the
# engine has one detector per type. Any string: the live values are not public.
_MODEL_VERSION: dict[str, Any] = {"type": "string"}
_SERVER_VAD_FIELDS: dict[str, Any] = {
    "type": {"const": "server_vad"},
    "threshold": {"type": "number", "minimum": 0.0, "maximum": 1.0},
    "prefix_padding_ms": {"type": "integer", "minimum": 0},
    "silence_duration_ms": {"type": "integer", "minimum": 0},
    "idle_timeout_ms": {"type": ["integer", "null"], "minimum": 5000, "maximum": 30000},
    "create_response": {"type": "boolean"},
    "interrupt_response": {"type": "boolean"},
    "model_version": _MODEL_VERSION,
}
_SEMANTIC_VAD_FIELDS: dict[str, Any] = {
    "type": {"const": "semantic_vad"},
    "eagerness": {"enum": list(EAGERNESS)},
    "create_response": {"type": "boolean"},
    "interrupt_response": {"type": "boolean"},
    "model_version": _MODEL_VERSION,
}
_SERVER_VAD = {"type": "object", "properties": _SERVER_VAD_FIELDS, "additionalProperties": False}
_SEMANTIC_VAD = {"type": "object", "properties": _SEMANTIC_VAD_FIELDS, "additionalProperties": False}
TURN_DETECTION_SCHEMA = {
    "type": ["object", "null"],
    "properties": {"type": {"enum": ["server_vad", "semantic_vad"]}},
    "if": {"type": "object", "properties": {"type": {"const": "semantic_vad"}}, "required": ["type"]},
    "then": _SEMANTIC_VAD,
    "else": {
        "if": {"type": "object", "required": ["type"]},
        "then": _SERVER_VAD,
        # No type: a partial update of the type in force; checked again after the merge.
        "else": {
            "if": {"type": "object"},
            "then": {
                "properties": {**_SERVER_VAD_FIELDS, **_SEMANTIC_VAD_FIELDS, "type": {}},
                "additionalProperties": False,
            },
        },
    },
}
# tracing, truncation and prompt as the SDK types them (realtime_tracing_config.py,
# realtime_truncation_retention_ratio.py, responses/response_prompt.py), so what session.updated echoes
# is always a value the SDK can hold. A token limit below 1 is refused: our choice, the bound is not public.
TRACING_SCHEMA = {
    "anyOf": [
        {"enum": ["auto"]},
        {
            "type": ["object", "null"],
            "properties": {
                "workflow_name": {"type": "string"},
                "group_id": {"type": "string"},
                "metadata": {},
            },
            "additionalProperties": False,
        },
    ]
}
TRUNCATION_SCHEMA = {
    "anyOf": [
        {"enum": ["auto", "disabled"]},
        {
            "type": "object",
            "properties": {
                "type": {"const": "retention_ratio"},
                "retention_ratio": {"type": "number", "minimum": 0.0, "maximum": 1.0},
                "token_limits": {
                    "type": "object",
                    "properties": {"post_instructions": {"type": "integer", "minimum": 1}},
                    "additionalProperties": False,
                },
            },
            "required": ["type", "retention_ratio"],
            "additionalProperties": False,
        },
    ]
}
_PROMPT_VARIABLE = {
    "anyOf": [
        {"type": "string"},
        {
            "type": "object",
            "properties": {"type": {"enum": ["input_text", "input_image", "input_file"]}},
            "required": ["type"],
        },
    ]
}
PROMPT_SCHEMA = {
    "type": ["object", "null"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "version": {"type": "string"},
        "variables": {"type": "object", "additionalProperties": _PROMPT_VARIABLE},
    },
    "required": ["id"],
    "additionalProperties": False,
}
_TOOL = {
    "type": "object",
    "properties": {
        "type": {"enum": ["function"]},
        # OpenAI's rule for function names.
        "name": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"},
        "description": {"type": "string"},
        "parameters": {"type": "object", "properties": {"type": {"const": "object"}}},
    },
    "required": ["name"],
    "additionalProperties": False,
}
# Reasoning models (reference §8 "bad enum value": the live message lists these efforts).
REASONING_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"],
    "properties": {"effort": {"enum": ["minimal", "low", "medium", "high", "xhigh"]}},
    "additionalProperties": False,
}
_TOOL_NAMES_FILTER = {
    "type": "object",
    "properties": {
        "tool_names": {"type": "array", "items": {"type": "string"}},
        "read_only": {"type": "boolean"},
    },
    "additionalProperties": False,
}
# A hosted MCP server (openai-python's realtime_tools_config_union.Mcp): the engine lists and calls the
# tools of a server it can reach (``server_url``); ``session_config.check_mcp_tools`` refuses connectors.
_MCP_TOOL = {
    "type": "object",
    "properties": {
        "type": {"enum": ["mcp"]},
        "server_label": {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"},
        "server_url": {"type": "string"},
        "connector_id": {"type": "string"},
        "tunnel_id": {"type": "string"},
        "server_description": {"type": "string"},
        "authorization": {"type": "string"},
        "headers": {"type": ["object", "null"], "additionalProperties": {"type": "string"}},
        "allowed_tools": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, _TOOL_NAMES_FILTER, {"type": "null"}]
        },
        "require_approval": {
            "anyOf": [
                {"enum": ["always", "never"]},
                {
                    "type": "object",
                    "properties": {"always": _TOOL_NAMES_FILTER, "never": _TOOL_NAMES_FILTER},
                    "additionalProperties": False,
                },
                {"type": "null"},
            ]
        },
        "allowed_callers": {"type": ["array", "null"], "items": {"enum": ["direct", "programmatic"]}},
        "defer_loading": {"type": ["boolean", "null"]},
    },
    "required": ["server_label"],
    "additionalProperties": False,
}
# Discriminated by ``type`` (like the items of item_params), so each kind is judged by its own fields.
TOOLS_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": {"enum": ["function", "mcp"]}},
        "allOf": [
            {
                "if": {"properties": {"type": {"const": "mcp"}}, "required": ["type"]},
                "then": _MCP_TOOL,
                "else": _TOOL,
            }
        ],
    },
}
TOOL_CHOICE_SCHEMA = {
    "anyOf": [
        {"enum": ["none", "auto", "required"]},
        {
            "type": "object",
            "properties": {"type": {"enum": ["function"]}, "name": {"type": "string"}},
            "required": ["type", "name"],
            "additionalProperties": False,
        },
        {
            # openai-python's ToolChoiceMcp: a hosted MCP server's tools (one of them, when named).
            "type": "object",
            "properties": {
                "type": {"enum": ["mcp"]},
                "server_label": {"type": "string"},
                "name": {"type": ["string", "null"]},
            },
            "required": ["type", "server_label"],
            "additionalProperties": False,
        },
    ]
}
MAX_OUTPUT_TOKENS_SCHEMA = {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 4096}, {"enum": ["inf"]}]}
OUTPUT_MODALITIES_SCHEMA = {
    "type": "array",
    "items": {"enum": ["text", "audio"]},
    "minItems": 1,
    "maxItems": 1,
}
VOICE_SCHEMA = {
    "anyOf": [
        {"enum": list(VOICE_NAMES)},
        {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    ]
}
# The transcription models openai-python's AudioTranscription names (audio_transcription.py). A
# transcription session refuses any other (a realtime session's transcription takes any name, as before).
TRANSCRIPTION_MODELS = (
    "whisper-1",
    "gpt-transcribe",
    "gpt-live-transcribe",
    "gpt-4o-mini-transcribe",
    "gpt-4o-mini-transcribe-2025-12-15",
    "gpt-4o-transcribe",
    "gpt-4o-transcribe-diarize",
    "gpt-realtime-whisper",
)
# The one whose transcripts say the languages it detected (openai-python: "Returned by gpt-transcribe").
LANGUAGE_DETECTING_MODEL = "gpt-transcribe"
# The one billed by the second rather than by tokens, as POST /v1/audio/transcriptions bills it: its
# input transcripts' usage is {"type": "duration", "seconds"} (reference §10).
DURATION_BILLED_MODEL = "whisper-1"
# The one that labels who spoke: its input transcripts come with
# ``conversation.item.input_audio_transcription.segment`` events too (reference §2).
DIARIZING_MODEL = "gpt-4o-transcribe-diarize"
_TRANSCRIPTION_FIELDS: dict[str, Any] = {
    "model": {"type": "string"},
    "language": {"type": ["string", "null"]},
    "prompt": {"type": ["string", "null"]},
    # openai-node 7.x AudioTranscription (and openai-python's delay); the Agents JS SDK passes them through
    "delay": {"enum": ["minimal", "low", "medium", "high", "xhigh", None]},
    "keywords": {"type": ["array", "null"], "items": {"type": "string"}},
    "languages": {"type": ["array", "null"], "items": {"type": "string"}},
}
_AUDIO_INPUT_FIELDS: dict[str, Any] = {
    "format": FORMAT_SCHEMA,
    "transcription": {
        "type": ["object", "null"],
        "properties": _TRANSCRIPTION_FIELDS,
        "additionalProperties": False,
    },
    # openai-python's NoiseReduction: ``strength`` ("higher values apply more suppression", 1 when first
    # enabled; echoed, no effect). Its bound is not public: a negative strength is refused (ours).
    "noise_reduction": {
        "type": ["object", "null"],
        "properties": {
            "type": {"enum": ["near_field", "far_field"]},
            "strength": {"type": "number", "minimum": 0.0},
        },
        "additionalProperties": False,
    },
    "turn_detection": TURN_DETECTION_SCHEMA,
}
_INCLUDE_SCHEMA = {"type": ["array", "null"], "items": {"enum": ["item.input_audio_transcription.logprobs"]}}
# openai-python's RealtimeTranscriptionSessionCreateRequest: only audio.input and include (reference §4).
TRANSCRIPTION_SESSION_UPDATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"const": "transcription"},
        "object": {"type": "string"},
        "id": {"type": "string"},
        "expires_at": {"type": "integer"},
        "audio": {
            "type": "object",
            "properties": {
                "input": {
                    "type": "object",
                    "properties": {
                        **_AUDIO_INPUT_FIELDS,
                        "transcription": {
                            "type": ["object", "null"],
                            "properties": {
                                **_TRANSCRIPTION_FIELDS,
                                "model": {"enum": list(TRANSCRIPTION_MODELS)},
                            },
                            "additionalProperties": False,
                        },
                    },
                    "additionalProperties": False,
                }
            },
            "additionalProperties": False,
        },
        "include": _INCLUDE_SCHEMA,
    },
    "required": ["type"],
    "additionalProperties": False,
}
SESSION_UPDATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"enum": ["realtime", "transcription"]},
        "object": {"type": "string"},
        "id": {"type": "string"},
        "expires_at": {"type": "integer"},
        "model": {"type": "string"},
        "instructions": {"type": "string"},
        "output_modalities": OUTPUT_MODALITIES_SCHEMA,
        "audio": {
            "type": "object",
            "properties": {
                "input": {
                    "type": "object",
                    "properties": _AUDIO_INPUT_FIELDS,
                    "additionalProperties": False,
                },
                "output": {
                    "type": "object",
                    "properties": {
                        "format": FORMAT_SCHEMA,
                        "voice": VOICE_SCHEMA,
                        "speed": {"type": "number", "minimum": 0.25, "maximum": 1.5},
                    },
                    "additionalProperties": False,
                },
            },
            "additionalProperties": False,
        },
        "tools": TOOLS_SCHEMA,
        "tool_choice": TOOL_CHOICE_SCHEMA,
        "max_output_tokens": MAX_OUTPUT_TOKENS_SCHEMA,
        "tracing": TRACING_SCHEMA,
        "truncation": TRUNCATION_SCHEMA,
        "prompt": PROMPT_SCHEMA,
        "include": _INCLUDE_SCHEMA,
        "parallel_tool_calls": {"type": "boolean"},
        "reasoning": REASONING_SCHEMA,
    },
    "required": ["type"],
    "additionalProperties": False,
}
