"""The typed session view: defaults written once, built from the wire session the client sees."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

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
    validate_session_update,
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


@pytest.mark.parametrize("where", ["session", "response"])
def test_an_mcp_tool_is_refused_by_its_type_as_not_emulated(where: str) -> None:
    """Refused before by the first MCP field the function-tool schema met (``require_approval``)."""
    mcp = {"type": "mcp", "server_label": "deepwiki", "server_url": "https://x.test/mcp"}
    mcp["require_approval"] = "never"
    with pytest.raises(ProtocolError) as raised:
        if where == "session":
            validate_session_update({"type": "realtime", "tools": [mcp]})
        else:
            validate_response_params({"tools": [mcp]})
    assert (raised.value.code, raised.value.param) == ("invalid_value", f"{where}.tools[0].type")
    assert "not emulated" in raised.value.message
