"""The participant's tiny fact table: capitals, small sums and small talk, answered in one sentence.

An "I can't …" answer is never said about a topic the app's declared tools cover (``covered``): with a
weather tool declared, the participant does not claim it cannot check the weather.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from typing import Any

from mockengine.brain import names
from mockengine.brain.values import numbers

_CAPITALS = {
    "france": "Paris",
    "germany": "Berlin",
    "italy": "Rome",
    "spain": "Madrid",
    "japan": "Tokyo",
    "england": "London",
    "the uk": "London",
    "the united kingdom": "London",
    "canada": "Ottawa",
    "the united states": "Washington, D.C.",
    "the usa": "Washington, D.C.",
    "australia": "Canberra",
}
_OPERATORS: dict[str, Callable[[int, int], Any]] = {
    "plus": operator.add,
    "+": operator.add,
    "minus": operator.sub,
    "-": operator.sub,
    "times": operator.mul,
    "x": operator.mul,
    "*": operator.mul,
    "multiplied by": operator.mul,
}
# Whole numbers only: digits inside a longer run (a base64 blob's "...U6x1F...", "3.5 x 2") are no sum, and
# nor is a link of a chain of numbers joined by "-" or "/": a date ("2026-12-20" was answered "2026 - 12 is
# 2014."), a phone number ("555-123-4567").
# Not a phone number's local part after its area code in parentheses ("(415) 555-0199" is no sum: it
# was answered "555 - 0199 is 356." and the text to it never sent).
_ARITHMETIC = re.compile(
    r"(?<!\w)(?<!\d\.)(?<!\d[-/])(?<!\))(?<!\)\s)"
    r"(\d{1,6})\s*(plus|\+|minus|-|times|x|\*|multiplied by)\s*(\d{1,6})"
    r"(?!\w|\.\d|[-/]\d)",
    re.IGNORECASE,
)
_CAPITAL = re.compile(r"capital (?:city )?of ((?:the )?[a-z ]+?)\s*[?.!]*$", re.IGNORECASE)
_SMALL_TALK: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bhow are you\b", re.I), "I'm doing well, thanks for asking."),
    (re.compile(r"\b(?:what'?s|what is) your name\b|\bwho are you\b", re.I), "My name is {persona}."),
    (re.compile(r"\bcolou?r (?:of|is) the sky\b", re.I), "The sky is blue on a clear day."),
    (re.compile(r"\bwhat time\b|\bwhat day\b|\bdate today\b", re.I), "I can't see a clock from here."),
    (re.compile(r"\bweather\b", re.I), "I can't check the weather from here."),
    (
        re.compile(r"\btell me a joke\b", re.I),
        "Parallel lines have so much in common, it's a shame they'll never meet.",
    ),
)
# The topic each "I can't …" answer denies, so it is not said when a declared tool covers it.
_CANNOT = {"I can't check the weather from here.": "weather", "I can't see a clock from here.": "clock"}


# "what's my name?", "do you remember my name?", "who am I?": a fact the user gave earlier, if any.
_ASKS_OWN_NAME = re.compile(
    r"\b(?:what'?s|what is|(?:do )?you (?:remember|know)|tell me|say) my name\b|^\W*who am i\b",
    re.IGNORECASE,
)
# "I'm Ada" (with a capital, so "I'm tired" and "I am fine" name nobody), beside what names.introduced reads
# ("my name is Ada", "call me Ada", "Name's Tom", "Tom speaking").
_I_AM = re.compile(r"\b(?:I'm|I’m|I am)\s+([A-Z][a-z'’-]+)\b")
_NOT_NAMES = frozenset(("I", "Not", "So", "Just", "Really", "Very", "Here", "Back", "Sorry", "Fine", "Good"))


def remembered_answer(words: str, earlier: Sequence[str], known: Sequence[str] = ()) -> str | None:
    """The answer to a question about what the user said of themselves before ("what's my name?" after
    "my name is Ada" → "Your name is Ada."; "You haven't told me your name yet." when they never did), as
    a model answers from its context; None for any other words. ``earlier``: the user's words before
    these, oldest first. ``known``: what the app told the model (the instructions, system items), which
    may name the user ("The user's name is Ana."); the user's own word wins."""
    if not _ASKS_OWN_NAME.search(words):
        return None
    for said in reversed(earlier):
        name = given_name(said)
        if name is not None:
            return f"Your name is {name}."
    for told in reversed(known):
        found = _NAMED_BY_THE_APP.search(told)
        if found is not None:
            return f"Your name is {next(group for group in found.groups() if group)}."
    return "You haven't told me your name yet."


# How an app names the user to the model: "The user's name is Ana.", "The caller is named Ana", "You are
# speaking with Ana", "User profile: name: Ana". The name keeps its capital; "Your name is Sam" is the
# assistant's own.
_NAME = r"([A-Z][a-z'’-]+)\b"
_WHO = r"\b(?i:(?:the\s+)?(?:user|caller|customer|participant|client|patient|guest|visitor))"
_NAMED_BY_THE_APP = re.compile(
    _WHO + r"(?:'s|’s)?\s+(?i:(?:first\s+|full\s+)?name\s+is)\s+" + _NAME
    + r"|" + _WHO + r"\s+(?i:is\s+(?:called|named))\s+" + _NAME
    + r"|\b(?i:you(?:'re|’re|\s+are)\s+(?:speaking|talking|chatting)\s+(?:with|to))\s+" + _NAME
    + r"|" + _WHO + r"[^.\n]{0,40}?\b(?i:name)\s*[:=]\s*" + _NAME
)  # fmt: skip


def given_name(words: str) -> str | None:
    """The name the user gives in ``words`` ("my name is Ada", "call me Bob", "I'm Sam"), or None."""
    span = names.introduced(words)
    if span is not None:
        return str(span.value)
    found = _I_AM.search(words)
    return found.group(1) if found is not None and found.group(1) not in _NOT_NAMES else None


def answers_itself(words: str) -> bool:
    """``words`` ask a sum or a capital the fact table answers ("what is 3 plus 4", "the capital of
    France"): a question of its own, which leans on no request before it."""
    capital = _CAPITAL.search(words)
    known_capital = capital is not None and capital.group(1).strip().lower() in _CAPITALS
    return known_capital or _ARITHMETIC.search(words) is not None or _spoken_sum(words) is not None


def known_answer(words: str, persona: str, covered: frozenset[str] = frozenset()) -> str | None:
    """A fixed answer from a tiny fact table (capitals, small sums, small talk), or None; no "I can't
    check the weather" when a declared tool covers the weather (``covered``)."""
    capital = _CAPITAL.search(words)
    if capital and capital.group(1).strip().lower() in _CAPITALS:
        country = capital.group(1).strip()
        return f"{_CAPITALS[country.lower()]} is the capital of {country}."
    sum_match = _ARITHMETIC.search(words)
    if sum_match:
        left, word, right = sum_match.groups()
        result = _OPERATORS[word.lower()](int(left), int(right))
        return f"{left} {word.lower()} {right} is {result}."
    spoken = _spoken_sum(words)
    if spoken is not None:
        return spoken
    for pattern, answer in _SMALL_TALK:
        if pattern.search(words) and _CANNOT.get(answer) not in covered:
            return answer.format(persona=persona)
    return None


# Function words a phone line's recognizer mishears for one another (whisper tiny.en over 8 kHz μ-law:
# "What is the capital on France?"): the word heard → the words it may have been.
_MISHEARD = {
    "on": ("of",),
    "in": ("of",),
    "off": ("of",),
    "at": ("of",),
    "a": ("the", "of"),
    "the": ("a",),
}
_WORD = re.compile(r"[A-Za-z]+")


def answer_as_meant(
    words: str, persona: str, covered: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """The answer to ``words`` and the question it answers, ``(question, answer)``: the words as heard
    when the fact table knows them (``known_answer``), else the known question they are with one
    function word misheard ("What is the capital on France?" → "What is the capital of France?"). One
    lookup of the words as heard, then one per swap. None when no single swap (``_MISHEARD``) makes a
    known question, or when two swaps make different ones: a guess between two questions is never
    answered, and nor is a question two words away ("colour on a sky")."""
    heard = known_answer(words, persona, covered)
    if heard is not None:
        return words, heard
    found: dict[str, str] = {}
    for word in _WORD.finditer(words):
        for meant in _MISHEARD.get(word.group().lower(), ()):
            if word.group()[0].isupper():
                meant = meant.capitalize()
            question = f"{words[: word.start()]}{meant}{words[word.end() :]}"
            answer = known_answer(question, persona, covered)
            if answer is not None:
                found.setdefault(answer, question)
    if len(found) != 1:
        return None
    answer, question = next(iter(found.items()))
    return question, answer


def misheard_answer(
    words: str, persona: str, covered: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """``answer_as_meant`` when the words were misheard: ``(question meant, answer)``; None when they
    answer as heard or are no known question one word away."""
    found = answer_as_meant(words, persona, covered)
    return found if found is not None and found[0] != words else None


def _spoken_sum(words: str) -> str | None:
    """A sum in words, as speech is transcribed ("what is two plus two", "twelve times three"): two
    whole numbers with an operator word between them; the result in digits ("two plus two is 4.")."""
    spans = numbers(words)
    for left, right in zip(spans, spans[1:], strict=False):
        operator_word = " ".join(words[left.end : right.start].split()).lower()
        is_word = operator_word.replace(" ", "").isalpha()  # a "-" between words is a hyphen
        if operator_word not in _OPERATORS or not is_word:
            continue
        a, b = left.value, right.value
        if not (isinstance(a, int) and isinstance(b, int) and 0 <= a < 10**6 and 0 <= b < 10**6):
            continue
        result = _OPERATORS[operator_word](a, b)
        said = f"{words[left.start : left.end]} {operator_word} {words[right.start : right.end]}"
        return f"{said[0].upper()}{said[1:]} is {result}."
    return None
