"""The byte-bounded LRU behind the speech and transcript caches, and the caching transcriber."""

from __future__ import annotations

import pytest

from mockengine.engines.cache import ByteLRU, CachingTranscriber
from mockengine.engines.fakes import FakeTranscriber

SECOND_24K = bytes(48_000)


def test_total_size_stays_within_the_byte_budget_evicting_least_recently_used() -> None:
    cache: ByteLRU[str] = ByteLRU(100)
    cache.put("a", "A", 40)
    cache.put("b", "B", 40)
    assert cache.get("a") == "A"  # "a" is now the most recently used
    cache.put("c", "C", 40)  # 120 > 100: the least recently used ("b") goes
    assert cache.get("b") is None
    assert cache.get("a") == "A" and cache.get("c") == "C"
    stats = cache.stats()
    assert stats.size_bytes == 80 <= stats.max_bytes
    assert (stats.entries, stats.evictions) == (2, 1)


def test_a_value_larger_than_the_budget_is_not_kept_and_zero_turns_the_cache_off() -> None:
    cache: ByteLRU[str] = ByteLRU(10)
    cache.put("big", "x", 11)
    assert cache.get("big") is None and cache.stats().entries == 0
    off: ByteLRU[str] = ByteLRU(0)
    off.put("k", "v", 1)
    assert not off.is_enabled and off.get("k") is None
    with pytest.raises(ValueError, match="max_bytes"):
        ByteLRU(-1)


def test_replacing_a_key_counts_its_size_once() -> None:
    cache: ByteLRU[str] = ByteLRU(100)
    cache.put("k", "v1", 60)
    cache.put("k", "v2", 70)
    assert cache.get("k") == "v2" and cache.stats().size_bytes == 70


def test_hit_rate_and_observer_count_every_lookup_but_peek_counts_none() -> None:
    seen: list[bool] = []
    cache: ByteLRU[int] = ByteLRU(1000, observer=seen.append)
    assert cache.stats().hit_rate is None
    cache.get("x")
    cache.put("x", 1, 10)
    cache.get("x")
    cache.get("x")
    assert cache.peek("x") and not cache.peek("y")
    stats = cache.stats()
    assert (stats.hits, stats.misses) == (2, 1)
    assert stats.hit_rate == pytest.approx(2 / 3)
    assert seen == [False, True, True]


def test_same_operations_give_the_same_contents() -> None:
    def run() -> list[str | None]:
        cache: ByteLRU[str] = ByteLRU(50)
        for i in range(20):
            cache.put(f"k{i % 7}", f"v{i}", 10 + i % 3)
            cache.get(f"k{(i * 3) % 7}")
        return [cache.get(f"k{i}") for i in range(7)]

    assert run() == run()


def test_caching_transcriber_calls_the_model_once_per_distinct_audio() -> None:
    inner = FakeTranscriber(script={0: "first", 1: "second"})
    cache: ByteLRU = ByteLRU(10_000)
    transcriber = CachingTranscriber(inner, cache)
    other = b"\x01\x00" * 24_000
    assert transcriber.lookup(SECOND_24K, language="en") is None
    assert transcriber.transcribe(SECOND_24K, language="en").text == "first"
    assert transcriber.transcribe(SECOND_24K, language="en").text == "first"
    assert transcriber.lookup(SECOND_24K, language="en") is not None
    assert transcriber.transcribe(other, language="en").text == "second"
    assert transcriber.transcribe(SECOND_24K, language="de").text == ""  # another language is another key
    assert len(inner.calls) == 3
    stats = cache.stats()
    assert (stats.hits, stats.misses) == (2, 3)


def test_caching_transcriber_with_the_cache_off_always_asks_the_model() -> None:
    inner = FakeTranscriber(default="words")
    transcriber = CachingTranscriber(inner, ByteLRU(0))
    transcriber.transcribe(SECOND_24K)
    transcriber.transcribe(SECOND_24K)
    assert len(inner.calls) == 2 and transcriber.lookup(SECOND_24K) is None
