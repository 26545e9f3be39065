"""The input audio buffer: PCM16 24 kHz appended since the last commit or clear.

Positions are in samples counted from the first audio appended in the session, which is what
``audio_start_ms`` / ``audio_end_ms`` measure (reference §3.3: offsets into all audio of the session).
"""

from __future__ import annotations

from mockengine.audio.pcm import INPUT_RATE_HZ, ms_to_samples, samples_to_ms

BYTES_PER_SAMPLE = 2
# A commit needs at least this much audio since the previous commit (reference §8).
MIN_COMMIT_MS = 100


class InputAudioBuffer:
    def __init__(self) -> None:
        self._pcm = bytearray()
        self._start_samples = 0  # session position of self._pcm[0]
        self._odd_byte = b""

    @property
    def total_samples(self) -> int:
        """Samples appended in the whole session."""
        return self._start_samples + len(self._pcm) // BYTES_PER_SAMPLE

    @property
    def total_ms(self) -> int:
        return samples_to_ms(self.total_samples, INPUT_RATE_HZ)

    @property
    def start_ms(self) -> int:
        return samples_to_ms(self._start_samples, INPUT_RATE_HZ)

    @property
    def buffered_ms(self) -> float:
        return len(self._pcm) / BYTES_PER_SAMPLE * 1000.0 / INPUT_RATE_HZ

    def append(self, pcm16: bytes) -> bytes:
        """Add audio; returns the whole samples added (an odd trailing byte waits for its partner)."""
        if not self._odd_byte and not len(pcm16) % BYTES_PER_SAMPLE:
            self._pcm += pcm16  # the usual case: whole samples, no copy made here
            return pcm16
        data = self._odd_byte + pcm16
        whole = len(data) - len(data) % BYTES_PER_SAMPLE
        self._odd_byte = data[whole:]
        chunk = data[:whole]
        self._pcm += chunk
        return chunk

    def slice_ms(self, start_ms: int, end_ms: int) -> bytes:
        """Audio between two session positions, clipped to what is buffered."""
        lo = max(ms_to_samples(start_ms, INPUT_RATE_HZ) - self._start_samples, 0) * BYTES_PER_SAMPLE
        hi = max(ms_to_samples(end_ms, INPUT_RATE_HZ) - self._start_samples, 0) * BYTES_PER_SAMPLE
        return bytes(self._pcm[lo:hi])

    def _cut_samples(self, end_ms: int) -> int:
        return min(
            max(ms_to_samples(end_ms, INPUT_RATE_HZ) - self._start_samples, 0),
            len(self._pcm) // BYTES_PER_SAMPLE,
        )

    def take_until_ms(self, end_ms: int) -> bytes:
        """Remove and return everything buffered before ``end_ms`` (a commit)."""
        cut = self._cut_samples(end_ms)
        taken = bytes(self._pcm[: cut * BYTES_PER_SAMPLE])
        self._drop_samples(cut)
        return taken

    def drop_before_ms(self, position_ms: int) -> None:
        """Forget audio before a position (speech that was never part of a turn); no copy is made."""
        self._drop_samples(self._cut_samples(position_ms))

    def keep_last_ms(self, kept_ms: int) -> None:
        """``drop_before_ms(total_ms - kept_ms)`` in integer arithmetic: it runs on every append between
        turns, where the property and conversion calls of the general form were 3 % of the event loop."""
        if len(self._pcm) <= kept_ms * INPUT_RATE_HZ * BYTES_PER_SAMPLE // 1000:
            return  # holds no more than that (the usual case: a turn every few seconds empties it)
        whole_samples = len(self._pcm) // BYTES_PER_SAMPLE
        total_ms = (self._start_samples + whole_samples) * 1000 // INPUT_RATE_HZ
        self._drop_samples(
            min(max((total_ms - kept_ms) * INPUT_RATE_HZ // 1000 - self._start_samples, 0), whole_samples)
        )

    def _drop_samples(self, cut: int) -> None:
        """Forget the first ``cut`` buffered samples (CPython trims a bytearray's front without copying)."""
        if cut:
            del self._pcm[: cut * BYTES_PER_SAMPLE]
            self._start_samples += cut

    def clear(self) -> None:
        self._start_samples = self.total_samples
        self._pcm.clear()
        self._odd_byte = b""
