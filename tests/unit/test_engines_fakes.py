"""The fake engines keep the real engines' contracts."""

from __future__ import annotations

import numpy as np
import pytest

from mockengine.engines import OUTPUT_RATE_HZ, VOICE_NAMES, FakeSynthesizer, FakeTranscriber, normalize_text
from mockengine.engines.fakes import tone_hz


def _silence_ms(duration_ms: int) -> bytes:
    return b"\x00\x00" * (OUTPUT_RATE_HZ * duration_ms // 1000)


def _dominant_hz(pcm16: bytes) -> float:
    samples = np.frombuffer(pcm16, dtype="<i2").astype(np.float64)
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.argmax(spectrum) * OUTPUT_RATE_HZ / len(samples))


def test_fake_transcriber_follows_its_script_then_the_default() -> None:
    fake = FakeTranscriber({0: "first", 2: "third"}, default="other")
    texts = [fake.transcribe(_silence_ms(500)).text for _ in range(4)]
    assert texts == ["first", "other", "third", "other"]
    assert len(fake.calls) == 4


def test_fake_transcriber_reports_duration_and_language() -> None:
    fake = FakeTranscriber(default="hello")
    result = fake.transcribe(_silence_ms(1_250), language="de")
    assert (result.text, result.duration_ms, result.language) == ("hello", 1_250, "de")


def test_fake_transcriber_returns_empty_for_very_short_audio() -> None:
    result = FakeTranscriber(default="hello").transcribe(_silence_ms(50))
    assert (result.text, result.duration_ms, result.language) == ("", 50, None)


def test_fake_synthesizer_segments_by_sentence_with_char_based_duration() -> None:
    text = "Hello there.  How are you?"
    segments = FakeSynthesizer(ms_per_char=50.0).synthesize(text, voice="alloy")
    assert [segment.text for segment in segments] == ["Hello there.", "How are you?"]
    assert " ".join(segment.text for segment in segments) == normalize_text(text)
    assert [segment.duration_ms for segment in segments] == [600.0, 600.0]


def test_fake_synthesizer_is_deterministic_and_audible() -> None:
    first = FakeSynthesizer().synthesize("Same words.", voice="sage")
    second = FakeSynthesizer().synthesize("Same words.", voice="sage")
    assert first == second
    samples = np.frombuffer(first[0].pcm16, dtype="<i2")
    assert int(np.abs(samples).max()) > 5_000


def test_fake_voices_differ_by_tone() -> None:
    tones = {voice: tone_hz(voice) for voice in VOICE_NAMES}
    assert len(set(tones.values())) == len(VOICE_NAMES)
    segments = FakeSynthesizer().synthesize("A fairly long sentence for a clean spectrum.", voice="cedar")
    assert _dominant_hz(segments[0].pcm16) == pytest.approx(tones["cedar"], abs=2.0)


def test_fake_synthesizer_speed_shortens_audio() -> None:
    fake = FakeSynthesizer(ms_per_char=40.0)
    normal = fake.synthesize("Quick.", voice="ash")[0]
    fast = fake.synthesize("Quick.", voice="ash", speed=1.5)[0]
    assert fast.duration_ms == pytest.approx(normal.duration_ms / 1.5, abs=0.1)


def test_fake_synthesizer_rejects_unknown_voice_and_bad_speed() -> None:
    fake = FakeSynthesizer()
    with pytest.raises(ValueError, match="unknown voice 'nova'"):
        fake.synthesize("Hi.", voice="nova")
    with pytest.raises(ValueError, match="speed"):
        fake.synthesize("Hi.", voice="alloy", speed=2.0)


def test_fake_synthesizer_blank_text_gives_no_segments() -> None:
    assert FakeSynthesizer().synthesize("  ", voice="alloy") == []


def test_a_cached_fake_synthesizer_answers_lookups_with_the_tones_it_made() -> None:
    """With a speech cache (tools/append_bench.py) the stand-in keeps its tones by sentence as piper does:
    ``lookup`` (the event loop's path) gives None until every sentence was made, then the same bytes an
    uncached synthesizer makes; without one, ``lookup`` is always None (every reply in the thread pool)."""
    from mockengine.engines.cache import ByteLRU

    text = "Paris is the capital. It is in France!"
    plain, cached = FakeSynthesizer(), FakeSynthesizer(cache=ByteLRU(1 << 20))
    assert cached.lookup(text, voice="alloy") is None
    made = cached.synthesize(text, voice="alloy")
    assert made == plain.synthesize(text, voice="alloy")
    assert cached.lookup(text, voice="alloy") == made
    assert cached.lookup(text, voice="ash") is None and cached.lookup(text, voice="alloy", speed=1.5) is None
    assert cached.lookup(text, voice="nobody") is None and cached.lookup(text, voice="alloy", speed=9) is None
    assert plain.synthesize(text, voice="alloy") and plain.lookup(text, voice="alloy") is None
    assert cached.cache.stats().hits >= 2


def test_fake_resources_keep_a_speech_cache_only_when_asked() -> None:
    from mockengine.server.resources import make_fake_resources
    from mockengine.settings import Settings

    assert "speech" not in make_fake_resources(Settings()).caches
    resources = make_fake_resources(Settings(), speech_cache=True)
    synthesizer = resources.synthesizer
    assert isinstance(synthesizer, FakeSynthesizer)
    assert resources.caches["speech"] is synthesizer.cache and synthesizer.cache.is_enabled
