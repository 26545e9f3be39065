"""The session's bounds (fake engines, virtual time): input buffer, conversation items and audio, and the
idle timeout's window."""

from __future__ import annotations

import base64
import dataclasses

from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.protocol import client_events as ce
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


def test_client_items_past_the_bound_are_refused_even_with_a_reused_id():
    driver = replay_with(max_conversation_items=2)
    for n in range(2):
        item = {
            "type": "message",
            "id": f"i{n}",
            "role": "user",
            "content": [{"type": "input_text", "text": "x"}],
        }
        driver.send(ce.ConversationItemCreate(item))
    extra = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "y"}]}
    driver.send(ce.ConversationItemCreate(extra, event_id="third"))
    assert driver.of_type("error")[0]["error"]["code"] == "conversation_items_limit_reached"
    # a reused id is a new item too (both are kept, reference §7), so it is refused as well
    driver.send(ce.ConversationItemCreate({**extra, "id": "i0"}))
    assert len(driver.of_type("error")) == 2 and len(driver.session.conversation) == 2


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
