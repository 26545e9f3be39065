"""Text rules that judge whether a user has finished a thought (for ``semantic_vad``).

Input is the transcript so far of the current user turn, as faster-whisper tiny.en writes it:
finished sentences usually end in "." or "?", speech that trails off usually ends in "...", ","
or nothing, and whisper tends to drop the fillers ("um") but keep the dangling word before them.

Rules, first match wins (``word`` = lowercased, punctuation stripped; ``last`` = last word):

==  ===============================================  ============  ===================================
#   condition                                        result        reason
==  ===============================================  ============  ===================================
1   empty after strip                                UNKNOWN       ``empty``
2   no letters or digits ("...", "-")                UNKNOWN       ``too_short``
3   ends with "..." or "…"                           INCOMPLETE    ``ellipsis``
4   ends with "," ";" ":" "-" "–" "—"                INCOMPLETE    ``trailing_punctuation:<char>``
5   ends with a contraction that needs a complement  INCOMPLETE    ``trailing_contraction:<word>``
    ("I'm", "it's", "there's")
6   last word is a conjunction ("and", "but", "or",  INCOMPLETE    ``trailing_conjunction:<word>``
    "because"; "so"/"then" unless "I think so",
    "see you then"; "yet" unless after a negation,
    "not sure yet")
7   last word a filler ("um", "uh"); or, with no     INCOMPLETE    ``trailing_filler:<words>``
    "?", a hedge ("like", "you know", "I mean")
8   last word an article or possessive ("the", "a",  INCOMPLETE    ``trailing_article:<word>`` /
    "my", "your")                                                  ``trailing_possessive:<word>``
9   no "?" and last word a preposition ("to", "of",  INCOMPLETE    ``trailing_preposition:<word>``
    "with"; not the elliptic "I'd love to", nor one
    stranded by a relative clause or infinitive,
    :func:`strands`: "the person I was telling you
    about", "nothing left to talk about")
10  no "?" and last word a subordinator ("that"      INCOMPLETE    ``trailing_subordinator:<word>``
    after a verb of saying/thinking, "which", "if",
    "until"; "while" unless "a while"; "since"
    unless "ever since")
10c no "?", "who"/"where"/"when" after a noun      INCOMPLETE    ``trailing_relative:<word>``
    ("the man who"), not after a verb of knowing
    or an object ("tell you when", "guess who")
    (round 5: with "?" too after a determiner and
    its noun, "Do you remember the place where?")
10b no "?" and last word a subject pronoun ("Hold   INCOMPLETE    ``trailing_subject:<word>``
    on, I"), not after an auxiliary or "than"
    ("So do I", "taller than I")
11  no "?" and last word an auxiliary ("is", "was",  INCOMPLETE    ``trailing_auxiliary:<word>``
    "can"), unless an elliptic answer ("Yes it is.")
12  whole text is an unfinished opener ("I think",   INCOMPLETE    ``unfinished_clause:<opener>``
    "I was going to", "let me think", "hold on",
    "if you ask me"), with or without leading
    markers ("so", "um", "well", "honestly")
13  opens with "if"/"unless"/"although", no comma,   INCOMPLETE    ``unfinished_clause:<word>``
    no "?", at most 6 words (no main clause yet)
13b a comma list whose last item has no "and"/"or"  INCOMPLETE    ``open_list``
    ("eggs, milk."), no "?", last item <= 2 words
14  ends with "?"                                    QUESTION      ``question_mark``
15  wh-word + auxiliary ("what is", "how do") or     QUESTION      ``wh_question``
    inversion ("could you", "is it"), >= 3 words
16  ends with "." or "!"                             COMPLETE      ``terminal_punctuation:<char>``
17  no punctuation, >= 4 words, last a content word  COMPLETE      ``no_punctuation_content_word``
18  otherwise                                        INCOMPLETE    ``no_punctuation_short``
==  ===============================================  ============  ===================================

:func:`ends_on_object_verb` is not a rule but a soft cue for ``turn_scoring``: a sentence closed right
after a verb that needs an object ("I would probably choose.") has usually lost a word.

A "?" lets a sentence end in a preposition, subordinator or auxiliary ("What is it about?"), but
not in a conjunction, filler or article ("Do you want tea or?" still trails). The word lists are
plain sets in :mod:`.semantic_words` so a reader can check any verdict by hand. Source: observed
tiny.en output on the espeak-ng utterances in ``tests/data/utterances`` (``whisper_transcripts.json``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from mockengine.realtime.semantic_words import (
    ARTICLES,
    AUXILIARIES,
    CLAUSE_TAKERS,
    CONJUNCTIONS,
    CONTRACTIONS,
    DISCOURSE_MARKERS,
    ELLIPSES,
    ELLIPTIC_TO_VERBS,
    ELLIPTIC_WH_BEFORE,
    FILLERS,
    FUNCTION_WORDS,
    HEDGE_PAIR_COMPLETERS,
    HEDGE_PAIRS,
    INFINITIVE_HEADS,
    INTERJECTIONS,
    INVERSION_AUXILIARIES,
    INVERSION_SUBJECTS,
    LEADING_SUBORDINATE_MAX_WORDS,
    LEADING_SUBORDINATORS,
    LIKE_COMPLETERS,
    LIST_CLOSERS,
    MAIN_VERB_AUXILIARIES,
    MAX_ELLIPTIC_WORDS,
    MAX_LIST_ITEM_WORDS,
    MIN_CONTENT_WORDS,
    MIN_QUESTION_WORDS,
    NEGATIONS,
    NOT_IN_NOUN_PHRASES,
    OBJECT_GAP_WORDS,
    OBJECT_PRONOUNS,
    OBJECT_VERBS,
    PERFECT_MARKERS,
    POSSESSIVES,
    PREPOSITIONS,
    RELATIVE_WORDS,
    SENTENCE_ADVERBS,
    SO_COMPLETERS,
    STRANDING_DETERMINERS,
    STRANDING_HEADS,
    STRANDING_RELATIVES,
    STRANDING_SUBJECTS,
    SUBJECT_ENDING_BEFORE,
    SUBJECT_PRONOUNS,
    SUBORDINATORS,
    TELL_VERBS,
    TERMINAL_PUNCTUATION,
    THAT_COMPLEMENT_VERBS,
    THEN_IDIOM_HEADS,
    THEN_STARTERS,
    TIME_NOUNS,
    TRAILING_PUNCTUATION,
    TRAILING_SUBJECTS,
    TWO_OBJECT_VERBS,
    UNFINISHED_OPENERS,
    WH_CONTRACTIONS,
    WH_FOLLOWERS,
    WH_WORDS,
    word_set,
)


class Completeness(Enum):
    """Whether the user's turn so far reads as a finished thought."""

    COMPLETE = "complete"
    QUESTION = "question"
    INCOMPLETE = "incomplete"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Judgement:
    """A verdict and its reason: a machine-readable tag, optionally ``tag:detail``."""

    completeness: Completeness
    reason: str


_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


def judge_utterance(text: str) -> Judgement:
    """Judge whether ``text`` (a user turn's transcript so far) is a finished thought.

    Pure and deterministic; applies the numbered rules in the module docstring in order.
    Never raises: any string gets a verdict.
    """
    stripped = text.strip()
    if not stripped:
        return Judgement(Completeness.UNKNOWN, "empty")
    words = _WORD.findall(stripped.lower().replace("’", "'"))
    if not words:
        return Judgement(Completeness.UNKNOWN, "too_short")
    return _judge_punctuation(stripped) or _judge_last_word(words, stripped) or _judge_whole(words, stripped)


def _judge_punctuation(stripped: str) -> Judgement | None:
    if stripped.endswith(ELLIPSES):
        return Judgement(Completeness.INCOMPLETE, "ellipsis")
    if stripped.endswith(TRAILING_PUNCTUATION):
        return Judgement(Completeness.INCOMPLETE, f"trailing_punctuation:{stripped[-1]}")
    return None


def _judge_last_word(words: list[str], stripped: str) -> Judgement | None:
    """Rules 5-11: the last word (or two) cannot end a thought."""
    tag = _always_dangling(words)
    # A question strands a preposition only when a wh-word moved its object ("Who did you go with?");
    # "Can we move the call to?" is cut off.
    stranding = stripped.endswith("?") and (bool(set(words) & WH_WORDS) or strands(words))
    if tag is None and not stranding and stripped.endswith("?") and words[-1] in PREPOSITIONS:
        tag = f"trailing_preposition:{words[-1]}"
    if tag is None and stripped.endswith("?") and _opens_relative_clause(words):
        tag = f"trailing_relative:{words[-1]}"
    if tag is None and not stripped.endswith("?"):
        tag = _dangling_without_question_mark(words, stripped)
    return None if tag is None else Judgement(Completeness.INCOMPLETE, tag)


def _always_dangling(words: list[str]) -> str | None:
    """Rules 5-8: words nothing can follow, "?" or not."""
    last = words[-1]
    before = words[-2] if len(words) > 1 else ""
    if last in CONTRACTIONS:
        return f"trailing_contraction:{last}"
    if last == "yet" and set(words[:-1]) & NEGATIONS:
        return None  # an adverb: "I'm not sure yet."
    if last in CONJUNCTIONS or (last == "so" and before not in SO_COMPLETERS):
        return f"trailing_conjunction:{last}"
    idiom = before == "and" and len(words) > 2 and words[-3] in THEN_IDIOM_HEADS  # "now and then"
    if last == "then" and (before in THEN_STARTERS or not before) and not idiom:
        return f"trailing_conjunction:{before} then" if before else "trailing_conjunction:then"
    if last in FILLERS:
        return f"trailing_filler:{last}"
    if last in ARTICLES:
        return f"trailing_article:{last}"
    if last in POSSESSIVES:
        return f"trailing_possessive:{last}"
    return None


def _dangling_without_question_mark(words: list[str], stripped: str) -> str | None:
    """Rules 7 (hedges), 9-11: words a "?" may legitimately end on."""
    last = words[-1]
    before = words[-2] if len(words) > 1 else ""
    earlier = words[-3] if len(words) > 2 else ""
    if (before, last) in HEDGE_PAIRS and earlier not in HEDGE_PAIR_COMPLETERS:
        return f"trailing_filler:{before} {last}"
    if last == "like" and before not in LIKE_COMPLETERS:
        return "trailing_filler:like"
    if last in PREPOSITIONS and not (last == "to" and before in ELLIPTIC_TO_VERBS) and not strands(words):
        return f"trailing_preposition:{last}"
    if last in SUBORDINATORS or (last == "that" and _introduces_clause(words)):
        return f"trailing_subordinator:{last}"
    if last == "while" and before not in word_set("a little short long"):
        return "trailing_subordinator:while"
    if last == "since" and before not in word_set("ever long"):
        return "trailing_subordinator:since"
    if last in RELATIVE_WORDS and len(words) > 2 and before not in ELLIPTIC_WH_BEFORE:
        return f"trailing_relative:{last}"
    if last in TRAILING_SUBJECTS and len(words) > 1 and before not in SUBJECT_ENDING_BEFORE:
        return f"trailing_subject:{last}"
    if last in AUXILIARIES and not _is_elliptic_answer(words, stripped) and not _is_main_verb(words):
        return f"trailing_auxiliary:{last}"
    return None


def strands(words: list[str]) -> bool:
    """Whether a final preposition or particle is stranded by a relative clause or infinitive whose
    object moved before it: "the person I was telling you about", "all I can think of", "nothing left
    to talk about", "get it over with" (so the sentence can end there)."""
    if words[-2:] == ["over", "with"]:
        return True
    for index in range(len(words) - 2, 0, -1):
        word, head = words[index], words[index - 1]
        if word in STRANDING_SUBJECTS and (
            head in STRANDING_HEADS
            or (head in STRANDING_RELATIVES and index >= 2 and words[index - 2] not in CLAUSE_TAKERS)
            or (index >= 2 and words[index - 2] in STRANDING_DETERMINERS and head not in FUNCTION_WORDS)
        ):
            return True
        if word == "to" and (
            head in INFINITIVE_HEADS
            or (head in ("left", "else") and index >= 2 and words[index - 2] in INFINITIVE_HEADS)
        ):
            return index <= len(words) - 3  # "nothing to talk about": a verb between "to" and the end
    return False


def _opens_relative_clause(words: list[str]) -> bool:
    """Whether a question ends on "who"/"where"/"when" right after a determiner and its noun: "Do you
    remember the place where?" (round 5) is a relative clause under way; "You went where?" is an echo
    question and "Can you tell me when?" elliptic."""
    return (
        len(words) > 3
        and words[-1] in RELATIVE_WORDS
        and words[0] not in WH_WORDS
        and words[-2] not in FUNCTION_WORDS | ELLIPTIC_WH_BEFORE
        and words[-3] in ARTICLES | POSSESSIVES | word_set("this that")
    )


def _is_main_verb(words: list[str]) -> bool:
    """Whether a final "had", "did", "done" ... is the main verb after a perfect or an adverb: "the best
    pizza I've ever had", "than I ever did"."""
    before = words[-2] if len(words) > 1 else ""
    return words[-1] in MAIN_VERB_AUXILIARIES and (before in PERFECT_MARKERS or before.endswith("'ve"))


def _introduces_clause(words: list[str]) -> bool:
    """Whether a final "that" is a complementizer: "I think that", "she told me that"."""
    before = words[-2] if len(words) > 1 else ""
    earlier = words[-3] if len(words) > 2 else ""
    if words[0] in WH_WORDS:
        return False
    return before in THAT_COMPLEMENT_VERBS or (before in OBJECT_PRONOUNS and earlier in TELL_VERBS)


def _is_elliptic_answer(words: list[str], stripped: str) -> bool:
    """Whether a final auxiliary closes an elliptic answer: a short pronoun + auxiliary + "." ("Yes it
    is.", "We could."). Longer sentences ending so ("I was thinking that maybe we could.") trail off;
    whisper often closes them with a full stop anyway."""
    return (
        stripped.endswith(TERMINAL_PUNCTUATION)
        and 2 <= len(words) <= MAX_ELLIPTIC_WORDS
        and words[-2] in SUBJECT_PRONOUNS
        and words[-2] != "that"
    )


def _judge_whole(words: list[str], stripped: str) -> Judgement:
    """Rules 12-18: openers, questions, punctuation, then the unpunctuated fallback."""
    core = _without_leading_markers(words)
    for candidate in (" ".join(words), " ".join(core)):
        if candidate in UNFINISHED_OPENERS:
            return Judgement(Completeness.INCOMPLETE, f"unfinished_clause:{candidate}")
    if _is_bare_subordinate_clause(core, stripped):
        return Judgement(Completeness.INCOMPLETE, f"unfinished_clause:{core[0]}")
    if _is_open_list(stripped):
        return Judgement(Completeness.INCOMPLETE, "open_list")
    if stripped.endswith("?"):
        return Judgement(Completeness.QUESTION, "question_mark")
    if len(core) >= MIN_QUESTION_WORDS and _opens_question(core):
        return Judgement(Completeness.QUESTION, "wh_question")
    if stripped.endswith(TERMINAL_PUNCTUATION):
        return Judgement(Completeness.COMPLETE, f"terminal_punctuation:{stripped[-1]}")
    if len(words) >= MIN_CONTENT_WORDS and words[-1] not in FUNCTION_WORDS:
        return Judgement(Completeness.COMPLETE, "no_punctuation_content_word")
    return Judgement(Completeness.INCOMPLETE, "no_punctuation_short")


def _is_bare_subordinate_clause(core: list[str], stripped: str) -> bool:
    """A short clause opened by "if"/"unless" with no comma to a main clause: "If it rains tomorrow."."""
    return (
        core[0] in LEADING_SUBORDINATORS
        and "," not in stripped
        and not stripped.endswith("?")
        and len(core) <= LEADING_SUBORDINATE_MAX_WORDS
    )


def _is_open_list(stripped: str) -> bool:
    """Items joined by commas with no "and"/"or" before the last one: "We need eggs, milk." (whisper
    closes a list the speaker paused inside with a full stop). The last two items must be short, so a
    leading interjection ("Well, thanks.", "Yes, I agree with you.") is not a list."""
    if stripped.endswith("?"):
        return False
    chunks = [_WORD.findall(chunk.lower()) for chunk in stripped.split(",")]
    if len(chunks) < 2 or not chunks[-1] or not chunks[-2]:
        return False
    last, previous = chunks[-1], chunks[-2]
    # A sentence adverb after the comma closes a sentence, it is no item: "It was quite good, actually."
    if set(last) & (CONJUNCTIONS | LIST_CLOSERS | SENTENCE_ADVERBS) or len(_head(last)) > MAX_LIST_ITEM_WORDS:
        return False
    return len(chunks) > 2 or (len(previous) >= 3 and previous[0] not in DISCOURSE_MARKERS | INTERJECTIONS)


def _head(item: list[str]) -> list[str]:
    """A list item without its leading article or possessive (round 8): "a packed lunch" is as short
    an item as "bread", so its length says no more about a clause than "packed lunch"."""
    return item[1:] if item and item[0] in ARTICLES | POSSESSIVES else item


def ends_on_short_list(text: str) -> bool:
    """Whether a closed sentence ends on two short comma-separated items with no "and"/"or" ("Monday,
    Wednesday.", "Pack sunscreen, a hat."): a list the speaker may go on with. Not a rule (an answer may
    be "Sorry, Sarah."), a soft cue for ``turn_scoring``; rule 13b already takes longer lists."""
    chunks = [_WORD.findall(chunk.lower()) for chunk in text.strip().split(",")]
    if text.strip().endswith("?") or not chunks[-1]:
        return False
    if _juxtaposed_noun_phrases(chunks[-1]):
        return True
    if len(chunks) < 2:
        return False
    last_two = chunks[-2:]
    closers = CONJUNCTIONS | LIST_CLOSERS | INTERJECTIONS | DISCOURSE_MARKERS | SENTENCE_ADVERBS
    return all(1 <= len(chunk) <= MAX_LIST_ITEM_WORDS and not set(chunk) & closers for chunk in last_two)


def _juxtaposed_noun_phrases(words: list[str]) -> bool:
    """Two noun phrases side by side at the end, the comma between them lost: "call the bank the
    dentist", "the options are the train the coach"; not after a verb that takes two objects ("gave the
    dog the bone")."""
    phrases: list[int] = []  # where each of the last two determiner phrases starts
    end = len(words)
    for index in range(len(words) - 1, -1, -1):
        if words[index] in ARTICLES | POSSESSIVES:
            content = words[index + 1 : end]
            if not 1 <= len(content) <= MAX_LIST_ITEM_WORDS or set(content) & NOT_IN_NOUN_PHRASES:
                return False
            phrases.append(index)
            end = index
            if len(phrases) == 2:
                break
    if len(phrases) < 2 or phrases[1] == 0 or words[-1] in TIME_NOUNS:
        return False  # "met the team the next day": an adverbial, not a list item
    return words[phrases[1] - 1] not in TWO_OBJECT_VERBS


def _without_leading_markers(words: list[str]) -> list[str]:
    start = 0
    while start < len(words) - 1 and words[start] in DISCOURSE_MARKERS | SENTENCE_ADVERBS:
        start += 1
    return words[start:]


def _opens_question(core: list[str]) -> bool:
    """A wh-word followed by an auxiliary ("what is"), or auxiliary-subject inversion ("could you")."""
    first, second = core[0], core[1]
    if first in WH_CONTRACTIONS:
        return True
    if first in WH_WORDS:
        return second in WH_FOLLOWERS
    return first in INVERSION_AUXILIARIES and second in INVERSION_SUBJECTS


def ends_on_object_verb(text: str) -> str | None:
    """The last word when it is a verb that needs an object and nothing earlier in the sentence could
    be that object (no wh-word, "that", "all", ...); else None."""
    words = _WORD.findall(text.strip().lower().replace("’", "'"))
    if len(words) < 2 or words[-1] not in OBJECT_VERBS or text.strip().endswith("?"):
        return None
    if words[-2] in ARTICLES | POSSESSIVES | word_set("this his her its"):
        return None  # a noun: "the show", "a visit"
    # Its object may have moved before it: a wh-word, "that", "all", or a relative clause ("the size I
    # wanted").
    return None if set(words[:-1]) & (OBJECT_GAP_WORDS | WH_WORDS) or strands(words) else words[-1]
