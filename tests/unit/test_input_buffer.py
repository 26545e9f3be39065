"""The input buffer holds appended chunks by reference (issue 15); it must read exactly as one growing
byte array would, whatever the mix of appends (odd bytes included), drops, takes and clears."""

from __future__ import annotations

import random

from mockengine.audio.pcm import INPUT_RATE_HZ, ms_to_samples, samples_to_ms
from mockengine.realtime.input_buffer import InputAudioBuffer


class ArrayBuffer:
    """The reference: one bytearray, a start position, an odd byte waiting for its partner."""

    def __init__(self) -> None:
        self.pcm = bytearray()
        self.start = 0
        self.odd = b""

    def append(self, data: bytes) -> bytes:
        data = self.odd + data
        whole = len(data) - len(data) % 2
        self.odd = data[whole:]
        self.pcm += data[:whole]
        return data[:whole]

    def _offset(self, ms: int) -> int:
        return min(max(ms_to_samples(ms, INPUT_RATE_HZ) - self.start, 0) * 2, len(self.pcm))

    def slice_ms(self, start_ms: int, end_ms: int) -> bytes:
        return bytes(self.pcm[self._offset(start_ms) : self._offset(end_ms)])

    def take_until_ms(self, end_ms: int) -> bytes:
        cut = self._offset(end_ms)
        taken = bytes(self.pcm[:cut])
        del self.pcm[:cut]
        self.start += cut // 2
        return taken

    def clear(self) -> None:
        self.start += len(self.pcm) // 2
        self.pcm.clear()
        self.odd = b""

    @property
    def total_ms(self) -> int:
        return samples_to_ms(self.start + len(self.pcm) // 2, INPUT_RATE_HZ)


def test_the_chunked_buffer_reads_as_one_byte_array() -> None:
    rng = random.Random(5)
    for _ in range(1500):
        ref, buf = ArrayBuffer(), InputAudioBuffer()
        for _ in range(rng.randrange(1, 40)):
            op = rng.random()
            if op < 0.6:
                chunk = rng.randbytes(rng.choice((960, 961, 1, 7, 4800, 0, 3)))
                assert buf.append(chunk) == ref.append(chunk)
            elif op < 0.65:
                ref.clear()
                buf.clear()
            elif op < 0.75:
                end_ms = ref.total_ms - rng.randrange(-5, 400)
                assert buf.take_until_ms(end_ms) == ref.take_until_ms(end_ms)
            elif op < 0.85:
                at_ms = ref.total_ms - rng.randrange(0, 400)
                ref.take_until_ms(at_ms)
                buf.drop_before_ms(at_ms)
            else:
                kept_ms = rng.choice((0, 5, 21, 100, 1000))
                ref.take_until_ms(ref.total_ms - kept_ms)
                buf.keep_last_ms(kept_ms)
            lo, hi = sorted(rng.randrange(-50, ref.total_ms + 50) for _ in range(2))
            assert buf.slice_ms(lo, hi) == ref.slice_ms(lo, hi)
            assert buf.slice_ms(0, 10**9) == bytes(ref.pcm)
            assert (buf.start_ms, buf.total_ms) == (samples_to_ms(ref.start), ref.total_ms)
            assert buf.buffered_ms == len(ref.pcm) / 2 * 1000 / INPUT_RATE_HZ


def test_a_chunk_is_kept_as_appended_even_if_the_caller_reuses_its_array() -> None:
    buf, data = InputAudioBuffer(), bytearray(b"\x01\x02" * 480)
    buf.append(data)
    data[:] = bytes(960)
    assert buf.slice_ms(0, 20) == b"\x01\x02" * 480
