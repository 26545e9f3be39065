"""Bounded, thread-safe LRU caches measured in bytes, for synthesized speech and transcripts.

``ByteLRU`` keeps values up to ``max_bytes`` in total (each value's size given on ``put``), evicting the
least recently used first; a value larger than the whole budget is not kept. It counts hits, misses and
evictions, and calls an optional ``observer(hit)`` on every lookup so the server can export the counts
(``mockengine_cache_*`` in ``/metrics``) without this module knowing about Prometheus.

``CachingTranscriber`` keys transcripts by a BLAKE2b hash of the audio bytes plus the language and
prompt. Whisper decoding here is deterministic (temperature 0; greedy, or a fixed beam width for
telephone-band audio decided by the samples), so the same audio gives the same text: a
cached transcript is exactly what a fresh call would return. Audio that matches no entry byte for byte
is then looked up by its acoustic fingerprint (:mod:`mockengine.engines.fingerprint`) when
``fingerprints=True`` (``--stt-cache-fingerprint``): the same utterance after an Opus round trip, a
resampler or a gain change gets the transcript whisper gave the cached audio, with this audio's
duration and the word timings moved by the alignment found (docs/transcript-cache.md); that answer
is then cached under these exact bytes too, so the same audio again is an exact hit.

Audio that differs from a cached entry's only in how much digital silence (samples exactly 0) comes
before it, up to ``MAX_LEAD_SILENCE_DIFF_MS`` more or less, is the same speech sample for sample, with
the same end: it gets the cached transcript with this audio's duration and the words moved by the
difference (always, no flag; looked up in ``lookup`` by a hash of the audio from its first non-zero
sample on). A client that streams digital silence between its clips has the same clip cut so whenever
turn detection finds less silence before it than its ``prefix_padding_ms``: a barge-in spoken right
after the previous turn was committed (docs/cpu.md, sixteenth pass, part 2). The silence after the
speech must match byte for byte: how long a pause was heard can change whisper's closing punctuation,
which semantic_vad reads.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from mockengine.engines import fingerprint as fp
from mockengine.engines.stt import Transcriber, Transcript, WordTiming

V = TypeVar("V")
MIB = 1024 * 1024


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    evictions: int
    entries: int
    size_bytes: int
    max_bytes: int

    @property
    def hit_rate(self) -> float | None:
        """hits / lookups, None before the first lookup."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else None


class ByteLRU(Generic[V]):
    """LRU of values bounded by their total size in bytes. ``max_bytes`` 0 keeps nothing.
    ``on_evict(key)``, when set, is called (under the cache's lock: keep it short) for every key
    evicted to make room."""

    def __init__(self, max_bytes: int, observer: Callable[[bool], None] | None = None) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self.observer = observer
        self.on_evict: Callable[[Hashable], None] | None = None
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._size = 0
        self._hits = self._misses = self._evictions = 0
        self._lock = threading.Lock()

    @property
    def is_enabled(self) -> bool:
        return self.max_bytes > 0

    def get(self, key: Hashable) -> V | None:
        """The value for ``key`` (now the most recently used), or None; counts a hit or a miss."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self._misses += 1
            else:
                self._entries.move_to_end(key)
                self._hits += 1
        if self.observer is not None:
            self.observer(entry is not None)
        return None if entry is None else entry[0]

    def peek(self, key: Hashable) -> bool:
        """Whether ``key`` is cached, without counting a lookup or refreshing it."""
        with self._lock:
            return key in self._entries

    def put(self, key: Hashable, value: V, size_bytes: int) -> None:
        """Keep ``value``; evict least recently used entries until the total fits ``max_bytes``."""
        if size_bytes > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= old[1]
            self._entries[key] = (value, size_bytes)
            self._size += size_bytes
            while self._size > self.max_bytes:
                gone, (_, evicted) = self._entries.popitem(last=False)
                self._size -= evicted
                self._evictions += 1
                if self.on_evict is not None:
                    self.on_evict(gone)

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(
                self._hits, self._misses, self._evictions, len(self._entries), self._size, self.max_bytes
            )


FINGERPRINT_OVERHEAD_BYTES = 400
TRIM_OVERHEAD_BYTES = 200
# How much more or less digital silence before its speech a turn may have than a cached one and still
# get its transcript: a turn detector's start moving by up to its ``prefix_padding_ms`` (300 by
# default) with room to spare; a turn with seconds more silence before it stays on whisper.
MAX_LEAD_SILENCE_DIFF_MS = 1000
Key = tuple[bytes, str | None, str | None]
Bucket = tuple[str | None, str | None, int]  # language, prompt, frame count


class FingerprintIndex:
    """The fingerprints of the cached transcripts' audio, by (language, prompt, frame count), so a
    lookup compares only entries of about the same length. Thread-safe."""

    def __init__(self) -> None:
        self._buckets: dict[Bucket, dict[Key, fp.Fingerprint]] = {}
        self._bucket_of: dict[Hashable, Bucket] = {}
        self._lock = threading.Lock()

    def add(self, key: Key, print_: fp.Fingerprint) -> None:
        with self._lock:
            bucket = (key[1], key[2], print_.frames)
            self._buckets.setdefault(bucket, {})[key] = print_
            self._bucket_of[key] = bucket

    def forget(self, key: Hashable) -> None:
        with self._lock:
            bucket = self._bucket_of.pop(key, None)
            if bucket is None:
                return
            entries = self._buckets[bucket]
            del entries[key]  # type: ignore[arg-type]
            if not entries:
                del self._buckets[bucket]

    def candidates(
        self, language: str | None, prompt: str | None, frames: int
    ) -> list[tuple[Key, fp.Fingerprint]]:
        """Entries within ``fp.MAX_LENGTH_DIFF`` frames, shortest length difference first, then in the
        order they were added (deterministic)."""
        with self._lock:
            found = []
            for diff in sorted(range(-fp.MAX_LENGTH_DIFF, fp.MAX_LENGTH_DIFF + 1), key=abs):
                found += list(self._buckets.get((language, prompt, frames + diff), {}).items())
            return found

    def __len__(self) -> int:
        with self._lock:
            return len(self._bucket_of)


def leading_silence(pcm16_24k: bytes) -> int:
    """The bytes of digital silence (whole samples exactly 0) at the start of PCM16 audio: ``len`` for
    audio of even length that is all silence (or empty)."""
    return (len(pcm16_24k) - len(pcm16_24k.lstrip(b"\0"))) & ~1


class SilenceTrimIndex:
    """The cached transcripts' audio by the hash of what follows its digital silence at the start (with
    the language and prompt): the key of the entry and its silent bytes at the start. One entry per
    trimmed audio, the first kept (deterministic). Thread-safe."""

    def __init__(self) -> None:
        self._entries: dict[Key, tuple[Key, int]] = {}
        self._trimmed_of: dict[Hashable, Key] = {}
        self._lock = threading.Lock()

    def add(self, trimmed: Key, key: Key, lead: int) -> None:
        with self._lock:
            if trimmed not in self._entries:
                self._entries[trimmed] = (key, lead)
                self._trimmed_of[key] = trimmed

    def get(self, trimmed: Key) -> tuple[Key, int] | None:
        with self._lock:
            return self._entries.get(trimmed)

    def forget(self, key: Hashable) -> None:
        with self._lock:
            trimmed = self._trimmed_of.pop(key, None)
            if trimmed is not None:
                del self._entries[trimmed]

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def _aligned(cached: Transcript, pcm16_24k: bytes, shift_frames: int) -> Transcript:
    """The cached transcript for this audio: its duration, the words moved by the alignment."""
    return _moved(cached, pcm16_24k, shift_frames * fp.HOP_SAMPLES * 1000 // fp.RATE_HZ)


def _moved(cached: Transcript, pcm16_24k: bytes, offset_ms: int) -> Transcript:
    """The cached transcript for this audio: its duration, the words ``offset_ms`` earlier (clipped to
    the audio)."""
    duration_ms = len(pcm16_24k) // 2 * 1000 // fp.RATE_HZ

    def moved(ms: int) -> int:
        return min(max(ms - offset_ms, 0), duration_ms)

    words = tuple(WordTiming(w.word, moved(w.start_ms), moved(w.end_ms), w.probability) for w in cached.words)
    return replace(cached, duration_ms=duration_ms, words=words)


@dataclass(frozen=True)
class FingerprintSearch:
    """One fingerprint search (audio that matched no entry byte for byte, with entries about as long):
    ``hit`` (a transcript found), ``comparisons`` (entries compared), ``cpu_s`` (the searching thread's
    CPU seconds, ``time.thread_time``) and ``wall_s``."""

    hit: bool
    comparisons: int
    cpu_s: float
    wall_s: float


class CachingTranscriber:
    """A Transcriber that remembers results by audio content (see the module docstring).
    ``trimmed_hits`` counts the lookups answered by an entry whose audio differs only in its digital
    silence before it (the module docstring), ``fingerprint_hits`` those answered by a fingerprint,
    ``fingerprint_searches`` the searches made (hit or not: audio with no entry about as long is not
    searched); ``on_search`` (optional) is told of each (:class:`FingerprintSearch`), so the server
    counts them in /metrics."""

    def __init__(
        self,
        inner: Transcriber,
        cache: ByteLRU[Transcript],
        *,
        fingerprints: bool = False,
        on_search: Callable[[FingerprintSearch], None] | None = None,
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.index: FingerprintIndex | None = FingerprintIndex() if fingerprints else None
        self.fingerprint_hits = 0
        self.fingerprint_searches = 0
        self.on_search = on_search
        self.trims = SilenceTrimIndex()
        self.trimmed_hits = 0
        cache.on_evict = self._forget

    def _forget(self, key: Hashable) -> None:
        self.trims.forget(key)
        if self.index is not None:
            self.index.forget(key)

    @staticmethod
    def _key(pcm16_24k: bytes | memoryview, language: str | None, prompt: str | None) -> Key:
        return (hashlib.blake2b(pcm16_24k, digest_size=16).digest(), language, prompt)

    def _trimmed(
        self, pcm16_24k: bytes, key: Key, language: str | None, prompt: str | None
    ) -> Transcript | None:
        """The transcript of a cached entry whose audio is this audio with more or less digital silence
        before it (at most ``MAX_LEAD_SILENCE_DIFF_MS``), moved to this audio; it is then kept under
        these exact bytes too (``key``). None when there is none."""
        if len(pcm16_24k) % 2 or not len(self.trims):
            return None
        lead = leading_silence(pcm16_24k)
        if lead >= len(pcm16_24k):
            return None  # all silence: no speech to recognise
        # A microphone's audio seldom starts on exact zeros: then the key already hashed is the trimmed one,
        # and a miss costs the event loop no second hash of the turn.
        trimmed = key if lead == 0 else self._key(memoryview(pcm16_24k)[lead:], language, prompt)
        found = self.trims.get(trimmed)
        if found is None:
            return None
        stored, stored_lead = found
        if abs(lead - stored_lead) > MAX_LEAD_SILENCE_DIFF_MS * fp.RATE_HZ // 1000 * 2:
            return None
        cached = self.cache.get(stored) if self.cache.peek(stored) else None
        if cached is None:
            return None
        self.trimmed_hits += 1
        result = _moved(cached, pcm16_24k, (stored_lead - lead) // 2 * 1000 // fp.RATE_HZ)
        self.cache.put(key, result, len(result.text.encode()) + 200)
        return result

    def _similar(self, pcm16_24k: bytes, language: str | None, prompt: str | None) -> Transcript | None:
        """The cached transcript of the best fingerprint match (lowest bit error rate, the first of
        equal ones), or None. Fingerprints the audio only when some entry is about as long."""
        if self.index is None:
            return None
        candidates = self.index.candidates(language, prompt, fp.frame_count(len(pcm16_24k)))
        if not candidates:
            return None
        cpu_started, wall_started = time.thread_time(), time.perf_counter()
        queries = fp.query_prints(pcm16_24k)
        best: tuple[fp.Match, Key] | None = None
        for key, stored in candidates:
            found = fp.match(queries, stored)
            if found is not None and (best is None or found.ber < best[0].ber):
                best = (found, key)
        cached = self.cache.get(best[1]) if best is not None else None
        self.fingerprint_searches += 1
        if cached is not None:
            self.fingerprint_hits += 1
        if self.on_search is not None:
            self.on_search(
                FingerprintSearch(
                    hit=cached is not None,
                    comparisons=len(candidates),
                    cpu_s=time.thread_time() - cpu_started,
                    wall_s=time.perf_counter() - wall_started,
                )
            )
        if best is None or cached is None:
            return None
        return _aligned(cached, pcm16_24k, best[0].shift_frames)

    def lookup(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript | None:
        """The transcript cached for these exact bytes, or None (then call ``transcribe`` in a
        thread), or for the same audio with more or less digital silence before it. Cheap enough for the
        event loop (a hash of the audio, and on a miss a strip of its silent start and a second hash; no
        model call): lets a cached turn skip the whisper queue. The fingerprint search
        (~10-30 ms of numpy for a 3 s turn) is left to ``transcribe``, off the loop."""
        if not self.cache.is_enabled:
            return None
        key = self._key(pcm16_24k, language, prompt)
        if self.cache.peek(key):
            return self.cache.get(key)
        return self._trimmed(pcm16_24k, key, language, prompt)

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        if not self.cache.is_enabled:
            return self.inner.transcribe(pcm16_24k, language=language, prompt=prompt)
        key = self._key(pcm16_24k, language, prompt)
        cached = self.cache.get(key) if self.cache.peek(key) else None
        if cached is None:
            cached = self._trimmed(pcm16_24k, key, language, prompt)
        if cached is None:
            cached = self._similar(pcm16_24k, language, prompt)
            if cached is not None:
                # These exact bytes are remembered with the answer, so the next turn that repeats them is
                # an exact hit (the event loop's hash in ``lookup``, no executor call) rather than another
                # search. Measured (issue 15, 40 pion calls replaying one clip): once a VAD cut moved,
                # every turn repeated one of a few shapes that only the fingerprint matched, ~10 ms of
                # CPU each in the stt thread (3 ms per call-second, half the loop's). The entry holds no
                # fingerprint: the index, and each later search's comparisons, do not grow with it.
                self.cache.put(key, cached, len(cached.text.encode()) + 200)
        if cached is not None:
            return cached
        self.cache.get(key)  # counts the miss
        result = self.inner.transcribe(pcm16_24k, language=language, prompt=prompt)
        print_ = fp.fingerprint(pcm16_24k) if self.index is not None else None
        # Size: the text, the fingerprint's arrays, and fixed allowances for the key and the objects
        # around them (a fingerprint's three numpy arrays and its index entries: ~400 bytes more; the
        # silence-trim index's entry: ~200).
        extra = print_.size_bytes + FINGERPRINT_OVERHEAD_BYTES if print_ is not None else 0
        self.cache.put(key, result, len(result.text.encode()) + 200 + TRIM_OVERHEAD_BYTES + extra)
        if print_ is not None and print_.loud_frames >= fp.MIN_LOUD_FRAMES and self.cache.peek(key):
            self.index.add(key, print_)  # type: ignore[union-attr]
        if len(pcm16_24k) % 2 == 0 and self.cache.peek(key):
            lead = leading_silence(pcm16_24k)
            if lead < len(pcm16_24k):
                self.trims.add(self._key(memoryview(pcm16_24k)[lead:], language, prompt), key, lead)
        return result
