"""The microphone's last frame before a sender stops (push-to-talk's ``replaceTrack(null)``: no packet at
all afterwards) reaches the session. aiortc's jitter buffer releases a frame when the next packet
arrives, so the last one stayed in it, undecoded: the turn lost its last 20 ms, and the quiet timer's
silence took its place (``rtc/inbound.py`` now decodes what the buffer holds before that silence)."""

from __future__ import annotations

import asyncio
import base64

import av
import numpy as np
import pytest
from aiortc.mediastreams import MediaStreamError

from tests.integration.test_webrtc_retrieve_on_call import _retrieved
from tests.webrtc_client import FRAME_SAMPLES, RATE_HZ, CallClient, Microphone

pytestmark = pytest.mark.slow  # real-time speech over a call

LAST_HZ = 2_000  # the last frame's tone; the ones before it are 440 Hz


def tone(hz: int, samples: int, start: int = 0) -> np.ndarray:
    t = np.arange(start, start + samples)
    return (np.sin(2 * np.pi * hz * t / RATE_HZ) * 12_000).astype("<i2")


class PushToTalk(Microphone):
    """Sends silence until ``say``, then what was said, then nothing at all: the button is released
    (as chromium's ``replaceTrack(null)``: no RTP, not even silence)."""

    def __init__(self) -> None:
        super().__init__()
        self.spoke = False
        self.released = asyncio.Event()

    def say(self, pcm16: bytes) -> None:
        super().say(pcm16)
        self.spoke = True

    async def recv(self) -> av.AudioFrame:
        if self.spoke and not self.pending:
            self.released.set()
            await asyncio.Event().wait()  # never: the sender's loop sends nothing more
            raise MediaStreamError
        return await super().recv()


def band_energy(pcm: np.ndarray, hz: int) -> float:
    spectrum = np.abs(np.fft.rfft(pcm.astype(np.float64)))
    bin_hz = RATE_HZ / len(pcm)
    low, high = int((hz - 100) / bin_hz), int((hz + 100) / bin_hz) + 1
    return float(spectrum[low:high].sum() / (spectrum.sum() + 1e-9))


async def test_the_last_frame_before_the_sender_stops_reaches_the_input_buffer(engine):
    server = await engine()
    client = CallClient()
    mic = PushToTalk()
    client.pc.getTransceivers()[0].sender.replaceTrack(mic)
    client.mic = mic
    try:
        await client.connect(server.http_url)
        await client.turn_detection_off()
        await asyncio.sleep(0.3)
        client.send({"type": "input_audio_buffer.clear"})  # the silence sent before the press
        await client.wait_for("input_audio_buffer.cleared")
        speech = np.concatenate([tone(440, FRAME_SAMPLES * 10), tone(LAST_HZ, FRAME_SAMPLES)])
        # aiortc's encoder resamples to 48 kHz in 20 ms frames, which holds the last few ms back until
        # the next frame: a frame of silence after the speech makes its last packet carry the 2 kHz.
        mic.say(speech.tobytes() + bytes(FRAME_SAMPLES * 2))
        await asyncio.wait_for(mic.released.wait(), 5)
        await asyncio.sleep(0.4)  # the quiet timer hands on silence meanwhile
        client.send({"type": "input_audio_buffer.commit"})
        committed = await client.wait_for("input_audio_buffer.committed")
        item = await _retrieved(client, committed["item_id"])
    finally:
        await client.close()
    heard = np.frombuffer(base64.b64decode(item["content"][0]["audio"]), dtype="<i2")
    loud = np.flatnonzero(np.abs(heard) > 2_000)
    assert len(loud), "none of the speech reached the input buffer"
    # All of the speech, its last frame included (Opus smears its edges by a few ms; a loaded event loop,
    # which this client shares with the engine, may stall it past the quiet timer: silence within) ...
    assert loud[-1] - loud[0] > len(speech) - FRAME_SAMPLES // 2, (loud[0], loud[-1], len(speech))
    last = heard[loud[-1] - FRAME_SAMPLES // 2 : loud[-1]]
    assert band_energy(last, LAST_HZ) > 0.5, band_energy(last, LAST_HZ)
    # ... and then only the quiet the timer handed on.
    after = heard[loud[-1] + FRAME_SAMPLES // 2 :]
    assert len(after) >= RATE_HZ // 5 and np.abs(after).max() < 500


class HeldBack(Microphone):
    """Silence in real time, except that once (``hold``) its packets are held back for ``HELD_S`` and
    then all sent at once, as a link that stalls and then delivers its backlog (the RTP timestamps
    run on: the sender went on capturing)."""

    def __init__(self) -> None:
        super().__init__()
        self.hold_now = False
        self.delivered = asyncio.Event()

    async def recv(self) -> av.AudioFrame:
        if self.hold_now:
            self.hold_now = False
            await asyncio.sleep(HELD_S)
            asyncio.get_running_loop().call_later(0.05, self.delivered.set)
        return await super().recv()  # (behind its schedule now: the frames held back come at once)


HELD_S = 0.4


async def test_frames_held_back_past_the_quiet_timer_leave_the_input_on_the_wall_clock(engine):
    """The quiet timer hands on silence for the 400 ms no packet came; the held-back packets that then
    come at once cover the same time. Appended too, they put the input ~400 ms ahead of the wall clock
    for the rest of the call (every later ``audio_start_ms`` / ``audio_end_ms`` that much late). They
    are kept, and the lead is taken from the quiet that follows (here at once: they are quiet too)."""
    server = await engine()
    client = CallClient()
    mic = HeldBack()
    client.pc.getTransceivers()[0].sender.replaceTrack(mic)
    client.mic = mic
    loop = asyncio.get_running_loop()
    try:
        await client.connect(server.http_url)
        await client.turn_detection_off()
        await asyncio.sleep(0.3)
        client.send({"type": "input_audio_buffer.clear"})
        cleared_at = loop.time()
        await client.wait_for("input_audio_buffer.cleared")
        cleared_seen = loop.time()
        await asyncio.sleep(0.3)
        mic.hold_now = True
        await asyncio.wait_for(mic.delivered.wait(), 5)
        await asyncio.sleep(max(0.0, cleared_at + 2.0 - loop.time()))
        client.send({"type": "input_audio_buffer.commit"})
        committed_at = loop.time()
        committed = await client.wait_for("input_audio_buffer.committed")
        committed_seen = loop.time()
        item = await _retrieved(client, committed["item_id"])
    finally:
        await client.close()
    heard_ms = len(base64.b64decode(item["content"][0]["audio"])) / 48
    # The engine took the clear and the commit at moments this client knows only between sending each
    # and seeing its answer: the wall time between them lies in these bounds. (Timed between the sends
    # alone, a stall of this shared loop before the engine read the commit would fail it, the quiet
    # timer rightly handing on the stall's silence first.) On a quiet machine both are within a few ms
    # of the sends, and the held-back packets appended whole put the input ~300 ms ahead of them.
    shortest_ms = (committed_at - cleared_seen) * 1000
    longest_ms = (committed_seen - cleared_at) * 1000
    print("input", heard_ms, "ms over", shortest_ms, "to", longest_ms, "ms of wall time")
    assert shortest_ms - 150 < heard_ms < longest_ms + 150, (heard_ms, shortest_ms, longest_ms)
