"""The session core with fake engines: event order, turns, responses, errors (no sockets, no models)."""

from __future__ import annotations

import base64
import io
import json

from PIL import Image

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.engines.fakes import FakeSynthesizer
from mockengine.engines.tts import SpeechSegment
from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import ItemTranscriptKey, SentenceKey
from mockengine.realtime.response import Pacing
from tests.conftest import make_replay

AUDIO_RESPONSE_ORDER = [
    "response.created",
    "response.output_item.added",
    "conversation.item.added",
    "response.content_part.added",
]
AUDIO_RESPONSE_TAIL = [
    "response.output_audio.done",
    "response.output_audio_transcript.done",
    "response.content_part.done",
    "conversation.item.done",
    "response.output_item.done",
    "response.done",
    "rate_limits.updated",
]


def user_text(text: str) -> ce.ConversationItemCreate:
    return ce.ConversationItemCreate(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )


def types(replay, since: int = 0) -> list[str]:
    return [e["type"] for _, e in replay.events[since:]]


def set_session(replay, **session) -> None:
    replay.send(ce.SessionUpdate({"type": "realtime", **session}))


def test_session_created_is_first_and_full(replay):
    kind, session = replay.events[0][1]["type"], replay.events[0][1]["session"]
    assert kind == "session.created"
    assert session["audio"]["input"]["turn_detection"]["silence_duration_ms"] == 200
    assert session["audio"]["output"]["voice"] == "alloy"
    assert session["expires_at"] == 1_700_000_000 + 3600


def test_text_turn_with_audio_reply_in_real_order(replay):
    replay.send(user_text("Hello there, how are you?"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    seen = [
        t
        for t in types(replay, 1)
        if t not in ("response.output_audio.delta", "response.output_audio_transcript.delta")
    ]
    assert seen == [
        "conversation.item.added",
        "conversation.item.done",
        *AUDIO_RESPONSE_ORDER,
        *AUDIO_RESPONSE_TAIL,
    ]
    done = replay.of_type("response.done")[0]["response"]
    assert done["status"] == "completed"
    assert done["usage"]["total_tokens"] == done["usage"]["input_tokens"] + done["usage"]["output_tokens"] > 0
    transcript = replay.of_type("response.output_audio_transcript.done")[0]["transcript"]
    deltas = "".join(e["delta"] for e in replay.of_type("response.output_audio_transcript.delta"))
    assert transcript == deltas and transcript
    assert all(
        len(base64.b64decode(e["delta"])) <= 2000 * 48 for e in replay.of_type("response.output_audio.delta")
    )


def test_text_only_response_has_no_audio(replay):
    replay.send(user_text("Hi"))
    replay.send(ce.ResponseCreate({"output_modalities": ["text"]}))
    replay.run_until_idle()
    assert not replay.of_type("response.output_audio.delta")
    assert replay.of_type("response.output_text.done")[0]["text"]
    item = replay.of_type("response.output_item.done")[0]["item"]
    assert item["content"][0]["type"] == "output_text"


def test_server_vad_turn_commits_and_replies():
    replay = make_replay()
    set_session(
        replay, audio={"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}}
    )
    replay.stream_silence(500)
    replay.stream(synthetic_voiced_pcm16(1200))
    replay.stream_silence(1500)
    replay.run_until_idle()
    started = replay.of_type("input_audio_buffer.speech_started")
    stopped = replay.of_type("input_audio_buffer.speech_stopped")
    committed = replay.of_type("input_audio_buffer.committed")
    assert len(started) == len(stopped) == len(committed) == 1
    assert started[0]["item_id"] == stopped[0]["item_id"] == committed[0]["item_id"]
    assert 100 <= started[0]["audio_start_ms"] <= 260  # 500 ms onset minus 300 ms prefix padding
    assert 2150 <= stopped[0]["audio_end_ms"] <= 2260  # speech end (1700) + the 500 ms silence window
    assert replay.of_type("response.done")[0]["response"]["status"] == "completed"


def test_barge_in_cancels_with_turn_detected_and_no_audio_follows():
    replay = make_replay(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    replay.send(user_text("Tell me a story"))
    replay.send(ce.ResponseCreate({}))
    replay.stream_silence(600)
    assert replay.of_type("response.output_audio.delta")
    replay.stream(synthetic_voiced_pcm16(800))
    replay.stream_silence(300)
    done = replay.of_type("response.done")[0]
    assert done["response"]["status"] == "cancelled"
    assert done["response"]["status_details"] == {"type": "cancelled", "reason": "turn_detected"}
    index_done = replay.events.index(next(x for x in replay.events if x[1] is done))
    index_started = replay.events.index(
        next(x for x in replay.events if x[1]["type"] == "input_audio_buffer.speech_started")
    )
    assert index_started < index_done
    late = [
        e
        for _, e in replay.events[index_done:]
        if e["type"] == "response.output_audio.delta" and e["response_id"] == done["response"]["id"]
    ]
    assert late == []


def test_response_cancel_and_cancel_with_nothing_active():
    replay = make_replay(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    replay.send(user_text("Tell me a story"))
    replay.send(ce.ResponseCreate({}))
    replay.advance(400)
    replay.send(ce.ResponseCancel())
    done = replay.of_type("response.done")[0]["response"]
    assert done["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
    replay.send(ce.ResponseCancel(event_id="evt_1"))
    error = replay.of_type("error")[0]["error"]
    assert error["code"] == "response_cancel_not_active"
    assert error["event_id"] == "evt_1"
    assert error["message"] == "Cancellation failed: no active response found"


def test_second_response_create_is_refused_while_one_is_active():
    replay = make_replay(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    replay.send(user_text("Tell me a story"))
    replay.send(ce.ResponseCreate({}))
    replay.send(ce.ResponseCreate({}))
    error = replay.of_type("error")[0]["error"]
    assert error["code"] == "conversation_already_has_active_response"
    assert replay.of_type("response.created")[0]["response"]["id"] in error["message"]


def test_listening_pause_commits_same_turn_without_reply_then_new_onset_from_reenable():
    replay = make_replay()
    server_vad = {"type": "server_vad", "silence_duration_ms": 500}
    set_session(replay, audio={"input": {"turn_detection": server_vad}})
    replay.stream_silence(300)
    replay.stream(synthetic_voiced_pcm16(1000))
    started = replay.of_type("input_audio_buffer.speech_started")[0]
    set_session(replay, audio={"input": {"turn_detection": None}})
    replay.stream(synthetic_voiced_pcm16(500))
    replay.send(ce.InputAudioBufferCommit())
    replay.stream_silence(300)
    replay.run_until_idle()
    committed = replay.of_type("input_audio_buffer.committed")
    assert [c["item_id"] for c in committed] == [started["item_id"]]
    assert not replay.of_type("response.created")
    replay.stream(synthetic_voiced_pcm16(400))
    reenable_ms = replay.audio_sent_ms
    set_session(replay, audio={"input": {"turn_detection": server_vad}})
    replay.stream(synthetic_voiced_pcm16(800))
    again = replay.of_type("input_audio_buffer.speech_started")
    assert len(again) == 2 and again[1]["item_id"] != started["item_id"]
    assert reenable_ms <= again[1]["audio_start_ms"] <= reenable_ms + 100


def test_instructions_only_update_keeps_everything_else(replay):
    set_session(replay, audio={"output": {"voice": "marin"}}, tools=[{"type": "function", "name": "f"}])
    before = replay.of_type("session.updated")[-1]["session"]
    set_session(replay, instructions="Be brief.")
    after = replay.of_type("session.updated")[-1]["session"]
    assert after["instructions"] == "Be brief."
    assert {**after, "instructions": None} == {**before, "instructions": None}


def test_voice_change_after_assistant_audio_is_refused_whole(replay):
    replay.send(user_text("Hello"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    before = replay.session.config
    replay.send(
        ce.SessionUpdate({"type": "realtime", "instructions": "x", "audio": {"output": {"voice": "echo"}}})
    )
    assert replay.of_type("error")[0]["error"]["code"] == "cannot_update_voice"
    assert replay.session.config == before


def test_commit_under_100_ms_is_an_error_and_buffer_kept(replay):
    set_session(replay, audio={"input": {"turn_detection": None}})
    replay.stream_silence(60)
    replay.send(ce.InputAudioBufferCommit())
    error = replay.of_type("error")[0]["error"]
    assert error["code"] == "input_audio_buffer_commit_empty"
    assert "60.00ms" in error["message"]
    replay.stream_silence(60)
    replay.send(ce.InputAudioBufferCommit())
    assert len(replay.of_type("input_audio_buffer.committed")) == 1


def test_truncate_success_and_errors():
    replay = make_replay()
    replay.send(user_text("Tell me a story about a lighthouse"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    item = replay.of_type("response.output_item.done")[0]["item"]
    audio_ms = (
        sum(len(base64.b64decode(e["delta"])) for e in replay.of_type("response.output_audio.delta")) // 48
    )
    replay.send(ce.ConversationItemTruncate(item["id"], 0, audio_ms + 60))
    error = replay.of_type("error")[0]["error"]
    assert error["message"] == f"Audio content of {audio_ms}ms is already shorter than {audio_ms + 60}ms"
    replay.send(ce.ConversationItemTruncate(item["id"], 0, 300))
    assert replay.of_type("conversation.item.truncated")[0]["audio_end_ms"] == 300
    assert item["content"][0]["transcript"]
    replay.send(ce.ConversationItemRetrieve(item["id"]))
    retrieved = replay.of_type("conversation.item.retrieved")[0]["item"]
    assert retrieved["content"][0]["transcript"] is None  # no unheard text stays (reference §3.7)
    assert len(base64.b64decode(retrieved["content"][0]["audio"])) == 300 * 48
    assert replay.session.conversation.get(item["id"]).view().text == ""
    user_id = replay.of_type("conversation.item.added")[0]["item"]["id"]
    replay.send(ce.ConversationItemTruncate(user_id, 0, 10))
    replay.send(ce.ConversationItemTruncate("item_nope", 0, 10))
    codes = [e["error"]["code"] for e in replay.of_type("error")]
    assert codes[1:] == ["unsupported_content_type", "item_truncate_invalid_item_id"]


def test_forced_tool_then_output_then_follow_up(replay):
    tool = {
        "type": "function",
        "name": "answer_scale",
        "description": "Answer the scale.",
        "parameters": {
            "type": "object",
            "properties": {"value": {"type": "number"}},
            "required": ["value"],
            "additionalProperties": False,
        },
    }
    set_session(replay, tools=[tool])
    replay.send(
        ce.ResponseCreate(
            {"output_modalities": ["text"], "tool_choice": {"type": "function", "name": "answer_scale"}}
        )
    )
    calls = replay.of_type("response.function_call_arguments.done")
    assert len(calls) == 1 and calls[0]["name"] == "answer_scale"
    assert isinstance(json.loads(calls[0]["arguments"])["value"], (int, float))
    assert not replay.of_type("response.output_audio.delta")
    replay.send(
        ce.ConversationItemCreate({"type": "function_call_output", "call_id": "call_unknown", "output": "{}"})
    )
    assert replay.of_type("error")[0]["error"]["code"] == "invalid_tool_call_id"
    replay.send(
        ce.ConversationItemCreate(
            {
                "type": "function_call_output",
                "call_id": calls[0]["call_id"],
                "output": json.dumps({"accepted": True}),
            }
        )
    )
    assert len(replay.of_type("response.created")) == 1  # an output starts no response by itself
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    assert replay.of_type("response.done")[-1]["response"]["status"] == "completed"


def test_red_image_is_seen(replay):
    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), (220, 20, 30)).save(buffer, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    replay.send(
        ce.ConversationItemCreate(
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": '[context] {"event":"screen","type":"showimage"}'},
                    {"type": "input_image", "image_url": url},
                ],
            }
        )
    )
    replay.send(user_text("Which colour fills the image?"))
    replay.send(ce.ResponseCreate({"output_modalities": ["text"]}))
    assert "red" in replay.of_type("response.output_text.done")[0]["text"].lower()


def test_bad_image_is_an_error_and_nothing_added(replay):
    replay.send(
        ce.ConversationItemCreate(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_image", "image_url": "data:image/gif;base64,R0lGOD"}],
            }
        )
    )
    assert replay.of_type("error")[0]["error"]["param"] == "item.content[0].image_url"
    assert len(replay.session.conversation) == 0


def test_seeded_sessions_repeat_exactly():
    runs = []
    for _ in range(2):
        replay = make_replay(seed=11)
        replay.send(user_text("Hello"))
        replay.send(ce.ResponseCreate({}))
        replay.run_until_idle()
        runs.append([e for _, e in replay.events])
    assert runs[0] == runs[1]


def test_pcmu_output_deltas_are_g711(replay):
    set_session(replay, audio={"output": {"format": {"type": "audio/pcmu"}}})
    replay.send(user_text("Hello"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    g711_bytes = sum(len(base64.b64decode(e["delta"])) for e in replay.of_type("response.output_audio.delta"))
    item = replay.of_type("response.output_item.done")[0]["item"]
    pcm_bytes = len(replay.session.conversation.get(item["id"]).audio)
    assert abs(g711_bytes - pcm_bytes / 6) <= 8 * len(replay.of_type("response.output_audio.delta"))
    assert replay.of_type("response.done")[0]["response"]["audio"]["output"]["format"] == {
        "type": "audio/pcmu"
    }


def test_long_silence_does_not_pile_up_in_the_buffer(replay):
    replay.stream_silence(40_000)
    assert replay.session.turns.buffer.buffered_ms <= 15_020


def test_retrieve_returns_user_audio_and_delete_removes(replay):
    set_session(replay, audio={"input": {"turn_detection": None}})
    replay.stream_silence(200)
    replay.send(ce.InputAudioBufferCommit())
    item_id = replay.of_type("input_audio_buffer.committed")[0]["item_id"]
    replay.send(ce.ConversationItemRetrieve(item_id))
    audio = replay.of_type("conversation.item.retrieved")[0]["item"]["content"][0]["audio"]
    assert len(base64.b64decode(audio)) == 200 * 48
    replay.send(ce.ConversationItemDelete(item_id))
    assert replay.of_type("conversation.item.deleted")[0]["item_id"] == item_id
    replay.send(ce.ConversationItemRetrieve(item_id))
    assert replay.of_type("error")[0]["error"]["code"] == "item_retrieve_invalid_item_id"


def test_root_insert_and_out_of_band_response(replay):
    replay.send(user_text("first"))
    replay.send(
        ce.ConversationItemCreate(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "zeroth"}]},
            previous_item_id="root",
        )
    )
    added = replay.of_type("conversation.item.added")
    assert added[0]["previous_item_id"] is None and added[1]["previous_item_id"] is None
    assert [i.text() for i in replay.session.conversation] == ["zeroth", "first"]
    replay.send(ce.ResponseCreate({"conversation": "none", "output_modalities": ["text"]}))
    done = replay.of_type("response.done")[0]["response"]
    assert done["conversation_id"] is None and done["status"] == "completed"
    assert len(replay.session.conversation) == 2  # out-of-band output is not added


def test_max_output_tokens_ends_the_response_incomplete(replay):
    replay.send(user_text("Please tell me a long story about a lighthouse keeper."))
    replay.send(ce.ResponseCreate({"max_output_tokens": 20}))
    replay.run_until_idle()
    done = replay.of_type("response.done")[0]["response"]
    assert done["status"] == "incomplete"
    assert done["status_details"] == {"type": "incomplete", "reason": "max_output_tokens"}
    assert done["usage"]["output_tokens"] <= 20 + 2  # the last delta is cut to the budget
    replay.send(user_text("Another story please, a long one."))
    replay.send(ce.ResponseCreate({"output_modalities": ["text"], "max_output_tokens": 5}))
    text_done = replay.of_type("response.done")[1]["response"]
    assert text_done["status"] == "incomplete" and text_done["usage"]["output_tokens"] <= 5


def test_idle_timeout_commits_silence_and_replies_after_the_reply_was_heard(replay):
    set_session(replay, audio={"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000}}})
    replay.send(user_text("Hello"))
    replay.send(ce.ResponseCreate({}))
    replay.advance(replay.now_ms + 1)
    reply_ms = (
        sum(len(base64.b64decode(e["delta"])) for e in replay.of_type("response.output_audio.delta")) // 48
    )
    replay.stream_silence(reply_ms + 4800)
    assert not replay.of_type("input_audio_buffer.timeout_triggered")
    replay.stream_silence(400)
    triggered = replay.of_type("input_audio_buffer.timeout_triggered")
    assert len(triggered) == 1
    assert replay.of_type("input_audio_buffer.committed")[0]["item_id"] == triggered[0]["item_id"]
    assert triggered[0]["audio_end_ms"] - triggered[0]["audio_start_ms"] > 5000
    assert len(replay.of_type("response.created")) == 2


def test_changing_turn_detection_mid_speech_keeps_the_turn_and_its_audio():
    replay = make_replay()
    set_session(replay, audio={"input": {"turn_detection": {"type": "server_vad", "create_response": False}}})
    replay.stream(synthetic_voiced_pcm16(600))
    set_session(
        replay, audio={"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 700}}}
    )
    replay.stream(synthetic_voiced_pcm16(600))
    set_session(
        replay, audio={"input": {"turn_detection": {"type": "semantic_vad", "create_response": False}}}
    )
    replay.stream(synthetic_voiced_pcm16(600))
    replay.stream_silence(6000)
    replay.run_until_idle()
    started = replay.of_type("input_audio_buffer.speech_started")
    committed = replay.of_type("input_audio_buffer.committed")
    assert len(started) == 1 and [c["item_id"] for c in committed] == [started[0]["item_id"]]
    audio_ms = replay.session.conversation.get(started[0]["item_id"]).audio_ms
    assert audio_ms >= 1700  # the speech from before both switches is part of the turn


def _reply_being_sent() -> tuple[object, str]:
    replay = make_replay(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    replay.send(user_text("Tell me a long story about a lighthouse keeper"))
    replay.send(ce.ResponseCreate({}))
    replay.advance(800)
    return replay, replay.of_type("response.output_item.added")[0]["item"]["id"]


def _assert_cut_and_next_turn_works(replay, item_id: str, audio_ms: int) -> None:
    assert not replay.of_type("error")
    done = replay.of_type("response.done")[0]["response"]
    assert done["status"] == "cancelled"
    assert done["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
    item = replay.session.conversation.get(item_id)
    assert (item.audio_ms, item.status, item.content[0]["transcript"]) == (audio_ms, "incomplete", None)
    replay.send(user_text("What did you say?"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    assert replay.of_type("response.done")[-1]["response"]["status"] == "completed"
    assert not replay.of_type("error")


def test_truncating_the_reply_being_sent_does_not_end_it_the_cancel_after_it_does():
    replay, item_id = _reply_being_sent()
    replay.send(ce.ConversationItemTruncate(item_id, 0, 100))
    assert replay.of_type("conversation.item.truncated")[0]["audio_end_ms"] == 100
    assert not replay.of_type("response.done")  # the Agents SDK's interrupt sends its cancel next
    before = len(replay.of_type("response.output_audio.delta"))
    replay.advance(replay.now_ms + 300)
    after = replay.of_type("response.output_audio.delta")[before:]
    assert after  # the response streams on, and its audio is added after the cut
    replay.send(ce.ResponseCancel())
    _assert_cut_and_next_turn_works(
        replay, item_id, 100 + sum(len(base64.b64decode(e["delta"])) for e in after) // 48
    )


def test_cancel_then_truncate_of_the_reply_being_sent():
    replay, item_id = _reply_being_sent()
    replay.send(ce.ResponseCancel())
    replay.send(ce.ConversationItemTruncate(item_id, 0, 100))
    assert replay.of_type("conversation.item.truncated")[0]["audio_end_ms"] == 100
    _assert_cut_and_next_turn_works(replay, item_id, 100)


def test_a_reply_that_cannot_be_built_fails_the_response_not_the_session(replay):
    class Broken:
        def reply(self, request):
            raise ValueError("no arguments satisfy this schema")

    replay.session.responses.brain = Broken()
    replay.send(user_text("Hi"))
    replay.send(ce.ResponseCreate({}))
    done = replay.of_type("response.done")[0]["response"]
    assert done["status"] == "failed" and done["status_details"]["error"]["code"] == "reply_failed"
    assert replay.session.responses.active_id is None


def test_control_characters_are_not_spoken(replay):
    replay.send(ce.SessionUpdate({"type": "realtime", "instructions": 'Say exactly: "hello\x00 there"'}))
    replay.send(user_text("hi"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    transcript = replay.of_type("response.output_audio_transcript.done")[0]["transcript"]
    assert "\x00" not in transcript and "hello" in transcript


def test_server_vad_transcribes_during_the_silence_window_so_the_reply_does_not_wait():
    replay = make_replay()
    replay.fixed_latency_ms = 250.0
    set_session(
        replay, audio={"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}}
    )
    replay.stream_silence(300)
    replay.stream(synthetic_voiced_pcm16(1000))
    replay.stream_silence(1500)
    replay.run_until_idle()
    stopped_at, _ = replay.first("input_audio_buffer.speech_stopped")
    replied_at, _ = replay.first("response.output_item.added")
    assert replied_at - stopped_at <= 20  # the 250 ms transcription ran inside the silence window
    assert len(replay.transcriber.calls) == 1  # the probe's words are the item's: no second pass


def test_deleting_the_item_being_written_stops_its_conversation_events():
    replay = make_replay(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    replay.send(user_text("Tell me a story"))
    replay.send(ce.ResponseCreate({}))
    replay.advance(300)
    item_id = replay.of_type("response.output_item.added")[0]["item"]["id"]
    replay.send(ce.ConversationItemDelete(item_id))
    replay.run_until_idle()
    assert [e for e in replay.of_type("conversation.item.done") if e["item"]["id"] == item_id] == []
    assert replay.of_type("response.done")[0]["response"]["status"] == "completed"


def test_a_late_transcript_for_a_replaced_item_is_dropped_and_the_session_goes_on():
    replay = make_replay()
    replay.fixed_latency_ms = 500.0
    set_session(replay, audio={"input": {"turn_detection": None}})
    replay.stream(synthetic_voiced_pcm16(400))
    replay.send(ce.InputAudioBufferCommit())
    item_id = replay.of_type("input_audio_buffer.committed")[0]["item_id"]
    replay.send(
        ce.ConversationItemCreate({"type": "function_call", "id": item_id, "name": "f", "arguments": "{}"})
    )
    assert not replay.session.is_wanted(ItemTranscriptKey(item_id))
    replay.run_until_idle()  # the transcript arrives for an item that is no longer there
    replay.send(user_text("Hello"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    assert replay.of_type("response.done")[0]["response"]["status"] == "completed"


def test_reusing_an_id_after_itself_keeps_its_place(replay):
    replay.send(
        ce.ConversationItemCreate(
            {
                "type": "message",
                "id": "item_a",
                "role": "user",
                "content": [{"type": "input_text", "text": "a"}],
            }
        )
    )
    replay.send(user_text("b"))
    replay.send(
        ce.ConversationItemCreate(
            {
                "type": "message",
                "id": "item_a",
                "role": "user",
                "content": [{"type": "input_text", "text": "a2"}],
            },
            previous_item_id="item_a",
        )
    )
    assert not replay.of_type("error")
    assert [i.text() for i in replay.session.conversation] == ["a2", "b"]


def test_switching_idle_timeout_off_disarms_the_timer(replay):
    set_session(replay, audio={"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000}}})
    replay.send(user_text("Hello"))
    replay.send(ce.ResponseCreate({}))
    replay.advance(replay.now_ms + 1)
    set_session(replay, audio={"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": None}}})
    replay.stream_silence(20_000)
    assert not replay.of_type("input_audio_buffer.timeout_triggered")


def test_a_sentence_without_audio_still_reaches_the_transcript(replay):
    class Mute(FakeSynthesizer):
        def synthesize(self, text, *, voice, speed=1.0):
            return [
                SpeechSegment(s.text, b"" if "second" in s.text else s.pcm16)
                for s in super().synthesize(text, voice=voice, speed=speed)
            ]

    replay.synthesizer = Mute()
    replay.send(
        ce.SessionUpdate(
            {
                "type": "realtime",
                "instructions": 'Say exactly: "The first one. The second one. The third one."',
            }
        )
    )
    replay.send(user_text("hi"))
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    transcript = replay.of_type("response.output_audio_transcript.done")[0]["transcript"]
    assert transcript == "The first one. The second one. The third one."


def test_work_for_a_cancelled_response_is_not_wanted():
    replay = make_replay(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    replay.send(user_text("Tell me a story"))
    replay.send(ce.ResponseCreate({}))
    response_id = replay.of_type("response.created")[0]["response"]["id"]
    assert replay.session.is_wanted(SentenceKey(response_id, 0))
    replay.send(ce.ResponseCancel())
    assert not replay.session.is_wanted(SentenceKey(response_id, 0))


def test_max_output_tokens_also_stops_function_calls(replay):
    tool = {
        "type": "function",
        "name": "send_chat",
        "description": "Send a chat message.",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
        },
    }
    set_session(replay, tools=[tool])
    replay.send(user_text("Please send a chat message saying hello to Alex."))
    replay.send(ce.ResponseCreate({"max_output_tokens": 1, "tool_choice": "required"}))
    replay.run_until_idle()
    done = replay.of_type("response.done")[0]["response"]
    assert done["status"] == "incomplete" and done["usage"]["output_tokens"] <= 1


def test_inline_audio_in_response_input_is_heard():
    replay = make_replay(transcript="What is the capital of France?")
    audio = base64.b64encode(synthetic_voiced_pcm16(800)).decode()
    replay.send(
        ce.ResponseCreate(
            {
                "output_modalities": ["text"],
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_audio", "audio": audio}]}
                ],
            }
        )
    )
    replay.run_until_idle()
    assert "paris" in replay.of_type("response.output_text.done")[0]["text"].lower()
    assert [item.role for item in replay.session.conversation] == ["assistant"]  # input is not added


def test_a_session_tool_choice_naming_no_declared_tool_is_reported_as_the_session_s(replay):
    """It was reported as param "response.tool_choice", though the response.create carried none."""
    set_session(replay, tool_choice={"type": "function", "name": "nope"})
    replay.send(user_text("hello"))
    since = len(replay.events)
    replay.send(ce.ResponseCreate({}))
    error = next(e["error"] for _, e in replay.events[since:] if e["type"] == "error")
    assert error["param"] == "session.tool_choice" and "'nope'" in error["message"]
    since = len(replay.events)
    replay.send(ce.ResponseCreate({"tool_choice": {"type": "function", "name": "other"}}))
    error = next(e["error"] for _, e in replay.events[since:] if e["type"] == "error")
    assert error["param"] == "response.tool_choice"
    set_session(replay, tool_choice="auto")  # the session works again
    replay.send(ce.ResponseCreate({}))
    replay.run_until_idle()
    assert "response.done" in types(replay, since)
