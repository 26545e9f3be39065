"""G.711 µ-law (`audio/pcmu`) and A-law (`audio/pcma`) at 8 kHz, and conversion to/from 24 kHz PCM16.

Table-based numpy codec following ITU-T G.711 as implemented in the Sun reference code (g711.c), the
same algorithm as CPython's deprecated `audioop` (lin2ulaw/ulaw2lin/lin2alaw/alaw2lin), which the
tests use as an oracle. Both encoders look up a 65 536-entry table indexed by the raw int16 sample,
so encoding is one numpy gather.
"""

from __future__ import annotations

import numpy as np

from mockengine.audio.pcm import BYTES_PER_SAMPLE, INPUT_RATE_HZ
from mockengine.audio.resample import resample_pcm16

G711_RATE_HZ = 8_000
"""Sample rate of `audio/pcmu` and `audio/pcma` in the Realtime API."""

FORMAT_PCM = "audio/pcm"
FORMAT_PCMU = "audio/pcmu"
FORMAT_PCMA = "audio/pcma"
AUDIO_FORMAT_TYPES = (FORMAT_PCM, FORMAT_PCMU, FORMAT_PCMA)
"""`session.audio.{input,output}.format.type` values (reference/realtime-api.md)."""

_PCM16 = np.dtype("<i2")
_ULAW_BIAS = 0x84
_ULAW_CLIP_14BIT = 8159
_ULAW_SEGMENT_ENDS = np.array([0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF])
_ALAW_SEGMENT_ENDS = np.array([0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF])


def _ulaw_decode_table() -> np.ndarray:
    code = ~np.arange(256, dtype=np.int32) & 0xFF
    magnitude = (((code & 0x0F) << 3) + _ULAW_BIAS) << ((code & 0x70) >> 4)
    return np.where(code & 0x80, _ULAW_BIAS - magnitude, magnitude - _ULAW_BIAS).astype(_PCM16)


def _alaw_decode_table() -> np.ndarray:
    code = np.arange(256, dtype=np.int32) ^ 0x55
    segment = (code & 0x70) >> 4
    mantissa = (code & 0x0F) << 4
    magnitude = np.where(segment == 0, mantissa + 8, (mantissa + 0x108) << np.maximum(segment - 1, 0))
    return np.where(code & 0x80, magnitude, -magnitude).astype(_PCM16)


def _all_int16_by_uint16_index() -> np.ndarray:
    """Every int16 value, ordered so that entry i is the sample whose raw bits read as uint16 are i."""
    return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.int16).astype(np.int32)


def _ulaw_encode_table() -> np.ndarray:
    # Sun's encoder works on 14-bit magnitudes; the arithmetic shift keeps -1..-4 negative.
    value = _all_int16_by_uint16_index() >> 2
    mask = np.where(value < 0, 0x7F, 0xFF)
    magnitude = np.minimum(np.abs(value), _ULAW_CLIP_14BIT) + (_ULAW_BIAS >> 2)
    segment = np.searchsorted(_ULAW_SEGMENT_ENDS, magnitude, side="left")
    code = (segment << 4) | ((magnitude >> (segment + 1)) & 0x0F)
    code = np.where(segment >= 8, 0x7F, code)
    return (code ^ mask).astype(np.uint8)


def _alaw_encode_table() -> np.ndarray:
    # Sun's encoder works on 13-bit values; negatives are folded as -v - 1 (one's complement).
    value = _all_int16_by_uint16_index() >> 3
    mask = np.where(value >= 0, 0xD5, 0x55)
    magnitude = np.where(value >= 0, value, -value - 1)
    segment = np.searchsorted(_ALAW_SEGMENT_ENDS, magnitude, side="left")
    shift = np.where(segment < 2, 1, segment)
    code = (segment << 4) | ((magnitude >> shift) & 0x0F)
    code = np.where(segment >= 8, 0x7F, code)
    return (code ^ mask).astype(np.uint8)


_ULAW_TO_PCM16 = _ulaw_decode_table()
_ALAW_TO_PCM16 = _alaw_decode_table()
_PCM16_TO_ULAW = _ulaw_encode_table()
_PCM16_TO_ALAW = _alaw_encode_table()


def _encode(pcm: bytes, table: np.ndarray) -> bytes:
    n_samples = len(pcm) // BYTES_PER_SAMPLE
    raw = np.frombuffer(pcm, dtype="<u2", count=n_samples)
    return table[raw].tobytes()


def ulaw_to_pcm16(data: bytes) -> bytes:
    """µ-law bytes (one sample per byte) → PCM16 little-endian bytes, same rate. 0xFF → 0, 0x00 → -32124."""
    return _ULAW_TO_PCM16[np.frombuffer(data, dtype=np.uint8)].tobytes()


def pcm16_to_ulaw(pcm: bytes) -> bytes:
    """PCM16 little-endian bytes → µ-law bytes, same rate. A trailing odd byte is ignored."""
    return _encode(pcm, _PCM16_TO_ULAW)


def alaw_to_pcm16(data: bytes) -> bytes:
    """A-law bytes (one sample per byte) → PCM16 little-endian bytes, same rate. 0xD5 → 8, 0x55 → -8."""
    return _ALAW_TO_PCM16[np.frombuffer(data, dtype=np.uint8)].tobytes()


def pcm16_to_alaw(pcm: bytes) -> bytes:
    """PCM16 little-endian bytes → A-law bytes, same rate. A trailing odd byte is ignored."""
    return _encode(pcm, _PCM16_TO_ALAW)


def to_pcm16_24k(data: bytes, format_type: str) -> bytes:
    """Audio in `format_type` (its own rate) → PCM16 at 24 kHz.

    `audio/pcm` passes through; `audio/pcmu` / `audio/pcma` are decoded at 8 kHz and resampled.
    Raises:
        ValueError: unknown `format_type`.
    """
    if format_type == FORMAT_PCM:
        return data
    if format_type == FORMAT_PCMU:
        return resample_pcm16(ulaw_to_pcm16(data), G711_RATE_HZ, INPUT_RATE_HZ)
    if format_type == FORMAT_PCMA:
        return resample_pcm16(alaw_to_pcm16(data), G711_RATE_HZ, INPUT_RATE_HZ)
    raise ValueError(f"Unsupported audio format type: {format_type!r}")


def from_pcm16_24k(pcm: bytes, format_type: str) -> bytes:
    """PCM16 at 24 kHz → audio in `format_type` (8 kHz for G.711).

    Each call resamples its clip on its own; for a long stream cut into deltas, resample with one
    `StreamResampler` and encode its output with `pcm16_to_ulaw` / `pcm16_to_alaw` instead.
    Raises:
        ValueError: unknown `format_type`.
    """
    if format_type == FORMAT_PCM:
        return pcm
    if format_type == FORMAT_PCMU:
        return pcm16_to_ulaw(resample_pcm16(pcm, INPUT_RATE_HZ, G711_RATE_HZ))
    if format_type == FORMAT_PCMA:
        return pcm16_to_alaw(resample_pcm16(pcm, INPUT_RATE_HZ, G711_RATE_HZ))
    raise ValueError(f"Unsupported audio format type: {format_type!r}")


def encoded_slice(encoded: bytes, pcm_start_bytes: int, pcm_end_bytes: int, pcm_bytes: int) -> bytes:
    """The bytes of ``encoded`` that stand for ``[pcm_start_bytes:pcm_end_bytes]`` of the PCM16 24 kHz
    clip (``pcm_bytes`` long) it was encoded from whole (``from_pcm16_24k``, any output format).

    Offsets are proportional: a PCM byte offset ``b`` is encoded byte ``b * len(encoded) // pcm_bytes``
    (for G.711, 6 PCM bytes, 3 samples at 24 kHz, per encoded byte at 8 kHz; resampling may leave the
    encoded clip a byte off that ratio, and the proportion spreads it). Consecutive slices therefore join
    into exactly ``encoded``: a clip's deltas cut from one encoding carry no resampler edge at their
    boundaries, which encoding each delta as a clip of its own put there (clicks every 200 ms on a
    telephone line). Offsets are clamped to ``[0, pcm_bytes]``; an empty clip gives ``b""``.
    """
    if pcm_bytes <= 0:
        return b""
    start = min(max(pcm_start_bytes, 0), pcm_bytes)
    end = min(max(pcm_end_bytes, start), pcm_bytes)
    return encoded[start * len(encoded) // pcm_bytes : end * len(encoded) // pcm_bytes]


_UPSAMPLE = INPUT_RATE_HZ // G711_RATE_HZ  # 3
_TAPS_PER_PHASE = 24


def _interpolation_filter() -> np.ndarray:
    """Kaiser-windowed sinc low-pass at 24 kHz cutting at 4 kHz (the G.711 band), gain 3 for the zeros
    interpolation inserts, as its 3 polyphase components (one per output phase), each reversed for
    np.convolve's 'valid' mode."""
    taps = _UPSAMPLE * _TAPS_PER_PHASE
    t = np.arange(taps) - (taps - 1) / 2
    cutoff = 0.5 / _UPSAMPLE  # in cycles per output sample
    h = 2 * cutoff * np.sinc(2 * cutoff * t) * np.kaiser(taps, 8.0) * _UPSAMPLE
    return np.stack([h[phase::_UPSAMPLE] for phase in range(_UPSAMPLE)])


_PHASES = _interpolation_filter()


class G711InputStream:
    """A session's appends, in whatever input format each arrives in, decoded to PCM16 24 kHz as one
    continuous stream.

    A telephone bridge appends 20 ms frames (160 G.711 bytes). Resampling each frame as a clip of its own
    put soxr's edge transient at every frame boundary: clicks 50 times a second, up to 14 395 (of 20 159
    peak) from the clip decoded whole on a spoken question. Here one polyphase interpolator (a 72-tap
    low-pass at the G.711 band's 4 kHz, kept across appends) makes 3 samples of each 8 kHz sample: the
    same output however the audio is split, exactly 3 × the samples appended (nothing held back, so a
    commit of 100 ms of G.711 is 100 ms), nothing above 4 kHz added, and the whole stream 1.5 ms later
    than the line (the filter's delay; a soxr stream resampler holds tens of milliseconds back and
    releases them in bursts, which would delay turn detection). A change of input format starts afresh.
    """

    def __init__(self, format_type: str = FORMAT_PCM) -> None:
        """``format_type``: the format the stream expects first (ValueError for an unknown one)."""
        if format_type not in AUDIO_FORMAT_TYPES:
            raise ValueError(f"Unsupported audio format type: {format_type!r}")
        self.format_type = format_type
        self._history = np.zeros(_TAPS_PER_PHASE - 1, dtype=np.float64)

    def decode(self, data: bytes, format_type: str) -> bytes:
        """``data`` in ``format_type`` → PCM16 24 kHz, 3 samples per G.711 byte (``audio/pcm`` passes).

        Raises:
            ValueError: unknown ``format_type``.
        """
        if format_type not in AUDIO_FORMAT_TYPES:
            raise ValueError(f"Unsupported audio format type: {format_type!r}")
        if format_type != self.format_type:
            self.format_type = format_type
            self.reset()
        if format_type == FORMAT_PCM or not data:
            return data
        table = _ULAW_TO_PCM16 if format_type == FORMAT_PCMU else _ALAW_TO_PCM16
        samples = table[np.frombuffer(data, dtype=np.uint8)].astype(np.float64)
        extended = np.concatenate((self._history, samples))
        self._history = extended[len(extended) - (_TAPS_PER_PHASE - 1) :]
        out = np.empty((len(samples), _UPSAMPLE))
        for phase in range(_UPSAMPLE):
            out[:, phase] = np.convolve(extended, _PHASES[phase], mode="valid")
        return np.clip(np.rint(out.reshape(-1)), -32768, 32767).astype(_PCM16).tobytes()

    def reset(self) -> None:
        """Forget the past (a cleared buffer, a new format): the next append starts from line silence."""
        self._history = np.zeros(_TAPS_PER_PHASE - 1, dtype=np.float64)
