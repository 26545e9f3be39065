"""The session's bounds (fake engines, virtual time): input buffer, conversation items and audio, and the
idle timeout's window."""

from __future__ import annotations

import base64
import dataclasses

from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.protocol import client_events as ce
from mockengine.replay import Replay
from tests.conftest import make_session


def replay_with(**limits) -> Replay:
    session = make_session()
    session.ctx.options = dataclasses.replace(session.options, **limits)
    replay = Replay(session, FakeTranscriber(default="Hello there."), FakeSynthesizer())
    replay.start()
    return replay


def manual_turns(replay: Replay) -> None:
    replay.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": None}}}))


def test_an_append_past_the_input_buffer_bound_is_refused_whole():
    replay = replay_with(max_input_buffer_ms=1000)
    manual_turns(replay)
    replay.send(ce.InputAudioBufferAppend(bytes(48 * 800)))
    replay.send(ce.InputAudioBufferAppend(bytes(48 * 300), event_id="over"))
    error = replay.of_type("error")[0]["error"]
    assert (error["code"], error["event_id"]) == ("input_audio_buffer_full", "over")
    assert "800.00ms" in error["message"] and "1000ms" in error["message"]
    assert replay.session.turns.buffer.buffered_ms == 800
    replay.send(ce.InputAudioBufferCommit())
    replay.send(ce.InputAudioBufferAppend(bytes(48 * 300)))  # room again after the commit
    assert len(replay.of_type("error")) == 1


def test_engine_items_make_room_by_dropping_the_oldest_announced():
    replay = replay_with(max_conversation_items=3)
    manual_turns(replay)
    for _ in range(5):
        replay.send(ce.InputAudioBufferAppend(bytes(48 * 200)))
        replay.send(ce.InputAudioBufferCommit())
    committed = [e["item_id"] for e in replay.of_type("input_audio_buffer.committed")]
    deleted = [e["item_id"] for e in replay.of_type("conversation.item.deleted")]
    assert deleted == committed[:2]
    assert [item.id for item in replay.session.conversation] == committed[2:]


def test_conversation_audio_bound_drops_the_oldest_audio():
    replay = replay_with(max_conversation_audio_ms=1000)
    manual_turns(replay)
    for _ in range(3):
        replay.send(ce.InputAudioBufferAppend(bytes(48 * 400)))
        replay.send(ce.InputAudioBufferCommit())
    assert len(replay.of_type("conversation.item.deleted")) == 1
    assert sum(len(item.audio) for item in replay.session.conversation) <= 48 * 1000


def test_client_items_past_the_bound_are_refused_but_replacing_one_is_not():
    replay = replay_with(max_conversation_items=2)
    for n in range(2):
        item = {
            "type": "message",
            "id": f"i{n}",
            "role": "user",
            "content": [{"type": "input_text", "text": "x"}],
        }
        replay.send(ce.ConversationItemCreate(item))
    extra = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "y"}]}
    replay.send(ce.ConversationItemCreate(extra, event_id="third"))
    assert replay.of_type("error")[0]["error"]["code"] == "conversation_items_limit_reached"
    replay.send(ce.ConversationItemCreate({**extra, "id": "i0"}))  # same id: a replacement, no growth
    assert len(replay.of_type("error")) == 1 and len(replay.session.conversation) == 2


def test_a_long_idle_timeout_commits_all_the_silence_it_waited_through():
    replay = replay_with()
    detection = {"type": "server_vad", "idle_timeout_ms": 25_000}
    replay.send(ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": detection}}}))
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
    replay.send(ce.ConversationItemCreate(item))
    replay.send(ce.ResponseCreate({}))
    replay.advance(replay.now_ms + 1)
    reply_ms = (
        sum(len(base64.b64decode(e["delta"])) for e in replay.of_type("response.output_audio.delta")) // 48
    )
    replay.stream_silence(reply_ms + 26_000)
    triggered = replay.of_type("input_audio_buffer.timeout_triggered")
    assert len(triggered) == 1
    assert triggered[0]["audio_end_ms"] - triggered[0]["audio_start_ms"] >= 25_000
