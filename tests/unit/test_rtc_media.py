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


def test_the_track_hands_aiortc_real_opus_and_reuses_one_silent_packet():
    import asyncio
    from fractions import Fraction

    import av

    from mockengine.rtc.opus import silent_payload

    reply, _ = track()
    sine = (np.sin(np.arange(24 * 200) * 2 * np.pi * 440 / 24_000) * 8000).astype("<i2")
    reply.enqueue("resp_1", "item_1", sine.tobytes())  # a tone, not DC: Opus drops DC

    async def packets(count: int) -> list[av.Packet]:
        return [await reply.recv() for _ in range(count)]

    sent = asyncio.run(packets(20))  # 10 frames of the reply, then silence (paced: 0.4 s)
    assert [p.pts for p in sent] == [960 * i for i in range(20)]  # the 48 kHz RTP clock
    assert all(p.time_base == Fraction(1, 48_000) for p in sent)
    assert all(bytes(p) == silent_payload(480) for p in sent[14:])  # past the encoder's flush frames
    decoder = av.CodecContext.create("libopus", "r")
    decoder.sample_rate = 48_000
    frames = [f for p in sent for f in decoder.decode(av.Packet(bytes(p)))]
    assert len(frames) == 20 and all(f.samples == 960 for f in frames)  # 20 ms each at 48 kHz
    decoded = [f.to_ndarray() for f in frames]
    assert np.abs(np.concatenate(decoded[2:9], axis=-1)).max() > 500  # the tone is audible
    assert np.abs(np.concatenate(decoded[15:], axis=-1)).max() < 50  # the silent packet is silence


def test_with_dtx_silence_goes_out_as_one_packet_per_400_ms():
    import asyncio

    import av

    reply = ReplyTrack(lambda _: None, lambda _: None, dtx=True)
    sine = (np.sin(np.arange(24 * 100) * 2 * np.pi * 440 / 24_000) * 8000).astype("<i2")

    async def packets(count: int) -> list[av.Packet]:
        first = [await reply.recv()]  # silence at the start: sent, then held back
        reply.enqueue("resp_1", "item_1", sine.tobytes())
        return first + [await reply.recv() for _ in range(count - 1)]

    sent = asyncio.run(packets(12))  # paced: about 1.2 s
    steps = [(b.pts - a.pts) // 960 for a, b in zip(sent, sent[1:], strict=False)]
    # the reply's 5 frames right after the first silent one, the encoder's 3 flush frames, then one
    # packet per 400 ms (20 frames of 20 ms): the RTP timestamps jump as after Opus DTX
    assert steps == [1] * 8 + [20, 20, 20]


def test_a_stalled_track_sends_nothing_but_plays_its_reply_out_on_time():
    """media_stall: the packets are lost, not the playback, so the reply still stops when it would have
    ended (the track froze: ``started`` and never ``stopped``)."""
    reply, calls = track()
    reply.enqueue("resp_1", "item_1", tone(100))
    assert reply.pull() is not None and calls == [("started", "resp_1")]
    reply.stall()
    reply.finish("resp_1")
    pulled = [reply.pull() for _ in range(5)]
    assert pulled == [None] * 5  # nothing goes out
    assert calls == [("started", "resp_1"), ("stopped", "resp_1")]  # after the reply's 100 ms, on time
    assert reply.next_due_s(0.0) == 6 * 0.02  # the clock went on
