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
costs ~0.19 of bit error rate at 10 ms frames).

The bits alone cannot tell a **minimal pair** apart: "my name is John Smith" and "my name is Jane Smith"
from the same synthetic voice differ in one vowel, and their bit error rate (0.06) is far below what Opus
leaves on the same utterance (0.2-0.3). Opus spreads its error over the whole turn, a different word
concentrates it. So a match by the bits is then **verified** on the band levels themselves (kept per frame
in 0.5 dB steps): after removing the gain difference, the mean absolute level difference of the frames
in any 150 ms window (``LOCAL_WINDOW_FRAMES``) must stay below ``MAX_LOCAL_DB``. The thresholds and the
figures behind them: ``mockengine bench --only fingerprint`` and docs/transcript-cache.md.

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
LOCAL_WINDOW_FRAMES = 15  # 150 ms: about a syllable, where a changed word shows
MAX_LOCAL_DB = 9.5
LEVEL_FLOOR_DB = 30.0  # band levels below this (of a full-scale ~180 dB) are noise: clipped
_BITS = np.left_shift(np.uint32(1), np.arange(BANDS - 1, dtype=np.uint32))
_FULL_SCALE_POWER = 32768.0**2


@dataclass(frozen=True)
class Fingerprint:
    """``codes``: one uint32 per 10 ms frame (0 for quiet frames); ``loud``: bool per frame;
    ``levels``: (frames, BANDS) uint8, each band's level in 0.5 dB steps above ``LEVEL_FLOOR_DB``."""

    codes: np.ndarray
    loud: np.ndarray
    levels: np.ndarray

    @property
    def frames(self) -> int:
        return len(self.codes)

    @property
    def loud_frames(self) -> int:
        return int(self.loud.sum())

    @property
    def size_bytes(self) -> int:
        return self.codes.nbytes + self.loud.nbytes + self.levels.nbytes


@dataclass(frozen=True)
class Match:
    """``ber``: bit error rate at the best alignment; ``shift_frames``: frame i of the query lines up
    with frame i + shift_frames of the stored audio; ``phase``: which of the query's phases;
    ``local_db``: the verification's largest windowed level difference (None before it ran)."""

    ber: float
    shift_frames: int
    phase: int = 0
    local_db: float | None = None


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
def _band_bins() -> tuple[int, int]:
    """The first rfft bin any band sums and the one after the last."""
    used = np.flatnonzero(_band_matrix().any(axis=1))
    return int(used[0]), int(used[-1]) + 1


@cache
def _window() -> np.ndarray:
    return np.hanning(WINDOW_SAMPLES)


def _samples(pcm16_24k: bytes) -> np.ndarray:
    return np.frombuffer(pcm16_24k[: len(pcm16_24k) // 2 * 2], dtype="<i2").astype(np.float64)


def _prints(samples: np.ndarray, hop: int) -> Fingerprint:
    """Codes, loud flags and levels of the windows starting every ``hop`` samples."""
    if len(samples) < WINDOW_SAMPLES + LAG_FRAMES * hop:
        return Fingerprint(np.zeros(0, np.uint32), np.zeros(0, bool), np.zeros((0, BANDS), np.uint8))
    frames = sliding_window_view(samples, WINDOW_SAMPLES)[::hop]
    # The power of the bins the bands sum (150 Hz-5 kHz: 194 of 481) as re² + im², not |z|² of every
    # bin: a square root, its square again and the bins no band reads cost a third of a search (~1,300
    # windows of 960 samples for a 3 s turn at the query's 2.5 ms hop). The same values, bit for bit.
    first, last = _band_bins()
    spectrum = np.fft.rfft(frames * _window(), axis=1)[:, first:last]
    band_power = (spectrum.real**2 + spectrum.imag**2) @ _band_matrix()[first:last]
    energy_db = 10.0 * np.log10(band_power + 1e-3)
    lag = LAG_FRAMES * HOP_SAMPLES // hop
    across = energy_db[:, :-1] - energy_db[:, 1:]
    codes = ((across[lag:] - across[:-lag]) > 0).astype(np.uint32) @ _BITS
    # Each window's mean power from running sums of the squared samples, not by squaring every window:
    # the samples are int16 values, so every sum is an integer below 2**53 and exact in float64.
    squares = np.concatenate(([0.0], np.cumsum(samples * samples)))
    starts = np.arange(len(frames)) * hop
    window_power = (squares[starts + WINDOW_SAMPLES] - squares[starts]) / WINDOW_SAMPLES
    mean_power = window_power[lag:] / _FULL_SCALE_POWER
    loud = 10.0 * np.log10(mean_power + 1e-12) > QUIET_DBFS
    levels_db = 10.0 * np.log10(band_power[lag:] + 10 ** (LEVEL_FLOOR_DB / 10)) - LEVEL_FLOOR_DB
    levels = np.clip(np.round(levels_db * 2), 0, 255).astype(np.uint8)
    return Fingerprint(np.where(loud, codes, 0).astype(np.uint32), loud, levels)


def frame_count(pcm16_bytes: int) -> int:
    """How many frames :func:`fingerprint` gives audio of this many bytes (no audio needed)."""
    samples = pcm16_bytes // 2
    if samples < WINDOW_SAMPLES + LAG_FRAMES * HOP_SAMPLES:
        return 0
    return (samples - WINDOW_SAMPLES) // HOP_SAMPLES + 1 - LAG_FRAMES


def fingerprint(pcm16_24k: bytes) -> Fingerprint:
    """The fingerprint of PCM16 24 kHz mono audio (an odd trailing byte is ignored)."""
    return _prints(_samples(pcm16_24k), HOP_SAMPLES)


def query_prints(pcm16_24k: bytes) -> tuple[Fingerprint, ...]:
    """The audio's fingerprint at ``PHASES`` offsets within a frame (offset k·HOP/PHASES samples)."""
    step = HOP_SAMPLES // PHASES
    every = _prints(_samples(pcm16_24k), step)
    return tuple(
        Fingerprint(every.codes[phase::PHASES], every.loud[phase::PHASES], every.levels[phase::PHASES])
        for phase in range(PHASES)
    )


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
    best: Match | None = None
    for phase, query in enumerate(queries):
        found = compare(query, stored) if query.frames else None
        if found is not None and (best is None or found.ber < best.ber):
            best = Match(found.ber, found.shift_frames, phase)
    return best


def local_difference(query: Fingerprint, stored: Fingerprint, shift_frames: int) -> float:
    """The largest mean absolute band-level difference (dB, the gain difference removed) over the
    loud frames of any ``LOCAL_WINDOW_FRAMES`` window, with ``query`` frame i on ``stored`` frame
    i + shift_frames; windows with fewer than half their frames loud are skipped (0 when none is left)."""
    start, end = max(0, -shift_frames), min(query.frames, stored.frames - shift_frames)
    if end - start < LOCAL_WINDOW_FRAMES:
        return float("inf")
    ours = query.levels[start:end].astype(np.float64) / 2
    theirs = stored.levels[start + shift_frames : end + shift_frames].astype(np.float64) / 2
    loud = query.loud[start:end] | stored.loud[start + shift_frames : end + shift_frames]
    if not loud.any():
        return float("inf")
    difference = ours - theirs
    per_frame = np.abs(difference - np.median(difference[loud])).mean(axis=1) * loud
    sums = sliding_window_view(per_frame, LOCAL_WINDOW_FRAMES).sum(axis=1)
    counts = sliding_window_view(loud, LOCAL_WINDOW_FRAMES).sum(axis=1)
    usable = counts * 2 >= LOCAL_WINDOW_FRAMES
    return float((sums[usable] / counts[usable]).max()) if usable.any() else 0.0


def match(queries: tuple[Fingerprint, ...], stored: Fingerprint) -> Match | None:
    """The alignment when the audio of ``queries`` (:func:`query_prints`) is the same utterance as
    ``stored`` (:func:`fingerprint`), else None (see the module docstring)."""
    query = queries[0]
    if abs(query.frames - stored.frames) > MAX_LENGTH_DIFF or query.loud_frames < MIN_LOUD_FRAMES:
        return None
    found = best_alignment(queries, stored)
    if found is None or found.ber > MAX_BER:
        return None
    local_db = local_difference(queries[found.phase], stored, found.shift_frames)
    return Match(found.ber, found.shift_frames, found.phase, local_db) if local_db <= MAX_LOCAL_DB else None
