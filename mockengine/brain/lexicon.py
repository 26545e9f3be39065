"""Words for the tool matcher: tokens with stems, synonym concepts, and numbers, dates and times in text.

A *concept* is the key two words share when they mean the same action or thing for a tool ("show" and
"open", "play" and "launch", "previous" and "prev"): the first word of its synonym group. A word in no
group is its own concept (its Snowball stem). Multi-word phrases ("thumbs up", "pull up", "on screen") are
rewritten to single words before tokenizing, so "pull up the gesture project" reads like "open …".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from re import _constants, _parser  # type: ignore[attr-defined]
from typing import Any

import snowballstemmer

from mockengine.brain.wordlists import (
    ACTIONS,
    ASSOCIATION_WEIGHT,
    ASSOCIATIONS,
    FALLBACK_ASSOCIATIONS,
    GROUPS,
    IRREGULAR,
    KEEPING_WORDS,
    PHRASES,
    STOPWORDS,
    WORD_ASSOCIATIONS,
)
from mockengine.brain.wordnet_verbs import VERB_SYNONYMS

__all__ = [
    "ACTIONS",
    "ASSOCIATION_WEIGHT",
    "PRONOUNS",
    "STOPWORDS",
    "associated",
    "concept",
    "rewrite",
    "tokens",
]
_STEMMER = snowballstemmer.stemmer("english")

# Words that stand for "the thing we were just talking about".
PRONOUNS = frozenset(["it", "this", "that", "them", "these", "those", "one", "same", "that's", "it's", "him"])

# A phrase is a regular expression matched on whole words, case-insensitively.
_PHRASE_PATTERNS = tuple((re.compile(rf"\b{a}\b", re.IGNORECASE), b) for a, b in PHRASES)
_WORD = re.compile(r"[^\W_](?:[^\W_]|['’-])*")


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """The Snowball English stem of ``word`` (lower case)."""
    lowered = word.lower().replace("’", "'")
    if len(lowered) > 6 and lowered.endswith("ely"):  # "completely" says how, it completes nothing
        return lowered
    return str(_STEMMER.stemWord(IRREGULAR.get(lowered, lowered)))


def spelled_alike(first: str, second: str) -> bool:
    """``first`` and ``second`` are one word, in British or American spelling ("cancelled" and
    "canceled", "colour" and "color"; ``IRREGULAR``), any case."""
    one, other = first.lower(), second.lower()
    return one == other or IRREGULAR.get(one, one) == IRREGULAR.get(other, other)


@lru_cache(maxsize=1)
def _concepts() -> dict[str, str]:
    table: dict[str, str] = {}
    for group in GROUPS:
        for word in group:
            table.setdefault(stem(word), group[0])
    # WordNet's verbs whose everyday sense is a tool verb ("purchase" → buy), below the groups, which win
    for lemma, hub in VERB_SYNONYMS.items():
        if " " not in lemma:
            table.setdefault(stem(lemma), _hub_concept(table, hub))
    return table


def _hub_concept(table: dict[str, str], hub: str) -> str:
    """The concept of a WordNet hub verb: "turn off" → off, "cancel" → its group's."""
    word = hub.split()[-1] if hub.startswith("turn ") else hub
    return table.get(stem(word), stem(word))


def _inflected(verb: str) -> str:
    """A regular expression for ``verb`` and its inflections ("call" → call, calls, called, calling)."""
    past = [w for w, base in IRREGULAR.items() if base == verb]
    stemmed = verb[:-1] if verb.endswith("e") else verb
    short = len(verb) <= 4 and verb[-1] not in "aeiouwy" and verb[-2] in "aeiou"  # "stop" → stopped
    doubled = verb + verb[-1] if short else verb
    forms = {verb, verb + "s", stemmed + "ed", stemmed + "ing", doubled + "ed", doubled + "ing", *past}
    return "(?:" + "|".join(sorted(forms, key=len, reverse=True)) + ")"


_OBJECTS = "it|them|that|this|those|these"
# WordNet's phrasal verbs ("call off" → cancel), read as their hub verb whatever their inflection.
_PHRASAL_PATTERNS = tuple(
    (
        re.compile(
            rf"\b{_inflected(lemma.split()[0])}(?: ({_OBJECTS}))? {' '.join(lemma.split()[1:])}\b",
            re.IGNORECASE,
        ),
        (hub.split()[-1] if hub.startswith("turn ") else hub) + r" \1",  # "call it off" → "cancel it"
    )
    for lemma, hub in VERB_SYNONYMS.items()
    if " " in lemma
)


def _needed(pattern: re.Pattern[str]) -> str:
    """The longest run of literal characters every match of ``pattern`` contains (lower case; "" when
    none): the run of plain characters in its top-level sequence, groups included, never inside an
    alternative, a repeat or a lookaround. In ASCII text, a case-insensitive match needs that run in
    the lower-cased text (beyond ASCII, case folding has exceptions: the pattern is always tried)."""
    longest, run = "", ""

    def walk(items: Any) -> None:
        nonlocal longest, run
        for op, argument in items:
            if op is _constants.LITERAL:
                run += chr(argument)
                continue
            if op is _constants.SUBPATTERN:
                walk(argument[-1])
                continue
            if op is not _constants.AT:  # \b: zero width, the run goes on
                longest, run = max(longest, run, key=len), ""

    walk(_parser.parse(pattern.pattern, pattern.flags))
    return max(longest, run, key=len).lower()


# What the phrases that name a to-do are rewritten to ("I need to …", "to do"): a to-do tool's word.
TO_DO = "todo"
# Every phrase rule in order, with the words it cannot match without (rewrite() skips the rules whose
# words are absent: with 147 rules, one regex scan each per text made rewriting the matcher's main cost).
_REWRITES = tuple((p, r, _needed(p)) for p, r in _PHRASE_PATTERNS + _PHRASAL_PATTERNS)


def concept(word: str) -> str:
    """The concept ``word`` belongs to: its synonym group's first word, else its own stem."""
    stemmed = stem(word)
    return _concepts().get(stemmed, stemmed)


def associated(concept_name: str, word: str = "") -> tuple[str, ...]:
    """The concepts ``concept_name`` implies in an indirect request ("dark" → light, on), and those the
    ``word`` that carried it implies in its other senses ("save" → add, create)."""
    return ASSOCIATIONS.get(concept_name, ()) + (WORD_ASSOCIATIONS.get(stem(word), ()) if word else ())


def fallback_associated(word: str) -> tuple[str, ...]:
    """The concepts ``word`` implies where no declared tool has its concept ("add" → create; not "put",
    "put a wash on" starts one)."""
    return FALLBACK_ASSOCIATIONS.get(stem(word), ())


def word_associated(verb: str) -> tuple[str, ...]:
    """The stems of the words a tool's verb of keeping also means (``save_contact`` → add)."""
    return tuple(stem(w) for w in KEEPING_WORDS.get(stem(verb), ()))


@dataclass(frozen=True)
class Token:
    """One word of the (rewritten) text: as written, lower case, and its concept."""

    text: str
    lower: str
    concept: str

    @property
    def is_stop(self) -> bool:
        return self.lower in STOPWORDS


def rewrite(text: str, keep_case: bool = False, *, to_dos: bool = True) -> str:
    """``text`` with the multi-word phrases replaced (in lower case unless ``keep_case``); without
    ``to_dos``, the phrases that name a to-do ("I need to …", "to do" → todo) stay as said."""
    rewritten = " " + text.replace("’", "'") + " "
    rewritten = rewritten if keep_case else rewritten.lower()
    lowered, plain = rewritten.lower(), rewritten.isascii()
    for pattern, replacement, needed in _REWRITES:
        if not to_dos and replacement == TO_DO:
            continue
        if plain and needed not in lowered:
            continue  # it cannot match without these words: a substring test instead of a regex scan
        changed = pattern.sub(replacement, rewritten)
        if changed is not rewritten:
            rewritten, lowered, plain = changed, changed.lower(), changed.isascii()
    rewritten = rewritten.replace("  ", " ")
    return " ".join(rewritten.split())


def tokens(text: str) -> list[Token]:
    """The words of ``text`` as written (no phrase rewriting), with concepts."""
    return [Token(m.group(0), m.group(0).lower(), concept(m.group(0))) for m in _WORD.finditer(text)]


def concepts_of(text: str) -> list[str]:
    """The concepts of the content words of ``text`` after phrase rewriting, in order."""
    words = [t for t in tokens(rewrite(text)) if not t.is_stop or t.lower in ("up", "down", "on", "off")]
    return [t.concept for t in words]


def identifier_words(name: str) -> str:
    """``open_card`` / ``openCard`` / ``open-card`` → ``open card``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return " ".join(re.split(r"[_\-\s.]+", spaced)).lower().strip()


_INVOKING = r"(?:use|call|run|invoke|trigger|try)"


def tool_mention(text: str, tool_name: str) -> re.Match[str] | None:
    """Where ``text`` names the tool itself, with its "use"/"call", "tool"/"function" and a following
    for/on/with: the name as written ("get_weather"), or spoken right after use/call ("use get weather",
    and as a transcript may mishear its first word, "use Git weather"). None when it does not: "get the
    weather in Oslo" is ordinary speech whose words still count."""
    words = identifier_words(tool_name).split()
    if not words or words[-1] not in text.lower():
        return None  # every form of the mention holds the name's last word
    patterns = _mention_patterns(tool_name)
    if patterns is None:
        return None
    mention, written = patterns
    for found in mention.finditer(text):
        as_written = written.search(found.group(0)) and "_" in tool_name
        if _INVOKED.match(found.group(0)) or as_written or not _LETTERS.fullmatch(found.group(0)):
            return found
    return None


_INVOKED = re.compile(rf"(?i){_INVOKING}\s")
_LETTERS = re.compile(r"[A-Za-z ]+")


@lru_cache(maxsize=4096)
def _mention_patterns(tool_name: str) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """``tool_mention``'s patterns for one tool name, compiled once (not per turn: with hundreds of tools
    declared, ``re``'s own cache of 512 patterns would recompile them every turn)."""
    words = identifier_words(tool_name).split()
    if not words:
        return None
    spoken = r"[\s_\-]*".join(re.escape(w) for w in words)
    names = [re.escape(tool_name), spoken]
    if len(words) > 1:  # after use/call: any first word, then the rest of the name
        names.append(r"[A-Za-z]+[\s_\-]+" + r"[\s_\-]*".join(re.escape(w) for w in words[1:]))
    name = "|".join(sorted(set(names), key=len, reverse=True))
    mention = re.compile(
        rf"\b(?:{_INVOKING}\s+)?(?:the\s+)?(?:{name})\b(?:\s+(?:tool|function))?(?:\s+(?:for|on|with)\b)?",
        re.IGNORECASE,
    )
    return mention, re.compile(rf"(?i)\b{re.escape(tool_name)}\b")
