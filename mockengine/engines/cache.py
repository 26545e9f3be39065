"""Bounded, thread-safe LRU caches measured in bytes, for synthesized speech and transcripts.

``ByteLRU`` keeps values up to ``max_bytes`` in total (each value's size given on ``put``), evicting the
least recently used first; a value larger than the whole budget is not kept. It counts hits, misses and
evictions, and calls an optional ``observer(hit)`` on every lookup so the server can export the counts
(``mockengine_cache_*`` in ``/metrics``) without this module knowing about Prometheus.

``CachingTranscriber`` keys transcripts by a BLAKE2b hash of the audio bytes plus the language and
prompt. Whisper decoding here is greedy at temperature 0, so the same audio gives the same text: a
cached transcript is exactly what a fresh call would return.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from mockengine.engines.stt import Transcriber, Transcript

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
    """LRU of values bounded by their total size in bytes. ``max_bytes`` 0 keeps nothing."""

    def __init__(self, max_bytes: int, observer: Callable[[bool], None] | None = None) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
        self.max_bytes = max_bytes
        self.observer = observer
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
                _, (_, evicted) = self._entries.popitem(last=False)
                self._size -= evicted
                self._evictions += 1

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(
                self._hits, self._misses, self._evictions, len(self._entries), self._size, self.max_bytes
            )


class CachingTranscriber:
    """A Transcriber that remembers results by audio content (see the module docstring)."""

    def __init__(self, inner: Transcriber, cache: ByteLRU[Transcript]) -> None:
        self.inner = inner
        self.cache = cache

    @staticmethod
    def _key(
        pcm16_24k: bytes, language: str | None, prompt: str | None
    ) -> tuple[bytes, str | None, str | None]:
        return (hashlib.blake2b(pcm16_24k, digest_size=16).digest(), language, prompt)

    def lookup(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript | None:
        """The cached transcript, or None (then call ``transcribe`` in a thread). Cheap enough for the
        event loop: a hash of the audio, no model call; lets a cached turn skip the whisper queue."""
        if not self.cache.is_enabled:
            return None
        key = self._key(pcm16_24k, language, prompt)
        return self.cache.get(key) if self.cache.peek(key) else None

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        if not self.cache.is_enabled:
            return self.inner.transcribe(pcm16_24k, language=language, prompt=prompt)
        key = self._key(pcm16_24k, language, prompt)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        result = self.inner.transcribe(pcm16_24k, language=language, prompt=prompt)
        # Size: the text plus a fixed allowance for the key and the objects around it.
        self.cache.put(key, result, len(result.text.encode()) + 200)
        return result
