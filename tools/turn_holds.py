"""Round 19's hold variants for ``tools/turn_firstprobe.py score``: each a test on the deciding probe
(its ``text`` and ``words``) that, when true, holds a finished verdict as a contested one is held."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mockengine.realtime.semantic_words import (
    ARTICLES,
    CONJUNCTIONS,
    INTERJECTIONS,
    LIST_CLOSERS,
    POSSESSIVES,
    SENTENCE_ADVERBS,
    WH_WORDS,
)

_WORDS = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
Hold = Callable[[dict[str, Any]], bool]


def _words(text: str) -> list[str]:
    return _WORDS.findall(text.lower().replace("\u2019", "'"))


def demonstrative(ends: frozenset[str], questions: bool = True) -> Hold:
    """A closed turn whose last word is a demonstrative ("I sit next to this.", "We all wore these.")."""

    def hold(probe: dict[str, Any]) -> bool:
        words = _words(probe["text"])
        if not questions and probe["text"].rstrip().endswith("?"):
            return False
        return len(words) >= 2 and words[-1] in ends and words[0] not in WH_WORDS

    return hold


def series(max_item: int) -> Hold:
    """A comma series whose last item has no "and"/"or" and at most ``max_item`` words (its article
    or possessive not counted), after a first chunk of 3+ words: "I take snacks, a flask of soup."."""

    def hold(probe: dict[str, Any]) -> bool:
        text = probe["text"].strip()
        if text.endswith("?") or "," not in text:
            return False
        chunks = [_words(chunk) for chunk in text.split(",")]
        if not chunks[-1] or not chunks[0]:
            return False
        last = chunks[-1][1:] if chunks[-1][0] in ARTICLES | POSSESSIVES else chunks[-1]
        closers = CONJUNCTIONS | LIST_CLOSERS | SENTENCE_ADVERBS | INTERJECTIONS
        if set(chunks[-1]) & closers or not 1 <= len(last) <= max_item:
            return False
        return len(chunks) > 2 or (len(chunks[0]) >= 3 and chunks[0][0] not in INTERJECTIONS)

    return hold


def words_at_most(n: int) -> Hold:
    return lambda probe: len(_words(probe["text"])) <= n


THIS = frozenset({"this", "these", "those"})
HOLDS: list[tuple[str, Hold | None]] = [
    ("defaults", None),
    ("demonstrative this/these/those", demonstrative(THIS)),
    ("demonstrative this/these/those, not ?", demonstrative(THIS, questions=False)),
    ("demonstrative these/those", demonstrative(frozenset({"these", "those"}))),
    ("series item <= 3", series(3)),
    ("series item <= 4", series(4)),
    ("series item <= 6", series(6)),
]


def unpunctuated(max_words: int) -> Hold:
    """A turn of at most ``max_words`` words that whisper closed with no punctuation ("Monday", "Dave",
    "on"): finished only by the ``short_answer`` cue."""

    def hold(probe: dict[str, Any]) -> bool:
        text = probe["text"].strip()
        return 1 <= len(_words(text)) <= max_words and not text.endswith((".", "?", "!"))

    return hold


def fragments(max_words: int) -> Hold:
    """Whisper wrote 2+ sentences and the last one is a short fragment ("We bought her a bed. A lead.
    Some toys."): a list it broke at the speaker's commas."""

    def hold(probe: dict[str, Any]) -> bool:
        parts = [p for p in re.split(r"(?<=[.!?])\s+", probe["text"].strip()) if _words(p)]
        return len(parts) >= 2 and len(_words(parts[-1])) <= max_words

    return hold


HOLDS += [
    ("unpunctuated <= 1 word", unpunctuated(1)),
    ("unpunctuated <= 2 words", unpunctuated(2)),
    ("last sentence of 2+ <= 2 words", fragments(2)),
    ("last sentence of 2+ <= 3 words", fragments(3)),
]


def either(*holds: Hold) -> Hold:
    return lambda probe: any(hold(probe) for hold in holds)


HOLDS += [
    ("demonstrative + unpunctuated <= 1", either(demonstrative(THIS), unpunctuated(1))),
]


def end_without_determiner(probe: dict[str, Any]) -> bool:
    """Round 20: a closed turn ending on "end" with no determiner or place adjective before it ("We gave
    up on the Sunday end." for "… the Sunday and"): whisper's hearing of a cut-off "and". Adopted as
    ``turn_scoring``'s ``function_ending`` on "end" (``END_DETERMINERS``); a no-op with it in place."""
    from mockengine.realtime.turn_scoring import END_DETERMINERS, END_MODIFIERS

    words = _words(probe["text"])
    return len(words) >= 2 and words[-1] == "end" and words[-2] not in END_DETERMINERS | END_MODIFIERS


INDEFINITES = frozenset({"somebody", "someone", "everybody", "everyone", "nobody", "anyone", "anybody"})


def indefinite_subject(probe: dict[str, Any]) -> bool:
    """Round 20, not adopted: a two-word turn opening on an indefinite pronoun ("Somebody showed" for
    "Somebody should"): a subject and its verb, not an answer (saved 1 pause, on heldout_r8 only)."""
    words = _words(probe["text"])
    return len(words) == 2 and words[0] in INDEFINITES and words[1] != "else"


HOLDS += [
    ("end, no determiner (round 20)", end_without_determiner),
    ("indefinite subject + one word", indefinite_subject),
]
