"""Record/replay pieces without sockets: chat request normalisation, audio stripping, redaction, the id
map, and the walk's timing and divergences."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest

from mockengine.brain.scenario import ScenarioError, parse_scenario
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.protocol import client_events as ce
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.conversation import Conversation, Item
from mockengine.realtime.session import RealtimeSession
from mockengine.recordings.chat_match import request_key
from mockengine.recordings.format import (
    REDACTED,
    RecordingError,
    Scrubber,
    read_manifest,
    redact_headers,
    write_manifest,
)
from mockengine.recordings.mirror import mirror_events
from mockengine.recordings.recording import RecordedSession, ScriptStep, is_refused_append
from mockengine.recordings.replay_session import ReplayingSession
from mockengine.recordings.restamp import IdMap, Restamper
from mockengine.recordings.strip import strip_audio
from mockengine.recordings.walk import ReplayWalk
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import make_session
from tests.speech import question


def chat(content: str, **extra: object) -> dict[str, object]:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": content}], **extra}


def test_chat_requests_match_after_normalisation_and_differ_in_what_matters() -> None:
    assert request_key(chat("Hello   there\n")) == request_key(chat("Hello there", temperature=0.2))
    assert request_key(chat("Hello there")) != request_key(chat("Hello, there"))
    assert request_key(chat("Hi")) != request_key(chat("Hi", stream=True))
    tools = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in ("a", "b")
    ]
    assert request_key(chat("Hi", tools=tools)) == request_key(chat("Hi", tools=tools[::-1]))
    call = {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}}
    other = {**call, "id": "call_2", "function": {"name": "a", "arguments": '{ "x":1 }'}}
    with_call = {"role": "assistant", "content": None, "tool_calls": [call]}
    with_other = {"role": "assistant", "content": None, "tool_calls": [other]}
    assert request_key({"messages": [with_call]}) == request_key({"messages": [with_other]})


def test_no_audio_replaces_payloads_by_their_size() -> None:
    text = json.dumps({"type": "input_audio_buffer.append", "audio": "AAAA" * 10})
    assert json.loads(strip_audio(text))["audio"] == {"omitted_base64_chars": 40}
    delta = json.dumps({"type": "response.output_audio.delta", "delta": "AAAA"})
    assert json.loads(strip_audio(delta))["delta"] == {"omitted_base64_chars": 4}
    words = json.dumps({"type": "response.output_audio_transcript.delta", "delta": "hi"})
    assert strip_audio(words) == words


def test_keys_are_redacted_from_headers_and_text() -> None:
    headers = redact_headers(
        {"Authorization": "Bearer sk-x", "Sec-WebSocket-Protocol": "realtime, openai-insecure-api-key.sk-x"}
    )
    assert "sk-x" not in json.dumps(headers) and headers["Authorization"] == REDACTED
    scrub = Scrubber(["sk-secret-1"])
    assert scrub('{"message": "key sk-secret-1 refused"}') == f'{{"message": "key {REDACTED} refused"}}'


def test_the_id_map_keeps_prefix_length_and_consistency_and_is_seedable() -> None:
    ids = IdMap(seed=5)
    live = ids.live("item_ABCDEFGHIJKLMNOPQRSTU")
    assert live.startswith("item_") and len(live) == len("item_ABCDEFGHIJKLMNOPQRSTU")
    assert (
        ids.live("item_ABCDEFGHIJKLMNOPQRSTU") == live and ids.recorded(live) == "item_ABCDEFGHIJKLMNOPQRSTU"
    )
    assert IdMap(seed=5).live("item_ABCDEFGHIJKLMNOPQRSTU") == live
    assert IdMap(seed=None).live("item_ABCDEFGHIJKLMNOPQRSTU") != IdMap(seed=None).live(
        "item_ABCDEFGHIJKLMNOPQRSTU"
    )


def session_of(steps: list[ScriptStep]) -> RecordedSession:
    return RecordedSession("s", Path("."), steps, started_at_s=1_700_000_000.0)


def walk_of(steps: list[ScriptStep], speed: float = 1.0) -> ReplayWalk:
    session = session_of(steps)
    ids = IdMap(seed=1)
    return ReplayWalk(session, ids, Restamper(session, ids, 1_800_000_000.0), speed, start_ms=10_000.0)


STEPS = [
    ScriptStep(
        "emit", 5.0, {"type": "session.created", "event_id": "event_a", "session": {"id": "sess_1"}}, 1
    ),
    ScriptStep("expect", 100.0, {"type": "response.create"}, 2),
    ScriptStep(
        "emit", 300.0, {"type": "response.created", "event_id": "event_b", "response": {"id": "resp_1"}}, 3
    ),
    ScriptStep(
        "emit", 900.0, {"type": "response.done", "event_id": "event_c", "response": {"id": "resp_1"}}, 4
    ),
]


def test_the_walk_keeps_recorded_gaps_scaled_by_speed_and_releases_pending_events_on_input() -> None:
    walk = walk_of(STEPS, speed=2.0)
    assert walk.next_deadline_ms() == pytest.approx(10_002.5)
    assert [e["type"] for e in walk.due(10_003.0)] == ["session.created"]
    assert walk.next_deadline_ms() is None  # waiting for the client
    result = walk.on_client(ce.ResponseCreate(), 20_000.0)
    assert result.divergence is None and result.events == []
    assert walk.next_deadline_ms() == pytest.approx(20_100.0)  # (300 - 100) / 2 after the input
    created = walk.due(20_100.0)
    assert created[0]["response"]["id"] != "resp_1" and created[0]["response"]["id"].startswith("resp_")
    done = walk.due(20_400.0)[0]
    assert done["response"]["id"] == created[0]["response"]["id"]  # one id, mapped consistently


def test_a_different_client_event_is_a_divergence_naming_the_expected_one() -> None:
    walk = walk_of(STEPS, speed=0.0)
    walk.due(10_000.0)
    result = walk.on_client(ce.ResponseCancel(), 10_050.0)
    assert result.divergence is not None and result.divergence.line == 2
    assert result.divergence.data()["at_ms"] == 50.0  # since the session opened, not the loop's clock
    assert "`response.create`" in result.divergence.expected and "`response.cancel`" in result.divergence.got
    assert walk.on_client(ce.ResponseCreate(), 10_060.0).divergence is None  # its place was kept
    walk.due(10_060.0)
    end = walk.on_client(ce.ResponseCreate(), 10_070.0).divergence
    assert end is not None and end.expected == "the end of the recording"


def _truncate(event_id: str | None, seq: int) -> ScriptStep:
    event = {"type": "conversation.item.truncate", "item_id": "item_1", "content_index": 0}
    return ScriptStep("expect", 10.0 * seq, {**event, **({"event_id": event_id} if event_id else {})}, seq)


def _error(event_id: str | None, seq: int) -> ScriptStep:
    error = {"type": "invalid_request_error", "code": "invalid_value", "event_id": event_id}
    return ScriptStep(
        "emit", 10.0 * seq + 1, {"type": "error", "event_id": f"event_{seq}", "error": error}, seq
    )


def test_a_refused_event_moves_the_walk_only_past_one_the_recording_refused_too() -> None:
    truncated = {"type": "conversation.item.truncated", "event_id": "event_t", "item_id": "item_1"}
    steps = [
        _truncate("evt_bad", 1),
        _truncate("evt_good", 2),  # answered out of order: the error names evt_bad
        _error("evt_bad", 3),
        ScriptStep("emit", 31.0, truncated, 4),
        _truncate(None, 5),
        _error(None, 6),
    ]
    walk = walk_of(steps, speed=0.0)
    matched = walk.on_refused(10_000.0, "conversation.item.truncate", "evt_live_bad")
    assert matched is not None and matched.divergence is None and matched.events == []
    # the recorded evt_good was accepted: a live refusal there is the engine's own, the walk stays
    assert walk.on_refused(10_001.0, "conversation.item.truncate", "evt_x") is None
    assert walk.on_refused(10_001.0, "response.create", "evt_x") is None
    live_good = ce.ConversationItemTruncate("item_1", 0, 5, "evt_live_good")
    walk.ids.bind("item_1", "item_1")
    answered = walk.on_client(live_good, 10_002.0).events
    assert [e["type"] for e in answered] == ["error", "conversation.item.truncated"]
    assert answered[0]["error"]["event_id"] == "evt_live_bad"  # the live id of the refused event
    last = walk.on_refused(10_003.0, "conversation.item.truncate", None)
    assert last is not None and [e["type"] for e in last.events] == ["error"] and walk.is_finished


def test_a_recording_scenario_needs_its_directory() -> None:
    with pytest.raises(ScenarioError, match="recording"):
        parse_scenario("name: r\nkind: recording\nrules: []\n")
    scenario = parse_scenario("name: r\nkind: recording\nrecording: rec\nrules: []\n", source="/x/r.yaml")
    assert scenario.recording == "/x/rec"


def test_an_extra_spoken_turn_diverges_and_the_scripted_participant_answers_it() -> None:
    steps = [STEPS[0], STEPS[1], STEPS[2], STEPS[3]]  # the recording: one typed response.create only
    walk = walk_of(steps, speed=0.0)
    session = ReplayingSession(make_session(), walk, strict=False)
    driver = VirtualTimeDriver(
        cast(RealtimeSession, session),
        FakeTranscriber(default="What is the capital of France?"),
        FakeSynthesizer(),
    )
    driver.start()
    pcm, _ = question()
    driver.stream(pcm)
    driver.stream_silence(1500)
    driver.run_until_idle()
    kinds = [event["type"] for _, event in driver.events]
    assert kinds[0] == "session.created" and kinds.count("input_audio_buffer.speech_started") == 1
    assert kinds.index("input_audio_buffer.speech_started") < kinds.index("input_audio_buffer.speech_stopped")
    assert "response.done" in kinds  # the participant answered the turn the recording did not have
    assert session.divergences[0].expected.startswith("client event `response.create`")
    assert session.divergences[0].got.startswith("`input_audio_buffer.speech_started`")
    assert [t.kind for t in driver.traces].count("mockengine.replay_divergence") == 1


def _fallback_after_update(turn_detection: dict[str, object]) -> tuple[VirtualTimeDriver, ReplayingSession]:
    """A recording of a session.update only; the live client sends it with ``turn_detection``, then speaks
    while a long reply plays: the speech leaves the recording, and the scripted participant takes over."""
    steps = [
        STEPS[0],
        ScriptStep("expect", 50.0, {"type": "session.update", "session": {"type": "realtime"}}, 2),
        ScriptStep("emit", 60.0, {"type": "session.updated", "event_id": "event_u", "session": {}}, 3),
    ]
    session = ReplayingSession(make_session(), walk_of(steps, speed=0.0), strict=False)
    driver = VirtualTimeDriver(
        cast(RealtimeSession, session),
        FakeTranscriber(default="What is the capital of France?"),
        FakeSynthesizer(),
    )
    driver.start()
    update = {"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}}
    driver.send(ce.SessionUpdate(update))
    pcm, _ = question()
    driver.stream(pcm)
    driver.stream_silence(1500)
    driver.run_until_idle()
    return driver, session


def test_a_fallback_gives_back_the_turn_detection_of_a_partial_update() -> None:
    """The client's `{"type": "server_vad"}` leaves create_response and interrupt_response at their
    defaults (true): after the fallback its turns are answered, as in any session."""
    driver, session = _fallback_after_update({"type": "server_vad", "silence_duration_ms": 400})
    assert session.has_fallen_back
    restored = session.shadow.config["audio"]["input"]["turn_detection"]
    assert restored["create_response"] is True and restored["interrupt_response"] is True
    assert restored["silence_duration_ms"] == 400
    assert "response.created" in [event["type"] for _, event in driver.events]


def test_a_fallback_keeps_a_turn_detection_that_holds_replies_off() -> None:
    driver, session = _fallback_after_update({"type": "server_vad", "create_response": False})
    assert session.has_fallen_back
    assert session.shadow.config["audio"]["input"]["turn_detection"]["create_response"] is False
    assert "response.created" not in [event["type"] for _, event in driver.events]


def test_recorded_replies_join_the_shadows_conversation_with_their_truncations_and_deletions() -> None:
    conversation = Conversation("conv_1")
    conversation.insert(
        Item("item_user", "message", role="user", content=[{"type": "input_text", "text": "hi"}])
    )
    said = {"id": "item_said", "type": "message", "role": "assistant", "status": "completed"}
    said["content"] = [{"type": "output_audio", "transcript": "Hello there."}]
    call = {"id": "item_call", "type": "function_call", "name": "f", "call_id": "call_1", "arguments": "{}"}
    mirror_events(
        conversation,
        [
            {"type": "conversation.item.added", "previous_item_id": "item_user", "item": said},
            {"type": "conversation.item.done", "previous_item_id": "item_user", "item": said},
            {"type": "conversation.item.done", "previous_item_id": "item_said", "item": call},
            {"type": "conversation.item.done", "previous_item_id": "item_said", "item": call},  # once only
        ],
    )
    assert [item.id for item in conversation] == ["item_user", "item_said", "item_call"]
    assert conversation.find_call("call_1") is not None
    mirror_events(
        conversation, [{"type": "conversation.item.truncated", "item_id": "item_said", "audio_end_ms": 0}]
    )
    said_item = conversation.get("item_said")
    assert said_item is not None and said_item.text() == ""  # no unheard words stay
    mirror_events(conversation, [{"type": "conversation.item.deleted", "item_id": "item_call"}])
    assert [item.id for item in conversation] == ["item_user", "item_said"]


def test_a_replayed_truncated_event_says_where_the_live_client_truncated() -> None:
    """Matching ignores audio_end_ms (playback differs run to run); the answer echoes the live value."""
    truncated = {"type": "conversation.item.truncated", "event_id": "event_t", "item_id": "item_1"}
    steps = [STEPS[0], _truncate(None, 1), ScriptStep("emit", 31.0, {**truncated, "audio_end_ms": 800}, 2)]
    walk = walk_of(steps, speed=0.0)
    walk.ids.bind("item_1", "item_1")
    session = ReplayingSession(make_session(), walk, strict=False)
    session.start()
    step = session.receive(ce.ConversationItemTruncate("item_1", 0, 1500), 10_100.0)
    step.extend(session.tick(10_200.0))
    (answer,) = [e for e in step.events if e["type"] == "conversation.item.truncated"]
    assert answer["audio_end_ms"] == 1500 and not session.divergences


def test_what_follows_a_refused_event_is_paced_from_when_it_arrived() -> None:
    """Speed 2: the error recorded 1 ms after a refused truncate (recorded at 50 ms, 40 ms after the
    response.create at 10 ms) and the event 100 ms after it are due 0.5 and 50 ms after the live refusal,
    not after the last matched event (the walk took the anchor's old time and sent them early)."""
    steps = [
        ScriptStep("expect", 10.0, {"type": "response.create"}, 1),
        _truncate("evt_bad", 5),
        _error("evt_bad", 5),
        ScriptStep("emit", 150.0, {"type": "response.done", "event_id": "event_d", "response": {}}, 7),
    ]
    session = ReplayingSession(make_session(), walk_of(steps, speed=2.0), strict=True)
    session.walk.on_client(ce.ResponseCreate(), 10_000.0)
    refused = ProtocolError("invalid_value", "bad", "content_index", event_id="evt_live")
    refused.client_event_type = "conversation.item.truncate"
    assert session.error(refused, 12_000.0).events == []
    assert session.walk.anchor == (50.0, 12_000.0)
    assert session.walk.next_deadline_ms() == 12_000.5
    assert [e["type"] for e in session.walk.due(12_000.5)] == ["error"]
    assert session.walk.next_deadline_ms() == 12_050.0


def test_an_append_is_a_step_only_when_its_audio_was_refused(tmp_path: Path) -> None:
    """A recorded append whose audio was not base64 (the journal's ``invalid_base64``, a ``--no-audio``
    recording's too) is an expectation the live refused append matches; good appends stay out."""
    good = {"type": "input_audio_buffer.append", "audio": {"wav": "input_audio.wav", "duration_ms": 20}}
    assert not is_refused_append(good)
    assert not is_refused_append(json.loads(strip_audio(json.dumps({**good, "audio": "AAAA"}))))
    stripped = json.loads(strip_audio(json.dumps({**good, "audio": "not base64!"})))
    assert stripped["audio"]["invalid_base64"] == "not base64!" and is_refused_append(stripped)
    assert is_refused_append({"type": "input_audio_buffer.append"})


@pytest.mark.parametrize("text", ["{not json", "[1]", "\udcff"])
def test_a_manifest_that_is_not_a_json_object_is_refused_with_its_path(tmp_path: Path, text: str) -> None:
    """`serve --replay` and `record --out` on a torn recording.json were tracebacks (JSONDecodeError,
    AttributeError), not the one line a usage mistake gets."""
    (tmp_path / "recording.json").write_text(text, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(RecordingError, match="recording.json"):
        read_manifest(tmp_path)
    with pytest.raises(RecordingError, match="recording.json"):
        write_manifest(tmp_path, "https://api.openai.com/v1", has_audio=True)


def test_an_out_path_that_is_a_file_is_refused_by_name(tmp_path: Path) -> None:
    """It was mkdir's "[Errno 17] File exists"."""
    path = tmp_path / "notes.txt"
    path.write_text("x")
    with pytest.raises(RecordingError, match="a file, not a recording directory"):
        write_manifest(path, "https://api.openai.com/v1", has_audio=True)


def _message(role: str, *parts: dict[str, object]) -> dict[str, object]:
    return {"type": "message", "role": role, "content": list(parts)}


HELLO = {"type": "input_text", "text": "Hello, world."}
IMAGE_A = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}
IMAGE_B = {"type": "input_image", "image_url": "data:image/png;base64,BBBB"}


@pytest.mark.parametrize(
    ("recorded", "live", "problem"),
    [
        (_message("user", HELLO), _message("user", {"type": "input_text", "text": " Hello,\n  world. "}), ""),
        (
            _message("user", HELLO),
            _message("user", {"type": "input_text", "text": "hello, world."}),
            "text 'hello, world.', not 'Hello, world.'",
        ),
        (_message("user", HELLO), _message("system", HELLO), "role system, not user"),
        (
            _message("user", HELLO, IMAGE_A),
            _message("user", HELLO, IMAGE_B),
            "input_image 'data:image/png;base64,BBBB', not 'data:image/png;base64,AAAA'",
        ),
        (
            _message("user", HELLO),
            _message("user", {"type": "input_audio", "audio": "AAAA"}),
            "content ['input_audio'], not ['text']",
        ),
    ],
)
def test_a_typed_message_matches_by_role_and_words(
    recorded: dict[str, object], live: dict[str, object], problem: str
) -> None:
    """Typed words were not compared: any message took the next recorded reply. Whitespace runs and the
    ends do not count; case, punctuation, the role, images (by URL) and the parts' kinds do."""
    steps = [ScriptStep("expect", 10.0, {"type": "conversation.item.create", "item": recorded}, 1)]
    result = walk_of(steps, speed=0.0).on_client(ce.ConversationItemCreate(live), 10_010.0)
    if not problem:
        assert result.divergence is None
    else:
        assert result.divergence is not None and result.divergence.got.endswith(f": {problem}")
