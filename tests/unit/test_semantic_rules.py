"""The semantic turn rules: a table per rule, then accuracy on the labelled espeak-ng utterances.

Also checks that the recorded speech those evaluations (and the VAD tests) rely on matches its labels.
"""

from __future__ import annotations

import json
import wave
from pathlib import Path

import numpy as np
import pytest

from mockengine.realtime.semantic_rules import Completeness, Judgement, ends_on_object_verb, judge_utterance

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
UTTERANCE_DIR = DATA_DIR / "utterances"
CLIP_DIR = Path(__file__).resolve().parents[2] / "mockengine" / "conformance" / "clips"
SAMPLES_PER_MS = 16

COMPLETE, QUESTION = Completeness.COMPLETE, Completeness.QUESTION
INCOMPLETE, UNKNOWN = Completeness.INCOMPLETE, Completeness.UNKNOWN

CASES = [
    # 1-2: nothing to judge
    ("", UNKNOWN, "empty"),
    ("   ", UNKNOWN, "empty"),
    ("...", UNKNOWN, "too_short"),
    (" - ", UNKNOWN, "too_short"),
    # 3-4: trailing punctuation
    ("I think that, um...", INCOMPLETE, "ellipsis"),
    (" So...", INCOMPLETE, "ellipsis"),
    ("My favorite color is…", INCOMPLETE, "ellipsis"),
    ("The best part was, uh,", INCOMPLETE, "trailing_punctuation:,"),
    ("There are three things:", INCOMPLETE, "trailing_punctuation::"),
    ("I wanted to say -", INCOMPLETE, "trailing_punctuation:-"),
    # 5: contractions
    ("Well, I'm", INCOMPLETE, "trailing_contraction:i'm"),
    ("I think it’s", INCOMPLETE, "trailing_contraction:it's"),
    # 6: conjunctions, "so" and "then" only when they join
    ("We could go out, but", INCOMPLETE, "trailing_conjunction:but"),
    ("I was talking to my friend and", INCOMPLETE, "trailing_conjunction:and"),
    ("I stayed home because", INCOMPLETE, "trailing_conjunction:because"),
    ("We can have pizza or?", INCOMPLETE, "trailing_conjunction:or"),
    ("The shop was closed so", INCOMPLETE, "trailing_conjunction:so"),
    # Round 14: "now and then" is an idiom; "there and then" is left as a clause under way.
    ("Now and then.", COMPLETE, "terminal_punctuation:."),
    ("I still see him every now and then.", COMPLETE, "terminal_punctuation:."),
    ("We went over there and then", INCOMPLETE, "trailing_conjunction:and then"),
    ("And then", INCOMPLETE, "trailing_conjunction:and then"),
    ("I think so.", COMPLETE, "terminal_punctuation:."),
    ("Okay, see you then.", COMPLETE, "terminal_punctuation:."),
    # 7: fillers and hedges
    ("I was, um", INCOMPLETE, "trailing_filler:um"),
    ("The answer is uh", INCOMPLETE, "trailing_filler:uh"),
    ("She is you know", INCOMPLETE, "trailing_filler:you know"),
    ("It was like", INCOMPLETE, "trailing_filler:like"),
    ("It was good, you know?", QUESTION, "question_mark"),
    ("That's what I mean.", COMPLETE, "terminal_punctuation:."),
    ("We can do whatever you like.", COMPLETE, "terminal_punctuation:."),
    # 8: articles and possessives
    ("I was going to the", INCOMPLETE, "trailing_article:the"),
    ("For my birthday I would like a.", INCOMPLETE, "trailing_article:a"),
    ("So I called my", INCOMPLETE, "trailing_possessive:my"),
    # 9: prepositions, unless a "?" closes them or "to" is an elliptic infinitive
    ("I need to go to", INCOMPLETE, "trailing_preposition:to"),
    ("I usually have breakfast with.", INCOMPLETE, "trailing_preposition:with"),
    ("I wanted to tell you about", INCOMPLETE, "trailing_preposition:about"),
    ("It is the kind of...", INCOMPLETE, "ellipsis"),
    ("This is a picture of", INCOMPLETE, "trailing_preposition:of"),
    ("What are you talking about?", QUESTION, "question_mark"),
    ("Yes, I would love to.", COMPLETE, "terminal_punctuation:."),
    # 9, round 4: a preposition stranded by a relative clause or infinitive ends a sentence
    ("She's the person I was telling you about.", COMPLETE, "terminal_punctuation:."),
    ("That's all I can think of.", COMPLETE, "terminal_punctuation:."),
    ("There's nothing left to talk about.", COMPLETE, "terminal_punctuation:."),
    ("This is the cafe we used to go to.", COMPLETE, "terminal_punctuation:."),
    ("Let's get it over with.", COMPLETE, "terminal_punctuation:."),
    ("Is that the one you were talking about?", QUESTION, "question_mark"),
    ("I was going to ask you about.", INCOMPLETE, "trailing_preposition:about"),
    ("I think that we should go to.", INCOMPLETE, "trailing_preposition:to"),
    ("Is there anything to?", INCOMPLETE, "trailing_preposition:to"),
    ("I'm not sure yet.", COMPLETE, "terminal_punctuation:."),
    ("I wanted to go yet", INCOMPLETE, "trailing_conjunction:yet"),
    ("Honestly, I reckon.", INCOMPLETE, "unfinished_clause:i reckon"),
    ("Turn it off.", COMPLETE, "terminal_punctuation:."),
    # 10: subordinators; "that" only as a complementizer
    ("She told me that.", INCOMPLETE, "trailing_subordinator:that"),
    ("I really hope that", INCOMPLETE, "trailing_subordinator:that"),
    ("We picked the one which", INCOMPLETE, "trailing_subordinator:which"),
    ("I like that.", COMPLETE, "terminal_punctuation:."),
    ("What do you think about that?", QUESTION, "question_mark"),
    # 11: auxiliaries, except elliptic answers
    ("So my favorite color is", INCOMPLETE, "trailing_auxiliary:is"),
    ("My problem is.", INCOMPLETE, "trailing_auxiliary:is"),
    ("The best thing we could", INCOMPLETE, "trailing_auxiliary:could"),
    ("Yes it is.", COMPLETE, "terminal_punctuation:."),
    ("I think we can.", COMPLETE, "terminal_punctuation:."),
    ("Do you know where it is?", QUESTION, "question_mark"),
    # 12: unfinished openers, after discourse markers
    ("I think.", INCOMPLETE, "unfinished_clause:i think"),
    ("Um, so I was going to", INCOMPLETE, "unfinished_clause:i was going to"),
    ("Well, I was going to say.", INCOMPLETE, "unfinished_clause:i was going to say"),
    ("So, what about the", INCOMPLETE, "trailing_article:the"),
    ("And also.", INCOMPLETE, "unfinished_clause:and also"),
    ("Let me think.", INCOMPLETE, "unfinished_clause:let me think"),
    ("If you want to.", INCOMPLETE, "unfinished_clause:if you want to"),
    ("I was going to call you later.", COMPLETE, "terminal_punctuation:."),
    # 13: a leading subordinate clause with no main clause yet
    ("If it rains tomorrow.", INCOMPLETE, "unfinished_clause:if"),
    ("Unless you are busy", INCOMPLETE, "unfinished_clause:unless"),
    ("If it rains, we stay home.", COMPLETE, "terminal_punctuation:."),
    # 13b: a comma list with no "and"/"or" before its last item (whisper closes it with ".")
    ("We need eggs, milk.", INCOMPLETE, "open_list"),
    ("I have been to Spain, Italy", INCOMPLETE, "open_list"),
    ("Red, green, blue.", INCOMPLETE, "open_list"),
    # Round 8: an item's article or possessive does not count towards its length.
    ("I'll need a pen, a packed lunch.", INCOMPLETE, "open_list"),
    ("Bring your passport, your boarding pass.", INCOMPLETE, "open_list"),
    ("Sorry, I was miles away.", COMPLETE, "terminal_punctuation:."),
    ("I have been to Spain, Italy, and Greece.", COMPLETE, "terminal_punctuation:."),
    ("Well, thanks.", COMPLETE, "terminal_punctuation:."),
    ("Yes, I agree with you completely.", COMPLETE, "terminal_punctuation:."),
    ("Okay, see you then.", COMPLETE, "terminal_punctuation:."),
    # Round 5: a sentence adverb after the comma closes the sentence, it is no list item.
    ("It was quite good, actually.", COMPLETE, "terminal_punctuation:."),
    ("Is it red, green?", QUESTION, "question_mark"),
    # Round 5: a question that ends on a relative word after a determiner and its noun.
    ("Do you remember the place where?", INCOMPLETE, "trailing_relative:where"),
    ("You went where?", QUESTION, "question_mark"),
    ("Can you tell me when?", QUESTION, "question_mark"),
    # 14-15: questions
    ("What time is it?", QUESTION, "question_mark"),
    ("Why?", QUESTION, "question_mark"),
    ("Could you tell me a story", QUESTION, "wh_question"),
    ("How are you doing today.", QUESTION, "wh_question"),
    ("So what's your name", QUESTION, "wh_question"),
    ("Is it going to rain tomorrow", QUESTION, "wh_question"),
    ("What I really want is a new bicycle.", COMPLETE, "terminal_punctuation:."),
    # 16: terminal punctuation
    ("My favourite colour is blue.", COMPLETE, "terminal_punctuation:."),
    ("That's amazing!", COMPLETE, "terminal_punctuation:!"),
    ("Yes.", COMPLETE, "terminal_punctuation:."),
    # round 3: subjects, "until", "while", discourse openers
    ("Hold on, I.", INCOMPLETE, "trailing_subject:i"),
    ("So do I.", COMPLETE, "terminal_punctuation:."),
    ("She is taller than I.", COMPLETE, "terminal_punctuation:."),
    ("I'll wait here until.", INCOMPLETE, "trailing_subordinator:until"),
    ("We waited for a while.", COMPLETE, "terminal_punctuation:."),
    ("I cooked while.", INCOMPLETE, "trailing_subordinator:while"),
    ("Let me check.", INCOMPLETE, "unfinished_clause:let me check"),
    ("This is the man who", INCOMPLETE, "trailing_relative:who"),
    ("That's the restaurant where.", INCOMPLETE, "trailing_relative:where"),
    ("I'll tell you when.", COMPLETE, "terminal_punctuation:."),
    ("We stayed inside since.", INCOMPLETE, "trailing_subordinator:since"),
    ("I have known her ever since.", COMPLETE, "terminal_punctuation:."),
    ("Can we move the call to?", INCOMPLETE, "trailing_preposition:to"),
    ("Who did you go with?", QUESTION, "question_mark"),
    ("That was the best pizza I've ever had.", COMPLETE, "terminal_punctuation:."),
    ("Well, if you ask me.", INCOMPLETE, "unfinished_clause:if you ask me"),
    # 17-18: no punctuation at all
    ("I went to the store yesterday", COMPLETE, "no_punctuation_content_word"),
    ("The meeting starts at 10 o'clock", COMPLETE, "no_punctuation_content_word"),
    ("Blue", INCOMPLETE, "no_punctuation_short"),
    ("Yes I do", INCOMPLETE, "trailing_auxiliary:do"),
    ("Maybe we can meet tomorrow then", COMPLETE, "no_punctuation_content_word"),
]


@pytest.mark.parametrize(("text", "completeness", "reason"), CASES)
def test_judge_utterance_rule_table(text: str, completeness: Completeness, reason: str) -> None:
    assert judge_utterance(text) == Judgement(completeness, reason)


def test_rule_table_covers_every_reason_tag() -> None:
    tags = {reason.split(":")[0] for _, _, reason in CASES}
    assert tags == {
        "empty",
        "too_short",
        "ellipsis",
        "trailing_punctuation",
        "trailing_contraction",
        "trailing_conjunction",
        "trailing_filler",
        "trailing_article",
        "trailing_possessive",
        "trailing_preposition",
        "trailing_subordinator",
        "trailing_auxiliary",
        "trailing_subject",
        "trailing_relative",
        "unfinished_clause",
        "open_list",
        "question_mark",
        "wh_question",
        "terminal_punctuation",
        "no_punctuation_content_word",
        "no_punctuation_short",
    }


def test_judgement_is_deterministic_and_ignores_surrounding_space() -> None:
    assert judge_utterance("  And then  ") == judge_utterance("And then") == judge_utterance("And then")


def _labels() -> list[dict]:
    return json.loads((UTTERANCE_DIR / "labels.json").read_text(encoding="utf-8"))


def _is_right(text: str, finished: bool) -> bool:
    return (judge_utterance(text).completeness != INCOMPLETE) == finished


def test_labelled_texts_are_judged_right() -> None:
    """Label texts: finished statements/questions are not INCOMPLETE; trailing first parts are."""
    outcomes = []
    for label in _labels():
        if label["kind"] == "trailing":
            outcomes.append(_is_right(label["first_part_text"], finished=False))
        else:
            outcomes.append(_is_right(label["text"], finished=True))
    assert len(outcomes) >= 48
    assert sum(outcomes) / len(outcomes) >= 0.95


def test_real_whisper_transcripts_are_judged_right() -> None:
    """What tiny.en actually wrote: whole utterances are finished, trailing first parts are not."""
    transcripts = json.loads((UTTERANCE_DIR / "whisper_transcripts.json").read_text(encoding="utf-8"))
    outcomes = [_is_right(entry["full"], finished=True) for entry in transcripts]
    outcomes += [_is_right(e["first_part"], finished=False) for e in transcripts if e["kind"] == "trailing"]
    first_parts = [e for e in transcripts if e["kind"] == "trailing"]
    assert len(first_parts) >= 20
    assert sum(outcomes) / len(outcomes) >= 0.90


def _read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (16_000, 1, 2)
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")


def test_utterance_set_has_the_promised_mix() -> None:
    labels = _labels()
    kinds = [label["kind"] for label in labels]
    assert kinds.count("complete") >= 16
    assert kinds.count("question") >= 12
    assert kinds.count("trailing") >= 20
    pauses = {label["pause_ms"] for label in labels if label["kind"] == "trailing"}
    assert min(pauses) == 600
    assert max(pauses) == 3000
    assert all(label["pause_ms"] is None for label in labels if label["kind"] != "trailing")


def test_utterance_labels_mark_exact_speech_positions() -> None:
    """Outside the labelled segments every sample is silent; each segment starts and ends in speech."""
    for label in _labels():
        samples = _read_wav(UTTERANCE_DIR / label["file"])
        is_speech = np.zeros(samples.size, dtype=bool)
        for segment in label["segments"]:
            start, end = segment["start_ms"] * SAMPLES_PER_MS, segment["end_ms"] * SAMPLES_PER_MS
            is_speech[start:end] = True
            assert np.abs(samples[start : start + SAMPLES_PER_MS].astype(np.int32)).max() > 100
            assert np.abs(samples[end - SAMPLES_PER_MS : end].astype(np.int32)).max() > 100
        assert not samples[~is_speech].any()
        assert label["segments"][0]["start_ms"] == 300
        assert samples.size == label["speech_end_ms"] * SAMPLES_PER_MS
        if label["kind"] == "trailing":
            first, second = label["segments"]
            assert second["start_ms"] - first["end_ms"] == label["pause_ms"]


def test_question_recording_matches_its_label() -> None:
    label = json.loads((DATA_DIR / "question.json").read_text(encoding="utf-8"))
    samples = _read_wav(DATA_DIR / "question.wav")
    start, end = label["speech_start_ms"] * SAMPLES_PER_MS, label["speech_end_ms"] * SAMPLES_PER_MS
    assert not samples[:start].any()
    assert not samples[end:].any()
    assert samples.size - end == 1000 * SAMPLES_PER_MS


def test_conformance_clips_match_their_index() -> None:
    index = json.loads((CLIP_DIR / "clips.json").read_text(encoding="utf-8"))["clips"]
    assert {"question", "interrupt", "long_statement"} <= set(index)
    for clip in index.values():
        samples = _read_wav(CLIP_DIR / clip["file"])
        assert samples.size == clip["duration_ms"] * SAMPLES_PER_MS
        assert np.abs(samples[:SAMPLES_PER_MS].astype(np.int32)).max() > 100
    assert index["long_statement"]["max_internal_gap_ms"] <= 250


@pytest.mark.parametrize(
    ("text", "completeness"),
    [
        ("I was thinking that maybe we could.", Completeness.INCOMPLETE),
        ("Yes it is.", Completeness.COMPLETE),
        ("We could.", Completeness.INCOMPLETE),
    ],
)
def test_only_short_sentences_end_elliptically_on_an_auxiliary(text, completeness):
    assert judge_utterance(text).completeness is completeness


@pytest.mark.parametrize(
    ("text", "verb"),
    [
        ("I would probably choose.", "choose"),
        ("Send me.", None),
        ("My neighbour just bought.", "bought"),
        ("That's exactly what I needed.", None),
        ("The shop ran out of the size I wanted.", None),
        ("We watched the show.", None),
        ("Did you buy?", None),
    ],
)
def test_a_sentence_ending_on_a_verb_that_needs_an_object_is_flagged(text, verb):
    assert ends_on_object_verb(text) == verb
