"""The HRP conformance suite definition, loaded from ``hrp_conformance.json`` (the single source of truth).

The JSON file is a verbatim copy of the ``conformance`` section of HRP spec 0.2.0 (suite version, turn
detections, thresholds, checks) plus the ``voiceEngine`` parts the suite sends on the wire (the session
handshake example, the turn-detection-off example, the tools and the question request).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUITE_PATH = Path(__file__).with_name("hrp_conformance.json")

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Thresholds:
    """HRP ``conformance.thresholds``; every value is in milliseconds."""

    max_onset_delay_ms: int
    max_response_start_ms: int
    max_cancel_to_done_ms: int
    event_timeout_ms: int
    no_reply_window_ms: int
    truncate_ack_timeout_ms: int


@dataclass(frozen=True)
class CheckSpec:
    """One HRP check: its wire id, what it proves, and whether it runs once per turn detection."""

    id: str
    description: str
    per_turn_detection: bool


@dataclass(frozen=True)
class Suite:
    """The whole suite: versions, thresholds, checks and the HRP client payloads the checks build on."""

    spec_version: str
    suite_version: int
    turn_detections: tuple[JsonObject, ...]
    thresholds: Thresholds
    checks: tuple[CheckSpec, ...]
    max_audio_delta_ms: int
    sample_rate_hz: int
    session_update_example: JsonObject
    turn_detection_off_example: JsonObject
    tools: tuple[JsonObject, ...]
    question_request: JsonObject

    @property
    def turn_detection_types(self) -> tuple[str, ...]:
        return tuple(str(td["type"]) for td in self.turn_detections)

    def turn_detection(self, td_type: str) -> JsonObject:
        """The HRP turn-detection object for ``td_type`` with ``create_response``/``interrupt_response`` on.

        Raises KeyError for a type the suite does not list.
        """
        for td in self.turn_detections:
            if td["type"] == td_type:
                return {**td, "create_response": True, "interrupt_response": True}
        raise KeyError(td_type)

    def check(self, check_id: str) -> CheckSpec:
        for spec in self.checks:
            if spec.id == check_id:
                return spec
        raise KeyError(check_id)


def load_suite(path: Path = SUITE_PATH) -> Suite:
    """Parse the suite file. Raises OSError / json.JSONDecodeError / KeyError on a broken file."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    t = raw["thresholds"]
    engine = raw["voiceEngine"]
    return Suite(
        spec_version=str(raw["specVersion"]),
        suite_version=int(raw["suiteVersion"]),
        turn_detections=tuple(raw["turnDetections"]),
        thresholds=Thresholds(
            max_onset_delay_ms=int(t["maxOnsetDelayMs"]),
            max_response_start_ms=int(t["maxResponseStartMs"]),
            max_cancel_to_done_ms=int(t["maxCancelToDoneMs"]),
            event_timeout_ms=int(t["eventTimeoutMs"]),
            no_reply_window_ms=int(t["noReplyWindowMs"]),
            truncate_ack_timeout_ms=int(t["truncateAckTimeoutMs"]),
        ),
        checks=tuple(
            CheckSpec(
                id=c["id"], description=c["description"], per_turn_detection=bool(c["perTurnDetection"])
            )
            for c in raw["checks"]
        ),
        max_audio_delta_ms=int(engine["maxAudioDeltaMs"]),
        sample_rate_hz=int(engine["sampleRateHz"]),
        session_update_example=engine["sessionUpdate"],
        turn_detection_off_example=engine["turnDetectionOff"],
        tools=tuple(engine["tools"]),
        question_request=engine["questionRequest"],
    )


def session_update(suite: Suite, turn_detection: JsonObject | None, instructions: str) -> JsonObject:
    """The HRP handshake ``session.update`` (voiceEngine.clientEvents[0]) with every HRP tool declared.

    Shape: ``{"type": "session.update", "session": {...}}``; ``turn_detection`` goes into
    ``session.audio.input.turn_detection`` unchanged (None switches engine turn detection off).
    """
    event = copy.deepcopy(suite.session_update_example)
    session = event["session"]
    session["instructions"] = instructions
    session["tools"] = [{"type": "function", **tool} for tool in suite.tools]
    session["audio"]["input"]["turn_detection"] = copy.deepcopy(turn_detection)
    return event


def turn_detection_update(suite: Suite, turn_detection: JsonObject | None) -> JsonObject:
    """The HRP mid-session turn-detection switch (voiceEngine.clientEvents[2]) set to ``turn_detection``."""
    event = copy.deepcopy(suite.turn_detection_off_example)
    event["session"]["audio"]["input"]["turn_detection"] = copy.deepcopy(turn_detection)
    return event


def question_request(suite: Suite, tool_name: str) -> JsonObject:
    """The HRP silent-answer ``response.create`` (voiceEngine.questionRequest) forcing ``tool_name``."""
    event = copy.deepcopy(suite.question_request)
    event["response"]["tool_choice"] = {"type": "function", "name": tool_name}
    return event


def tool_schema(suite: Suite, name: str) -> JsonObject:
    """The JSON Schema of the HRP tool ``name``'s parameters. Raises KeyError if HRP declares no such tool."""
    for tool in suite.tools:
        if tool["name"] == name:
            return dict(tool["parameters"])
    raise KeyError(name)
