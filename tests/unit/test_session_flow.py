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
from tests.conftest import make_driver

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


def types(driver, since: int = 0) -> list[str]:
    return [e["type"] for _, e in driver.events[since:]]


def set_session(driver, **session) -> None:
    driver.send(ce.SessionUpdate({"type": "realtime", **session}))


def test_session_created_is_first_and_full(driver):
    kind, session = driver.events[0][1]["type"], driver.events[0][1]["session"]
    assert kind == "session.created"
    assert session["audio"]["input"]["turn_detection"]["silence_duration_ms"] == 200
    assert session["audio"]["output"]["voice"] == "alloy"
    assert session["expires_at"] == 1_700_000_000 + 3600


def test_text_turn_with_audio_reply_in_real_order(driver):
    driver.send(user_text("Hello there, how are you?"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    seen = [
        t
        for t in types(driver, 1)
        if t not in ("response.output_audio.delta", "response.output_audio_transcript.delta")
    ]
    assert seen == [
        "conversation.item.added",
        "conversation.item.done",
        *AUDIO_RESPONSE_ORDER,
        *AUDIO_RESPONSE_TAIL,
    ]
    done = driver.of_type("response.done")[0]["response"]
    assert done["status"] == "completed"
    assert done["usage"]["total_tokens"] == done["usage"]["input_tokens"] + done["usage"]["output_tokens"] > 0
    transcript = driver.of_type("response.output_audio_transcript.done")[0]["transcript"]
    deltas = "".join(e["delta"] for e in driver.of_type("response.output_audio_transcript.delta"))
    assert transcript == deltas and transcript
    assert all(
        len(base64.b64decode(e["delta"])) <= 2000 * 48 for e in driver.of_type("response.output_audio.delta")
    )


def test_text_only_response_has_no_audio(driver):
    driver.send(user_text("Hi"))
    driver.send(ce.ResponseCreate({"output_modalities": ["text"]}))
    driver.run_until_idle()
    assert not driver.of_type("response.output_audio.delta")
    assert driver.of_type("response.output_text.done")[0]["text"]
    item = driver.of_type("response.output_item.done")[0]["item"]
    assert item["content"][0]["type"] == "output_text"


def test_server_vad_turn_commits_and_replies():
    driver = make_driver()
    set_session(
        driver, audio={"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}}
    )
    driver.stream_silence(500)
    driver.stream(synthetic_voiced_pcm16(1200))
    driver.stream_silence(1500)
    driver.run_until_idle()
    started = driver.of_type("input_audio_buffer.speech_started")
    stopped = driver.of_type("input_audio_buffer.speech_stopped")
    committed = driver.of_type("input_audio_buffer.committed")
    assert len(started) == len(stopped) == len(committed) == 1
    assert started[0]["item_id"] == stopped[0]["item_id"] == committed[0]["item_id"]
    assert 100 <= started[0]["audio_start_ms"] <= 260  # 500 ms onset minus 300 ms prefix padding
    assert 2150 <= stopped[0]["audio_end_ms"] <= 2260  # speech end (1700) + the 500 ms silence window
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"


def test_barge_in_cancels_with_turn_detected_and_no_audio_follows():
    driver = make_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    driver.send(user_text("Tell me a story"))
    driver.send(ce.ResponseCreate({}))
    driver.stream_silence(600)
    assert driver.of_type("response.output_audio.delta")
    driver.stream(synthetic_voiced_pcm16(800))
    driver.stream_silence(300)
    done = driver.of_type("response.done")[0]
    assert done["response"]["status"] == "cancelled"
    assert done["response"]["status_details"] == {"type": "cancelled", "reason": "turn_detected"}
    index_done = driver.events.index(next(x for x in driver.events if x[1] is done))
    index_started = driver.events.index(
        next(x for x in driver.events if x[1]["type"] == "input_audio_buffer.speech_started")
    )
    assert index_started < index_done
    late = [
        e
        for _, e in driver.events[index_done:]
        if e["type"] == "response.output_audio.delta" and e["response_id"] == done["response"]["id"]
    ]
    assert late == []


def test_response_cancel_and_cancel_with_nothing_active():
    driver = make_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    driver.send(user_text("Tell me a story"))
    driver.send(ce.ResponseCreate({}))
    driver.advance(400)
    driver.send(ce.ResponseCancel())
    done = driver.of_type("response.done")[0]["response"]
    assert done["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
    driver.send(ce.ResponseCancel(event_id="evt_1"))
    error = driver.of_type("error")[0]["error"]
    assert error["code"] == "response_cancel_not_active"
    assert error["event_id"] == "evt_1"
    assert error["message"] == "Cancellation failed: no active response found"


def test_second_response_create_is_refused_while_one_is_active():
    driver = make_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    driver.send(user_text("Tell me a story"))
    driver.send(ce.ResponseCreate({}))
    driver.send(ce.ResponseCreate({}))
    error = driver.of_type("error")[0]["error"]
    assert error["code"] == "conversation_already_has_active_response"
    assert driver.of_type("response.created")[0]["response"]["id"] in error["message"]


def test_listening_pause_commits_same_turn_without_reply_then_new_onset_from_reenable():
    driver = make_driver()
    server_vad = {"type": "server_vad", "silence_duration_ms": 500}
    set_session(driver, audio={"input": {"turn_detection": server_vad}})
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(1000))
    started = driver.of_type("input_audio_buffer.speech_started")[0]
    set_session(driver, audio={"input": {"turn_detection": None}})
    driver.stream(synthetic_voiced_pcm16(500))
    driver.send(ce.InputAudioBufferCommit())
    driver.stream_silence(300)
    driver.run_until_idle()
    committed = driver.of_type("input_audio_buffer.committed")
    assert [c["item_id"] for c in committed] == [started["item_id"]]
    assert not driver.of_type("response.created")
    driver.stream(synthetic_voiced_pcm16(400))
    reenable_ms = driver.audio_sent_ms
    set_session(driver, audio={"input": {"turn_detection": server_vad}})
    driver.stream(synthetic_voiced_pcm16(800))
    again = driver.of_type("input_audio_buffer.speech_started")
    assert len(again) == 2 and again[1]["item_id"] != started["item_id"]
    assert reenable_ms <= again[1]["audio_start_ms"] <= reenable_ms + 100


def test_instructions_only_update_keeps_everything_else(driver):
    set_session(driver, audio={"output": {"voice": "marin"}}, tools=[{"type": "function", "name": "f"}])
    before = driver.of_type("session.updated")[-1]["session"]
    set_session(driver, instructions="Be brief.")
    after = driver.of_type("session.updated")[-1]["session"]
    assert after["instructions"] == "Be brief."
    assert {**after, "instructions": None} == {**before, "instructions": None}


def test_voice_change_after_assistant_audio_is_refused_whole(driver):
    driver.send(user_text("Hello"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    before = driver.session.config
    driver.send(
        ce.SessionUpdate({"type": "realtime", "instructions": "x", "audio": {"output": {"voice": "echo"}}})
    )
    assert driver.of_type("error")[0]["error"]["code"] == "cannot_update_voice"
    assert driver.session.config == before


def test_commit_under_100_ms_is_an_error_and_buffer_kept(driver):
    set_session(driver, audio={"input": {"turn_detection": None}})
    driver.stream_silence(60)
    driver.send(ce.InputAudioBufferCommit())
    error = driver.of_type("error")[0]["error"]
    assert error["code"] == "input_audio_buffer_commit_empty"
    assert "60.00ms" in error["message"]
    driver.stream_silence(60)
    driver.send(ce.InputAudioBufferCommit())
    assert len(driver.of_type("input_audio_buffer.committed")) == 1


def test_truncate_success_and_errors():
    driver = make_driver()
    driver.send(user_text("Tell me a story about a lighthouse"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    item = driver.of_type("response.output_item.done")[0]["item"]
    audio_ms = (
        sum(len(base64.b64decode(e["delta"])) for e in driver.of_type("response.output_audio.delta")) // 48
    )
    driver.send(ce.ConversationItemTruncate(item["id"], 0, audio_ms + 60))
    error = driver.of_type("error")[0]["error"]
    assert error["message"] == f"Audio content of {audio_ms}ms is already shorter than {audio_ms + 60}ms"
    driver.send(ce.ConversationItemTruncate(item["id"], 0, 300))
    assert driver.of_type("conversation.item.truncated")[0]["audio_end_ms"] == 300
    assert item["content"][0]["transcript"]
    driver.send(ce.ConversationItemRetrieve(item["id"]))
    retrieved = driver.of_type("conversation.item.retrieved")[0]["item"]
    assert retrieved["content"][0]["transcript"] is None  # no unheard text stays (reference §3.7)
    assert len(base64.b64decode(retrieved["content"][0]["audio"])) == 300 * 48
    # only the words said in the 300 ms kept stay for the brain, as a model still hears its kept audio
    assert driver.session.conversation.get(item["id"]).view().text == "Here"
    user_id = driver.of_type("conversation.item.added")[0]["item"]["id"]
    driver.send(ce.ConversationItemTruncate(user_id, 0, 10))
    driver.send(ce.ConversationItemTruncate("item_nope", 0, 10))
    codes = [e["error"]["code"] for e in driver.of_type("error")]
    assert codes[1:] == ["unsupported_content_type", "item_truncate_invalid_item_id"]


def test_forced_tool_then_output_then_follow_up(driver):
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
    set_session(driver, tools=[tool])
    driver.send(
        ce.ResponseCreate(
            {"output_modalities": ["text"], "tool_choice": {"type": "function", "name": "answer_scale"}}
        )
    )
    calls = driver.of_type("response.function_call_arguments.done")
    assert len(calls) == 1 and calls[0]["name"] == "answer_scale"
    assert isinstance(json.loads(calls[0]["arguments"])["value"], (int, float))
    assert not driver.of_type("response.output_audio.delta")
    driver.send(
        ce.ConversationItemCreate({"type": "function_call_output", "call_id": "call_unknown", "output": "{}"})
    )
    assert driver.of_type("error")[0]["error"]["code"] == "invalid_tool_call_id"
    driver.send(
        ce.ConversationItemCreate(
            {
                "type": "function_call_output",
                "call_id": calls[0]["call_id"],
                "output": json.dumps({"accepted": True}),
            }
        )
    )
    assert len(driver.of_type("response.created")) == 1  # an output starts no response by itself
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    assert driver.of_type("response.done")[-1]["response"]["status"] == "completed"


def test_function_call_output_is_echoed_completed(driver):
    """The client's function_call_output comes back with ``status: "completed"`` in added, done and
    retrieved, as its other items do (the live user message, reference §3.2; docs/realtime-protocol.md)."""
    set_session(driver, tools=[{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}])
    driver.send(
        ce.ResponseCreate(
            {"output_modalities": ["text"], "tool_choice": {"type": "function", "name": "get_weather"}}
        )
    )
    call_id = driver.of_type("response.function_call_arguments.done")[0]["call_id"]
    driver.send(
        ce.ConversationItemCreate({"type": "function_call_output", "call_id": call_id, "output": "20C"})
    )
    added, done = driver.of_type("conversation.item.added")[-1], driver.of_type("conversation.item.done")[-1]
    expected = {"id": added["item"]["id"], "type": "function_call_output", "status": "completed"}
    expected |= {"call_id": call_id, "output": "20C"}
    assert added["item"] == done["item"] == expected
    assert list(added["item"]) == ["id", "type", "status", "call_id", "output"]
    driver.send(ce.ConversationItemRetrieve(added["item"]["id"]))
    assert driver.of_type("conversation.item.retrieved")[0]["item"] == expected


def test_text_only_response_still_names_its_audio_output(driver):
    """A text-only response keeps ``audio.output`` (format and voice) in response.created and .done: the
    live text-only response does (reference S6, probe 8: ``"output_modalities":["text"]`` with
    ``"audio":{"output":{"format":{"type":"audio/pcm","rate":24000},"voice":"alloy"}}``)."""
    set_session(driver, output_modalities=["text"])
    driver.send(user_text("Say hi in three words"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    audio = {"output": {"format": {"type": "audio/pcm", "rate": 24000}, "voice": "alloy"}}
    for kind in ("response.created", "response.done"):
        response = driver.of_type(kind)[0]["response"]
        assert response["output_modalities"] == ["text"] and response["audio"] == audio, kind
    assert not driver.of_type("response.output_audio.delta")


def test_red_image_is_seen(driver):
    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), (220, 20, 30)).save(buffer, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    driver.send(
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
    driver.send(user_text("Which colour fills the image?"))
    driver.send(ce.ResponseCreate({"output_modalities": ["text"]}))
    assert "red" in driver.of_type("response.output_text.done")[0]["text"].lower()


def test_bad_image_is_an_error_and_nothing_added(driver):
    driver.send(
        ce.ConversationItemCreate(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_image", "image_url": "data:image/gif;base64,R0lGOD"}],
            }
        )
    )
    assert driver.of_type("error")[0]["error"]["param"] == "item.content[0].image_url"
    assert len(driver.session.conversation) == 0


def test_seeded_sessions_repeat_exactly():
    runs = []
    for _ in range(2):
        driver = make_driver(seed=11)
        driver.send(user_text("Hello"))
        driver.send(ce.ResponseCreate({}))
        driver.run_until_idle()
        runs.append([e for _, e in driver.events])
    assert runs[0] == runs[1]


def test_pcmu_output_deltas_are_g711(driver):
    set_session(driver, audio={"output": {"format": {"type": "audio/pcmu"}}})
    driver.send(user_text("Hello"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    g711_bytes = sum(len(base64.b64decode(e["delta"])) for e in driver.of_type("response.output_audio.delta"))
    item = driver.of_type("response.output_item.done")[0]["item"]
    pcm_bytes = len(driver.session.conversation.get(item["id"]).audio)
    assert abs(g711_bytes - pcm_bytes / 6) <= 8 * len(driver.of_type("response.output_audio.delta"))
    assert driver.of_type("response.done")[0]["response"]["audio"]["output"]["format"] == {
        "type": "audio/pcmu"
    }


def test_long_silence_does_not_pile_up_in_the_buffer(driver):
    driver.stream_silence(40_000)
    assert driver.session.turns.buffer.buffered_ms <= 15_020


def test_retrieve_returns_user_audio_and_delete_removes(driver):
    set_session(driver, audio={"input": {"turn_detection": None}})
    driver.stream_silence(200)
    driver.send(ce.InputAudioBufferCommit())
    item_id = driver.of_type("input_audio_buffer.committed")[0]["item_id"]
    driver.send(ce.ConversationItemRetrieve(item_id))
    audio = driver.of_type("conversation.item.retrieved")[0]["item"]["content"][0]["audio"]
    assert len(base64.b64decode(audio)) == 200 * 48
    driver.send(ce.ConversationItemDelete(item_id))
    assert driver.of_type("conversation.item.deleted")[0]["item_id"] == item_id
    driver.send(ce.ConversationItemRetrieve(item_id))
    assert driver.of_type("error")[0]["error"]["code"] == "item_retrieve_invalid_item_id"


def test_root_insert_and_out_of_band_response(driver):
    driver.send(user_text("first"))
    driver.send(
        ce.ConversationItemCreate(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "zeroth"}]},
            previous_item_id="root",
        )
    )
    added = driver.of_type("conversation.item.added")
    assert added[0]["previous_item_id"] is None and added[1]["previous_item_id"] is None
    assert [i.text() for i in driver.session.conversation] == ["zeroth", "first"]
    driver.send(ce.ResponseCreate({"conversation": "none", "output_modalities": ["text"]}))
    done = driver.of_type("response.done")[0]["response"]
    assert done["conversation_id"] is None and done["status"] == "completed"
    assert len(driver.session.conversation) == 2  # out-of-band output is not added


def test_max_output_tokens_ends_the_response_incomplete(driver):
    driver.send(user_text("Please tell me a long story about a lighthouse keeper."))
    driver.send(ce.ResponseCreate({"max_output_tokens": 20}))
    driver.run_until_idle()
    done = driver.of_type("response.done")[0]["response"]
    assert done["status"] == "incomplete"
    assert done["status_details"] == {"type": "incomplete", "reason": "max_output_tokens"}
    assert done["usage"]["output_tokens"] == 20  # the last delta is cut to the budget
    driver.send(user_text("Another story please, a long one."))
    driver.send(ce.ResponseCreate({"output_modalities": ["text"], "max_output_tokens": 5}))
    text_done = driver.of_type("response.done")[1]["response"]
    assert text_done["status"] == "incomplete" and text_done["usage"]["output_tokens"] <= 5


def test_max_output_tokens_is_never_exceeded_by_the_words_of_the_last_delta(driver):
    """With a small budget the first transcript words land on the second delta; the audio of that
    delta used to get a 2-byte floor, one started audio token past the limit (5 → 6 tokens)."""
    for limit in range(1, 13):
        driver.send(user_text("Please tell me a long story about a lighthouse keeper."))
        driver.send(ce.ResponseCreate({"max_output_tokens": limit}))
        driver.run_until_idle()
        done = driver.of_type("response.done")[-1]["response"]
        assert done["status"] == "incomplete"
        assert 0 < done["usage"]["output_tokens"] <= limit, limit


def test_idle_timeout_commits_silence_and_replies_after_the_reply_was_heard(driver):
    set_session(driver, audio={"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000}}})
    driver.send(user_text("Hello"))
    driver.send(ce.ResponseCreate({}))
    driver.advance(driver.now_ms + 1)
    reply_ms = (
        sum(len(base64.b64decode(e["delta"])) for e in driver.of_type("response.output_audio.delta")) // 48
    )
    driver.stream_silence(reply_ms + 4800)
    assert not driver.of_type("input_audio_buffer.timeout_triggered")
    driver.stream_silence(400)
    triggered = driver.of_type("input_audio_buffer.timeout_triggered")
    assert len(triggered) == 1
    assert driver.of_type("input_audio_buffer.committed")[0]["item_id"] == triggered[0]["item_id"]
    assert triggered[0]["audio_end_ms"] - triggered[0]["audio_start_ms"] > 5000
    assert len(driver.of_type("response.created")) == 2


def test_changing_turn_detection_mid_speech_keeps_the_turn_and_its_audio():
    driver = make_driver()
    set_session(driver, audio={"input": {"turn_detection": {"type": "server_vad", "create_response": False}}})
    driver.stream(synthetic_voiced_pcm16(600))
    set_session(
        driver, audio={"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 700}}}
    )
    driver.stream(synthetic_voiced_pcm16(600))
    set_session(
        driver, audio={"input": {"turn_detection": {"type": "semantic_vad", "create_response": False}}}
    )
    driver.stream(synthetic_voiced_pcm16(600))
    driver.stream_silence(6000)
    driver.run_until_idle()
    started = driver.of_type("input_audio_buffer.speech_started")
    committed = driver.of_type("input_audio_buffer.committed")
    assert len(started) == 1 and [c["item_id"] for c in committed] == [started[0]["item_id"]]
    audio_ms = driver.session.conversation.get(started[0]["item_id"]).audio_ms
    assert audio_ms >= 1700  # the speech from before both switches is part of the turn


def _reply_being_sent() -> tuple[object, str]:
    driver = make_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    driver.send(user_text("Tell me a long story about a lighthouse keeper"))
    driver.send(ce.ResponseCreate({}))
    driver.advance(800)
    return driver, driver.of_type("response.output_item.added")[0]["item"]["id"]


def _assert_cut_and_next_turn_works(driver, item_id: str, audio_ms: int) -> None:
    assert not driver.of_type("error")
    done = driver.of_type("response.done")[0]["response"]
    assert done["status"] == "cancelled"
    assert done["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
    item = driver.session.conversation.get(item_id)
    assert (item.audio_ms, item.status, item.content[0]["transcript"]) == (audio_ms, "incomplete", None)
    driver.send(user_text("What did you say?"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    assert driver.of_type("response.done")[-1]["response"]["status"] == "completed"
    assert not driver.of_type("error")


def test_truncating_the_reply_being_sent_does_not_end_it_the_cancel_after_it_does():
    driver, item_id = _reply_being_sent()
    driver.send(ce.ConversationItemTruncate(item_id, 0, 100))
    assert driver.of_type("conversation.item.truncated")[0]["audio_end_ms"] == 100
    assert not driver.of_type("response.done")  # the Agents SDK's interrupt sends its cancel next
    before = len(driver.of_type("response.output_audio.delta"))
    driver.advance(driver.now_ms + 300)
    after = driver.of_type("response.output_audio.delta")[before:]
    assert after  # the response streams on, and its audio is added after the cut
    driver.send(ce.ResponseCancel())
    _assert_cut_and_next_turn_works(
        driver, item_id, 100 + sum(len(base64.b64decode(e["delta"])) for e in after) // 48
    )


def test_cancel_then_truncate_of_the_reply_being_sent():
    driver, item_id = _reply_being_sent()
    driver.send(ce.ResponseCancel())
    driver.send(ce.ConversationItemTruncate(item_id, 0, 100))
    assert driver.of_type("conversation.item.truncated")[0]["audio_end_ms"] == 100
    _assert_cut_and_next_turn_works(driver, item_id, 100)


def test_a_reply_that_cannot_be_built_fails_the_response_not_the_session(driver):
    class Broken:
        def reply(self, request):
            raise ValueError("no arguments satisfy this schema")

    driver.session.responses.brain = Broken()
    driver.send(user_text("Hi"))
    driver.send(ce.ResponseCreate({}))
    done = driver.of_type("response.done")[0]["response"]
    assert done["status"] == "failed" and done["status_details"]["error"]["code"] == "reply_failed"
    assert driver.session.responses.active_id is None


def test_control_characters_are_not_spoken(driver):
    driver.send(ce.SessionUpdate({"type": "realtime", "instructions": 'Say exactly: "hello\x00 there"'}))
    driver.send(user_text("hi"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    transcript = driver.of_type("response.output_audio_transcript.done")[0]["transcript"]
    assert "\x00" not in transcript and "hello" in transcript


def test_server_vad_transcribes_during_the_silence_window_so_the_reply_does_not_wait():
    driver = make_driver()
    driver.fixed_latency_ms = 250.0
    set_session(
        driver, audio={"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 500}}}
    )
    driver.stream_silence(300)
    driver.stream(synthetic_voiced_pcm16(1000))
    driver.stream_silence(1500)
    driver.run_until_idle()
    stopped_at, _ = driver.first("input_audio_buffer.speech_stopped")
    replied_at, _ = driver.first("response.output_item.added")
    # The reply's item is announced with its first audio, 250 ms of speech synthesis after the reply was
    # decided: the 250 ms transcription ran inside the silence window, or this would be 500 ms.
    assert replied_at - stopped_at <= 250 + 20
    assert len(driver.transcriber.calls) == 1  # the probe's words are the item's: no second pass


def test_deleting_the_item_being_written_stops_its_conversation_events():
    driver = make_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    driver.send(user_text("Tell me a story"))
    driver.send(ce.ResponseCreate({}))
    driver.advance(300)
    item_id = driver.of_type("response.output_item.added")[0]["item"]["id"]
    driver.send(ce.ConversationItemDelete(item_id))
    driver.run_until_idle()
    assert [e for e in driver.of_type("conversation.item.done") if e["item"]["id"] == item_id] == []
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"


def test_a_late_transcript_for_a_deleted_item_is_dropped_and_the_session_goes_on():
    driver = make_driver()
    driver.fixed_latency_ms = 500.0
    set_session(driver, audio={"input": {"turn_detection": None}})
    driver.stream(synthetic_voiced_pcm16(400))
    driver.send(ce.InputAudioBufferCommit())
    item_id = driver.of_type("input_audio_buffer.committed")[0]["item_id"]
    driver.send(ce.ConversationItemDelete(item_id))
    assert not driver.session.is_wanted(ItemTranscriptKey(item_id))
    driver.run_until_idle()  # the transcript arrives for an item that is no longer there
    driver.send(user_text("Hello"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"


def test_an_item_reusing_the_id_of_one_awaiting_its_transcript_leaves_that_wait_alone():
    """A reused id (reference §7) keeps both items: the audio item still gets its own words and the
    response waits for them; the second audio item gets its own."""
    driver = make_driver()
    driver.fixed_latency_ms = 500.0
    set_session(driver, audio={"input": {"turn_detection": None}})
    driver.stream(synthetic_voiced_pcm16(400))
    driver.send(ce.InputAudioBufferCommit())
    item_id = driver.of_type("input_audio_buffer.committed")[0]["item_id"]
    driver.send(
        ce.ConversationItemCreate({"type": "function_call", "id": item_id, "name": "f", "arguments": "{}"})
    )
    second = {
        "type": "message",
        "id": item_id,
        "role": "user",
        "content": [
            {"type": "input_audio", "audio": base64.b64encode(bytes(synthetic_voiced_pcm16(300))).decode()}
        ],
    }
    driver.send(ce.ConversationItemCreate(second))
    assert driver.session.is_wanted(ItemTranscriptKey(item_id))
    assert driver.session.is_wanted(ItemTranscriptKey(f"{item_id}#1"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    audio_items = [i for i in driver.session.conversation if i.role == "user" and i.audio]
    assert len(audio_items) == 2 and all(i.text() for i in audio_items)
    assert len(driver.transcriber.calls) == 2
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"


def test_reusing_an_id_after_itself_places_the_new_item_after_the_old(driver):
    driver.send(
        ce.ConversationItemCreate(
            {
                "type": "message",
                "id": "item_a",
                "role": "user",
                "content": [{"type": "input_text", "text": "a"}],
            }
        )
    )
    driver.send(user_text("b"))
    driver.send(
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
    assert not driver.of_type("error")
    # both kept (reference §7): "after item_a" is after the item holding it, then the new one holds it
    assert [i.text() for i in driver.session.conversation] == ["a", "a2", "b"]


def test_switching_idle_timeout_off_disarms_the_timer(driver):
    set_session(driver, audio={"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000}}})
    driver.send(user_text("Hello"))
    driver.send(ce.ResponseCreate({}))
    driver.advance(driver.now_ms + 1)
    set_session(driver, audio={"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": None}}})
    driver.stream_silence(20_000)
    assert not driver.of_type("input_audio_buffer.timeout_triggered")


def test_a_sentence_without_audio_still_reaches_the_transcript(driver):
    class Mute(FakeSynthesizer):
        def synthesize(self, text, *, voice, speed=1.0):
            return [
                SpeechSegment(s.text, b"" if "second" in s.text else s.pcm16)
                for s in super().synthesize(text, voice=voice, speed=speed)
            ]

    driver.synthesizer = Mute()
    driver.send(
        ce.SessionUpdate(
            {
                "type": "realtime",
                "instructions": 'Say exactly: "The first one. The second one. The third one."',
            }
        )
    )
    driver.send(user_text("hi"))
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    transcript = driver.of_type("response.output_audio_transcript.done")[0]["transcript"]
    assert transcript == "The first one. The second one. The third one."


def test_work_for_a_cancelled_response_is_not_wanted():
    driver = make_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    driver.send(user_text("Tell me a story"))
    driver.send(ce.ResponseCreate({}))
    response_id = driver.of_type("response.created")[0]["response"]["id"]
    assert driver.session.is_wanted(SentenceKey(response_id, 0))
    driver.send(ce.ResponseCancel())
    assert not driver.session.is_wanted(SentenceKey(response_id, 0))


def test_max_output_tokens_also_stops_function_calls(driver):
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
    set_session(driver, tools=[tool])
    driver.send(user_text("Please send a chat message saying hello to Alex."))
    driver.send(ce.ResponseCreate({"max_output_tokens": 1, "tool_choice": "required"}))
    driver.run_until_idle()
    done = driver.of_type("response.done")[0]["response"]
    assert done["status"] == "incomplete" and done["usage"]["output_tokens"] <= 1


def test_inline_audio_in_response_input_is_heard():
    driver = make_driver(transcript="What is the capital of France?")
    audio = base64.b64encode(synthetic_voiced_pcm16(800)).decode()
    driver.send(
        ce.ResponseCreate(
            {
                "output_modalities": ["text"],
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_audio", "audio": audio}]}
                ],
            }
        )
    )
    driver.run_until_idle()
    assert "paris" in driver.of_type("response.output_text.done")[0]["text"].lower()
    assert [item.role for item in driver.session.conversation] == ["assistant"]  # input is not added
