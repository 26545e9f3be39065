"""How the audio endpoints match whisper's word timings to the transcript's words
(``mockengine.engines.transcript_tokens.whisper_words``): whisper's alignment makes punctuation a word of its
own, which joins the word the text writes it with, as whisper's ``merge_punctuations`` does."""

from __future__ import annotations

from mockengine.engines.stt import Transcript, WordTiming
from mockengine.engines.tokens import TokenCounter
from mockengine.engines.transcript_segments import word_timings
from mockengine.engines.transcript_tokens import logprobs, whisper_words
from tests.speech import QUESTION_TRANSCRIPT as QUESTION  # whisper tiny.en on tests/data/question.wav


def test_punctuation_joins_its_word_which_keeps_its_own_times_and_probability():
    words = whisper_words(QUESTION)
    assert [w.word for w in words] == QUESTION.text.split()
    assert words[-1] == WordTiming("France?", 1860, 2240, 0.934)
    assert word_timings(QUESTION) == words  # whisper's, not the words spread over the 3.25 s


def test_opening_punctuation_joins_the_word_after_it():
    quoted = Transcript(
        '"Hi," she said.',
        1200,
        "en",
        (
            WordTiming('"', 0, 0, 0.9),
            WordTiming("Hi", 0, 400, 0.8),
            WordTiming(',"', 400, 400, 0.9),
            WordTiming("she", 400, 700, 0.97),
            WordTiming("said", 700, 1000, 0.5),
            WordTiming(".", 1000, 1200, 0.9),
        ),
    )
    assert whisper_words(quoted) == (
        WordTiming('"Hi,"', 0, 400, 0.8),
        WordTiming("she", 400, 700, 0.97),
        WordTiming("said.", 700, 1000, 0.5),
    )


def test_words_that_do_not_spell_the_text_are_not_used():
    missing = Transcript("What is it?", 1000, "en", (WordTiming("What", 0, 300, 0.9),))
    assert whisper_words(missing) == ()
    assert [w.word for w in word_timings(missing)] == ["What", "is", "it?"]  # spread over the audio


def test_logprobs_are_whisper_s_word_probabilities():
    entries = logprobs(QUESTION, TokenCounter(None))
    assert "".join(e["token"] for e in entries) == QUESTION.text
    assert min(e["logprob"] for e in entries) < -0.6  # "of": log(0.524)
