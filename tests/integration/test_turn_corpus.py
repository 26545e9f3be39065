"""Issue 18: semantic_vad on the tune half of the turn corpus, real audio and the real whisper model.

Only the tune half runs here (it is what the scoring was set on; floors sit a little under what it
measures so a regression shows). The other splits (burned held-out sets, round 3's ``dev_r3`` and any
sealed ``heldout_r<N>``) are reported by ``make bench`` (section ``turns``) and never asserted on, so
nobody tunes against a sealed split through a failing test. Decisions do not depend on
transcription latency, so these runs model none.
"""

from __future__ import annotations

import pytest

from mockengine.bench.turn_corpus import FINISHED, category_table, evaluate
from mockengine.turn_corpus import load
from mockengine.turn_eval import MAX_WAIT_MS, CachingTranscriber
from tests.needs import need_espeak_ng

pytestmark = pytest.mark.models

need_espeak_ng()


@pytest.fixture(scope="module")
def results(real_resources):
    return evaluate("tune", CachingTranscriber(real_resources.transcriber), measured_latency=False)


@pytest.fixture(scope="module")
def table(results):
    return category_table(results)


def test_corpus_labels_mark_exact_speech_positions():
    directory, labels = load("tune")
    import numpy as np

    from mockengine.turn_corpus import read_pcm

    for label in labels[::9]:
        samples = np.frombuffer(read_pcm(directory, label), dtype="<i2")
        for segment in label["segments"]:
            inside = np.abs(samples[segment["start_ms"] * 24 : segment["end_ms"] * 24].astype(int))
            assert inside[:24].max() > 100 and inside[-24:].max() > 100
        gap = label["segments"][-1]["start_ms"] - label["segments"][0]["end_ms"]
        if label["kind"] == "trailing":
            assert gap == label["pause_ms"]
            start = label["segments"][0]["end_ms"] * 24
            assert not samples[start : start + gap * 24].any()


# Round 2 measured 1/41, 2/50, 0/50 on this half (round 1: 2/41, 3/50, 0/50).
@pytest.mark.parametrize(("eagerness", "floor"), [("high", 0.05), ("medium", 0.08), ("low", 0.02)])
def test_mid_thought_pauses_are_rarely_cut(table, eagerness, floor):
    pooled = table[eagerness]["all mid-thought"]
    assert pooled["counted"] >= 40
    assert pooled["cut"] / pooled["counted"] <= floor, table[eagerness]


def test_high_eagerness_ends_finished_utterances_fast(table):
    finished = table["high"]["all finished"]
    assert finished["median_policy_ms"] <= 400, finished
    assert table["high"]["question"]["median_policy_ms"] <= 300


@pytest.mark.parametrize("eagerness", ["high", "medium", "low"])
def test_every_finished_utterance_ends_within_the_maximum_wait(results, eagerness):
    for label, outcome in results:
        if outcome.config.endswith(eagerness) and label["category"] in FINISHED:
            assert outcome.decided_at_ms is not None, label["id"]
            assert not outcome.was_cut_off, label["id"]
            assert outcome.policy_delay_ms <= MAX_WAIT_MS[eagerness] + 20, (label["id"], outcome)


def test_lower_eagerness_is_never_faster(results):
    delays: dict[tuple[str, str], int] = {}
    for label, outcome in results:
        if label["category"] in FINISHED:
            delays[(label["id"], outcome.config.split()[-1])] = outcome.policy_delay_ms
    for uid in {key[0] for key in delays}:
        assert delays[(uid, "high")] <= delays[(uid, "medium")] <= delays[(uid, "low")], uid


def test_turn_ends_carry_their_scored_cues(results):
    semantic = [outcome for _, outcome in results if outcome.reason and outcome.cues]
    assert len(semantic) == len([o for _, o in results if o.reason])
    names = {cue["cue"] for outcome in semantic for cue in outcome.cues}
    assert {"lexical", "pitch", "last_word"} <= names
    for outcome in semantic:
        assert all(set(cue) == {"cue", "weight", "reason"} for cue in outcome.cues)


def test_corpus_audio_is_deterministic(tmp_path):
    """Re-making a clip gives the cached bytes (espeak-ng, and piper with its noise at zero)."""
    from mockengine.turn_corpus import plan, read_pcm
    from mockengine.turn_corpus.speech import Synthesizer, make_clip

    synth = Synthesizer()
    items = [item for item in plan() if item["kind"] == "trailing"]
    for item in (next(i for i in items if i["voice"].startswith(engine)) for engine in ("espeak", "piper")):
        # Only the item's own split is made (every split's clips took CI a quarter of an hour to make)
        directory, labels = load(item["split"])
        cached = next(label for label in labels if label["id"] == item["id"])
        remade = make_clip(item, synth, tmp_path)
        assert remade["segments"] == cached["segments"]
        assert read_pcm(tmp_path, remade) == read_pcm(directory, cached)
