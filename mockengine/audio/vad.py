"""Voice activity: webrtcvad frame classification (the onset/offset state machine: ``speech_tracker``).

How this works
--------------
`FrameClassifier` turns the session's 24 kHz PCM16 input into fixed frames (20 ms by default).
webrtcvad only accepts 8/16/32/48 kHz, so each whole 24 kHz frame is converted to 16 kHz by 3:2
interpolation (`to_vad_rate`), which is time-aligned and needs no look-ahead; 16 kHz frame k therefore
covers exactly the 24 kHz samples [k * frame, (k + 1) * frame) and is classified as soon as they
arrive. Positions are cumulative 24 kHz sample counts from the
start of the session's audio, the unit of `audio_start_ms` / `audio_end_ms` on the wire.

A frame's arithmetic (that conversion and the energy gate) is one call into C, `_fastpath.vad_input`,
when the module is built (`pip install -e .` builds it; `NATIVE_AVAILABLE`), else ~10 numpy calls; both
give the same frames (tests/unit/test_vad_native.py; docs/cpu.md, sixth pass).

`speech_tracker.SpeechTracker` turns the frames into speech edges (onset, pause, resume) through its
transition table; its names are re-exported here, so ``mockengine.audio.vad`` is the one import for voice
activity.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import numpy as np
import webrtcvad

from mockengine.audio.pcm import BYTES_PER_SAMPLE, INPUT_RATE_HZ
from mockengine.audio.speech_tracker import (
    SpeechEdge,
    SpeechOnset,
    SpeechPause,
    SpeechResume,
    SpeechState,
    SpeechTracker,
    VadEvent,
    VadFrame,
)

__all__ = [
    "FRAME_MS",
    "VAD_RATE_HZ",
    "FrameClassifier",
    "SpeechEdge",
    "SpeechOnset",
    "SpeechPause",
    "SpeechResume",
    "SpeechState",
    "SpeechTracker",
    "VadEvent",
    "VadFrame",
    "min_rms_dbfs_for_threshold",
    "mode_for_threshold",
    "to_vad_rate",
]

FRAME_MS = 20
"""Frame length handed to webrtcvad (it accepts 10, 20 or 30 ms)."""

VAD_RATE_HZ = 16_000
"""Rate webrtcvad runs at; 24 kHz is not one of its rates (8/16/32/48 kHz)."""

_WEBRTCVAD_FRAME_MS = (10, 20, 30)

log = logging.getLogger(__name__)

_NativeVadInput = Callable[[bytes | memoryview, float], "bytes | None"]
_native_vad_input: _NativeVadInput | None
try:
    # The per-frame arithmetic in C (`_fastpath.c`, built by `pip install -e .` through setup.py): the
    # same bytes and decisions as the numpy path below, in one call instead of ~10 (docs/cpu.md, sixth
    # pass). Without a compiler the package installs without it and the numpy path runs.
    from mockengine.audio._fastpath import vad_input as _native_vad_input
except ImportError:  # pragma: no cover - depends on the build
    _native_vad_input = None

NATIVE_AVAILABLE = _native_vad_input is not None
"""Whether the C frame path (`mockengine.audio._fastpath`) is built and importable."""

_path_logged = False
_new_tuple = tuple.__new__  # builds a VadFrame from its fields' tuple (NamedTuple's `_make`, no Python call)


def _log_path_once(native: bool) -> None:
    global _path_logged
    if not _path_logged:
        _path_logged = True
        if native:
            log.info("VAD frames: native path (mockengine.audio._fastpath)")
        else:
            log.info(
                "VAD frames: numpy path (mockengine.audio._fastpath is not built; pip install -e . builds it)"
            )


def min_rms_dbfs_for_threshold(threshold: float) -> float:
    """Energy gate: frames quieter than this RMS (dB re full scale) are never speech.

    webrtcvad judges spectral shape, not loudness, and fires on some near-silent noise (observed:
    its first frames of any non-zero noise are classed as speech). The gate is -60 + 20 * threshold
    dBFS: -50 dBFS at the default 0.5, from -60 (threshold 0) to -40 (threshold 1), so a higher
    OpenAI threshold also asks for louder speech. Conversational speech sits near -20 to -30 dBFS.
    """
    return -60.0 + 20.0 * threshold


def mode_for_threshold(threshold: float) -> int:
    """Map the OpenAI `server_vad.threshold` (0.0-1.0, higher needs clearer speech) to a webrtcvad mode.

    Mapping: [0, 0.3) → 0, [0.3, 0.5) → 1, [0.5, 0.7) → 2, [0.7, 1] → 3. The default 0.5 gives mode 2,
    which keeps clean speech and rejects silence and low noise.
    Raises:
        ValueError: `threshold` outside [0, 1].
    """
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be within [0, 1], got {threshold}")
    if threshold < 0.3:
        return 0
    if threshold < 0.5:
        return 1
    if threshold < 0.7:
        return 2
    return 3


class FrameClassifier:
    """Cut a 24 kHz PCM16 stream into `frame_ms` frames and classify each as speech or not.

    Accepts chunks of any size, including odd byte counts split across pushes; the frames (and
    their classification) do not depend on how the audio was chunked. A frame is returned as soon as
    the input reaches its end: the 24 → 16 kHz conversion needs no look-ahead (see `to_vad_rate`).
    `native`: use the C frame path (None: when it is built, `NATIVE_AVAILABLE`; False: the numpy path,
    which gives the same frames). Raises ValueError for a `frame_ms` webrtcvad does not take, or
    `native=True` when the module is not built.

    `push_frame` is `push` for one whole frame through the C frame path (``UserTurns``' quiet append).
    """

    def __init__(self, threshold: float = 0.5, frame_ms: int = FRAME_MS, native: bool | None = None) -> None:
        if frame_ms not in _WEBRTCVAD_FRAME_MS:
            raise ValueError(f"frame_ms must be one of {_WEBRTCVAD_FRAME_MS}, got {frame_ms}")
        if native and _native_vad_input is None:
            raise ValueError("native=True but mockengine.audio._fastpath is not built")
        use_native = NATIVE_AVAILABLE if native is None else native
        _log_path_once(use_native)
        self._native: _NativeVadInput | None = _native_vad_input if use_native else None
        self._vad = webrtcvad.Vad()
        self._frame_samples_16k = VAD_RATE_HZ * frame_ms // 1000
        self._frame_samples_24k = INPUT_RATE_HZ * frame_ms // 1000
        self._min_mean_square = 0.0
        self._min_sum_square = 0.0
        self.threshold = threshold
        self._pending = bytearray()
        # The 16 kHz samples of a frame are (x0, floor((x1 + x2) / 2)) per 3 input samples, so their
        # sum of squares is at most S + A / 2 + n / 12, where S and A are the input's sums of squares and
        # of magnitudes and n its length, and A <= sqrt(n * S); one more unit covers sqrt's rounding.
        self._bound_slack = self._frame_samples_24k / 12 + 1.0
        self._bytes_seen = 0
        self._frames_done = 0
        self._frame_bytes_24k = self._frame_samples_24k * BYTES_PER_SAMPLE
        # A single-frame append's samples, refilled in place for each (the path taken 50 times a second):
        # its bytes go into a reused int16 array through a byte view (a memcpy, no numpy call), and from
        # there into the float64 copy by one in-place assignment. `np.copyto(wide, np.frombuffer(...))`
        # cost ~1.5 µs more per frame (a fresh array object, the dtype string parsed, numpy's dispatch).
        self._samples = np.empty(self._frame_samples_24k, dtype="<i2")
        self._samples_bytes = self._samples.data.cast("B")
        self._wide = np.empty(self._frame_samples_24k, dtype=np.float64)
        self.set_threshold(threshold)

    @property
    def samples_seen(self) -> int:
        """Whole 24 kHz samples pushed so far."""
        return self._bytes_seen // BYTES_PER_SAMPLE

    @property
    def frames_end_samples(self) -> int:
        """End of the last frame returned (24 kHz samples); at most one frame behind `samples_seen`."""
        return self._frames_done * self._frame_samples_24k

    def set_threshold(self, threshold: float) -> None:
        """Change the sensitivity for frames classified from now on.

        Sets the webrtcvad mode (`mode_for_threshold`) and the energy gate (`min_rms_dbfs_for_threshold`).
        Raises:
            ValueError: `threshold` outside [0, 1].
        """
        self._vad.set_mode(mode_for_threshold(threshold))
        # Mean square of int16 samples at the gate level; frames compare their exact sum of squares.
        self._min_mean_square = (32768.0 * 10 ** (min_rms_dbfs_for_threshold(threshold) / 20)) ** 2
        self._min_sum_square = self._min_mean_square * self._frame_samples_16k
        # The largest 24 kHz sum of squares S with S + sqrt(n * S) / 2 + slack below the gate (the root
        # of that quadratic in sqrt(S)), less a margin for rounding: frames under it are quiet by the
        # bound in `_is_speech` without its square root; any frame near the edge takes the exact test.
        half_root_n = 0.5 * math.sqrt(self._frame_samples_24k)
        root = (-half_root_n + math.sqrt(half_root_n**2 + 4 * (self._min_sum_square - self._bound_slack))) / 2
        self._quiet_sum_square = max(root, 0.0) ** 2 * (1 - 1e-9) - 1.0
        self.threshold = threshold

    def push_frame(self, pcm16_24k: bytes) -> VadFrame | None:
        """`push` for the usual append, one whole frame with nothing pending, through the C frame path
        (``UserTurns``' quiet append, 50 a second per session): the frame, or None having changed nothing
        when that is not the case (other lengths, bytes pending, the C module not built or not chosen);
        `push` then takes it. The same step as `push`'s own single-frame branch, which keeps it inline
        for the general path: keep the two in step."""
        native = self._native
        if native is None or self._pending or len(pcm16_24k) != self._frame_bytes_24k:
            return None
        self._bytes_seen += len(pcm16_24k)
        frame_samples = self._frame_samples_24k
        start = self._frames_done * frame_samples
        self._frames_done += 1
        frame_16k = native(pcm16_24k, self._min_sum_square)
        is_speech = frame_16k is not None and self._vad.is_speech(frame_16k, VAD_RATE_HZ)
        return _new_tuple(VadFrame, (start, start + frame_samples, is_speech))

    def push(self, pcm16_24k: bytes) -> list[VadFrame]:
        """Feed 24 kHz PCM16 bytes; return the frames this push completed, in order."""
        self._bytes_seen += len(pcm16_24k)
        frame_bytes_24k = self._frame_bytes_24k
        native = self._native
        if native is not None:
            if len(pcm16_24k) == frame_bytes_24k and not self._pending:
                # One whole frame per append, the usual case (50 a second per session): `push_frame`'s
                # step, inline.
                start = self._frames_done * self._frame_samples_24k
                self._frames_done += 1
                frame_16k = native(pcm16_24k, self._min_sum_square)
                is_speech = frame_16k is not None and self._vad.is_speech(frame_16k, VAD_RATE_HZ)
                # `VadFrame(...)` without the NamedTuple's Python-level `__new__` (what its `_make` does).
                return [_new_tuple(VadFrame, (start, start + self._frame_samples_24k, is_speech))]
            return self._push_native(native, pcm16_24k)
        if len(pcm16_24k) == frame_bytes_24k and not self._pending:
            # The usual case, one whole frame per append (50 a second per session): `_classify` for one
            # frame, without its loop and slicing.
            start = self._frames_done * self._frame_samples_24k
            self._frames_done += 1
            self._samples_bytes[:] = pcm16_24k
            wide = self._wide
            wide[...] = self._samples
            return [VadFrame(start, start + self._frame_samples_24k, self._is_speech(wide))]
        return self._classify(np.frombuffer(self._whole_frames(pcm16_24k), dtype="<i2"))

    def _whole_frames(self, pcm16_24k: bytes) -> bytes:
        """The whole frames this push completes (bytes, possibly none): the client's own bytes when
        nothing is pending and they are whole frames (longer appends), else cut from what is pending
        with them, the rest kept for the next push."""
        frame_bytes_24k = self._frame_bytes_24k
        if not self._pending and len(pcm16_24k) % frame_bytes_24k == 0:
            return pcm16_24k
        self._pending += pcm16_24k
        whole_bytes = len(self._pending) // frame_bytes_24k * frame_bytes_24k
        whole = bytes(self._pending[:whole_bytes])
        del self._pending[:whole_bytes]
        return whole

    def _push_native(self, native: _NativeVadInput, pcm16_24k: bytes) -> list[VadFrame]:
        """`push` through the C frame path (`_fastpath.vad_input`: the energy gate and the 16 kHz samples
        in one call) for anything but a single whole frame, which `push` handles inline."""
        frame_bytes_24k = self._frame_bytes_24k
        frame_samples = self._frame_samples_24k
        data = self._whole_frames(pcm16_24k)
        view = memoryview(data)
        frames = []
        for offset in range(0, len(data), frame_bytes_24k):
            start = self._frames_done * frame_samples
            self._frames_done += 1
            frame_16k = native(view[offset : offset + frame_bytes_24k], self._min_sum_square)
            is_speech = frame_16k is not None and self._vad.is_speech(frame_16k, VAD_RATE_HZ)
            frames.append(VadFrame(start, start + frame_samples, is_speech))
        return frames

    def _classify(self, samples_24k: np.ndarray) -> list[VadFrame]:
        """Classify whole frames of 24 kHz samples (a multiple of the frame length)."""
        n_frames = len(samples_24k) // self._frame_samples_24k
        if n_frames == 0:
            return []
        wide = samples_24k.astype(np.float64)
        frames = []
        for i in range(n_frames):
            frame = (
                wide
                if n_frames == 1
                else wide[i * self._frame_samples_24k : (i + 1) * self._frame_samples_24k]
            )
            start = (self._frames_done + i) * self._frame_samples_24k
            frames.append(VadFrame(start, start + self._frame_samples_24k, self._is_speech(frame)))
        self._frames_done += n_frames
        return frames

    def _is_speech(self, frame_24k: np.ndarray) -> bool:
        """One frame (float64 copies of its 24 kHz samples): over the energy gate at 16 kHz, and speech
        to webrtcvad. Float64 holds every sum of squares here exactly (< 2**40), in any order of adding."""
        # ndarray.dot: np.dot without the array-function dispatch (half its cost on 480 samples).
        sum_square_24k = float(frame_24k.dot(frame_24k))
        if sum_square_24k < self._quiet_sum_square:
            return False
        if (
            sum_square_24k + 0.5 * math.sqrt(len(frame_24k) * sum_square_24k) + self._bound_slack
            < self._min_sum_square
        ):
            # The 16 kHz samples' energy cannot reach the gate (``_bound_slack``): quiet frames, most of
            # a conversation, skip the conversion.
            return False
        frame_16k = _to_vad_rate_float(frame_24k)
        return float(frame_16k.dot(frame_16k)) >= self._min_sum_square and self._vad.is_speech(
            frame_16k.astype("<i2").tobytes(), VAD_RATE_HZ
        )


# Each group of 3 samples at 24 kHz → [x0, (x1 + x2) / 2] at 16 kHz, as one small matrix product.
_THREE_TO_TWO = np.array([[1.0, 0.0], [0.0, 0.5], [0.0, 0.5]])


def _to_vad_rate_float(samples_24k: np.ndarray) -> np.ndarray:
    """`to_vad_rate` as float64 values (exact integers): the form the classifier computes energies on.

    One matrix product and one floor, exact for every int16 input (halves and sums below 2**17 are
    exact in float64), so the result equals the integer formula bit for bit, at about half the numpy
    calls (the audio path runs 50 times a second per session).
    """
    out = samples_24k.astype(np.float64, copy=False).reshape(-1, 3).dot(_THREE_TO_TWO)
    np.floor(out, out=out)
    return out.reshape(-1)


def to_vad_rate(samples_24k: np.ndarray) -> np.ndarray:
    """24 kHz int16 samples (a multiple of 3) → 16 kHz int16 samples at the same instants.

    Every 3 input samples give 2: the first is sample 0, the second (at 1.5 input samples) the mean of
    samples 1 and 2 (linear interpolation, floored). There is no anti-alias filter: content at 8-12 kHz
    folds onto 4-8 kHz, which webrtcvad never looks at (it decimates to 8 kHz with its own filter and
    classifies 0-4 kHz bands). Measured on the 57 recorded test clips, 99.3 % of 20 ms frames are
    classed as with a soxr low-quality resampler, at a third of the cost and without its one-frame delay
    (the audio path runs 50 times a second per session). soxr's quick streaming quality ("QQ") costs the
    same and has no delay, but holds one sample back at the start and its output differs by up to 2 LSB
    with how the input was split (checked 2026-11-30), which would break the rule that frames do not
    depend on chunking.
    """
    return _to_vad_rate_float(samples_24k).astype("<i2")
