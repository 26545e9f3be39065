"""The byte-bounded LRU behind the speech and transcript caches, and the caching transcriber."""

from __future__ import annotations

import pytest

from mockengine.conformance.audio import load_clips
from mockengine.engines.cache import ByteLRU, CachingTranscriber, leading_silence
from mockengine.engines.fakes import FakeTranscriber
from mockengine.engines.stt import Transcript, WordTiming

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


# -- the same audio with more or less digital silence at its ends ------------------------------------------

MS = 48  # bytes of PCM16 24 kHz per millisecond


class WordsTranscriber:
    """The words of a clip at fixed times from the audio's first non-zero sample, as whisper places
    them; counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        self.calls += 1
        lead_ms = leading_silence(pcm16_24k) // MS
        words = (
            WordTiming("Wait,", lead_ms + 40, lead_ms + 400, 0.9),
            WordTiming("stop.", lead_ms + 500, lead_ms + 900, 0.9),
        )
        return Transcript("Wait, stop.", len(pcm16_24k) // MS, "en", words)


def _speech() -> bytes:
    return load_clips()["interrupt"].pcm  # real speech, its first and last samples non-zero


def _turn(speech: bytes, lead_ms: int, trail_ms: int = 205) -> bytes:
    """A committed turn as server_vad cuts it from a client that streams digital silence: the prefix
    padding that was there before the speech, the speech, the silence heard after it."""
    return bytes(lead_ms * MS) + speech + bytes(trail_ms * MS)


def test_a_turn_cut_with_less_silence_before_it_gets_the_cached_transcript_on_the_loop() -> None:
    # The load bench's barge-in: the interrupt spoken 220 ms after the previous turn's commit, so server_vad
    # found 220 ms of silence for its 300 ms prefix padding; the same clip, heard before, had all 300.
    inner = WordsTranscriber()
    transcriber = CachingTranscriber(inner, ByteLRU(100_000))
    speech = _speech()
    first = transcriber.transcribe(_turn(speech, 300), language="en")
    barge_in = _turn(speech, 220)
    found = transcriber.lookup(barge_in, language="en")  # the event loop's lookup: no executor call
    assert found is not None and inner.calls == 1
    assert found.text == first.text == "Wait, stop."
    assert found.duration_ms == len(barge_in) // MS == first.duration_ms - 80
    assert [(w.start_ms, w.end_ms) for w in found.words] == [(260, 620), (720, 1120)]
    assert found.words == WordsTranscriber().transcribe(barge_in).words  # what the model gives this cut
    assert transcriber.trimmed_hits == 1
    assert transcriber.lookup(barge_in, language="en") == found and transcriber.trimmed_hits == 1  # exact now
    # A second more silence before it (the bound) is the same speech too; transcribe finds it as well.
    assert transcriber.transcribe(_turn(speech, 1300), language="en").words[0].start_ms == 1340
    assert inner.calls == 1 and transcriber.trimmed_hits == 2


def test_only_the_same_samples_between_the_silences_get_a_cached_transcript() -> None:
    inner = WordsTranscriber()
    transcriber = CachingTranscriber(inner, ByteLRU(100_000))
    speech = _speech()
    transcriber.transcribe(_turn(speech, 300), language="en")
    middle = len(speech) // 2 & ~1
    changed = speech[:middle] + bytes([speech[middle] ^ 1]) + speech[middle + 1 :]  # one sample, by one
    cut_short = speech[: len(speech) - 20 * MS]  # the speech's last 20 ms not heard
    noise_floor = b"\x01\x00" * 24 * 300 + speech + bytes(205 * MS)  # a quiet lead is not digital silence
    far = _turn(speech, 300 + 1001)  # more than a second more silence before it
    # A longer pause after the speech: whisper may close the phrase differently (semantic_vad reads it).
    longer_pause = _turn(speech, 300, 705)
    for other in (_turn(changed, 300), _turn(cut_short, 300), noise_floor, far, longer_pause):
        assert transcriber.lookup(other, language="en") is None
    assert transcriber.lookup(_turn(speech, 220), language="de") is None  # another language, another key
    assert transcriber.lookup(bytes(3 * 48_000), language="en") is None  # all silence
    assert transcriber.lookup(_turn(speech, 220) + b"\x00", language="en") is None  # an odd byte
    assert inner.calls == 1 and transcriber.trimmed_hits == 0


def test_an_evicted_transcript_is_forgotten_by_the_silence_index() -> None:
    inner = WordsTranscriber()
    cache: ByteLRU[Transcript] = ByteLRU(600)  # room for one whisper entry (~411 bytes)
    transcriber = CachingTranscriber(inner, cache)
    speech = _speech()
    transcriber.transcribe(_turn(speech, 300), language="en")
    assert len(transcriber.trims) == 1
    transcriber.transcribe(_turn(speech[: len(speech) // 2 & ~1], 300), language="en")  # evicts the first
    assert len(transcriber.trims) == 1
    assert transcriber.lookup(_turn(speech, 220), language="en") is None
