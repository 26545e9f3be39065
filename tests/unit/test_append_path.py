"""The quiet-frame path of an append (issue 15) decides and emits exactly what the general path does.

Between turns most appends are one quiet 20 ms frame. The classifier's numpy path rejects it by an
energy bound computed once per threshold (its C path computes the exact energy at once and is compared
with the numpy path in tests/unit/test_vad_native.py; these tests run the numpy path), and
``TurnDetector.push_quiet_frame`` takes it without the general path's calls; these tests run the same
audio with those switched off and compare every frame's verdict and every event (seeded ids too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mockengine.audio import vad
from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.audio.vad import FrameClassifier
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.protocol import client_events as ce
from mockengine.realtime.turn_detection import TurnDetector
from tests.conftest import FAKE_TRANSCRIPT
from tests.unit.test_audio_fast_path import FastDriver, _session

FRAME_BYTES = 960


def _frames_near_the_gate(threshold: float) -> list[bytes]:
    """Noise and tones scaled finely across the energy gate (where the quick bound and the exact test
    meet), plus silence and loud speech."""
    rng = np.random.default_rng(11)
    gate_rms = 32768.0 * 10 ** ((-60.0 + 20.0 * threshold) / 20)
    t = np.arange(480)
    shapes = [rng.standard_normal(480), np.sin(t * 0.3), np.sign(np.sin(t * 2.9)), rng.uniform(-1, 1, 480)]
    frames = [bytes(FRAME_BYTES), synthetic_voiced_pcm16(20)[:FRAME_BYTES]]
    for shape in shapes:
        unit = shape / np.sqrt(np.mean(shape**2))
        for factor in np.linspace(0.6, 1.4, 161):
            frames.append(np.clip(np.round(unit * gate_rms * factor), -32768, 32767).astype("<i2").tobytes())
    return frames


@pytest.mark.parametrize("threshold", [0.0, 0.5, 0.9, 1.0])
def test_the_quiet_bound_calls_silent_only_frames_the_full_test_calls_silent(threshold: float) -> None:
    quick, exact = FrameClassifier(threshold, native=False), FrameClassifier(threshold, native=False)
    exact._quiet_sum_square = -1.0  # no quick reject: every frame takes the whole test
    frames = _frames_near_the_gate(threshold)
    for frame in frames:
        assert quick.push(frame) == exact.push(frame)
    wide = np.frombuffer(b"".join(frames), dtype="<i2").astype(np.float64).reshape(-1, 480)
    below = int(np.sum(np.einsum("ij,ij->i", wide, wide) < quick._quiet_sum_square))
    assert below > 100  # the bound does reach close to the gate


def _general_push_frames(self: TurnDetector, frames: list[Any]) -> list[Any]:
    """``TurnDetector.push_frames`` without its single-frame paths: every frame through ``_on_frame``."""
    signals = []
    for frame in frames:
        self._history.append(frame)
        signals.extend(self._on_frame(frame))
    return signals


def _conversation(
    monkeypatch: pytest.MonkeyPatch, quiet_path: bool, noise_rms: float, turn_detection: str
) -> list[Any]:
    monkeypatch.setattr(vad, "NATIVE_AVAILABLE", False)
    if not quiet_path:
        set_threshold = FrameClassifier.set_threshold

        def without_quiet_bound(self: FrameClassifier, threshold: float) -> None:
            set_threshold(self, threshold)
            self._quiet_sum_square = -1.0

        monkeypatch.setattr(FrameClassifier, "set_threshold", without_quiet_bound)
        monkeypatch.setattr(TurnDetector, "push_frames", _general_push_frames)
    rng = np.random.default_rng(4)
    voiced = synthetic_voiced_pcm16(1200)

    def pause(ms: int) -> bytes:
        return np.round(rng.standard_normal(48 * ms // 2) * noise_rms).astype("<i2").tobytes()

    driver = FastDriver(_session(), FakeTranscriber(default=FAKE_TRANSCRIPT), FakeSynthesizer())
    driver.start()
    if turn_detection == "semantic_vad":
        update = {"type": "realtime", "audio": {"input": {"turn_detection": {"type": "semantic_vad"}}}}
        driver.send(ce.SessionUpdate(update))
    for turn in range(3):
        driver.stream(pause(900) + voiced + pause(900))
        if turn == 1:  # barge in while the reply plays
            driver.stream(voiced[: 48 * 400])
    driver.stream(pause(16_000))  # longer than the idle buffer keeps
    driver.run_until_idle()
    monkeypatch.undo()
    return driver.events


@pytest.mark.parametrize("turn_detection", ["server_vad", "semantic_vad"])
@pytest.mark.parametrize("noise_rms", [0.0, 40.0, 110.0])
def test_the_quiet_path_emits_what_the_general_path_emits(
    monkeypatch, noise_rms: float, turn_detection: str
) -> None:
    fast = _conversation(monkeypatch, True, noise_rms, turn_detection)
    assert fast == _conversation(monkeypatch, False, noise_rms, turn_detection)
    kinds = [event["type"] for _, event in fast]
    assert kinds.count("input_audio_buffer.speech_started") >= 3 and "response.done" in kinds
