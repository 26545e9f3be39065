"""Round 17: a mid-thought pause spoken inside the sentence (``"synthesis": "inside"``): one espeak-ng
SSML utterance with a ``<break>``, cut at the break and joined by exactly the labelled silence (piper
voices, round 18: ``test_turn_corpus_inside_piper.py``). The
default plan and its clips are unchanged (``test_turn_corpus.py`` checks the cached bytes)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from mockengine.realtime.prosody import measure_prosody
from mockengine.turn_corpus import _fingerprint, _items, build, read_pcm, splits
from mockengine.turn_corpus.speech import LEAD_MS, SAMPLES_PER_MS, TRIM_THRESHOLD, Synthesizer, make_clip
from tests.needs import need_espeak_ng

need_espeak_ng()

ITEM = {
    "id": "t-article-000-0",
    "category": "article",
    "kind": "trailing",
    "parts": ["I was going to ask you about the", "meeting tomorrow."],
    "voice": "espeak:en-us+m3@160",
    "pause_ms": 1200,
    "style": "separate",
    "split": "t",
}


def _clip(item: dict, tmp_path, name: str) -> tuple[dict, np.ndarray]:
    work = tmp_path / name
    work.mkdir()
    label = make_clip(item, Synthesizer(), work)
    return label, np.frombuffer(read_pcm(work, label), dtype="<i2")


def test_the_default_plan_is_unchanged_and_inside_marks_every_mid_thought_item():
    for split in splits():
        default = _items(split)
        assert not any("synthesis" in item for item in default)
        assert _items(split, "separate") == default
        inside = _items(split, "inside")
        marked = [item for item in inside if "synthesis" in item]
        assert marked == [item for item in inside if item["kind"] == "trailing"]
        assert {item["voice"].split(":")[0] for item in marked} == {"espeak", "piper"}
        assert [{k: v for k, v in item.items() if k != "synthesis"} for item in inside] == default
        assert _fingerprint(inside) != _fingerprint(default)  # its own cache directory


def test_an_inside_clip_is_deterministic_with_the_pause_exactly_where_labelled(tmp_path):
    label, samples = _clip({**ITEM, "synthesis": "inside"}, tmp_path, "a")
    again, samples_again = _clip({**ITEM, "synthesis": "inside"}, tmp_path, "b")
    assert label == again
    assert hashlib.sha256(samples.tobytes()).digest() == hashlib.sha256(samples_again.tobytes()).digest()
    first, second = label["segments"]
    assert first["start_ms"] == LEAD_MS
    assert second["start_ms"] - first["end_ms"] == ITEM["pause_ms"]
    assert label["speech_end_ms"] == second["end_ms"] == label["duration_ms"]
    assert samples.size == label["duration_ms"] * SAMPLES_PER_MS
    pause = samples[first["end_ms"] * SAMPLES_PER_MS : second["start_ms"] * SAMPLES_PER_MS]
    assert not pause.any()
    # speech right up to the pause and right after it (trim snaps to whole ms)
    edge = 2 * SAMPLES_PER_MS
    before = samples[first["end_ms"] * SAMPLES_PER_MS - edge : first["end_ms"] * SAMPLES_PER_MS]
    after = samples[second["start_ms"] * SAMPLES_PER_MS : second["start_ms"] * SAMPLES_PER_MS + edge]
    assert np.abs(before.astype(np.int32)).max() > TRIM_THRESHOLD
    assert np.abs(after.astype(np.int32)).max() > TRIM_THRESHOLD
    # both words are there: the first part is most of the sentence, the second the rest
    assert first["end_ms"] - first["start_ms"] > second["end_ms"] - second["start_ms"] > 300


def test_inside_the_sentence_the_words_before_the_pause_do_not_fall_like_a_finished_sentence(tmp_path):
    """The point of the mode: espeak-ng closes a sentence spoken alone with a falling pitch; the same
    words before a <break> inside the sentence keep a level pitch (the detector's own measure)."""
    slopes = {}
    for mode in ("separate", "inside"):
        label, samples = _clip({**ITEM, "synthesis": mode}, tmp_path, mode)
        prosody = measure_prosody(samples.tobytes(), label["segments"][0]["end_ms"])
        assert prosody.pitch_slope_st_per_s is not None
        slopes[mode] = prosody.pitch_slope_st_per_s
    assert slopes["separate"] < -3.0 < slopes["inside"]


def test_separate_is_the_default_and_unchanged(tmp_path):
    label, samples = _clip(ITEM, tmp_path, "default")
    named, named_samples = _clip({**ITEM, "synthesis": "separate"}, tmp_path, "named")
    assert {k: v for k, v in named.items() if k != "synthesis"} == label
    assert samples.tobytes() == named_samples.tobytes()


def test_inside_refuses_unknown_modes_and_other_than_two_parts(tmp_path):
    with pytest.raises(ValueError, match="two parts, not 3"):
        make_clip({**ITEM, "parts": ["a", "b", "c"], "synthesis": "inside"}, Synthesizer(), tmp_path)
    with pytest.raises(ValueError, match="choose from separate, inside"):
        make_clip({**ITEM, "synthesis": "joined"}, Synthesizer(), tmp_path)
    with pytest.raises(ValueError, match="choose from separate, inside"):
        build("heldout_r2", tmp_path, synthesis="joined")
