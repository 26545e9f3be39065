"""The suite file, the HRP payloads built from it, check planning and the CLI options."""

from __future__ import annotations

import argparse

import pytest

from mockengine.conformance.checks_text import same_json, turn_detection_variants
from mockengine.conformance.runner import CHECKS, add_arguments, plan
from mockengine.conformance.spec import load_suite, question_request, session_update, turn_detection_update

SUITE = load_suite()


def test_suite_is_hrp_suite_6_with_its_thresholds() -> None:
    assert SUITE.suite_version == 6
    assert SUITE.turn_detection_types == ("server_vad", "semantic_vad")
    t = SUITE.thresholds
    assert (t.max_onset_delay_ms, t.max_response_start_ms, t.max_cancel_to_done_ms) == (1000, 5000, 1500)
    assert (t.event_timeout_ms, t.no_reply_window_ms, t.truncate_ack_timeout_ms) == (15000, 1500, 3000)
    assert SUITE.max_audio_delta_ms == 2000


def test_every_spec_check_has_an_implementation() -> None:
    assert [c.id for c in SUITE.checks] == list(CHECKS)


def test_handshake_declares_flat_tools_and_the_tested_turn_detection() -> None:
    event = session_update(SUITE, SUITE.turn_detection("semantic_vad"), "be brief")
    session = event["session"]
    assert event["type"] == "session.update" and session["type"] == "realtime"
    assert session["instructions"] == "be brief"
    assert {t["name"] for t in session["tools"]} >= {"send_chat", "answer_scale", "answer_text"}
    assert all(t["type"] == "function" and "parameters" in t for t in session["tools"])
    assert session["audio"]["input"]["turn_detection"] == {
        "type": "semantic_vad",
        "eagerness": "auto",
        "create_response": True,
        "interrupt_response": True,
    }
    assert session["audio"]["output"] == {
        "format": {"type": "audio/pcm", "rate": 24000},
        "voice": "marin",
        "speed": 1,
    }
    assert SUITE.session_update_example["session"]["tools"][0]["name"] == "answer_choice"


def test_turn_detection_switch_keeps_format_and_transcription() -> None:
    off = turn_detection_update(SUITE, None)["session"]["audio"]["input"]
    assert off == {
        "format": {"type": "audio/pcm", "rate": 24000},
        "transcription": None,
        "turn_detection": None,
    }


def test_question_request_forces_the_named_tool_silently() -> None:
    request = question_request(SUITE, "answer_text")
    assert request["response"] == {
        "output_modalities": ["text"],
        "tool_choice": {"type": "function", "name": "answer_text"},
    }
    assert SUITE.question_request["response"]["tool_choice"]["name"] == "answer_scale"


def test_plan_runs_per_turn_detection_checks_once_per_type_in_spec_order() -> None:
    labels = [p.label for p in plan(SUITE, "all", None)]
    assert len(labels) == 15
    assert labels[:3] == ["handshake", "engine_turn[server_vad]", "engine_turn[semantic_vad]"]
    assert [p.label for p in plan(SUITE, "semantic_vad", ["barge_in", "cancel"])] == [
        "barge_in[semantic_vad]",
        "cancel",
    ]
    assert [p.label for p in plan(SUITE, "all", ["barge_in[server_vad]"])] == ["barge_in[server_vad]"]


def test_plan_rejects_unknown_checks() -> None:
    with pytest.raises(ValueError, match="unknown check bogus"):
        plan(SUITE, "all", ["bogus"])
    with pytest.raises(ValueError, match="unknown check barge_in\\[semantic_vad\\]"):
        plan(SUITE, "server_vad", ["barge_in[semantic_vad]"])


def test_turn_detection_variants_change_every_settable_field() -> None:
    (server,) = turn_detection_variants("server_vad")
    assert (
        server["threshold"] != 0.5
        and server["prefix_padding_ms"] != 300
        and server["interrupt_response"] is False
    )
    assert [v["eagerness"] for v in turn_detection_variants("semantic_vad")] == ["high", "low", "auto"]


def test_same_json_keeps_booleans_apart_from_numbers() -> None:
    assert same_json(500, 500.0)
    assert not same_json(True, 1)
    assert same_json(None, None) and not same_json(None, 0)


def test_cli_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--url", "ws://x/v1/realtime", "--check", "cancel", "--check", "barge_in"])
    assert (args.api_key, args.turn_detection, args.json, args.check) == (
        "sk-mockengine",
        "all",
        None,
        ["cancel", "barge_in"],
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert parser.parse_args(["--url", "u"]).api_key == "sk-env"
    with pytest.raises(SystemExit):
        parser.parse_args(["--url", "u", "--turn-detection", "nope"])
