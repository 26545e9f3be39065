"""Strings for a JSON Schema ``pattern``: a span of the words heard that the pattern accepts, else a string
generated from the pattern (``rstr``'s xeger), deterministically from a seeded ``random.Random``.

JSON Schema patterns are ECMA-262 regular expressions, unanchored (jsonschema uses ``re.search``); the
ones tool schemas use ("^[0-2][0-9]:[0-5][0-9]$", "^#[0-9a-f]{6}$", "^[A-Z]{2}\\d{4}$") read the same in
Python's ``re``. A pattern Python cannot compile or rstr cannot expand gives None: the caller then has no
value, and a schema no value satisfies is reported as such.
"""

from __future__ import annotations

import functools
import random
import re

import rstr

# An unbounded repeat ("\d+", ".*") is drawn from at most this many more than its minimum, so a generated
# code stays short ("XKD-481", not 90 digits); rstr's own limit is 100.
_REPEAT_SPREAD = 3
_ATTEMPTS = 16
_MAX_WORDS = 6
# Words looked through for a span: bounds the cost on a long typed text (at most 6 × 300 searches).
_MAX_SCANNED = 300
_TOKEN = re.compile(r"\S+")
_EDGE = ".,;:!?\"'()[]{}“”‘’"


class _ShortRepeats(random.Random):
    """A ``random.Random`` whose ``randint`` (rstr's draw of a repeat count) stays near the low end."""

    def randint(self, a: int, b: int) -> int:
        return super().randint(a, min(b, a + _REPEAT_SPREAD))


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except (re.error, OverflowError):
        return None


def matches(pattern: str, text: str) -> bool:
    """``text`` is accepted by ``pattern`` as JSON Schema reads it (found anywhere in ``text``)."""
    compiled = _compiled(pattern)
    return compiled is not None and compiled.search(text) is not None


def heard(text: str, pattern: str) -> str | None:
    """The shortest run of words in ``text`` (up to six, edge punctuation stripped, earliest first, among
    its first 300 words) that ``pattern`` accepts: "my code is AB1234 thanks" with "^[A-Z]{2}\\d{4}$" →
    "AB1234"."""
    if _compiled(pattern) is None:
        return None
    words = [w.strip(_EDGE) for w in _TOKEN.findall(text)][:_MAX_SCANNED]
    for size in range(1, min(_MAX_WORDS, len(words)) + 1):
        for start in range(len(words) - size + 1):
            span = " ".join(words[start : start + size]).strip(_EDGE)
            if span and matches(pattern, span):
                return span
    return None


def generated(
    pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None
) -> str | None:
    """A string ``pattern`` accepts, of ``min_length``..``max_length`` characters, drawn from ``rng``
    (same state, same string); None when none was found in a few draws."""
    if _compiled(pattern) is None:
        return None
    source = _ShortRepeats(rng.getrandbits(64))
    maker = rstr.Rstr(source)
    for _ in range(_ATTEMPTS):
        try:
            candidate = maker.xeger(pattern)
        except Exception:  # a construct rstr does not expand (lookarounds, backreferences)
            return None
        fits = len(candidate) >= min_length and (max_length is None or len(candidate) <= max_length)
        if fits and matches(pattern, candidate):
            return candidate
    return None
