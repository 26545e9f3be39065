"""The session's bounds (fake engines, virtual time): input buffer, conversation items and audio, and the
idle timeout's window."""

from __future__ import annotations

import base64
import dataclasses

from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import ItemTranscriptKey
from mockengine.realtime.response import Pacing
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import make_session


def replay_with(**limits) -> VirtualTimeDriver:
    session = make_session()
    session.ctx.options = dataclasses.replace(session.options, **limits)
    driver = VirtualTimeDriver(session, FakeTranscriber(default="Hello there."), FakeSynthesizer())
    driver.start()
    return driver


def manual_turns(driver: VirtualTimeDriver) -> None:
    driver.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": None}}}))


def test_an_append_past_the_input_buffer_bound_is_refused_whole():
    driver = replay_with(max_input_buffer_ms=1000)
    manual_turns(driver)
    driver.send(ce.InputAudioBufferAppend(bytes(48 * 800)))
    driver.send(ce.InputAudioBufferAppend(bytes(48 * 300), event_id="over"))
    error = driver.of_type("error")[0]["error"]
    assert (error["code"], error["event_id"]) == ("input_audio_buffer_full", "over")
    assert "800.00ms" in error["message"] and "1000ms" in error["message"]
    assert driver.session.turns.buffer.buffered_ms == 800
    driver.send(ce.InputAudioBufferCommit())
    driver.send(ce.InputAudioBufferAppend(bytes(48 * 300)))  # room again after the commit
    assert len(driver.of_type("error")) == 1


def test_engine_items_make_room_by_dropping_the_oldest_announced():
    driver = replay_with(max_conversation_items=3)
    manual_turns(driver)
    for _ in range(5):
        driver.send(ce.InputAudioBufferAppend(bytes(48 * 200)))
        driver.send(ce.InputAudioBufferCommit())
    committed = [e["item_id"] for e in driver.of_type("input_audio_buffer.committed")]
    deleted = [e["item_id"] for e in driver.of_type("conversation.item.deleted")]
    assert deleted == committed[:2]
    assert [item.id for item in driver.session.conversation] == committed[2:]


def test_conversation_audio_bound_drops_the_oldest_audio():
    driver = replay_with(max_conversation_audio_ms=1000)
    manual_turns(driver)
    for _ in range(3):
        driver.send(ce.InputAudioBufferAppend(bytes(48 * 400)))
        driver.send(ce.InputAudioBufferCommit())
    assert len(driver.of_type("conversation.item.deleted")) == 1
    assert sum(len(item.audio) for item in driver.session.conversation) <= 48 * 1000


def typed(item_id: str | None = None, text: str = "x") -> dict:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return item if item_id is None else {**item, "id": item_id}


def held_ids(driver: VirtualTimeDriver) -> list[str]:
    return [item.id for item in driver.session.conversation]


def test_client_items_past_the_bound_make_room_by_dropping_the_oldest_announced():
    driver = replay_with(max_conversation_items=3)
    for n in range(5):
        driver.send(ce.ConversationItemCreate(typed(f"i{n}")))
    assert driver.of_type("error") == []
    assert [e["item_id"] for e in driver.of_type("conversation.item.deleted")] == ["i0", "i1"]
    assert held_ids(driver) == ["i2", "i3", "i4"]
    # each drop is announced before the item it made room for
    kinds = [(e["type"], e.get("item_id") or e.get("item", {}).get("id")) for _, e in driver.events]
    assert kinds.index(("conversation.item.deleted", "i0")) < kinds.index(("conversation.item.added", "i3"))
    # a reused id is a new item too (both kept, reference §7): it makes room like any other
    driver.send(ce.ConversationItemCreate(typed("i3")))
    assert driver.of_type("conversation.item.deleted")[-1]["item_id"] == "i2"
    assert held_ids(driver) == ["i3", "i4", "i3"]


def placed_at_the_bound(item_id: str, previous_item_id: str) -> VirtualTimeDriver:
    """A conversation of a, b, c at its bound of 3, then ``item_id`` created after ``previous_item_id``."""
    driver = replay_with(max_conversation_items=3)
    for name in "abc":
        driver.send(ce.ConversationItemCreate(typed(name)))
    driver.send(ce.ConversationItemCreate(typed(item_id), previous_item_id=previous_item_id))
    return driver


def test_the_item_previous_item_id_names_stays_and_the_next_oldest_makes_room():
    driver = placed_at_the_bound("d", "a")
    assert [e["item_id"] for e in driver.of_type("conversation.item.deleted")] == ["b"]
    assert driver.of_type("conversation.item.added")[-1]["previous_item_id"] == "a"
    assert held_ids(driver) == ["a", "d", "c"]


def test_an_item_placed_at_the_root_drops_the_oldest_and_stays_first():
    driver = placed_at_the_bound("r", "root")
    assert [e["item_id"] for e in driver.of_type("conversation.item.deleted")] == ["a"]
    assert driver.of_type("conversation.item.added")[-1]["previous_item_id"] is None
    assert held_ids(driver) == ["r", "b", "c"]


def test_a_reply_being_written_keeps_its_item_and_only_a_full_house_of_them_refuses():
    driver = replay_with(max_conversation_items=1, pacing=Pacing())
    driver.send(ce.ConversationItemCreate(typed("u", "Tell me a story")))
    driver.send(ce.ResponseCreate({}))  # it makes room for its item, written until its audio is out
    driver.advance(driver.now_ms + 400)  # past its first audio (paced): the item is in
    (reply,) = [e["item"]["id"] for e in driver.of_type("conversation.item.added")[1:]]
    assert held_ids(driver) == [reply]
    driver.send(ce.ConversationItemCreate(typed("x"), event_id="full"))
    error = driver.of_type("error")[0]["error"]
    assert (error["code"], error["param"], error["event_id"]) == (
        "conversation_items_limit_reached",
        "item",
        "full",
    )
    assert "being written by a response in progress" in error["message"]
    assert held_ids(driver) == [reply]
    driver.run_until_idle()
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"
    driver.send(ce.ConversationItemCreate(typed("x")))  # written: it makes room now
    assert driver.of_type("conversation.item.deleted")[-1]["item_id"] == reply
    assert held_ids(driver) == ["x"]


def test_a_reply_being_written_keeps_its_item_while_older_ones_make_room():
    driver = replay_with(max_conversation_items=3, pacing=Pacing())
    driver.send(ce.ConversationItemCreate(typed("u", "Tell me a story")))
    driver.send(ce.ResponseCreate({}))
    driver.advance(driver.now_ms + 400)
    reply = driver.of_type("conversation.item.added")[-1]["item"]["id"]
    for name in "abcd":
        driver.send(ce.ConversationItemCreate(typed(name)))
    assert [e["item_id"] for e in driver.of_type("conversation.item.deleted")] == ["u", "a", "b"]
    assert held_ids(driver) == [reply, "c", "d"]
    driver.run_until_idle()
    done = driver.of_type("response.done")[0]["response"]
    assert done["status"] == "completed" and done["output"][0]["id"] == reply


def test_a_turn_awaiting_its_transcript_makes_room_and_the_reply_waiting_for_it_goes_on():
    driver = replay_with(max_conversation_items=2)
    transcription = {"transcription": {"model": "whisper-1"}, "turn_detection": None}
    driver.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": transcription}}))
    driver.send(ce.InputAudioBufferAppend(bytes(48 * 400)))
    driver.send(ce.InputAudioBufferCommit())
    turn = driver.of_type("input_audio_buffer.committed")[0]["item_id"]
    driver.send(ce.ResponseCreate({"output_modalities": ["text"]}))  # waits for the turn's words
    assert driver.of_type("response.output_item.added") == []
    driver.send(ce.ConversationItemCreate(typed("a", "Tell me a story")))
    driver.send(ce.ConversationItemCreate(typed("b", "Tell me a story")))
    assert [e["item_id"] for e in driver.of_type("conversation.item.deleted")] == [turn]
    # The shell would not transcribe the dropped turn (no longer wanted), so nothing else would wake
    # the reply: it goes on at once, from what the conversation holds.
    assert not driver.session.is_wanted(ItemTranscriptKey(turn))
    assert len(driver.of_type("response.output_item.added")) == 1
    driver.run_until_idle()
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"
    # the dropped turn's transcript, if it still comes, is not announced
    assert driver.of_type("conversation.item.input_audio_transcription.completed") == []


def test_a_long_idle_timeout_commits_all_the_silence_it_waited_through():
    driver = replay_with()
    detection = {"type": "server_vad", "idle_timeout_ms": 25_000}
    driver.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": detection}}}))
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
    driver.send(ce.ConversationItemCreate(item))
    driver.send(ce.ResponseCreate({}))
    driver.advance(driver.now_ms + 1)
    reply_ms = (
        sum(len(base64.b64decode(e["delta"])) for e in driver.of_type("response.output_audio.delta")) // 48
    )
    driver.stream_silence(reply_ms + 26_000)
    triggered = driver.of_type("input_audio_buffer.timeout_triggered")
    assert len(triggered) == 1
    assert triggered[0]["audio_end_ms"] - triggered[0]["audio_start_ms"] >= 25_000


def test_a_response_making_room_wakes_an_out_of_band_reply_waiting_for_the_turn_it_drops():
    """The room made by a new response rather than a client's item: an out-of-band reply waiting for the
    oldest turn's words must not wait for a transcript nobody will run (no later turn would wake it)."""
    driver = replay_with(max_conversation_items=2)
    transcription = {"transcription": {"model": "whisper-1"}, "turn_detection": None}
    driver.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": transcription}}))
    driver.send(ce.InputAudioBufferAppend(bytes(48 * 400)))
    driver.send(ce.InputAudioBufferCommit())
    turn = driver.of_type("input_audio_buffer.committed")[0]["item_id"]
    driver.send(ce.ConversationItemCreate(typed("a", "Hello")))
    out_of_band = {"conversation": "none", "output_modalities": ["text"]}
    driver.send(ce.ResponseCreate(out_of_band))  # reads the conversation: waits for the turn's words
    assert driver.of_type("response.output_item.added") == []
    driver.send(ce.ResponseCreate({"output_modalities": ["text"]}))  # makes room for its reply: the turn goes
    assert turn in [e["item_id"] for e in driver.of_type("conversation.item.deleted")]
    assert not driver.session.is_wanted(ItemTranscriptKey(turn))
    driver.run_until_idle()
    assert [e["response"]["status"] for e in driver.of_type("response.done")] == ["completed", "completed"]
