"""The typed session view: defaults written once, built from the wire session the client sees."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import mockengine
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.item_params import validate_response_params
from mockengine.protocol.session_config import (
    SERVER_VAD_DEFAULTS,
    AudioFormat,
    InputTranscription,
    SemanticVad,
    ServerVad,
    SessionConfig,
    default_session,
    merge_session,
    validate_noise_reduction,
    validate_session_update,
    validate_tool_choice,
    validate_turn_detection,
)
from mockengine.protocol.session_schema import SESSION_UPDATE_SCHEMA, TURN_DETECTION_SCHEMA


def _merged(**update) -> dict:
    update = {"type": "realtime", **update}
    validate_session_update(update)
    merged = merge_session(default_session("gpt-realtime", "sess_1", 0), update)
    validate_turn_detection(merged["audio"]["input"]["turn_detection"])
    return merged


def test_the_default_wire_session_is_made_from_the_typed_defaults() -> None:
    wire = default_session("gpt-realtime", "sess_1", 3600)
    assert SessionConfig.from_wire(wire) == SessionConfig("gpt-realtime")
    assert wire["audio"]["input"]["turn_detection"] == SERVER_VAD_DEFAULTS
    # The live session.created's order and values (reference §4), 200 ms silence included.
    assert list(SERVER_VAD_DEFAULTS) == [
        "type",
        "threshold",
        "prefix_padding_ms",
        "silence_duration_ms",
        "idle_timeout_ms",
        "create_response",
        "interrupt_response",
    ]
    assert SERVER_VAD_DEFAULTS["silence_duration_ms"] == 200
    assert list(wire) == [
        "type",
        "object",
        "id",
        "model",
        "output_modalities",
        "instructions",
        "tools",
        "tool_choice",
        "max_output_tokens",
        "tracing",
        "truncation",
        "prompt",
        "expires_at",
        "audio",
        "include",
    ]
    assert wire["audio"]["output"] == {
        "format": {"type": "audio/pcm", "rate": 24000},
        "voice": "alloy",
        "speed": 1.0,
    }


def test_every_typed_turn_detection_field_is_a_wire_field_and_its_defaults_validate() -> None:
    branches = (TURN_DETECTION_SCHEMA["then"], TURN_DETECTION_SCHEMA["else"]["then"])
    for kind, schema in zip((SemanticVad, ServerVad), branches, strict=True):
        # model_version is echoed without a typed field (nothing reads it)
        assert {f.name for f in dataclasses.fields(kind)} == set(schema["properties"]) - {"model_version"}
        validate_turn_detection(dataclasses.asdict(kind()))
    top = SESSION_UPDATE_SCHEMA["properties"]
    scalar = {
        "model",
        "instructions",
        "output_modalities",
        "tools",
        "tool_choice",
        "max_output_tokens",
        "truncation",
    }
    assert scalar <= set(top)


def test_updates_read_back_typed() -> None:
    wire = _merged(
        instructions="Be brief.",
        output_modalities=["text"],
        max_output_tokens=50,
        audio={
            "input": {
                "format": {"type": "audio/pcmu"},
                "transcription": {"model": "whisper-1", "language": "en"},
                "noise_reduction": {"type": "far_field"},
                "turn_detection": {"type": "server_vad", "silence_duration_ms": 500, "idle_timeout_ms": 6000},
            },
            "output": {"voice": {"id": "voice_custom"}, "speed": 1.25, "format": {"type": "audio/pcma"}},
        },
    )
    config = SessionConfig.from_wire(wire)
    assert config.instructions == "Be brief." and config.output_modalities == ("text",)
    assert config.max_output_tokens == 50
    assert (
        config.input_format == AudioFormat("audio/pcmu", None) and config.output_format.type == "audio/pcma"
    )
    assert config.transcription == InputTranscription("whisper-1", "en", None)
    assert config.noise_reduction == "far_field"
    # A partial server_vad update keeps the other fields' defaults.
    assert config.turn_detection == ServerVad(silence_duration_ms=500, idle_timeout_ms=6000)
    assert config.voice == {"id": "voice_custom"} and config.speed == 1.25


def test_newer_transcription_settings_read_back_and_guide_whisper() -> None:
    """openai-node's AudioTranscription: ``delay``, ``keywords``, ``languages`` (refused before)."""
    wire = _merged(
        audio={"input": {"transcription": {"model": "gpt-live-transcribe", "keywords": ["Luigi", "Tokyo"]}}}
    )
    words = SessionConfig.from_wire(wire).transcription
    assert words is not None and words.keywords == ("Luigi", "Tokyo")
    assert words.whisper_prompt == "Luigi, Tokyo" and words.whisper_language is None
    both = _merged(
        audio={"input": {"transcription": {"prompt": "names", "keywords": ["x"], "languages": ["fr"]}}}
    )
    read = SessionConfig.from_wire(both).transcription
    assert read is not None and read.whisper_prompt == "names" and read.whisper_language == "fr"
    delayed = _merged(audio={"input": {"transcription": {"model": "gpt-realtime-whisper", "delay": "xhigh"}}})
    assert SessionConfig.from_wire(delayed).transcription == InputTranscription(
        "gpt-realtime-whisper", delay="xhigh"
    )
    with pytest.raises(ProtocolError) as raised:
        _merged(audio={"input": {"transcription": {"delay": "slow"}}})
    assert raised.value.param == "session.audio.input.transcription.delay"


def test_switching_to_semantic_vad_and_off() -> None:
    semantic = SessionConfig.from_wire(_merged(audio={"input": {"turn_detection": {"type": "semantic_vad"}}}))
    assert semantic.turn_detection == SemanticVad(eagerness="auto")
    eager = _merged(audio={"input": {"turn_detection": {"type": "semantic_vad", "eagerness": "high"}}})
    assert SessionConfig.from_wire(eager).turn_detection == SemanticVad(eagerness="high")
    off = SessionConfig.from_wire(_merged(audio={"input": {"turn_detection": None}}))
    assert off.turn_detection is None


def test_the_view_is_frozen_and_the_wire_is_untouched() -> None:
    wire = _merged(tools=[{"type": "function", "name": "f"}])
    before = json.dumps(wire)
    config = SessionConfig.from_wire(wire)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.instructions = "x"  # type: ignore[misc]
    assert config.tools == (wire["tools"][0],)
    assert json.dumps(wire) == before


def test_a_bad_update_is_still_rejected_with_the_live_wording() -> None:
    with pytest.raises(ProtocolError) as raised:
        _merged(audio={"input": {"turn_detection": {"type": "server_vad", "threshold": 2}}})
    # threshold is a number: "decimal", though the client sent an integer (as the live service words it)
    assert raised.value.code == "decimal_above_max_value"
    assert raised.value.message == (
        "Invalid 'session.audio.input.turn_detection.threshold': decimal above maximum value. "
        "Expected a value <= 1, but got 2 instead."
    )


@pytest.mark.parametrize("given", [{}, {"strength": 0.5}])
def test_noise_reduction_turned_on_needs_its_type_and_keeps_it_once_on(given: dict[str, Any]) -> None:
    off = default_session("gpt-realtime", "sess_1", 0)
    with pytest.raises(ProtocolError) as raised:
        validate_noise_reduction(merge_session(off, {"audio": {"input": {"noise_reduction": given}}}))
    assert (raised.value.code, raised.value.param) == (
        "missing_required_parameter",
        "session.audio.input.noise_reduction.type",
    )
    on = merge_session(off, {"audio": {"input": {"noise_reduction": {"type": "near_field"}}}})
    kept = merge_session(on, {"audio": {"input": {"noise_reduction": given}}})
    validate_noise_reduction(kept)
    assert kept["audio"]["input"]["noise_reduction"] == {"type": "near_field", **given}
    validate_noise_reduction(merge_session(on, {"audio": {"input": {"noise_reduction": None}}}))


def test_no_consumer_repeats_a_turn_detection_default() -> None:
    """Settings are read from the typed view; a ``.get("silence_duration_ms", 200)`` elsewhere would be
    a second copy of a default."""
    root = Path(mockengine.__file__).parent
    fields = {f.name for kind in (ServerVad, SemanticVad) for f in dataclasses.fields(kind)} - {"type"}
    found = [
        f"{path.relative_to(root)}: {name}"
        for path in root.rglob("*.py")
        if path.parent.name != "protocol"
        for name in fields
        if f'.get("{name}"' in path.read_text()
    ]
    assert found == []


MCP_TOOL = {
    "type": "mcp",
    "server_label": "deepwiki",
    "server_url": "https://x.test/mcp",
    "allowed_tools": {"tool_names": ["ask_question"], "read_only": True},
    "require_approval": {"always": {"tool_names": ["ask_question"]}, "never": {"read_only": True}},
    "headers": {"X-Team": "a"},
    "authorization": "token",
    "server_description": "Docs.",
}


@pytest.mark.parametrize("where", ["session", "response"])
def test_an_mcp_tool_with_a_server_url_is_taken(where: str) -> None:
    """Refused before as not emulated; the engine now lists and calls the server (docs/tools.md)."""
    if where == "session":
        validate_session_update(
            {
                "type": "realtime",
                "tools": [
                    MCP_TOOL,
                    {"type": "mcp", "server_label": "b", "server_url": "http://127.0.0.1:1/mcp"},
                ],
            }
        )
        merged = merge_session(default_session("gpt-realtime", "sess_1", 0), {"tools": [MCP_TOOL]})
        assert merged["tools"] == [MCP_TOOL]
    else:
        validate_response_params(
            {"tools": [MCP_TOOL], "tool_choice": {"type": "mcp", "server_label": "deepwiki"}}
        )


@pytest.mark.parametrize(
    ("change", "code", "param"),
    [
        ({"connector_id": "connector_gmail"}, "invalid_value", "connector_id"),
        ({"tunnel_id": "tun_1"}, "invalid_value", "tunnel_id"),
        ({"server_url": "ftp://x.test/mcp"}, "invalid_value", "server_url"),
        ({"server_url": "not a url"}, "invalid_value", "server_url"),
        # urlsplit and .port raise ValueError on these: it closed the session with 1011
        ({"server_url": "http://[::1/mcp"}, "invalid_value", "server_url"),
        ({"server_url": "http://127.0.0.1:99999/mcp"}, "invalid_value", "server_url"),
        ({"server_url": "http://127.0.0.1:0/mcp"}, "invalid_value", "server_url"),
        ({"server_url": None}, "missing_required_parameter", "server_url"),
        ({"require_approval": "sometimes"}, "invalid_value", "require_approval"),
        ({"allowed_tools": "ask_question"}, "invalid_type", "allowed_tools"),
        ({"headers": {"X-Count": 1}}, "invalid_type", "headers.X-Count"),
        ({"server_label": None}, "missing_required_parameter", "server_label"),
    ],
)
def test_an_mcp_tool_that_cannot_work_is_refused_saying_why(
    change: dict[str, Any], code: str, param: str
) -> None:
    tool = {**MCP_TOOL, **change}
    tool = {key: value for key, value in tool.items() if value is not None}
    with pytest.raises(ProtocolError) as raised:
        validate_session_update({"type": "realtime", "tools": [tool]})
    assert raised.value.code == code, raised.value.message
    assert raised.value.param is not None and raised.value.param.startswith("session.tools[0]")
    assert raised.value.param.endswith(param), raised.value.param
    if param in ("connector_id", "tunnel_id"):
        assert "OpenAI's cloud" in raised.value.message


def test_two_mcp_servers_with_one_label_and_a_choice_of_an_undeclared_server_are_refused() -> None:
    with pytest.raises(ProtocolError) as raised:
        validate_session_update({"type": "realtime", "tools": [MCP_TOOL, MCP_TOOL]})
    assert raised.value.param == "session.tools[1].server_label"
    with pytest.raises(ProtocolError) as raised:
        validate_tool_choice({"type": "mcp", "server_label": "other"}, [MCP_TOOL], "session")
    assert raised.value.param == "session.tool_choice"
