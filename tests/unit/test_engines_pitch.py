"""Pitch shift and WSOLA time-stretch on synthetic tones (no models)."""

from __future__ import annotations

import numpy as np
import pytest

from mockengine.engines.pitch import shift_pitch, time_stretch
from mockengine.engines.tts import OUTPUT_RATE_HZ, shape_audio


def _tone(frequency_hz: float, seconds: float, rate_hz: int) -> np.ndarray:
    t = np.arange(round(seconds * rate_hz)) / rate_hz
    return (0.5 * np.sin(2 * np.pi * frequency_hz * t)).astype(np.float32)


def _dominant_hz(audio: np.ndarray, rate_hz: int) -> float:
    spectrum = np.abs(np.fft.rfft(audio * np.hanning(len(audio))))
    return float(np.argmax(spectrum) * rate_hz / len(audio))


@pytest.mark.parametrize("factor", [0.8, 1.0, 1.26, 1.5])
def test_time_stretch_gives_exact_length_at_the_same_pitch(factor: float) -> None:
    tone = _tone(150.0, 1.0, 24_000)
    stretched = time_stretch(tone, factor, 24_000)
    assert len(stretched) == round(len(tone) * factor)
    assert _dominant_hz(stretched, 24_000) == pytest.approx(150.0, abs=2.0)
    middle = stretched[2_000:-2_000]
    assert float(np.sqrt(np.mean(middle**2))) == pytest.approx(0.5 / np.sqrt(2), rel=0.05)


def test_time_stretch_rejects_non_positive_factor() -> None:
    with pytest.raises(ValueError, match="factor"):
        time_stretch(np.zeros(100, dtype=np.float32), 0.0, 24_000)


@pytest.mark.parametrize("semitones", [-3.0, 0.0, 4.0])
def test_shift_pitch_changes_frequency_and_keeps_duration(semitones: float) -> None:
    factor = 2.0 ** (semitones / 12.0)
    tone = _tone(200.0, 1.0, 22_050)
    shifted = shift_pitch(tone, 22_050, OUTPUT_RATE_HZ, factor)
    assert len(shifted) == OUTPUT_RATE_HZ
    assert _dominant_hz(shifted, OUTPUT_RATE_HZ) == pytest.approx(200.0 * factor, rel=0.01)


def test_shape_audio_outputs_pcm16_with_headroom() -> None:
    pcm16 = shape_audio(_tone(300.0, 0.5, 22_050) * 2.0, 22_050, 1.0)
    samples = np.frombuffer(pcm16, dtype="<i2")
    assert len(samples) == OUTPUT_RATE_HZ // 2
    assert 25_000 < int(np.abs(samples).max()) <= 32_767
    assert shape_audio(np.zeros(0, dtype=np.float32), 22_050, 1.2) == b""
