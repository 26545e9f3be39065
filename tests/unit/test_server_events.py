"""Every server event type the engine sends, built by protocol/server_events.py, against the ``openai``
SDK's pydantic models (``openai.types.realtime.RealtimeServerEvent``): the builders one by one, then the
events of real sessions (fake engines, virtual time) covering every type the core sends, with their
nested items, responses, sessions and errors in their variants."""

from __future__ import annotations

import base64
import inspect
import io
import typing
from typing import Any

import pytest
from openai.types.realtime import RealtimeServerEvent
from PIL import Image

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.protocol import server_events as se
from mockengine.realtime.effects import ItemTranscriptKey, Transcribe
from mockengine.realtime.response import Pacing
from mockengine.replay import Replay
from tests.conftest import RecordingReplay, make_recording_replay
from tests.server_event_check import sdk_deviations

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
    "str | None": None,
    "JsonObject": {},
    "list[JsonObject]": [],
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


def _update(replay: Replay, **session: Any) -> None:
    replay.send(ce.SessionUpdate({"type": "realtime", **session}))


TOOL = {
    "type": "function",
    "name": "send_chat",
    "description": "Send a chat message.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
}


def _spoken_turns(replay: RecordingReplay) -> None:
    """Speech with transcription, a reply heard, an idle timeout, a barge-in, a clear, an empty commit."""
    _update(
        replay,
        instructions="Be brief.",
        audio={
            "input": {
                "transcription": {"model": "whisper-1", "language": "en"},
                "noise_reduction": {"type": "near_field"},
                "turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000},
            },
            "output": {"voice": "marin", "speed": 1.1},
        },
    )
    replay.stream(synthetic_voiced_pcm16(900))
    replay.stream_silence(600)
    replay.run_until_idle()  # the reply, then the idle timeout's turn and its reply
    replay.stream(synthetic_voiced_pcm16(900))
    replay.stream_silence(400)
    replay.advance(replay.now_ms + 400)
    replay.stream(synthetic_voiced_pcm16(600))  # barge in on the reply
    replay.send(ce.InputAudioBufferClear())
    replay.send(ce.InputAudioBufferCommit())  # empty: an error
    replay.run_until_idle()


def _items_and_tools(replay: RecordingReplay) -> None:
    """Text replies, a function call and its output, an image, retrieve / truncate / delete, limits."""
    _update(replay, output_modalities=["text"], tools=[TOOL], tool_choice="auto")
    replay.send(_user_text("Please send a chat message saying hello to Alex."))
    replay.send(ce.ResponseCreate({"tool_choice": "required", "metadata": {"turn": "1"}}))
    replay.run_until_idle()
    call = replay.of_type("response.function_call_arguments.done")[-1]
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": '{"ok": true}'}
    replay.send(ce.ConversationItemCreate(output))
    png = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(png, format="PNG")
    image_url = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
    image = {"type": "input_image", "image_url": image_url}
    replay.send(ce.ConversationItemCreate({"type": "message", "role": "user", "content": [image]}))
    replay.send(ce.ResponseCreate({"output_modalities": ["text"], "max_output_tokens": 3}))
    replay.run_until_idle()
    _update(replay, output_modalities=["audio"], tool_choice="none")
    replay.send(_user_text("Tell me a long story about the sea."))
    replay.send(ce.ResponseCreate({}))
    replay.advance(replay.now_ms + 1500)
    assistant = replay.of_type("response.output_item.added")[-1]["item"]["id"]
    replay.send(ce.ConversationItemTruncate(assistant, 0, 100))
    replay.send(ce.ResponseCancel())
    replay.send(ce.ConversationItemRetrieve(assistant))
    replay.send(ce.ConversationItemDelete(assistant))
    replay.send(ce.ConversationItemDelete("item_gone"))  # an error with param null
    replay.send(ce.ResponseCreate({"conversation": "none", "output_modalities": ["text"]}))
    replay.run_until_idle()


def _a_failed_transcription_and_response(replay: RecordingReplay) -> None:
    replay.fixed_latency_ms = 60_000.0  # transcripts stay pending
    _update(
        replay,
        audio={
            "input": {"transcription": {"model": "whisper-1"}, "turn_detection": None},
            "output": {"format": {"type": "audio/pcmu"}},
        },
    )
    replay.stream(synthetic_voiced_pcm16(600))
    replay.send(ce.InputAudioBufferCommit())
    replay.send(ce.ResponseCreate({}))
    (key,) = [e.key for e in replay.effects if isinstance(e, Transcribe)]
    assert isinstance(key, ItemTranscriptKey)
    replay._apply(replay.session.on_transcript_failed(key, "engine down", replay.now_ms))
    replay.send(ce.ConversationItemRetrieve(key.item_id))  # user audio, as pcmu
    _update(replay, audio={"input": {"format": {"type": "audio/pcm", "rate": 24000}}})
    response_id = replay.of_type("response.created")[-1]["response"]["id"]  # waits for its speech
    replay._apply(replay.session.fail_response(response_id, {"code": "server_error", "message": "boom"}, 0))
    replay.fixed_latency_ms = 0.0
    replay.run_until_idle()


@pytest.mark.parametrize("script", [_spoken_turns, _items_and_tools, _a_failed_transcription_and_response])
def test_every_event_of_a_real_session_matches_the_sdk(script: Any) -> None:
    replay = make_recording_replay(pacing=PACED)
    script(replay)
    deviations = sorted({d for _, event in replay.events for d in sdk_deviations(event)})
    assert deviations == []


def test_the_sessions_above_send_every_type_the_core_builds() -> None:
    sent: set[str] = set()
    for script in (_spoken_turns, _items_and_tools, _a_failed_transcription_and_response):
        replay = make_recording_replay(pacing=PACED)
        script(replay)
        sent |= {event["type"] for _, event in replay.events}
    assert sent == set(se.BUILDERS) - WEBRTC_ONLY
