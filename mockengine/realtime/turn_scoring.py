"""semantic_vad's judgement of a pause: several cues, each with a signed weight and a reason, summed.

Why not the transcript alone: whisper tidies speech. Before a pause it often drops a trailing function
word and closes the sentence with a full stop, so "I was going to ask you about the …" reaches the text
rules as "I was going to ask you about." (measured on the tune half of ``turn_corpus``: see
docs/turn-detection.md). Evidence that survives the tidying is combined here:

==========================  =====================================================  =====================
cue                         evidence                                               weight (+ = finished)
==========================  =====================================================  =====================
``untranscribed_tail``      speech goes on > :data:`TAIL_MS` after the last word   :data:`TAIL_WEIGHT`
                            whisper heard should have ended (its aligned start +
                            its letters at this speaker's ms per letter): a word
                            it dropped ("um", "if", "the"), so unfinished
``last_word``               whisper is unsure of the last word (probability <     :data:`UNSURE_WEIGHT`
                            :data:`UNSURE_BELOW`): often a mangled function word
                            ("You can come left." for "You can come if")
``lexical``                 ``semantic_rules`` on the words as spoken: a dangling  see :data:`LEXICAL`
                            word, comma or ellipsis, an opener, a question; a
                            final "." counts little (whisper adds it to anything)
``pitch``                   last syllable's pitch slope: falling (statement) or    :data:`PITCH_WEIGHT`
                            level/rising (continuation)
``lengthening``             last syllable much longer than the median one          :data:`LENGTHENING_WEIGHT`
``energy``                  the speech stops near full level instead of fading     :data:`ENERGY_WEIGHT`
==========================  =====================================================  =====================

The sum maps to a :class:`Completeness`: >= :data:`COMPLETE_AT` finished (QUESTION when the lexical cue
saw a question), <= :data:`INCOMPLETE_AT` unfinished, else UNKNOWN; the detector's eagerness table turns
that into a wait. Thresholds and weights were set on the ``tune`` half of the corpus only, never on the
``heldout`` half. Pure and deterministic: same evidence, same verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mockengine.engines.stt import WordTiming
from mockengine.realtime.prosody import NO_PROSODY, Prosody
from mockengine.realtime.semantic_rules import Completeness, judge_utterance

TAIL_MS = 160
TAIL_WEIGHT = -2.0
MIN_TAIL_WORDS = 3  # the speaker's rate needs a few words
UNSURE_BELOW = 0.4
UNSURE_WEIGHT = -1.5
# Lexical weights by the rule's reason tag (the part before ":").
LEXICAL: dict[str, float] = {
    "question_mark": 2.5,
    "wh_question": 2.0,
    "terminal_punctuation": 1.5,
    "no_punctuation_content_word": 0.5,  # whisper did not close it: it heard no sentence end
    "no_punctuation_short": -1.0,
    "ellipsis": -3.0,
    "trailing_punctuation": -3.0,
    "open_list": -2.0,
}
DANGLING_WEIGHT = -3.0  # trailing article, preposition, conjunction, filler, opener, ...
FALLING_ST_PER_S = -12.0
RISING_ST_PER_S = 0.0
PITCH_WEIGHT = 1.0
LENGTHENING_RATIO = 2.5
LENGTHENING_WEIGHT = -0.5
ENERGY_LEVEL_DB = 6.0
ENERGY_WEIGHT = -0.5
# A pause ends the turn early when the score reaches this, by eagerness: a less eager detector asks for
# more evidence before it calls a thought finished (a falling pitch, or a question, on top of a ".").
COMPLETE_AT = {"high": 1.0, "medium": 1.5, "low": 2.0}
INCOMPLETE_AT = -1.5
_WORD = re.compile(r"[A-Za-z0-9]")


@dataclass(frozen=True)
class Cue:
    """One piece of evidence: ``weight`` > 0 says finished, < 0 unfinished; ``reason`` is readable."""

    name: str
    weight: float
    reason: str

    def as_dict(self) -> dict[str, object]:
        return {"cue": self.name, "weight": self.weight, "reason": self.reason}


@dataclass(frozen=True)
class TurnEvidence:
    """What is known at a pause. ``words`` and ``speech_end_ms`` are ms from the start of the audio that
    was transcribed; ``prosody`` is measured on the same audio."""

    text: str
    speech_end_ms: int
    words: tuple[WordTiming, ...] = ()
    prosody: Prosody = NO_PROSODY


@dataclass(frozen=True)
class Verdict:
    completeness: Completeness
    score: float
    cues: tuple[Cue, ...]

    @property
    def reason(self) -> str:
        """The cue that weighed most in the verdict's direction, as ``cue:reason``."""
        if not self.cues:
            return "empty"
        sign = 1 if self.score >= 0 else -1
        strongest = max(self.cues, key=lambda cue: cue.weight * sign)
        return f"{strongest.name}:{strongest.reason}"


def score_turn(evidence: TurnEvidence, eagerness: str = "medium") -> Verdict:
    """Judge a pause from all cues (module docstring) for ``eagerness`` "low"/"medium"/"high" ("auto" is
    "medium"). Never raises."""
    judgement = judge_utterance(evidence.text)
    if judgement.completeness is Completeness.UNKNOWN:
        return Verdict(Completeness.UNKNOWN, 0.0, (Cue("lexical", 0.0, judgement.reason),))
    is_question = judgement.completeness is Completeness.QUESTION
    cues = [_lexical_cue(judgement.reason)]
    cues += _word_cues(evidence)
    if not is_question:
        cues += _prosody_cues(evidence.prosody)
    score = round(sum(cue.weight for cue in cues), 3)
    if score >= COMPLETE_AT.get(eagerness, COMPLETE_AT["medium"]):
        completeness = Completeness.QUESTION if is_question else Completeness.COMPLETE
    elif score <= INCOMPLETE_AT:
        completeness = Completeness.INCOMPLETE
    else:
        completeness = Completeness.UNKNOWN
    return Verdict(completeness, score, tuple(cues))


def _lexical_cue(reason: str) -> Cue:
    tag = reason.split(":")[0]
    return Cue("lexical", LEXICAL.get(tag, DANGLING_WEIGHT), reason)


def _word_cues(evidence: TurnEvidence) -> list[Cue]:
    """The untranscribed tail and the last word's confidence, from whisper's word timings.

    The last word's aligned end runs to the end of the audio, so its expected end is estimated instead:
    its aligned start plus its letters at the speaker's rate over the earlier words (ms per letter)."""
    spoken = [word for word in evidence.words if _WORD.search(word.word)]
    if not spoken:
        return []
    last = spoken[-1]
    cues = []
    if len(spoken) >= MIN_TAIL_WORDS:
        letters = [_letters(word.word) for word in spoken]
        ms_per_letter = (last.start_ms - spoken[0].start_ms) / sum(letters[:-1])
        tail_ms = round(evidence.speech_end_ms - last.start_ms - letters[-1] * ms_per_letter)
        if tail_ms > TAIL_MS:
            cues.append(Cue("untranscribed_tail", TAIL_WEIGHT, f"{tail_ms} ms of speech after {last.word!r}"))
    if last.probability < UNSURE_BELOW:
        cues.append(
            Cue("last_word", UNSURE_WEIGHT, f"whisper unsure of {last.word!r} (p={last.probability:.2f})")
        )
    return cues


def _letters(word: str) -> int:
    """Letters and digits in a word, at least 2 (a one-letter word still takes a syllable)."""
    return max(2, len(_WORD.findall(word)))


def _prosody_cues(prosody: Prosody) -> list[Cue]:
    cues = []
    slope = prosody.pitch_slope_st_per_s
    if slope is not None and slope <= FALLING_ST_PER_S:
        cues.append(Cue("pitch", PITCH_WEIGHT, f"falling {slope:.0f} st/s"))
    elif slope is not None and slope >= RISING_ST_PER_S:
        cues.append(Cue("pitch", -PITCH_WEIGHT, f"level or rising {slope:+.0f} st/s"))
    if prosody.final_lengthening is not None and prosody.final_lengthening >= LENGTHENING_RATIO:
        cues.append(Cue("lengthening", LENGTHENING_WEIGHT, f"last syllable x{prosody.final_lengthening:.1f}"))
    if prosody.energy_decay_db is not None and prosody.energy_decay_db <= ENERGY_LEVEL_DB:
        cues.append(Cue("energy", ENERGY_WEIGHT, f"stops {prosody.energy_decay_db:.0f} dB under peak"))
    return cues
