"""Pitch shift with duration kept: resample (pitch and tempo change together), then WSOLA time-stretch.

Why not let piper compensate the duration through length_scale (speak f times slower, then play f times
faster)? Measured on en_US-joe-medium, piper's duration is not proportional to length_scale (doubling it
gives about 1.75x the audio, and the ratio varies with the text), so that leaves durations 5-10 % off
at +-3 semitones. Resampling by f and stretching back by f with WSOLA (waveform-similarity
overlap-add: Verhelst & Roelands, ICASSP 1993) keeps the sample count exact and is deterministic.
"""

from __future__ import annotations

import math

import numpy as np
import soxr

# 30 ms Hann windows at 50 % overlap sum to one; the +-7.5 ms search covers a full pitch period of
# voices down to ~67 Hz, so every splice can land in phase.
_WINDOW_MS = 30.0
_TOLERANCE_MS = 7.5


def time_stretch(audio: np.ndarray, factor: float, rate_hz: int) -> np.ndarray:
    """WSOLA: float32 mono audio -> round(len(audio) * factor) samples at the same pitch.

    factor > 1 lengthens. Raises ValueError for factor <= 0.
    """
    if factor <= 0:
        raise ValueError(f"stretch factor must be > 0, got {factor}")
    out_len = round(len(audio) * factor)
    if audio.size == 0 or out_len == 0:
        return np.zeros(out_len, dtype=np.float32)
    window_len = 2 * round(rate_hz * _WINDOW_MS / 2000.0)
    hop = window_len // 2
    tolerance = round(rate_hz * _TOLERANCE_MS / 1000.0)
    frames = math.ceil(out_len / hop) + 1
    analysis_hop = hop / factor
    # Zero padding lets every frame (and its search range) read a full window.
    pad = window_len + tolerance
    source = np.concatenate([np.zeros(pad), audio.astype(np.float64), np.zeros(pad + window_len + hop)])
    window = np.hanning(window_len + 1)[:window_len]
    out = np.zeros(frames * hop + window_len)
    position = pad - hop
    for k in range(frames):
        nominal = pad - hop + round(k * analysis_hop)
        if k > 0:
            position = _best_splice(source, nominal, position + hop, window_len, tolerance)
        out[k * hop : k * hop + window_len] += window * source[position : position + window_len]
    return out[hop : hop + out_len].astype(np.float32)


def _best_splice(source: np.ndarray, nominal: int, natural: int, window_len: int, tolerance: int) -> int:
    """Start within nominal +- tolerance whose window best matches the natural continuation."""
    lo = max(nominal - tolerance, 0)
    candidates = source[lo : nominal + tolerance + window_len]
    reference = source[natural : natural + window_len]
    if not reference.any():
        return nominal
    scores = np.correlate(candidates, reference, mode="valid")
    return lo + int(np.argmax(scores))


def shift_pitch(audio: np.ndarray, source_rate_hz: float, out_rate_hz: int, factor: float) -> np.ndarray:
    """Resample float audio from source_rate_hz to out_rate_hz with pitch x factor, duration kept."""
    if factor == 1.0:
        return soxr.resample(audio, source_rate_hz, out_rate_hz, "HQ")
    faster = soxr.resample(audio, source_rate_hz * factor, out_rate_hz, "HQ")
    target_len = round(len(audio) * out_rate_hz / source_rate_hz)
    return time_stretch(faster, target_len / max(len(faster), 1), out_rate_hz)
