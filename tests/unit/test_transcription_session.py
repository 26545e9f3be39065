"""Transcription sessions (reference §4 "Transcription session"): their session object, what a
``session.update`` of one may hold, the refusals that keep a session's type, and the sans-IO session
in transcription mode: the input path of a realtime session, transcripts, never a response."""

from __future__ import annotations

import dataclasses
import math

import pytest
from openai.types.realtime import RealtimeTranscriptionSessionCreateResponse

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.stt import Transcript, WordTiming
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.protocol import server_events as se
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import (
    SERVER_VAD_DEFAULTS,
    InputTranscription,
    SessionConfig,
    check_session_type,
    default_session,
    default_transcription_session,
    merge_session,
    validate_session_update,
    validate_turn_detection,
)
from mockengine.protocol.session_schema import TRANSCRIPTION_MODELS
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.server.handshake import check_connection, session_type
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import UNPACED
from tests.speech import validate_server_event

# What Pipecat 1.14's OpenAIRealtimeSTTService sends once session.created arrives.
PIPECAT_UPDATE = {
    "type": "transcription",
    "audio": {
        "input": {
            "format": {"type": "audio/pcm", "rate": 24000},
            "transcription": {"model": "gpt-4o-transcribe", "language": "en", "prompt": "geography"},
            "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
            "noise_reduction": {"type": "near_field"},
        }
    },
}


def _driver(
    transcript: str = "What is the capital of France?", transcriber: FakeTranscriber | None = None
) -> VirtualTimeDriver:
    session = RealtimeSession(
        SessionOptions(
            model="gpt-realtime", pacing=UNPACED, created_at_s=1_700_000_000, session_type="transcription"
        ),
        brain=ScriptedBrain(load_scenario(None), seed=7),
        ids=IdFactory(7),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )
    driver = VirtualTimeDriver(session, transcriber or FakeTranscriber(default=transcript), FakeSynthesizer())
    driver.start()
    return driver


class WordyTranscriber(FakeTranscriber):
    """The fake transcript with word probabilities (whisper gives one per word)."""

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        heard = super().transcribe(pcm16_24k, language=language, prompt=prompt)
        words = tuple(WordTiming(word, 0, 0, 0.5) for word in heard.text.split())
        return dataclasses.replace(heard, words=words)


def _refusal(update: dict) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        validate_session_update(update)
    return caught.value


def test_the_new_transcription_session_is_the_sdks_transcription_session_object() -> None:
    wire = default_transcription_session("sess_1", 1_700_003_600)
    assert wire["type"] == "transcription" and wire["object"] == "realtime.transcription_session"
    assert set(wire) == {"type", "object", "id", "expires_at", "audio", "include"}
    assert set(wire["audio"]) == {"input"}
    assert wire["audio"]["input"]["turn_detection"] == SERVER_VAD_DEFAULTS  # server_vad on by default
    RealtimeTranscriptionSessionCreateResponse.model_validate(wire, strict=True)
    validate_server_event(se.session_created("event_1", session=wire))
    view = SessionConfig.from_wire(wire)
    assert view.is_transcription and view.transcription is None


def test_a_pipecat_update_is_accepted_and_read_back() -> None:
    validate_session_update(PIPECAT_UPDATE)
    merged = merge_session(default_transcription_session("sess_1", 0), PIPECAT_UPDATE)
    validate_server_event(se.session_updated("event_1", session=merged))
    view = SessionConfig.from_wire(merged)
    assert view.transcription == InputTranscription("gpt-4o-transcribe", "en", "geography")
    assert view.turn_detection is not None and view.turn_detection.silence_duration_ms == 500
    assert view.noise_reduction == "near_field" and view.is_transcription


@pytest.mark.parametrize("model", TRANSCRIPTION_MODELS)
def test_every_transcription_model_of_the_sdk_is_accepted(model: str) -> None:
    update = {"type": "transcription", "audio": {"input": {"transcription": {"model": model}}}}
    validate_session_update(update)


@pytest.mark.parametrize(
    ("update", "code", "param"),
    [
        # Only audio.input and include: a realtime field is unknown here.
        ({"instructions": "hi"}, "unknown_parameter", "session.instructions"),
        ({"model": "gpt-realtime"}, "unknown_parameter", "session.model"),
        ({"audio": {"output": {"voice": "alloy"}}}, "unknown_parameter", "session.audio.output"),
        (
            {"audio": {"input": {"transcription": {"model": "gpt-realtime"}}}},
            "invalid_value",
            "session.audio.input.transcription.model",
        ),
        (
            {"audio": {"input": {"turn_detection": {"type": "semantic_vad", "eagerness": "eager"}}}},
            "invalid_value",
            "session.audio.input.turn_detection.eagerness",
        ),
    ],
)
def test_what_a_transcription_session_does_not_take_is_refused(update: dict, code: str, param: str) -> None:
    error = _refusal({"type": "transcription", **update})
    assert (error.code, error.param) == (code, param)


def test_a_session_keeps_its_type() -> None:
    check_session_type("transcription", {"type": "transcription"})
    check_session_type("realtime", {"type": "realtime"})
    with pytest.raises(ProtocolError) as into_realtime:
        check_session_type("realtime", {"type": "transcription"})
    assert into_realtime.value.message == (
        "Passing a transcription session update event to a realtime session is not allowed."
    )
    with pytest.raises(ProtocolError) as into_transcription:
        check_session_type("transcription", {"type": "realtime"})
    assert into_transcription.value.param == "session.type"
    assert "realtime session update event to a transcription session" in into_transcription.value.message


@pytest.mark.parametrize(
    ("intent", "model", "kind"),
    [
        ("transcription", None, "transcription"),
        ("transcription", "gpt-4o-mini-transcribe", "transcription"),  # LiveKit, non-OpenAI hosts
        ("transcription", "gpt-realtime", "realtime"),
        (None, "gpt-realtime", "realtime"),
        (None, "gpt-4o-transcribe", "realtime"),  # then refused as a realtime model
    ],
)
def test_the_url_chooses_the_session_type(intent: str | None, model: str | None, kind: str) -> None:
    assert session_type(intent, model) == kind


def test_a_transcription_url_is_accepted_and_a_transcribe_model_alone_is_not() -> None:
    assert check_connection("sk-test", None, None, None, intent="transcription") is None
    assert check_connection("sk-test", "whisper-1", None, None, intent="transcription") is None
    alone = check_connection("sk-test", "whisper-1", None, None)
    assert alone is not None and alone.error.code == "invalid_model"
    unknown = check_connection("sk-test", "gpt-nope", None, None, intent="transcription")
    assert unknown is not None and unknown.error.code == "invalid_model"


@pytest.mark.parametrize(
    "turn_detection",
    [{"type": "server_vad", "silence_duration_ms": 500}, {"type": "semantic_vad", "eagerness": "high"}],
    ids=lambda t: str(t["type"]),
)
def test_speech_is_turned_into_transcripts_and_never_into_a_response(turn_detection: dict) -> None:
    driver = _driver()
    (created,) = driver.of_type("session.created")
    assert created["session"]["object"] == "realtime.transcription_session"
    update = {"type": "transcription", "audio": {"input": {**PIPECAT_UPDATE["audio"]["input"]}}}
    update["audio"]["input"]["turn_detection"] = turn_detection
    driver.send(ce.SessionUpdate(update))
    (updated,) = driver.of_type("session.updated")
    assert updated["session"]["audio"]["input"]["transcription"]["model"] == "gpt-4o-transcribe"
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(1500)
    driver.run_until_idle()
    kinds = [event["type"] for _, event in driver.events]
    for expected in (
        "input_audio_buffer.speech_started",
        "input_audio_buffer.speech_stopped",
        "input_audio_buffer.committed",
        "conversation.item.added",
        "conversation.item.done",
        "conversation.item.input_audio_transcription.completed",
    ):
        assert expected in kinds, f"missing {expected} in {kinds}"
    (completed,) = driver.of_type("conversation.item.input_audio_transcription.completed")
    assert completed["transcript"] == "What is the capital of France?"
    (committed,) = driver.of_type("input_audio_buffer.committed")
    assert completed["item_id"] == committed["item_id"]
    assert not [kind for kind in kinds if kind.startswith("response.") or kind == "rate_limits.updated"]
    for _, event in driver.events:
        validate_server_event(event)


def test_response_create_item_create_and_a_realtime_update_are_refused_and_change_nothing() -> None:
    driver = _driver()
    driver.send(ce.ResponseCreate({}, event_id="evt_1"))
    driver.send(ce.SessionUpdate({"type": "realtime", "instructions": "Be brief."}, event_id="evt_2"))
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi."}]}
    driver.send(ce.ConversationItemCreate(item, event_id="evt_3"))
    first, second, third = driver.of_type("error")
    assert first["error"]["event_id"] == "evt_1" and "does not create responses" in first["error"]["message"]
    assert second["error"]["event_id"] == "evt_2" and second["error"]["param"] == "session.type"
    assert third["error"] == {
        "type": "invalid_request_error",
        "code": "invalid_value",
        "message": "A transcription session takes no conversation items: its items are the audio it "
        "transcribes: 'conversation.item.create' is only supported in realtime sessions (connect with "
        "?model=gpt-realtime).",
        "param": "type",
        "event_id": "evt_3",
    }
    assert not driver.of_type("response.created") and not driver.of_type("session.updated")
    assert not driver.of_type("conversation.item.added") and not list(driver.session.conversation)
    assert driver.session.config["type"] == "transcription"


def test_manual_commits_are_transcribed_with_turn_detection_off() -> None:
    driver = _driver("Hello there.")
    update = {"type": "transcription", "audio": {"input": {"turn_detection": None}}}
    update["audio"]["input"]["transcription"] = {"model": "whisper-1"}
    driver.send(ce.SessionUpdate(update))
    driver.stream(synthetic_voiced_pcm16(600))
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    assert not driver.of_type("input_audio_buffer.speech_started")
    (completed,) = driver.of_type("conversation.item.input_audio_transcription.completed")
    assert completed["transcript"] == "Hello there."
    assert not [e for _, e in driver.events if e["type"].startswith("response.")]


@pytest.mark.parametrize(
    ("turn_detection", "latency_ms"),
    [
        # a silence window long enough for server_vad to prefetch the words (a probe)
        ({"type": "server_vad", "silence_duration_ms": 800}, 0.0),  # in when the turn ends
        ({"type": "server_vad", "silence_duration_ms": 800}, 2000.0),  # in after the commit
        ({"type": "semantic_vad", "eagerness": "high"}, 0.0),  # the judged probe's words
    ],
    ids=["server_vad", "server_vad_late", "semantic_vad"],
)
def test_logprobs_of_a_turn_are_whispers_whichever_probe_heard_it(
    turn_detection: dict, latency_ms: float
) -> None:
    # A turn's transcript comes from turn detection's probe: its word probabilities travel with the text,
    # or the logprobs would say 0.0 (probability 1) for every token.
    driver = _driver(transcriber=WordyTranscriber(default="What is the capital of France?"))
    driver.fixed_latency_ms = latency_ms
    update = {
        "type": "transcription",
        "audio": {
            "input": {"transcription": {"model": "gpt-4o-transcribe"}, "turn_detection": turn_detection}
        },
        "include": ["item.input_audio_transcription.logprobs"],
    }
    driver.send(ce.SessionUpdate(update))
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(3000)
    driver.run_until_idle()
    (completed,) = driver.of_type("conversation.item.input_audio_transcription.completed")
    deltas = driver.of_type("conversation.item.input_audio_transcription.delta")
    # A delta a word, as live (reference S6 probe 7), each with the logprobs of its own tokens.
    assert [d["delta"] for d in deltas] == ["What", " is", " the", " capital", " of", " France?"]
    assert [t for d in deltas for t in d["logprobs"]] == completed["logprobs"]
    for d in deltas:
        assert "".join(t["token"] for t in d["logprobs"]) == d["delta"]
    assert len({d["obfuscation"] for d in deltas}) == len(deltas)
    assert "".join(t["token"] for t in completed["logprobs"]) == completed["transcript"]
    assert {t["logprob"] for t in completed["logprobs"]} == {round(math.log(0.5), 6)}
    for _, event in driver.events:
        validate_server_event(event)


# LiveKit 1.8.9's STT(model="gpt-realtime-whisper") update: the model, no turn_detection (it commits the
# buffer itself when its own VAD hears the end of speech).
REALTIME_WHISPER_UPDATE = {
    "type": "transcription",
    "audio": {
        "input": {
            "format": {"type": "audio/pcm", "rate": 24000},
            "transcription": {"model": "gpt-realtime-whisper", "language": "en"},
        }
    },
}


@pytest.mark.parametrize("model", ["gpt-realtime-whisper", "gpt-live-transcribe"])
def test_a_model_without_endpointing_turns_server_vad_off_and_waits_for_the_commit(model: str) -> None:
    """Live, these models have no server-side endpointing: an update that names one and leaves
    turn_detection out is echoed with ``turn_detection: null``, and only the client's commit ends a
    segment. Before, the default server_vad stayed on: it cut and committed the speech itself, and the
    client's own commit then landed on the few chunks after it."""
    driver = _driver()
    update = {"type": "transcription", "audio": {"input": {**REALTIME_WHISPER_UPDATE["audio"]["input"]}}}
    update["audio"]["input"]["transcription"] = {"model": model}
    driver.send(ce.SessionUpdate(update))
    (updated,) = driver.of_type("session.updated")
    assert updated["session"]["audio"]["input"]["turn_detection"] is None
    validate_server_event(updated)
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(1500)
    driver.run_until_idle()
    assert not driver.of_type("input_audio_buffer.speech_started")
    assert not driver.of_type("input_audio_buffer.committed")
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    (committed,) = driver.of_type("input_audio_buffer.committed")
    (completed,) = driver.of_type("conversation.item.input_audio_transcription.completed")
    assert completed["item_id"] == committed["item_id"]
    assert completed["transcript"] == "What is the capital of France?"
    assert not driver.of_type("error")


@pytest.mark.parametrize(
    "turn_detection", [{"type": "server_vad"}, {"type": "semantic_vad", "eagerness": "high"}], ids=str
)
def test_turn_detection_asked_of_a_model_without_endpointing_is_refused_as_live(turn_detection: dict) -> None:
    driver = _driver()
    update = {"type": "transcription", "audio": {"input": {**REALTIME_WHISPER_UPDATE["audio"]["input"]}}}
    update["audio"]["input"]["turn_detection"] = turn_detection
    driver.send(ce.SessionUpdate(update, event_id="evt_1"))
    (error,) = driver.of_type("error")
    assert error["error"] == {
        "type": "invalid_request_error",
        "code": "invalid_value",
        "message": "Turn detection is not supported for this transcription model.",
        "param": "session.audio.input.turn_detection",
        "event_id": "evt_1",
    }
    assert not driver.of_type("session.updated")  # the whole update is discarded
    assert driver.session.view.transcription is None
    # null is what the model takes; a model that endpoints takes server_vad back.
    update["audio"]["input"]["turn_detection"] = None
    driver.send(ce.SessionUpdate(update))
    update["audio"]["input"]["transcription"] = {"model": "gpt-4o-transcribe"}
    update["audio"]["input"]["turn_detection"] = turn_detection
    driver.send(ce.SessionUpdate(update))
    first, second = driver.of_type("session.updated")
    assert first["session"]["audio"]["input"]["turn_detection"] is None
    assert second["session"]["audio"]["input"]["turn_detection"]["type"] == turn_detection["type"]


def test_a_realtime_session_transcribing_with_gpt_realtime_whisper_keeps_its_turn_detection() -> None:
    """The rule is the transcription session's: a conversation's turns are the realtime model's."""
    update = {"type": "realtime", "audio": {"input": {"transcription": {"model": "gpt-realtime-whisper"}}}}
    merged = merge_session(default_session("gpt-realtime", "sess_1", 0), update)
    assert merged["audio"]["input"]["turn_detection"] == SERVER_VAD_DEFAULTS
    validate_turn_detection(merged["audio"]["input"]["turn_detection"], merged)


@pytest.mark.parametrize(
    ("model", "hint", "languages"),
    [
        ("gpt-transcribe", None, [{"code": "en"}]),
        ("gpt-transcribe", "fr", [{"code": "fr"}]),
        ("whisper-1", None, None),
    ],
)
def test_gpt_transcribe_says_the_language_it_heard(
    model: str, hint: str | None, languages: list | None
) -> None:
    """openai-python's completed event: ``languages`` "Returned by gpt-transcribe" (the REST answer had
    them; the Realtime event did not). LiveKit's realtime STT tags its transcript with the first; with
    detection on (no hint) it tagged it "" here before."""
    driver = _driver()
    transcription: dict = {"model": model}
    if hint:
        transcription["language"] = hint
    update = {
        "type": "transcription",
        "audio": {"input": {"transcription": transcription, "turn_detection": None}},
    }
    driver.send(ce.SessionUpdate(update))
    driver.stream(synthetic_voiced_pcm16(600))
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    (completed,) = driver.of_type("conversation.item.input_audio_transcription.completed")
    assert completed.get("languages") == languages
    validate_server_event(completed)


def test_nothing_heard_is_no_language_detected() -> None:
    driver = _driver("")
    update = {"type": "transcription", "audio": {"input": {"transcription": {"model": "gpt-transcribe"}}}}
    update["audio"]["input"]["turn_detection"] = None
    driver.send(ce.SessionUpdate(update))
    driver.stream_silence(600)
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    (completed,) = driver.of_type("conversation.item.input_audio_transcription.completed")
    assert completed["transcript"] == "" and completed["languages"] == []


@pytest.mark.parametrize("model", ["whisper-1", "gpt-4o-mini-transcribe"])
def test_input_transcription_usage_is_billed_as_the_model_is(model: str) -> None:
    # Reference §10: "usage is {"type":"duration","seconds":N} for duration-billed models (N = ceil(buffer
    # seconds))"; whisper-1 is the duration-billed one, as POST /v1/audio/transcriptions answers it.
    driver = _driver("Hello there.")
    update = {"type": "transcription", "audio": {"input": {"turn_detection": None}}}
    update["audio"]["input"]["transcription"] = {"model": model}
    driver.send(ce.SessionUpdate(update))
    driver.stream(synthetic_voiced_pcm16(1300))
    driver.send(ce.InputAudioBufferCommit())
    driver.run_until_idle()
    (completed,) = driver.of_type("conversation.item.input_audio_transcription.completed")
    if model == "whisper-1":
        assert completed["usage"] == {"type": "duration", "seconds": 2}  # 1.3 s, rounded up
    else:
        assert completed["usage"]["type"] == "tokens" and completed["usage"]["input_tokens"] == 13
    validate_server_event(completed)
