"""The pion media plane's microphone clock (``StampClock``, mockengine/rtc/stamp_clock.py): the quiet timer
of rtc/inbound.py runs on the sidecar's batch stamps, not on when the batches reach the event loop."""

from __future__ import annotations

from mockengine.rtc.inbound import InlineDecoder
from mockengine.rtc.opus import ReplyEncoder
from mockengine.rtc.stamp_clock import StampClock
from mockengine.server.webrtc.pion_call import OPUS, _Packet

FRAME_SAMPLES = 480


def test_timers_run_in_order_once_a_batch_is_stamped_past_them():
    clock = StampClock()
    start = clock.time()
    ran: list[str] = []
    clock.call_at(start + 0.05, lambda: ran.append("b"))
    clock.call_at(start + 0.02, lambda: ran.append("a"))
    cancelled = clock.call_at(start + 0.03, lambda: ran.append("never"))
    cancelled.cancel()
    clock.advance(start + 0.01)
    assert ran == []
    clock.advance(start + 0.06)
    assert ran == ["a", "b"] and clock.time() == start + 0.06
    clock.advance(start)  # a stamp never takes the time back
    assert clock.time() == start + 0.06


def test_a_timer_rearmed_for_a_time_already_reached_runs_at_the_next_batch():
    """The quiet timer re-arms at ``covered + quiet_after``; by float rounding that can be a hair before
    the stamp it ran at, and the clock ran it again and again within one batch (the engine hung)."""
    clock = StampClock()
    start = clock.time()
    runs: list[float] = []

    def rearm() -> None:
        runs.append(clock.time())
        clock.call_at(clock.time() - 1e-12, rearm)

    clock.call_at(start + 0.02, rearm)
    clock.advance(start + 0.02)
    assert len(runs) == 1
    clock.advance(start + 0.04)
    assert len(runs) == 2


def test_a_late_batch_is_late_not_quiet():
    """Packets whose batch reached the loop late but was stamped on time are not preceded by silence: the
    quiet timer (100 ms) hears no quiet, as the stamps show none."""
    clock = StampClock()
    heard: list[int] = []
    decoder = InlineDecoder(lambda pcm: heard.append(len(pcm) // 2), clock=clock)
    encoder = ReplyEncoder(FRAME_SAMPLES)
    tone = (b"\x00\x20\x00\xe0") * (FRAME_SAMPLES // 2)  # loud enough to be no silence
    start = clock.time()
    for frame in range(30):  # 600 ms of audio, a batch per 20 ms; the loop's own time never read
        clock.advance(start + frame * 0.02)
        payload = encoder.payload(tone, frame * FRAME_SAMPLES)
        decoder.put((OPUS, _Packet(payload, frame * 960, frame)))
    assert heard == [FRAME_SAMPLES] * 30  # no silence handed on between the frames
    clock.advance(start + 30 * 0.02 + 0.2)  # then 200 ms with no packet: the quiet timer's silence
    assert sum(heard[30:]) >= 0.1 * 24_000
    decoder.put(None)
