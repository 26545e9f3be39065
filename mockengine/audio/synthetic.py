"""A deterministic speech-like test signal (for benches and tests: no recordings needed)."""

from __future__ import annotations

import numpy as np

from mockengine.audio.pcm import INPUT_RATE_HZ, float32_to_pcm16, ms_to_samples


def synthetic_voiced_pcm16(
    duration_ms: int, amplitude: float = 0.3, pitch_hz: float = 120.0, rate_hz: int = INPUT_RATE_HZ
) -> bytes:
    """A deterministic vowel-like PCM16 signal: harmonic complex with vibrato and syllable-rate AM.

    19 harmonics of `pitch_hz` (±10 % vibrato at 3 Hz) with 1/k amplitudes, amplitude-modulated at
    4 Hz between 20 % and 100 %; peak = `amplitude` of full scale. webrtcvad classes it as speech.
    """
    t = np.arange(ms_to_samples(duration_ms, rate_hz)) / rate_hz
    f0 = pitch_hz * (1 + 0.1 * np.sin(2 * np.pi * 3 * t))
    phase = 2 * np.pi * np.cumsum(f0) / rate_hz
    wave = sum(np.sin(k * phase) / k for k in range(1, 20))
    envelope = 0.6 + 0.4 * np.sin(2 * np.pi * 4 * t)
    signal = wave * envelope
    peak = float(np.max(np.abs(signal))) if signal.size else 1.0
    return float32_to_pcm16(signal / peak * amplitude)
