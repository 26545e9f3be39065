"""PCM16 sample-rate conversion with libsoxr (`soxr`).

All conversion runs in float32 and is rounded back to int16 by `float32_to_pcm16`. soxr's own int16
path dithers the output, which makes it differ from run to run (observed with soxr 1.1.0: the same
input gave different int16 samples); the float32 path gives identical bytes for identical input,
however the input is split into chunks.
"""

from __future__ import annotations

import numpy as np
import soxr

from mockengine.audio.pcm import BYTES_PER_SAMPLE, float32_to_pcm16, pcm16_to_float32

QUALITY = "HQ"
"""soxr quality recipe: 'HQ' is soxr's default and transparent for speech."""


def resample_pcm16(pcm: bytes, from_hz: int, to_hz: int) -> bytes:
    """Resample a whole PCM16 clip (mono, little-endian) from `from_hz` to `to_hz`.

    Output length is round(n_samples * to_hz / from_hz). A trailing odd byte is ignored.
    Deterministic: the same input always gives the same bytes.
    """
    whole = pcm[: len(pcm) - len(pcm) % BYTES_PER_SAMPLE]
    if from_hz == to_hz or not whole:
        return bytes(whole)
    out = soxr.resample(pcm16_to_float32(whole), from_hz, to_hz, quality=QUALITY)
    return float32_to_pcm16(out)


class StreamResampler:
    """Resample a continuous PCM16 stream pushed in chunks of any size.

    Chunks may split a sample across calls (odd byte counts). The output is time-aligned with the
    input (soxr trims its filter delay) but lags it by a few milliseconds: `flush()` releases the
    tail at the end of the stream and makes the resampler ready for a new stream.
    Deterministic: the same input bytes give the same output bytes whatever the chunking.
    """

    def __init__(self, from_hz: int, to_hz: int, quality: str = QUALITY) -> None:
        self.from_hz = from_hz
        self.to_hz = to_hz
        self._stream = soxr.ResampleStream(from_hz, to_hz, 1, dtype="float32", quality=quality)
        self._pending = b""

    def push(self, pcm: bytes) -> bytes:
        """Feed the next chunk; return the PCM16 output it completes (possibly empty)."""
        data = self._pending + pcm if self._pending else pcm
        cut = len(data) - len(data) % BYTES_PER_SAMPLE
        self._pending = bytes(data[cut:])
        if cut == 0:
            return b""
        whole = data[:cut]
        if self.from_hz == self.to_hz:
            return bytes(whole)
        out = self._stream.resample_chunk(pcm16_to_float32(whole))
        return float32_to_pcm16(out) if out.size else b""

    def flush(self) -> bytes:
        """End the stream: return the remaining output and start afresh for the next stream.

        A dangling half sample from the last push is dropped.
        """
        self._pending = b""
        if self.from_hz == self.to_hz:
            return b""
        out = self._stream.resample_chunk(np.zeros(0, dtype=np.float32), last=True)
        self._stream.clear()
        return float32_to_pcm16(out) if out.size else b""
