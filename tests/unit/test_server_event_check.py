"""The oracles of tests/server_event_check.py fail when they should: an SDK model's required field left
out or null, a number sent as a string, an undeclared field at any depth, and a frame whose keys (or a
session's key order) differ from the live service's captures."""

from __future__ import annotations

import copy
from typing import Any

from mockengine.protocol.session_config import default_session
from tests.server_event_check import live_key_deviations, sdk_deviations

SPEECH_STARTED = {
    "type": "input_audio_buffer.speech_started",
    "event_id": "event_1",
    "audio_start_ms": 300,
    "item_id": "item_1",
}
TRUNCATED = {
    "type": "conversation.item.truncated",
    "event_id": "event_2",
    "item_id": "item_1",
    "content_index": 0,
    "audio_end_ms": 50,
}


def _session_created() -> dict[str, Any]:
    return {
        "type": "session.created",
        "event_id": "event_3",
        "session": default_session("gpt-realtime", "s", 1),
    }


def test_well_formed_events_pass_both() -> None:
    for event in (SPEECH_STARTED, TRUNCATED, _session_created()):
        assert sdk_deviations(event) == [] and live_key_deviations(event) == []


def test_a_required_field_missing_or_null_is_a_deviation() -> None:
    missing = {k: v for k, v in TRUNCATED.items() if k != "audio_end_ms"}
    assert any("audio_end_ms" in d for d in sdk_deviations(missing))
    assert any("audio_end_ms" in d for d in sdk_deviations({**TRUNCATED, "audio_end_ms": None}))


def test_a_number_as_a_string_is_a_deviation_in_strict_mode() -> None:
    assert sdk_deviations({**TRUNCATED, "audio_end_ms": "50"}) != []


def test_an_undeclared_field_at_any_depth_is_a_deviation() -> None:
    assert sdk_deviations({**SPEECH_STARTED, "extra": 1}) == [
        "input_audio_buffer.speech_started: unknown field extra"
    ]
    event = _session_created()
    event["session"]["audio"]["output"]["bogus"] = True
    assert sdk_deviations(event) == ["session.created: unknown field session.audio.output.bogus"]


def test_keys_unlike_the_live_capture_are_a_deviation() -> None:
    assert live_key_deviations({**SPEECH_STARTED, "extra": 1}) != []
    event = _session_created()
    del event["session"]["tracing"]
    assert any("session has" in d for d in live_key_deviations(event))
    echoed = _session_created()
    echoed["session"]["audio"]["input"]["transcription"] = {"model": "whisper-1"}  # live: + language, prompt
    assert any("transcription" in d for d in live_key_deviations(echoed))
    reordered = _session_created()
    session = reordered["session"]
    reordered["session"] = {"model": session.pop("model"), **session}
    assert any("in order" in d for d in live_key_deviations(reordered))
    vad = copy.deepcopy(_session_created())
    turn_detection = vad["session"]["audio"]["input"]["turn_detection"]
    turn_detection["threshold"] = turn_detection.pop("threshold")
    assert any("turn_detection" in d for d in live_key_deviations(vad))


def test_an_input_transcripts_usage_unlike_the_live_kinds_is_a_deviation() -> None:
    completed = {
        "type": "conversation.item.input_audio_transcription.completed",
        "event_id": "event_4",
        "item_id": "item_1",
        "content_index": 0,
        "transcript": "Hello.",
        "usage": {"type": "duration", "seconds": 2},
    }
    assert live_key_deviations(completed) == []
    tokens = {"type": "tokens", "total_tokens": 3, "input_tokens": 2, "output_tokens": 1}
    assert any("usage has" in d for d in live_key_deviations({**completed, "usage": tokens}))
    details = {**tokens, "input_token_details": {"text_tokens": 0}}
    assert any("input_token_details" in d for d in live_key_deviations({**completed, "usage": details}))
