"""A late decision's replay reads the detector's frame history from the newest back (issue 15,
docs/cpu.md, twenty-first pass): the frames it finds are exactly those a read of the whole history
finds, for any history the classifier makes (frames back to back, or with gaps after a reset) and any
decision time, frame edges and ends included."""

from __future__ import annotations

import random
from collections import deque

from mockengine.audio.speech_tracker import VadFrame
from mockengine.realtime.turn_detection import HISTORY_MS, _frames_from

FRAME_SAMPLES = 480  # 20 ms at 24 kHz


def test_the_replay_finds_the_frames_a_whole_read_finds() -> None:
    rng = random.Random(15)
    for _ in range(400):
        history: deque[VadFrame] = deque(maxlen=HISTORY_MS // 20)
        start = rng.randrange(0, 10**6)
        for _ in range(rng.randrange(0, 700)):
            if rng.random() < 0.02:
                start += rng.randrange(1, 5_000)  # a gap (a new detector takes the old one's recent frames)
            history.append(VadFrame(start, start + FRAME_SAMPLES, rng.random() < 0.3))
            start += FRAME_SAMPLES
        first_ms = history[0].start_ms if history else 0
        last_ms = history[-1].end_ms if history else 0
        for decided_at_ms in (first_ms - 1, first_ms, last_ms, last_ms + 20, rng.randrange(-5, last_ms + 40)):
            expected = [frame for frame in history if frame.start_ms >= decided_at_ms]
            assert _frames_from(history, decided_at_ms) == expected
        if history:  # a decision at each frame's own start, and a sample after it
            frame = rng.choice(history)
            for at_ms in (frame.start_ms, frame.start_ms + 1):
                assert _frames_from(history, at_ms) == [f for f in history if f.start_ms >= at_ms]
