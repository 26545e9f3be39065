"""The input audio buffer: PCM16 24 kHz appended since the last commit or clear.

Positions are in samples counted from the first audio appended in the session, which is what
``audio_start_ms`` / ``audio_end_ms`` measure (reference §3.3: offsets into all audio of the session).

The audio is held as the appended chunks themselves (the client's decoded bytes, kept by reference), not
copied into one growing array: between turns the buffer keeps the last 15 s and drops from the front on
every 20 ms append, and a bytearray used that way copies its whole content into a fresh allocation every
~90 appends (its front moves on, its end needs room; ~0.7 MB and a fresh mmap each time at 15 s). Reads
(a turn's commit, a probe's slice) join the chunks they cover, once per turn.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from itertools import accumulate, islice

from mockengine.audio.pcm import INPUT_RATE_HZ, ms_to_samples, samples_to_ms

BYTES_PER_SAMPLE = 2
# A commit needs at least this much audio since the previous commit (reference §8).
MIN_COMMIT_MS = 100


class InputAudioBuffer:
    """The session's input audio since the last commit or clear (module docstring)."""

    def __init__(self) -> None:
        self._chunks: deque[bytes] = deque()  # whole samples each, oldest first
        self._head_bytes = 0  # bytes at the front of _chunks[0] already dropped
        self._held_bytes = 0  # bytes held after those
        self._start_samples = 0  # session position of the first byte held
        self._odd_byte = b""

    @property
    def total_samples(self) -> int:
        """Samples appended in the whole session."""
        return self._start_samples + self._held_bytes // BYTES_PER_SAMPLE

    @property
    def total_ms(self) -> int:
        return samples_to_ms(self.total_samples, INPUT_RATE_HZ)

    @property
    def start_ms(self) -> int:
        return samples_to_ms(self._start_samples, INPUT_RATE_HZ)

    @property
    def held_bytes(self) -> int:
        """Bytes buffered (whole samples; what ``buffered_ms`` measures)."""
        return self._held_bytes

    @property
    def buffered_ms(self) -> float:
        return self._held_bytes / BYTES_PER_SAMPLE * 1000.0 / INPUT_RATE_HZ

    def append(self, pcm16: bytes) -> bytes:
        """Add audio; returns the whole samples added (an odd trailing byte waits for its partner)."""
        if type(pcm16) is not bytes:
            pcm16 = bytes(pcm16)  # kept by reference: must not change later
        if self._odd_byte or len(pcm16) % BYTES_PER_SAMPLE:
            data = self._odd_byte + pcm16
            whole = len(data) - len(data) % BYTES_PER_SAMPLE
            self._odd_byte = data[whole:]
            pcm16 = data[:whole]
        if pcm16:
            self._chunks.append(pcm16)
            self._held_bytes += len(pcm16)
        return pcm16

    def append_frame(self, pcm16: bytes, limit_bytes: int) -> int:
        """``append`` for the usual 20 ms append between turns (``UserTurns``' quiet append, 50 a second
        per session): ``pcm16`` kept by reference when it is non-empty ``bytes`` of whole samples, no odd
        byte is waiting and the buffer then holds at most ``limit_bytes``. Returns the bytes held after
        it, or 0 having changed nothing when that is not the case (``append`` and the caller's limit
        check then take it, which also gives ``input_buffer_full``)."""
        n_bytes = len(pcm16)
        held_bytes = self._held_bytes + n_bytes
        if (
            held_bytes > limit_bytes
            or not n_bytes
            or n_bytes % BYTES_PER_SAMPLE
            or self._odd_byte
            or type(pcm16) is not bytes
        ):
            return 0
        self._chunks.append(pcm16)
        self._held_bytes = held_bytes
        return held_bytes

    def drop_half_sample(self) -> None:
        """Forget an odd trailing byte still waiting for its partner (the input format changed)."""
        self._odd_byte = b""

    def slice_ms(self, start_ms: int, end_ms: int) -> bytes:
        """Audio between two session positions, clipped to what is buffered."""
        lo = max(ms_to_samples(start_ms, INPUT_RATE_HZ) - self._start_samples, 0) * BYTES_PER_SAMPLE
        hi = max(ms_to_samples(end_ms, INPUT_RATE_HZ) - self._start_samples, 0) * BYTES_PER_SAMPLE
        return self._copy(lo, min(hi, self._held_bytes))

    def _copy(self, lo: int, hi: int) -> bytes:
        """The held bytes [lo, hi) (offsets from the first byte held) as one bytes object."""
        if hi <= lo:
            return b""
        # Every chunk joined, then cut: two copies in C of at most the held bytes (15 s between turns:
        # ~0.7 MB, tens of µs) where a Python walk over the chunks, a memoryview each, cost more (a turn's
        # commit and probes walked up to 750; docs/cpu.md, twenty-first pass).
        joined = b"".join(self._chunks)
        start = self._head_bytes + lo
        if start == 0 and hi == len(joined):
            return joined
        return joined[start : self._head_bytes + hi]

    def _cut_samples(self, end_ms: int) -> int:
        return min(
            max(ms_to_samples(end_ms, INPUT_RATE_HZ) - self._start_samples, 0),
            self._held_bytes // BYTES_PER_SAMPLE,
        )

    def take_until_ms(self, end_ms: int) -> bytes:
        """Remove and return everything buffered before ``end_ms`` (a commit)."""
        cut = self._cut_samples(end_ms)
        taken = self._copy(0, cut * BYTES_PER_SAMPLE)
        self._drop_samples(cut)
        return taken

    def drop_before_ms(self, position_ms: int) -> None:
        """Forget audio before a position (speech that was never part of a turn); no copy is made."""
        self._drop_samples(self._cut_samples(position_ms))

    def keep_last_ms(self, kept_ms: int) -> None:
        """``drop_before_ms(total_ms - kept_ms)`` in integer arithmetic: it runs on every append between
        turns, where the property and conversion calls of the general form were 3 % of the event loop."""
        if self._held_bytes <= kept_ms * INPUT_RATE_HZ * BYTES_PER_SAMPLE // 1000:
            return  # holds no more than that (the usual case: a turn every few seconds empties it)
        whole_samples = self._held_bytes // BYTES_PER_SAMPLE
        total_ms = (self._start_samples + whole_samples) * 1000 // INPUT_RATE_HZ
        cut = (total_ms - kept_ms) * INPUT_RATE_HZ // 1000 - self._start_samples
        if cut > 0:  # `_drop_samples(min(max(cut, 0), whole_samples))` without its call (every append)
            cut = min(cut, whole_samples)
            self._held_bytes -= cut * BYTES_PER_SAMPLE
            self._start_samples += cut
            head = self._head_bytes + cut * BYTES_PER_SAMPLE
            chunks = self._chunks
            while chunks and head >= len(chunks[0]):
                head -= len(chunks.popleft())
            self._head_bytes = head

    def _drop_samples(self, cut: int) -> None:
        """Forget the first ``cut`` held samples: whole chunks leave, a partly dropped one stays with
        its dropped front counted in ``_head_bytes``."""
        if not cut:
            return
        self._held_bytes -= cut * BYTES_PER_SAMPLE
        self._start_samples += cut
        head = self._head_bytes + cut * BYTES_PER_SAMPLE
        chunks = self._chunks
        if chunks and head >= len(chunks[0]):
            # The chunks wholly dropped counted in C (a turn's onset drops most of the 15 s kept before
            # it: ~750 chunks, a Python loop each; docs/cpu.md, twenty-first pass).
            ends = list(accumulate(map(len, chunks)))
            dropped = bisect_right(ends, head)
            head -= ends[dropped - 1]
            self._chunks = deque(islice(chunks, dropped, None))
        self._head_bytes = head

    def clear(self) -> None:
        self._start_samples = self.total_samples
        self._chunks.clear()
        self._head_bytes = 0
        self._held_bytes = 0
        self._odd_byte = b""
