"""An acoustic fingerprint of a committed turn's audio that survives a codec round trip.

The transcript cache (:mod:`mockengine.engines.cache`) first looks a turn's audio up by its exact bytes.
Audio that went through Opus (a WebRTC microphone), a resampler or a gain change never matches byte for
byte, so the cache also keeps a fingerprint of each entry's audio and looks the turn up by that.

The fingerprint is Haitsma and Kalker's ("A Highly Robust Audio Fingerprinting System", ISMIR 2002),
scaled to speech: every 10 ms (``HOP_SAMPLES`` at 24 kHz) a 40 ms Hann window's power spectrum is summed
into 33 mel-spaced bands from 150 Hz to 5 kHz (what Opus keeps even in its wideband mode), and the 32 bits
of a frame are the signs of the energy differences across neighbouring bands and the previous frame:

    bit(n, m) = (E[n, m] − E[n, m+1]) − (E[n−2, m] − E[n−2, m+1]) > 0

(the time difference over 20 ms, ``LAG_FRAMES``, rather than Haitsma and Kalker's one frame: our frames
overlap by 75 %, and the longer lag made the bits measurably more robust to Opus).

Energies in dB, so the bits do not depend on the gain. Frames quieter than ``QUIET_DBFS`` (silence, where
the bits are noise or all zero) are marked quiet and carry no bits.

Two fingerprints match (:func:`match`) when their frame counts differ by at most ``MAX_LENGTH_DIFF``
frames and, at the best alignment, the **bit error rate** over the
frames loud in either is below ``MAX_BER`` (a frame loud in one and quiet in the other counts as 32
errors), with at least ``MIN_LOUD_FRAMES`` loud frames in common. Alignment: whole frames within
``MAX_SHIFT`` either way, and within a frame, the query fingerprinted at ``PHASES`` offsets (2.5 ms apart:
a codec's delay and the packet grid move the audio by any number of samples, and a 5 ms shift alone
costs ~0.19 of bit error rate at 10 ms frames). The thresholds come from
``tools/fingerprint_eval.py``: see docs/transcript-cache.md for the measured distributions.

Deterministic: numpy float64 arithmetic on the same bytes gives the same bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

RATE_HZ = 24_000
HOP_SAMPLES = RATE_HZ // 100  # 10 ms
WINDOW_SAMPLES = 4 * HOP_SAMPLES  # 40 ms
BANDS = 33  # 32 differences
LOW_HZ, HIGH_HZ = 150.0, 5_000.0
QUIET_DBFS = -50.0  # a frame's mean power below this (relative to full scale) is silence
MAX_LENGTH_DIFF = 12  # frames (120 ms): VAD cut points and codec delay move a turn's ends a little
MAX_SHIFT = 12  # frames tried either way when aligning two fingerprints
MAX_BER = 0.33
LAG_FRAMES = 2
PHASES = 4
MIN_LOUD_FRAMES = 30  # 300 ms of sound in common: shorter audio is matched by its bytes only
_BITS = np.left_shift(np.uint32(1), np.arange(BANDS - 1, dtype=np.uint32))
_FULL_SCALE_POWER = 32768.0**2


@dataclass(frozen=True)
class Fingerprint:
    """``codes``: one uint32 per 10 ms frame (0 for quiet frames); ``loud``: bool per frame."""

    codes: np.ndarray
    loud: np.ndarray

    @property
    def frames(self) -> int:
        return len(self.codes)

    @property
    def loud_frames(self) -> int:
        return int(self.loud.sum())

    @property
    def size_bytes(self) -> int:
        return self.codes.nbytes + self.loud.nbytes


@dataclass(frozen=True)
class Match:
    """``ber``: bit error rate at the best alignment; ``shift_frames``: frame i of the query lines up
    with frame i + shift_frames of the stored audio."""

    ber: float
    shift_frames: int


@cache
def _band_matrix() -> np.ndarray:
    """(bins, BANDS) weights summing the rfft bins of each mel band."""
    freqs = np.fft.rfftfreq(WINDOW_SAMPLES, 1.0 / RATE_HZ)
    mel = 2595.0 * np.log10(1.0 + freqs / 700.0)
    edges = np.linspace(
        2595.0 * np.log10(1.0 + LOW_HZ / 700.0), 2595.0 * np.log10(1.0 + HIGH_HZ / 700.0), BANDS + 1
    )
    matrix = np.zeros((len(freqs), BANDS))
    for band in range(BANDS):
        matrix[(mel >= edges[band]) & (mel < edges[band + 1]), band] = 1.0
    return matrix


@cache
def _window() -> np.ndarray:
    return np.hanning(WINDOW_SAMPLES)


def _samples(pcm16_24k: bytes) -> np.ndarray:
    return np.frombuffer(pcm16_24k[: len(pcm16_24k) // 2 * 2], dtype="<i2").astype(np.float64)


def _prints(samples: np.ndarray, hop: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes and loud flags of the windows starting every ``hop`` samples."""
    if len(samples) < WINDOW_SAMPLES + LAG_FRAMES * hop:
        return np.zeros(0, np.uint32), np.zeros(0, bool)
    frames = sliding_window_view(samples, WINDOW_SAMPLES)[::hop]
    power = np.abs(np.fft.rfft(frames * _window(), axis=1)) ** 2
    energy_db = 10.0 * np.log10(power @ _band_matrix() + 1e-3)
    across = energy_db[:, :-1] - energy_db[:, 1:]
    bits = (across[LAG_FRAMES * HOP_SAMPLES // hop :] - across[: -LAG_FRAMES * HOP_SAMPLES // hop]) > 0
    codes = (bits.astype(np.uint32) * _BITS).sum(axis=1, dtype=np.uint32)
    mean_power = (frames[LAG_FRAMES * HOP_SAMPLES // hop :] ** 2).mean(axis=1) / _FULL_SCALE_POWER
    loud = 10.0 * np.log10(mean_power + 1e-12) > QUIET_DBFS
    return np.where(loud, codes, 0).astype(np.uint32), loud


def frame_count(pcm16_bytes: int) -> int:
    """How many frames :func:`fingerprint` gives audio of this many bytes (no audio needed)."""
    samples = pcm16_bytes // 2
    if samples < WINDOW_SAMPLES + LAG_FRAMES * HOP_SAMPLES:
        return 0
    return (samples - WINDOW_SAMPLES) // HOP_SAMPLES + 1 - LAG_FRAMES


def fingerprint(pcm16_24k: bytes) -> Fingerprint:
    """The fingerprint of PCM16 24 kHz mono audio (an odd trailing byte is ignored)."""
    return Fingerprint(*_prints(_samples(pcm16_24k), HOP_SAMPLES))


def query_prints(pcm16_24k: bytes) -> tuple[Fingerprint, ...]:
    """The audio's fingerprint at ``PHASES`` offsets within a frame (offset k·HOP/PHASES samples)."""
    step = HOP_SAMPLES // PHASES
    codes, loud = _prints(_samples(pcm16_24k), step)
    return tuple(Fingerprint(codes[phase::PHASES], loud[phase::PHASES]) for phase in range(PHASES))


def compare(query: Fingerprint, stored: Fingerprint, max_shift: int = MAX_SHIFT) -> Match | None:
    """The best alignment of two fingerprints within ``max_shift`` frames, or None when no shift gives
    ``MIN_LOUD_FRAMES`` loud frames in common."""
    pad = max_shift
    codes = np.concatenate([np.zeros(pad, np.uint32), stored.codes, np.zeros(pad + query.frames, np.uint32)])
    loud = np.concatenate([np.zeros(pad, bool), stored.loud, np.zeros(pad + query.frames, bool)])
    windows = sliding_window_view(codes, query.frames)[: 2 * pad + 1]
    loud_windows = sliding_window_view(loud, query.frames)[: 2 * pad + 1]
    both = loud_windows & query.loud
    either = loud_windows | query.loud
    errors = np.bitwise_count(windows ^ query.codes).astype(np.int64)
    total = np.where(both, errors, 0).sum(axis=1) + 32 * (either & ~both).sum(axis=1)
    bits = 32 * either.sum(axis=1)
    common = both.sum(axis=1)
    ber = np.where((common >= MIN_LOUD_FRAMES) & (bits > 0), total / np.maximum(bits, 1), np.inf)
    best = int(np.argmin(ber))  # the first of equal minima: deterministic
    if not np.isfinite(ber[best]):
        return None
    return Match(float(ber[best]), best - pad)


def best_alignment(queries: tuple[Fingerprint, ...], stored: Fingerprint) -> Match | None:
    """The lowest bit error rate over the query's phases and whole-frame shifts (the first phase of
    equal ones), or None when no alignment has ``MIN_LOUD_FRAMES`` loud frames in common."""
    found = [compare(query, stored) for query in queries if query.frames]
    scored = [m for m in found if m is not None]
    return min(scored, key=lambda m: m.ber) if scored else None


def match(queries: tuple[Fingerprint, ...], stored: Fingerprint) -> Match | None:
    """The alignment when the audio of ``queries`` (:func:`query_prints`) is the same utterance as
    ``stored`` (:func:`fingerprint`), else None (see the module docstring)."""
    query = queries[0]
    if abs(query.frames - stored.frames) > MAX_LENGTH_DIFF or query.loud_frames < MIN_LOUD_FRAMES:
        return None
    found = best_alignment(queries, stored)
    return found if found is not None and found.ber <= MAX_BER else None
