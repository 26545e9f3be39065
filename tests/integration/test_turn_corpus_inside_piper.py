"""Round 18: a piper voice's mid-thought pause spoken inside the sentence (``"synthesis": "inside"``):
the two parts spoken as one sentence with no pause, cut where piper's phoneme alignment ends the first
part's last word, and joined by exactly the labelled silence. The default ("separate") clips are
unchanged (``test_turn_corpus.py`` checks the cached bytes; the last test here the piper clip)."""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import pytest

from mockengine.turn_corpus import read_pcm
from mockengine.turn_corpus.speech import (
    LEAD_MS,
    SAMPLES_PER_MS,
    TRIM_THRESHOLD,
    NoWordCut,
    Synthesizer,
    Voice,
    make_clip,
    trim,
)

pytestmark = pytest.mark.models

ITEM = {
    "id": "t-article-000-1",
    "category": "article",
    "kind": "trailing",
    "parts": ["I was going to ask you about the", "meeting tomorrow."],
    "voice": "piper:joe@1",
    "pause_ms": 1200,
    "style": "separate",
    "split": "t",
}


@pytest.fixture(scope="module")
def synth() -> Synthesizer:
    return Synthesizer()


def _clip(item: dict, synth: Synthesizer, tmp_path, name: str) -> tuple[dict, np.ndarray]:
    work = tmp_path / name
    work.mkdir()
    label = make_clip(item, synth, work)
    return label, np.frombuffer(read_pcm(work, label), dtype="<i2")


def test_a_piper_inside_clip_is_deterministic_with_the_pause_exactly_where_labelled(synth, tmp_path):
    label, samples = _clip({**ITEM, "synthesis": "inside"}, synth, tmp_path, "a")
    again, samples_again = _clip({**ITEM, "synthesis": "inside"}, Synthesizer(), tmp_path, "b")
    assert label == again and "inside_skipped" not in label and label["synthesis"] == "inside"
    assert hashlib.sha256(samples.tobytes()).digest() == hashlib.sha256(samples_again.tobytes()).digest()
    first, second = label["segments"]
    assert first["start_ms"] == LEAD_MS
    assert second["start_ms"] - first["end_ms"] == ITEM["pause_ms"]
    assert label["speech_end_ms"] == second["end_ms"] == label["duration_ms"]
    assert samples.size == label["duration_ms"] * SAMPLES_PER_MS
    assert not samples[first["end_ms"] * SAMPLES_PER_MS : second["start_ms"] * SAMPLES_PER_MS].any()
    # the cut falls in connected speech: sound within 10 ms on each side of the pause (the 3 ms ramp
    # and trimming to whole ms take a little off each edge)
    edge = 10 * SAMPLES_PER_MS
    before = samples[first["end_ms"] * SAMPLES_PER_MS - edge : first["end_ms"] * SAMPLES_PER_MS]
    after = samples[second["start_ms"] * SAMPLES_PER_MS : second["start_ms"] * SAMPLES_PER_MS + edge]
    assert np.abs(before.astype(np.int32)).max() > 10 * TRIM_THRESHOLD
    assert np.abs(after.astype(np.int32)).max() > 10 * TRIM_THRESHOLD


def test_the_piper_cut_lands_after_the_first_parts_last_word(synth, tmp_path, real_resources):
    """whisper hears the words before the pause in the first part and "meeting" starting the second:
    a cut one word early or late would move "about" or "meeting" across the pause."""
    label, samples = _clip({**ITEM, "synthesis": "inside"}, synth, tmp_path, "w")
    first, second = label["segments"]
    pcm = samples.tobytes()
    heard_first = real_resources.transcriber.transcribe(pcm[: (first["end_ms"] + 500) * SAMPLES_PER_MS * 2])
    heard_second = real_resources.transcriber.transcribe(
        pcm[(second["start_ms"] - 300) * SAMPLES_PER_MS * 2 :]
    )
    words_first = heard_first.text.lower().replace(".", "").split()
    words_second = heard_second.text.lower().replace(".", "").split()
    assert words_first[:7] == ["i", "was", "going", "to", "ask", "you", "about"], heard_first.text
    assert "meeting" not in words_first, heard_first.text
    assert words_second[:2] == ["meeting", "tomorrow"], heard_second.text


def test_the_first_part_is_the_sentences_own_not_a_sentence_of_its_own(synth, tmp_path):
    """Inside the sentence piper does not stretch the first part's end as it closes a sentence spoken
    alone: the same words take less time, and the second part is the rest of the one sentence."""
    inside, _ = _clip({**ITEM, "synthesis": "inside"}, synth, tmp_path, "in")
    alone, _ = _clip(ITEM, synth, tmp_path, "alone")
    length = [
        {k: s["end_ms"] - s["start_ms"] for k, s in enumerate(label["segments"])} for label in (inside, alone)
    ]
    assert length[0][0] < length[1][0] - 40
    whole = trim(synth.speak(" ".join(ITEM["parts"]), Voice.from_tag(ITEM["voice"])))
    # the two parts add up to the whole sentence, less the ramps and whatever trimming took
    assert abs(length[0][0] + length[0][1] - whole.size // SAMPLES_PER_MS) <= 60


def test_a_word_run_across_the_cut_is_spoken_separate_and_says_so(synth, tmp_path):
    """espeak-ng's phonemizer (piper's) runs "should have" into one word ("ʃˌʊdəv"): no cut between the
    parts' words exists, so the item is spoken as the default would, and its label says why."""
    item = {**ITEM, "parts": ["We should", "have won if Steve had turned up."], "category": "opener"}
    with pytest.raises(NoWordCut, match="runs across the cut"):
        synth.speak_inside(item["parts"], Voice.from_tag(item["voice"]), item["pause_ms"])
    label, samples = _clip({**item, "synthesis": "inside"}, synth, tmp_path, "in")
    separate, separate_samples = _clip(item, synth, tmp_path, "sep")
    assert label["synthesis"] == "separate" and "runs across the cut" in label["inside_skipped"]
    assert {k: v for k, v in label.items() if k not in ("synthesis", "inside_skipped")} == separate
    assert samples.tobytes() == separate_samples.tobytes()


def test_continuing_style_cuts_after_the_comma(synth, tmp_path):
    item = {**ITEM, "style": "continuing", "parts": ["I think", "the one with the balcony is best."]}
    label, _ = _clip({**item, "synthesis": "inside"}, synth, tmp_path, "c")
    assert label["synthesis"] == "inside"
    assert label["segments"][0]["text"] == "I think,"


def test_without_onnx_the_failure_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    with pytest.raises(RuntimeError, match=r"onnx package .* mockengine\[bench\]"):
        Synthesizer().speak_inside(ITEM["parts"], Voice.from_tag(ITEM["voice"]), ITEM["pause_ms"])


def test_separate_is_the_default_and_unchanged_for_piper(synth, tmp_path):
    label, samples = _clip(ITEM, synth, tmp_path, "default")
    named, named_samples = _clip({**ITEM, "synthesis": "separate"}, synth, tmp_path, "named")
    assert {k: v for k, v in named.items() if k != "synthesis"} == label
    assert samples.tobytes() == named_samples.tobytes()
