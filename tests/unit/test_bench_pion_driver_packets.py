"""The Go driver's microphone packets (mockengine/bench/pion_driver.py) are the aiortc driver's: what a
call's microphone track (ReplyTrack, no DTX) sends for the clip and 1 s of silence, frame by frame."""

from __future__ import annotations

import struct

from mockengine.bench.pion_driver import SILENCE_MS, clip_packets, write_packets
from mockengine.bench.webrtc_talk import question_clip
from mockengine.rtc.media import FRAME_BYTES, ReplyTrack


def test_the_packets_are_what_the_aiortc_drivers_microphone_sends(tmp_path):
    clip = question_clip()
    packets = clip_packets(clip.pcm)
    audio_bytes = len(clip.pcm) + 48 * SILENCE_MS
    assert len(packets) == -(-audio_bytes // FRAME_BYTES)
    mic = ReplyTrack(lambda _: None, lambda _: None)
    mic.enqueue("resp", "item", clip.pcm + bytes(48 * SILENCE_MS))
    sent = [mic.pull() for _ in packets]
    assert [payload for payload, _ in sent] == packets  # type: ignore[misc]
    # Played twice in a row (the driver's loop), the second pass is what the track sends next time.
    mic.enqueue("resp2", "item2", clip.pcm + bytes(48 * SILENCE_MS))
    assert [mic.pull()[0] for _ in packets] == packets  # type: ignore[index]
    write_packets(tmp_path / "f", packets[:3])
    data = (tmp_path / "f").read_bytes()
    length = struct.unpack_from("<H", data)[0]
    assert data[2 : 2 + length] == packets[0] and len(data) == sum(2 + len(p) for p in packets[:3])
