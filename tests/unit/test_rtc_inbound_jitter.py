"""The quiet timer's wait adapts to how late the link delivers packets (rtc/inbound.py, ``_QuietTimer``):
100 ms on a clean link, longer on one that held packets back lately, back to 100 ms once they come on
time again. Run on the pion plane's ``StampClock`` (a fake clock the test moves), in 10 ms ticks: the
packets that arrived by a tick are handed in, then the clock is moved to it (as ``PionPlane._tick``
does with a batch)."""

from __future__ import annotations

import numpy as np
import pytest
from aiortc.rtp import RtpPacket

from mockengine.rtc.inbound import (
    QUIET_AFTER_MAX_S,
    QUIET_AFTER_S,
    InlineDecoder,
    _MicrophoneBuffer,
)
from mockengine.rtc.opus import ReplyEncoder
from mockengine.rtc.stamp_clock import StampClock
from mockengine.server.webrtc.pion_call import OPUS, _Packet

TICK_S = 0.01
FRAME_TICKS = 2  # a 20 ms frame per 2 ticks
FRAME_BYTES = 960  # 20 ms of PCM16 at 24 kHz


def _speech(frames: int, pause: range = range(0)) -> list[bytes]:
    """Opus frames of a loud warbling tone (every frame well above the decoder's quiet level), digital
    silence in the frames of ``pause`` (the user quiet between two turns)."""
    t = np.arange(480 * frames) / 24_000
    pcm = (np.sin(2 * np.pi * (300 + 150 * np.sin(2 * np.pi * 0.7 * t)) * t) * 9000).astype("<i2")
    if pause:
        pcm[pause.start * 480 : pause.stop * 480] = 0
    encoder = ReplyEncoder(480)
    return [encoder.payload(pcm[i * 480 : (i + 1) * 480].tobytes(), i * 480) for i in range(frames)]


def _stalled(frames: int, stalls: list[tuple[int, int]], catch_up_ms: int = 0) -> list[int]:
    """Arrival ticks of ``frames`` packets sent every 20 ms, where each ``(frame, ms)`` stall holds the
    packets due in the ``ms`` from that frame's due time on back, and delivers them at its end: at once,
    or spread over ``catch_up_ms`` (a link draining its queue, a sender catching up)."""
    arrivals = [index * FRAME_TICKS for index in range(frames)]
    for first, ms in stalls:
        release = first * FRAME_TICKS + ms // 10
        held = [index for index in range(first, frames) if arrivals[index] < release]
        for k, index in enumerate(held):
            arrivals[index] = release + catch_up_ms // 10 * k // max(1, len(held) - 1)
        for index in range(held[-1] + 1, frames):  # (in order)
            arrivals[index] = max(arrivals[index], arrivals[index - 1])
    return arrivals


class _Link:
    """A call's microphone decoder on a fake clock; ``via_buffer``: through the aiortc path's jitter
    buffer (``_MicrophoneBuffer``, which reports each packet's arrival), else put straight in (the pion
    plane's path)."""

    def __init__(self, payloads: list[bytes], *, via_buffer: bool = False) -> None:
        self.clock = StampClock()
        self.start = self.clock.time()
        self.out: list[tuple[int, bytes]] = []  # (tick, PCM) as handed on
        self.tick = 0
        self.payloads = payloads
        self.decoder = InlineDecoder(self._sink, clock=self.clock, codec_of=lambda _payload_type: OPUS)
        if via_buffer:
            self.decoder.buffer = _MicrophoneBuffer(self.decoder.packet_arrived)
        self.waits: list[float] = []  # the quiet timer's wait after each packet
        self.arrived = 0  # the tick the clock read when the last packet was handed in
        # Ticks at which the quiet timer conceded quiet (its first silence after a packet). What it hands
        # on can be cut after a burst (the input's lead, ``_Backlog``); this is when it gave up waiting.
        self.conceded: list[int] = []

    def _sink(self, pcm16: bytes) -> None:
        self.out.append((self.tick, pcm16))

    def _put(self, index: int, timestamp: int) -> None:
        payload = self.payloads[index]
        buffer = self.decoder.buffer
        if buffer is None:
            self.decoder.put((OPUS, _Packet(payload, timestamp, index)))
        else:
            packet = RtpPacket(payload_type=111, sequence_number=index, timestamp=timestamp, payload=payload)
            packet._data = payload  # type: ignore[attr-defined]  # (depayloaded: Opus is its payload)
            _, frame = buffer.add(packet)
            if frame is not None:
                self.decoder.put((OPUS, frame))
        self.arrived = self.tick - 1
        assert self.decoder._quiet is not None
        self.waits.append(self.decoder._quiet.wait_s)

    def play(self, arrivals: list[int], first: int = 0, timestamps: list[int] | None = None) -> None:
        """Packets ``first``, ``first + 1``, … arrive at these ticks (in order), RTP timestamps 960 a
        frame unless given; the clock runs to the last arrival's tick."""
        index = first
        end = first + len(arrivals)
        while index < end:
            while index < end and arrivals[index - first] <= self.tick:
                self._put(index, index * 960 if timestamps is None else timestamps[index - first])
                index += 1
            self._advance()

    def _advance(self) -> None:
        quiet = self.decoder._quiet
        filled = quiet.filled_samples if quiet is not None else 0
        self.clock.advance(self.start + self.tick * TICK_S)
        if quiet is not None and not filled and quiet.filled_samples:
            self.conceded.append(self.tick)
        self.tick += 1

    def idle(self, ticks: int) -> None:
        """No packet for ``ticks`` ticks."""
        for _ in range(ticks):
            self._advance()

    def pcm(self) -> bytes:
        return b"".join(pcm for _, pcm in self.out)

    def silence_after(self, tick: int) -> list[tuple[int, int]]:
        """(tick, ms) of each silence handed on from ``tick`` on."""
        return [(at, len(pcm) // 48) for at, pcm in self.out if at >= tick and not any(pcm)]


FRAMES = 400  # 8 s: a turn (2.4 s), 1 s of quiet, a second turn (4.6 s)
PAUSE = range(120, 170)
# The first turn is the warm-up: two stalls (200 and 250 ms) the timer cannot know of yet. The link
# stays jittery: in the second turn five more, 150-250 ms each, about a second apart (a saturated machine
# starving the sender or the media plane).
WARM_UP = [(50, 200), (100, 250)]
LATER = [(200, 150), (245, 250), (295, 200), (340, 250), (380, 180)]


@pytest.mark.parametrize(
    ("via_buffer", "catch_up_ms"),
    [(False, 0), (True, 0), (False, 100)],
    ids=["pion", "aiortc-buffer", "pion-bursts-over-100-ms"],
)
def test_speech_on_a_jittery_link_is_handed_on_whole_once_the_jitter_was_seen(via_buffer, catch_up_ms):
    """After a period of jitter, bursts 150-250 ms late are waited for: the second turn's PCM is the
    clean link's byte for byte. On a fixed 100 ms wait each burst put silence inside the speech, and
    every turn's bytes differed from the clip's (the first turn's bursts do here: what the timer
    conceded as quiet before it knew the link; the lead they left is paid in the quiet between the
    turns, ``_Backlog``)."""
    payloads = _speech(FRAMES, PAUSE)
    clean = _Link(payloads, via_buffer=via_buffer)
    clean.play([index * FRAME_TICKS for index in range(FRAMES)])
    assert len(clean.pcm()) == FRAMES * FRAME_BYTES and not clean.conceded

    jittery = _Link(payloads, via_buffer=via_buffer)
    jittery.play(_stalled(FRAMES, WARM_UP + LATER, catch_up_ms))
    second_turn = clean.pcm()[PAUSE.stop * FRAME_BYTES :]
    whole = jittery.pcm().endswith(second_turn)  # (not in the assert: pytest would print 400 kB)
    assert whole, jittery.silence_after(PAUSE.stop * FRAME_TICKS)
    assert jittery.conceded and jittery.conceded[-1] < PAUSE.start * FRAME_TICKS, jittery.conceded
    assert max(jittery.waits) <= QUIET_AFTER_MAX_S


def test_on_a_clean_link_a_sender_that_stops_is_quiet_after_100_ms():
    """Push-to-talk's release on a clean link: the silence is handed on 100 ms after the last packet,
    as with the fixed wait."""
    link = _Link(_speech(100))
    link.play([index * FRAME_TICKS for index in range(100)])
    assert set(link.waits) == {QUIET_AFTER_S}
    last = link.arrived
    link.idle(40)
    silence = link.silence_after(0)
    assert silence and silence[0][0] - last == 10, silence  # 100 ms after it, not a tick later
    assert silence[0][1] == 100


def test_a_sender_that_resumes_after_a_pause_is_not_late():
    """Chromium's timestamps stand still while it sends nothing: after a 2 s pause the next press's
    packets follow straight on from the last ones by their timestamps. That is no lateness (nothing
    came faster than real time after it): the wait stays 100 ms."""
    link = _Link(_speech(100))
    link.play([index * FRAME_TICKS for index in range(50)])
    link.idle(200)
    link.play([link.tick + k * FRAME_TICKS for k in range(50)], first=50)
    assert set(link.waits) == {QUIET_AFTER_S}


def test_the_wait_is_back_to_100_ms_seconds_after_the_jitter_subsides():
    link = _Link(_speech(700))
    arrivals = _stalled(700, [(50, 250), (100, 250), (150, 250)])
    link.play(arrivals[:200])
    assert link.waits[-1] > 0.25  # a 250 ms burst a second ago: the link is late
    link.play(arrivals[200:400], first=200)  # 4 s later (4 s of on-time packets after the last burst)
    assert link.waits[199] > 0.25, "held while the jitter is recent"
    assert link.waits[-1] < link.waits[199], "then forgotten"
    link.play(arrivals[400:], first=400)  # 10 s after the last burst
    assert link.waits[-1] == QUIET_AFTER_S
    # and a release is conceded as quiet 100 ms after the last packet again (the silence itself goes
    # to pay the lead the warm-up's bursts left: ``_Backlog``)
    last = link.arrived
    link.idle(30)
    assert link.conceded[-1] - last == 10, (link.conceded, last)


def test_the_wait_never_exceeds_its_maximum():
    """A link that holds packets back for 600 ms at a time: the wait goes up to QUIET_AFTER_MAX_S and no
    further, so each stall is conceded as quiet within it (its frames then are a backlog)."""
    frames = 500
    stalls = [(first, 600) for first in range(40, frames - 40, 60)]
    link = _Link(_speech(frames))
    link.play(_stalled(frames, stalls))
    assert max(link.waits) == QUIET_AFTER_MAX_S
    assert link.waits[-1] == QUIET_AFTER_MAX_S  # (still: the last stall was under 2 s ago)
    # every stall is conceded as quiet, the last ones at the maximum after the packet before them
    assert len(link.conceded) == len(stalls), link.conceded
    last_on_time = (stalls[-1][0] - 1) * FRAME_TICKS - 1  # the clock's tick when it was handed in
    assert link.conceded[-1] - last_on_time == round(QUIET_AFTER_MAX_S / TICK_S), link.conceded
