"""The transcript cache's acoustic fingerprint on real speech: the committed test utterances and the
conformance clips, through real libopus (PyAV's encoder at a browser's 48 kHz, the engine's decoder)."""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import pytest

from mockengine.bench.fingerprint import (
    ROOT,
    distinct,
    gain,
    minimal_pair_matches,
    opus_round_trip,
    read_wav,
    recut,
    resample_round_trip,
)
from mockengine.engines import fingerprint as fp
from mockengine.engines.cache import ByteLRU, CachingTranscriber
from mockengine.engines.fakes import FakeTranscriber
from mockengine.engines.stt import Transcript, WordTiming
from tests.needs import need_espeak_ng


@cache
def clips() -> dict[str, bytes]:
    folders = [ROOT / "tests" / "data" / "utterances", ROOT / "mockengine" / "conformance" / "clips"]
    found = {f"{d.name}/{p.name}": read_wav(p) for d in folders for p in sorted(d.glob("*.wav"))}
    return distinct(found)


@cache
def prints() -> dict[str, fp.Fingerprint]:
    return {name: fp.fingerprint(pcm) for name, pcm in clips().items()}


@cache
def opus_queries(bit_rate: int) -> dict[str, tuple[fp.Fingerprint, ...]]:
    """Every clip after Opus at ``bit_rate``, the packet grid at a different offset for each clip."""
    return {
        name: fp.query_prints(opus_round_trip(pcm, bit_rate, offset_samples=(index * 97) % 480))
        for index, (name, pcm) in enumerate(sorted(clips().items()))
    }


def test_there_are_enough_real_clips() -> None:
    assert len(clips()) >= 50
    assert all(p.loud_frames >= fp.MIN_LOUD_FRAMES for p in prints().values())


@pytest.mark.parametrize("bit_rate", [24_000, 32_000])
def test_every_clip_matches_itself_through_opus(bit_rate: int) -> None:
    missed = [
        name for name, query in opus_queries(bit_rate).items() if fp.match(query, prints()[name]) is None
    ]
    assert missed == []


@pytest.mark.parametrize(
    "transform",
    [
        resample_round_trip,
        lambda pcm: gain(pcm, 3.0),
        lambda pcm: gain(pcm, -4.0),
        lambda pcm: recut(pcm, 25, -30),
    ],
    ids=["resample-48k", "gain+3dB", "gain-4dB", "cut-25ms-pad-30ms"],
)
def test_every_clip_matches_itself_after_resampling_gain_and_recutting(transform) -> None:  # type: ignore[no-untyped-def]
    missed = [
        name
        for name, pcm in clips().items()
        if fp.match(fp.query_prints(transform(pcm)), prints()[name]) is None
    ]
    assert missed == []


def test_no_clip_matches_another_clip_even_through_opus() -> None:
    """Every ordered pair of distinct clips, the query as sent and after Opus at 24 kb/s: no match, and
    the lowest bit error rate stays clear of the threshold."""
    names = sorted(clips())
    queries = {name: fp.query_prints(clips()[name]) for name in names}
    lowest = 1.0
    for a, b in combinations(names, 2):
        for query_name, stored_name in ((a, b), (b, a)):
            for query in (queries[query_name], opus_queries(24_000)[query_name]):
                assert fp.match(query, prints()[stored_name]) is None, (query_name, stored_name)
                found = fp.best_alignment(query, prints()[stored_name])
                lowest = min(lowest, found.ber if found else 1.0)
    assert lowest > fp.MAX_BER + 0.05


def test_sentences_one_word_apart_in_the_same_voice_never_match() -> None:
    """The hard case: the bits alone match "my name is John Smith" to "... Jane Smith" (espeak-ng, same
    voice); the band-level verification must refuse every such pair, as made and through Opus."""
    need_espeak_ng()
    found = minimal_pair_matches()
    assert found.compared >= 100 and found.bits_only >= 20  # the bits alone would match many
    assert found.matched == [] and found.closest_db > fp.MAX_LOCAL_DB


def test_silence_and_short_audio_have_no_fingerprint_match() -> None:
    silence = bytes(48_000 * 2)
    assert fp.match(fp.query_prints(silence), fp.fingerprint(silence)) is None
    short = next(iter(clips().values()))[: 48 * 250]  # 250 ms
    assert fp.match(fp.query_prints(short), fp.fingerprint(short)) is None


def test_the_fingerprint_is_deterministic_and_frame_count_predicts_its_length() -> None:
    pcm = opus_round_trip(next(iter(clips().values())), 32_000, 123)
    first, second = fp.fingerprint(pcm), fp.fingerprint(bytes(pcm))
    assert np.array_equal(first.codes, second.codes) and np.array_equal(first.loud, second.loud)
    assert opus_round_trip(next(iter(clips().values())), 32_000, 123) == pcm
    for size in (0, 100, 2 * 1200, 2 * 1440, 2 * 24_000, 2 * 24_001 + 1):
        assert fp.frame_count(size) == fp.fingerprint(bytes(size)).frames


class TimedTranscriber(FakeTranscriber):
    """The fake's text as one word at 400-900 ms."""

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        plain = super().transcribe(pcm16_24k, language=language, prompt=prompt)
        return Transcript(plain.text, plain.duration_ms, plain.language, (WordTiming(plain.text, 400, 900),))


def test_the_cache_answers_an_opus_round_trip_with_the_cached_transcript() -> None:
    name = "utterances/17_what_is_the_capital_of.wav"
    original = clips()[name]
    inner = TimedTranscriber(default="what is the capital of")
    transcriber = CachingTranscriber(inner, ByteLRU(100_000), fingerprints=True)
    first = transcriber.transcribe(original, language="en")
    heard = opus_round_trip(original, 32_000, 200)
    assert transcriber.lookup(heard, language="en") is None  # the event loop's lookup: exact bytes only
    hit = transcriber.transcribe(heard, language="en")
    assert hit.text == first.text and len(inner.calls) == 1 and transcriber.fingerprint_hits == 1
    assert hit.duration_ms == len(heard) * 1000 // 48_000 != first.duration_ms
    assert hit.words[0].start_ms > 400  # the codec and the offset delay the words; the timings follow
    assert transcriber.transcribe(heard, language="de").text == first.text  # the fake's one text…
    assert len(inner.calls) == 2  # …but another language is another entry: whisper ran
    other = clips()["utterances/18_how_are_you_doing_today.wav"]
    transcriber.transcribe(opus_round_trip(other, 32_000), language="en")
    assert len(inner.calls) == 3 and transcriber.fingerprint_hits == 1


def test_without_fingerprints_only_exact_bytes_match_and_eviction_forgets_the_fingerprint() -> None:
    original = clips()["utterances/02_i_went_to_the_store.wav"]
    heard = opus_round_trip(original, 32_000, 50)
    exact = CachingTranscriber(FakeTranscriber(default="words"), ByteLRU(100_000), fingerprints=False)
    exact.transcribe(original)
    exact.transcribe(heard)
    assert exact.fingerprint_hits == 0 and len(exact.inner.calls) == 2  # type: ignore[attr-defined]
    small = CachingTranscriber(
        FakeTranscriber(default="words"), ByteLRU(9_000), fingerprints=True
    )  # room for one entry
    small.transcribe(original)
    assert small.index is not None and len(small.index) == 1
    small.transcribe(clips()["utterances/03_it_is_a_lovely_day.wav"])
    assert len(small.index) == 1
    small.transcribe(heard)
    assert small.fingerprint_hits == 0 and len(small.inner.calls) == 3  # type: ignore[attr-defined]


def test_the_fingerprint_is_a_serve_setting_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from mockengine.cli import build_parser, settings_from_args

    monkeypatch.delenv("MOCKENGINE_STT_CACHE_FINGERPRINT", raising=False)
    assert settings_from_args(build_parser().parse_args(["serve"])).stt_cache_fingerprint is False
    on = settings_from_args(build_parser().parse_args(["serve", "--stt-cache-fingerprint"]))
    assert on.stt_cache_fingerprint is True
    monkeypatch.setenv("MOCKENGINE_STT_CACHE_FINGERPRINT", "1")
    assert settings_from_args(build_parser().parse_args(["serve"])).stt_cache_fingerprint is True


def test_each_fingerprint_search_is_counted_with_its_comparisons_and_times() -> None:
    """Issue 15: what the stt thread spends on fingerprint searches is told to ``on_search`` (the
    server's /metrics counters), hit or miss; exact bytes and audio with no entry as long search none."""
    from mockengine.engines.cache import FingerprintSearch

    searches: list[FingerprintSearch] = []
    original = clips()["utterances/17_what_is_the_capital_of.wav"]
    transcriber = CachingTranscriber(
        TimedTranscriber(default="what is the capital of"),
        ByteLRU(100_000),
        fingerprints=True,
        on_search=searches.append,
    )
    transcriber.transcribe(original, language="en")
    transcriber.transcribe(original, language="en")  # exact bytes: no search
    assert searches == [] and transcriber.fingerprint_searches == 0
    transcriber.transcribe(opus_round_trip(original, 32_000, 200), language="en")
    assert [(s.hit, s.comparisons) for s in searches] == [(True, 1)]
    assert searches[0].cpu_s >= 0 and searches[0].wall_s >= 0
    assert transcriber.fingerprint_searches == 1 and transcriber.fingerprint_hits == 1
    other = clips()["utterances/18_how_are_you_doing_today.wav"]
    transcriber.transcribe(other, language="en")  # another length: searched only if some entry is as long
    assert transcriber.fingerprint_searches == len(searches)
    assert [s.hit for s in searches[1:]] == [False] * (len(searches) - 1)
    assert transcriber.fingerprint_hits == 1


def test_the_servers_fingerprint_counters_move_on_a_search() -> None:
    from prometheus_client import REGISTRY

    from mockengine.engines.cache import FingerprintSearch
    from mockengine.server.metrics import count_fingerprint_search

    def value(name: str, labels: dict[str, str] | None = None) -> float:
        return REGISTRY.get_sample_value(name, labels or {}) or 0.0

    hits = value("mockengine_transcript_fingerprint_searches_total", {"result": "hit"})
    misses = value("mockengine_transcript_fingerprint_searches_total", {"result": "miss"})
    compared = value("mockengine_transcript_fingerprint_comparisons_total")
    count_fingerprint_search(FingerprintSearch(hit=True, comparisons=3, cpu_s=0.01, wall_s=0.02))
    count_fingerprint_search(FingerprintSearch(hit=False, comparisons=2, cpu_s=0.01, wall_s=0.02))
    assert value("mockengine_transcript_fingerprint_searches_total", {"result": "hit"}) == hits + 1
    assert value("mockengine_transcript_fingerprint_searches_total", {"result": "miss"}) == misses + 1
    assert value("mockengine_transcript_fingerprint_comparisons_total") == compared + 5
    assert value("mockengine_transcript_fingerprint_search_cpu_seconds_total") > 0
    assert value("mockengine_transcript_fingerprint_search_seconds_total") > 0


def test_audio_answered_by_its_fingerprint_is_an_exact_hit_the_next_time() -> None:
    """Issue 15: 40 calls replaying one clip repeated a few byte-shapes only the fingerprint matched, and
    each repeat searched again (~10 ms of the stt thread). The answer is now kept under its exact bytes:
    the event loop's ``lookup`` finds it, no search, no whisper, the index as it was."""
    original = clips()["utterances/17_what_is_the_capital_of.wav"]
    inner = TimedTranscriber(default="what is the capital of")
    transcriber = CachingTranscriber(inner, ByteLRU(100_000), fingerprints=True)
    transcriber.transcribe(original, language="en")
    heard = opus_round_trip(original, 32_000, 200)
    hit = transcriber.transcribe(heard, language="en")
    assert transcriber.fingerprint_searches == 1 and transcriber.fingerprint_hits == 1
    assert transcriber.lookup(heard, language="en") == hit  # exact bytes now: the loop's hash finds it
    assert transcriber.transcribe(heard, language="en") == hit
    assert transcriber.fingerprint_searches == 1 and len(inner.calls) == 1
    assert transcriber.index is not None and len(transcriber.index) == 1  # no fingerprint kept for it
    assert transcriber.lookup(heard, language="de") is None  # another language is another entry


def _reference_prints(samples: np.ndarray, hop: int) -> fp.Fingerprint:
    """The fingerprint as the module docstring defines it, computed the plain way: |z|² of every rfft
    bin through the band matrix, each window's mean power by squaring the window."""
    frames = np.lib.stride_tricks.sliding_window_view(samples, fp.WINDOW_SAMPLES)[::hop]
    band_power = (np.abs(np.fft.rfft(frames * fp._window(), axis=1)) ** 2) @ fp._band_matrix()
    energy_db = 10.0 * np.log10(band_power + 1e-3)
    lag = fp.LAG_FRAMES * fp.HOP_SAMPLES // hop
    across = energy_db[:, :-1] - energy_db[:, 1:]
    codes = ((across[lag:] - across[:-lag]) > 0).astype(np.uint32) @ fp._BITS
    mean_power = (frames[lag:] ** 2).mean(axis=1) / fp._FULL_SCALE_POWER
    loud = 10.0 * np.log10(mean_power + 1e-12) > fp.QUIET_DBFS
    levels_db = 10.0 * np.log10(band_power[lag:] + 10 ** (fp.LEVEL_FLOOR_DB / 10)) - fp.LEVEL_FLOOR_DB
    levels = np.clip(np.round(levels_db * 2), 0, 255).astype(np.uint8)
    return fp.Fingerprint(np.where(loud, codes, 0).astype(np.uint32), loud, levels)


def test_the_fast_fingerprint_is_the_plain_one_bit_for_bit():
    """The search's cost cut (only the bands' bins, re² + im², running sums for the mean power) must not
    move a bit: cached fingerprints and the bench's thresholds were made with the plain arithmetic."""
    for name, pcm in list(clips().items())[:12]:
        samples = fp._samples(pcm)
        for hop in (fp.HOP_SAMPLES, fp.HOP_SAMPLES // fp.PHASES):
            fast, plain = fp._prints(samples, hop), _reference_prints(samples, hop)
            assert np.array_equal(fast.codes, plain.codes), name
            assert np.array_equal(fast.loud, plain.loud), name
            assert np.array_equal(fast.levels, plain.levels), name
