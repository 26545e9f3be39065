"""The reply track's bookkeeping (no network): frames of 20 ms, started/stopped per response, the cut
position on clear, silence between replies."""

from __future__ import annotations

import numpy as np

from mockengine.rtc.media import FRAME_BYTES, ReplyTrack


def track() -> tuple[ReplyTrack, list[tuple[str, str]]]:
    calls: list[tuple[str, str]] = []
    reply = ReplyTrack(lambda r: calls.append(("started", r)), lambda r: calls.append(("stopped", r)))
    return reply, calls


def tone(ms: int) -> bytes:
    return (np.ones(24 * ms, dtype="<i2") * 1000).tobytes()


def test_a_reply_starts_plays_out_and_stops_after_it_is_done():
    reply, calls = track()
    assert reply._take() == bytes(FRAME_BYTES) and calls == []  # silence between replies
    reply.enqueue("resp_1", "item_1", tone(50))
    frames = [reply._take() for _ in range(3)]
    assert calls == [("started", "resp_1")]  # not stopped: the response is not done yet
    assert frames[2][: 10 * 48] != bytes(10 * 48) and frames[2][10 * 48 :] == bytes(10 * 48)
    reply.finish("resp_1")
    reply._take()
    assert calls == [("started", "resp_1"), ("stopped", "resp_1")]


def test_clear_cuts_at_what_was_sent_and_drops_late_audio():
    reply, calls = track()
    reply.enqueue("resp_1", "item_1", tone(1000))
    for _ in range(10):
        reply._take()
    cut = reply.clear()
    assert cut is not None and (cut.response_id, cut.item_id, cut.audio_end_ms) == ("resp_1", "item_1", 200)
    reply.enqueue("resp_1", "item_1", tone(100))  # a delta of the cut reply still in flight
    assert reply._take() == bytes(FRAME_BYTES) and not reply.is_playing
    assert reply.clear() is None


def test_a_following_reply_stops_the_previous_one_first():
    reply, calls = track()
    reply.enqueue("resp_1", "item_1", tone(30))
    reply.enqueue("resp_2", "item_2", tone(30))
    reply._take()
    reply._take()
    assert calls == [("started", "resp_1"), ("stopped", "resp_1"), ("started", "resp_2")]
