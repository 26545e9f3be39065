"""Every server event type the engine sends, built by protocol/server_events.py, against the ``openai``
SDK's pydantic models (``openai.types.realtime.RealtimeServerEvent``): the builders one by one, then the
events of real sessions (fake engines, virtual time) covering every type the core sends, with their
nested items (hosted MCP items among them), responses, sessions and errors in their variants."""

from __future__ import annotations

import ast
import base64
import inspect
import io
import typing
from pathlib import Path
from typing import Any

import pytest
from openai.types.realtime import RealtimeServerEvent
from PIL import Image

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.protocol import server_events as se
from mockengine.realtime.effects import CallMcpTool, ItemTranscriptKey, ListMcpTools, Transcribe
from mockengine.realtime.response import Pacing
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import RecordingDriver, make_recording_driver
from tests.server_event_check import live_key_deviations, sdk_deviations

# Sent by the WebRTC shell only (server/webrtc/call.py); tests/integration covers them on calls.
WEBRTC_ONLY = {"output_audio_buffer.started", "output_audio_buffer.stopped", "output_audio_buffer.cleared"}
PACED = Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100)
SDK_TYPES = {
    typing.get_args(model.model_fields["type"].annotation)[0]
    for model in typing.get_args(typing.get_args(RealtimeServerEvent)[0])
}
SAMPLE_ARGUMENTS: dict[str, Any] = {
    "str": "x_1",
    "int": 0,
    "float": 0.0,
    "str | None": None,
    "JsonObject": {},
    "list[JsonObject]": [],
    "list[JsonObject] | None": [],  # an optional field a builder leaves out when None (logprobs, languages)
    "ContentPartRef": se.content_part_ref("resp_1", "item_1", 0, 0),
}


def _sample_call(kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    builder = se.BUILDERS[kind]
    arguments = {
        name: SAMPLE_ARGUMENTS[str(parameter.annotation)]
        for name, parameter in inspect.signature(builder).parameters.items()
        if name != "event_id"
    }
    ref = arguments.pop("ref", None)
    event = builder("event_1", ref, **arguments) if ref is not None else builder("event_1", **arguments)
    return event, {**(ref or {}), **arguments}


@pytest.mark.parametrize("kind", sorted(se.BUILDERS))
def test_each_builder_builds_its_own_type_with_exactly_its_fields(kind: str) -> None:
    assert kind in SDK_TYPES
    event, fields = _sample_call(kind)
    assert list(event)[:2] == ["type", "event_id"]
    assert event == {"type": kind, "event_id": "event_1", **fields}


def test_a_type_registered_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        se._builds("error")(se.error)


def test_the_webrtc_events_match_the_sdk() -> None:
    for kind in WEBRTC_ONLY:
        assert sdk_deviations(se.BUILDERS[kind]("event_1", response_id="resp_1")) == []


def _user_text(text: str) -> ce.ConversationItemCreate:
    return ce.ConversationItemCreate(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )


def _update(driver: VirtualTimeDriver, **session: Any) -> None:
    driver.send(ce.SessionUpdate({"type": "realtime", **session}))


TOOL = {
    "type": "function",
    "name": "send_chat",
    "description": "Send a chat message.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
}


def _spoken_turns(driver: RecordingDriver) -> None:
    """Speech with transcription, a reply heard, an idle timeout, a barge-in, a clear, an empty commit."""
    _update(
        driver,
        instructions="Be brief.",
        audio={
            "input": {
                "transcription": {"model": "whisper-1", "language": "en"},
                "noise_reduction": {"type": "near_field"},
                "turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000},
            },
            "output": {"voice": "marin", "speed": 1.1},
        },
        include=["item.input_audio_transcription.logprobs"],  # the transcription events' logprobs
    )
    driver.stream(synthetic_voiced_pcm16(900))
    driver.stream_silence(600)
    driver.run_until_idle()  # the reply, then the idle timeout's turn and its reply
    driver.stream(synthetic_voiced_pcm16(900))
    driver.stream_silence(400)
    driver.advance(driver.now_ms + 400)
    driver.stream(synthetic_voiced_pcm16(600))  # barge in on the reply
    driver.send(ce.InputAudioBufferClear())
    driver.send(ce.InputAudioBufferCommit())  # empty: an error
    driver.run_until_idle()


def _items_and_tools(driver: RecordingDriver) -> None:
    """Text replies, a function call and its output, an image, retrieve / truncate / delete, limits."""
    _update(driver, output_modalities=["text"], tools=[TOOL], tool_choice="auto")
    driver.send(_user_text("Please send a chat message saying hello to Alex."))
    driver.send(ce.ResponseCreate({"tool_choice": "required", "metadata": {"turn": "1"}}))
    driver.run_until_idle()
    call = driver.of_type("response.function_call_arguments.done")[-1]
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": '{"ok": true}'}
    driver.send(ce.ConversationItemCreate(output))
    png = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(png, format="PNG")
    image_url = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
    image = {"type": "input_image", "image_url": image_url}
    driver.send(ce.ConversationItemCreate({"type": "message", "role": "user", "content": [image]}))
    driver.send(ce.ResponseCreate({"output_modalities": ["text"], "max_output_tokens": 3}))
    driver.run_until_idle()
    _update(driver, output_modalities=["audio"], tool_choice="none")
    driver.send(_user_text("Tell me a long story about the sea."))
    driver.send(ce.ResponseCreate({}))
    driver.advance(driver.now_ms + 1500)
    assistant = driver.of_type("response.output_item.added")[-1]["item"]["id"]
    driver.send(ce.ConversationItemTruncate(assistant, 0, 100))
    driver.send(ce.ResponseCancel())
    driver.send(ce.ConversationItemRetrieve(assistant))
    driver.send(ce.ConversationItemDelete(assistant))
    driver.send(ce.ConversationItemDelete("item_gone"))  # an error with param null
    driver.send(ce.ResponseCreate({"conversation": "none", "output_modalities": ["text"]}))
    driver.run_until_idle()


def _a_failed_transcription_and_response(driver: RecordingDriver) -> None:
    driver.fixed_latency_ms = 60_000.0  # transcripts stay pending
    _update(
        driver,
        audio={
            "input": {"transcription": {"model": "whisper-1"}, "turn_detection": None},
            "output": {"format": {"type": "audio/pcmu"}},
        },
    )
    driver.stream(synthetic_voiced_pcm16(600))
    driver.send(ce.InputAudioBufferCommit())
    driver.send(ce.ResponseCreate({}))
    (key,) = [e.key for e in driver.effects if isinstance(e, Transcribe)]
    assert isinstance(key, ItemTranscriptKey)
    driver._apply(driver.session.on_transcript_failed(key, "engine down", driver.now_ms))
    driver.send(ce.ConversationItemRetrieve(key.item_id))  # user audio, as pcmu
    _update(driver, audio={"input": {"format": {"type": "audio/pcm", "rate": 24000}}})
    response_id = driver.of_type("response.created")[-1]["response"]["id"]  # waits for its speech
    driver._apply(driver.session.fail_response(response_id, {"code": "server_error", "message": "boom"}, 0))
    driver.fixed_latency_ms = 0.0
    driver.run_until_idle()


WEATHER_TOOLS = [
    {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "roll_dice",
        "description": "Roll one die with the given number of sides.",
        "input_schema": {
            "type": "object",
            "properties": {"sides": {"type": "integer"}},
            "required": ["sides"],
        },
        "annotations": None,
    },
]


def _hosted_mcp(driver: RecordingDriver) -> None:
    """Two MCP servers, one listed and one not; a call that completes, one that fails, an approval asked
    and granted (the shell's MCP work fed back by hand: the virtual-time driver does none)."""
    approval = {"always": {"tool_names": ["roll_dice"]}, "never": {"read_only": True}}
    weather = {"type": "mcp", "server_label": "weather", "server_url": "http://127.0.0.1:9/mcp"}
    down = {"type": "mcp", "server_label": "down", "server_url": "http://127.0.0.1:9/down"}
    _update(driver, output_modalities=["text"], tools=[{**weather, "require_approval": approval}, down])
    listings = [e for e in driver.effects if isinstance(e, ListMcpTools)]
    driver._apply(driver.session.on_mcp_tools(listings[0].key, WEATHER_TOOLS, driver.now_ms))
    driver._apply(driver.session.on_mcp_tools(listings[1].key, None, driver.now_ms))
    for question, output, error in [
        ("What's the weather like in Paris?", "Sunny.", None),
        ("What's the weather like in Rome?", None, {"type": "http_error", "code": 502, "message": "down"}),
    ]:
        driver.send(_user_text(question))
        driver.send(ce.ResponseCreate({}))
        driver.run_until_idle()
        call = [e for e in driver.effects if isinstance(e, CallMcpTool)][-1]
        driver._apply(driver.session.on_mcp_call(call.key, output, error, driver.now_ms))
        driver.run_until_idle()
    driver.send(_user_text("Roll a die with six sides."))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    request = driver.of_type("response.output_item.done")[-1]["item"]
    assert request["type"] == "mcp_approval_request"
    answer = {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": True}
    driver.send(ce.ConversationItemCreate(answer))  # the waiting response goes on with the call
    driver.run_until_idle()
    call = [e for e in driver.effects if isinstance(e, CallMcpTool)][-1]
    driver._apply(driver.session.on_mcp_call(call.key, "The die shows 4.", None, driver.now_ms))
    driver.send(ce.ConversationItemRetrieve(call.key.item_id))
    driver.run_until_idle()


def _a_diarized_turn(driver: RecordingDriver) -> None:
    """gpt-4o-transcribe-diarize: a turn's transcript comes with its segments."""
    _update(driver, audio={"input": {"transcription": {"model": "gpt-4o-transcribe-diarize"}}})
    driver.stream(synthetic_voiced_pcm16(900))
    driver.stream_silence(600)
    driver.run_until_idle()


SCRIPTS = [
    _spoken_turns,
    _items_and_tools,
    _a_failed_transcription_and_response,
    _hosted_mcp,
    _a_diarized_turn,
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_event_of_a_real_session_matches_the_sdk(script: Any) -> None:
    driver = make_recording_driver(pacing=PACED)
    script(driver)
    deviations = sorted({d for _, event in driver.events for d in sdk_deviations(event)})
    assert deviations == []
    assert sorted({d for _, event in driver.events for d in live_key_deviations(event)}) == []


def test_the_sessions_above_send_every_type_the_core_builds() -> None:
    sent: set[str] = set()
    for script in SCRIPTS:
        driver = make_recording_driver(pacing=PACED)
        script(driver)
        sent |= {event["type"] for _, event in driver.events}
    assert sent == set(se.BUILDERS) - WEBRTC_ONLY


def test_no_server_event_is_spelled_outside_its_builder() -> None:
    """In what serves sessions, a dict literal whose ``type`` is a server event type appears only in
    protocol/server_events.py (the conformance and load clients keep their own records of what they got)."""
    root = Path(se.__file__).parents[1]
    clients = {"conformance", "loadtest"}
    found = []
    for path in root.rglob("*.py"):
        if path == Path(se.__file__) or path.relative_to(root).parts[0] in clients:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                is_type = isinstance(key, ast.Constant) and key.value == "type"
                if is_type and isinstance(value, ast.Constant) and value.value in se.BUILDERS:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {value.value}")
    assert found == []
