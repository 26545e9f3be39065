"""A payment card read out: its number said in groups, its expiry ("04/28", "oh four twenty-eight",
"April 2028") and its security code ("security code", "CVC", "CVV" for a ``cvv`` parameter).

A card is read aloud in groups of four ("4242 4242 4242 4242", "four two four two, four two four two …"),
and a model writes the number as its digits; the expiry in the form the parameter's description or
``pattern`` gives (MM/YY unless it says MM/YYYY); the security code as its three or four digits."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain.lexicon import identifier_words
from mockengine.brain.values import Span

_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "o": "0", "nought": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_DIGIT = r"(?:zero|oh|o|nought|one|two|three|four|five|six|seven|eight|nine|\d)"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")

_EXPIRY_WORDS = frozenset(("expiry", "expiration", "exp", "expires", "expiring"))
_CODE_WORDS = frozenset(("cvv", "cvc", "cvv2", "cvc2", "cv2", "csc", "cid"))


def takes_expiry(name: str) -> bool:
    """The parameter is a card's whole expiry (``expiry``, ``expiry_date``, ``exp_date``,
    ``expiration``); not one part of it (``exp_month``: ``expiry_part``)."""
    return bool(_EXPIRY_WORDS & set(identifier_words(name).split())) and expiry_part(name) is None


_MONTH_WORDS = frozenset(("month", "mm"))
_YEAR_WORDS = frozenset(("year", "yr", "yy", "yyyy"))


def expiry_part(name: str) -> str | None:
    """``"month"`` or ``"year"`` when the parameter is that part of a card's expiry (``exp_month``,
    ``expYear``, ``expiry_month``, ``card_expiration_year``: Stripe's card fields); else None."""
    words = set(identifier_words(name).split())
    if not _EXPIRY_WORDS & words:
        return None
    if _MONTH_WORDS & words:
        return "month"
    return "year" if _YEAR_WORDS & words else None


def takes_security_code(name: str) -> bool:
    """The parameter is a card's security code (``cvv``, ``cvc``, ``security_code``, ``card_cvv``)."""
    words = identifier_words(name).split()
    return bool(_CODE_WORDS & set(words)) or words[-2:] == ["security", "code"]


def takes_card_number(name: str) -> bool:
    """The parameter is a card's number (``card_number``, ``cardNumber``, ``credit_card_number``); a
    ``card`` alone is any card (a voice app's ``open_card``), no payment card."""
    words = identifier_words(name).split()
    return "card" in words and words[-1] in ("number", "no", "num")


# Sixteen (thirteen to nineteen) digits, written in groups or said one by one, groups apart by commas.
_WRITTEN_CARD = re.compile(r"(?<![\w-])\d{4}(?:[ -]?\d{2,4}){2,4}(?![\w-])")
_SPOKEN_CARD = re.compile(rf"(?<![\w-]){_DIGIT}(?:(?:\s*,\s*|[\s-]+){_DIGIT}){{12,}}(?![\w-])", re.IGNORECASE)


def card_number_for(text: str) -> Span | None:
    """The card number said, as its digits ("4242 4242 4242 4242" → "4242424242424242"); thirteen to
    nineteen digits, or None."""
    for pattern in (_WRITTEN_CARD, _SPOKEN_CARD):
        for found in pattern.finditer(text):
            digits = "".join(
                _DIGIT_WORDS.get(w.lower(), w) for w in re.split(r"[\s,-]+", found.group(0)) if w
            )
            if digits.isdigit() and 13 <= len(digits) <= 19:
                return Span(digits, found.start(), found.end())
    return None


_EXPIRY_LABEL = (
    r"(?:expiry(?:\s+date)?|expiration(?:\s+date)?|exp\.?|expires|expiring|valid\s+(?:until|thru|through))"
)
_WRITTEN_EXPIRY = re.compile(r"(?<![\d/])(?P<month>0?[1-9]|1[0-2])\s*/\s*(?P<year>\d{2}|20\d{2})(?![\d/])")
_SPOKEN_NUMBER = (
    r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[\s-]+(?:one|two|three|four|five|six|seven|eight|nine))?"
)
_SPOKEN_EXPIRY = re.compile(
    rf"\b{_EXPIRY_LABEL}\b[\s:,]*(?:(?:on|in|is|of)\s+)?"
    rf"(?P<month>(?:oh|zero|o)\s+(?:one|two|three|four|five|six|seven|eight|nine)|ten|eleven|twelve"
    rf"|one|two|three|four|five|six|seven|eight|nine|(?:{'|'.join(_MONTHS)})[a-z]*)"
    rf"(?:\s*,?\s*(?:of\s+)?|\s*/\s*)(?P<year>(?:twenty\s+)?{_SPOKEN_NUMBER}|twenty(?:\s+\w+)?|\d{{2}}|20\d{{2}})\b",
    re.IGNORECASE,
)


def _spoken_value(words: str) -> int | None:
    """ "oh four" → 4, "twenty-eight" → 28, "twelve" → 12, "twenty twenty eight" → 2028."""
    parts = [w for w in re.split(r"[\s-]+", words.lower()) if w]
    if parts and all(p.isdigit() for p in parts):
        return int("".join(parts))
    if len(parts) >= 2 and parts[0] == "twenty" and parts[1] in _TENS:
        rest = _spoken_value(" ".join(parts[1:]))
        return 2000 + rest if rest is not None else None
    if parts and parts[0] in _TENS:
        ones = _DIGIT_WORDS.get(parts[1], "") if len(parts) > 1 else "0"
        return _TENS[parts[0]] + int(ones) if ones.isdigit() and len(parts) <= 2 else None
    if len(parts) == 1 and parts[0] in _TEENS:
        return _TEENS[parts[0]]
    if parts and all(p in _DIGIT_WORDS for p in parts):
        return int("".join(_DIGIT_WORDS[p] for p in parts))
    if len(parts) == 1 and parts[0][:3] in _MONTHS:
        return _MONTHS.index(parts[0][:3]) + 1
    return None


def _expiry(text: str) -> tuple[int, int, int, int] | None:
    """The card's expiry said ("04/28", "4/2028", "expires oh four twenty-eight", "expiry April 2028") as
    (month, two-digit year, start, end); None when none is said."""
    found = _WRITTEN_EXPIRY.search(text)
    month: int | None
    year: int | None
    if found is not None:
        month, year = int(found.group("month")), int(found.group("year"))
    else:
        found = _SPOKEN_EXPIRY.search(text)
        if found is None:
            return None
        month, year = _spoken_value(found.group("month")), _spoken_value(found.group("year"))
    if month is None or year is None or not 1 <= month <= 12:
        return None
    return month, year % 100, found.start(), found.end()


def expiry_for(text: str, schema: Mapping[str, Any]) -> Span | None:
    """The card's expiry said ("04/28", "4/2028", "expires oh four twenty-eight", "expiry April 2028") in
    the form the parameter asks (MM/YYYY when its description or pattern says a four-digit year, else
    MM/YY); None when none is said."""
    found = _expiry(text)
    if found is None:
        return None
    month, year, start, end = found
    described = f"{schema.get('description', '')} {schema.get('pattern', '')}"
    long_year = bool(re.search(r"YYYY|\\d\{4\}|\[0-9\]\{4\}", described))
    value = f"{month:02d}/{2000 + year}" if long_year else f"{month:02d}/{year:02d}"
    return Span(value, start, end)


def expiry_parts_for(text: str, parts: Mapping[str, tuple[str, Mapping[str, Any]]]) -> Span | None:
    """The expiry said, split between the parameters that each hold one part of it (``parts``: name →
    (``"month"`` or ``"year"``, its schema)), as a model fills Stripe's ``exp_month`` / ``exp_year``:
    "expires 04/28" → ``{"exp_month": 4, "exp_year": 2028}``. An integer is a number, a string its digits
    ("04", "2028"); the year has four digits unless the schema says two (``_two_digit_year``). The span's
    value is that mapping; None when no expiry is said."""
    found = _expiry(text)
    if found is None:
        return None
    month, year, start, end = found
    value: dict[str, Any] = {}
    for name, (part, schema) in parts.items():
        number = month if part == "month" else year if _two_digit_year(schema) else 2000 + year
        kind = schema.get("type")
        numeric = kind in ("integer", "number") or (isinstance(kind, list) and "integer" in kind)
        value[name] = number if numeric else f"{number:02d}"
    return Span(value, start, end)


def _two_digit_year(schema: Mapping[str, Any]) -> bool:
    """The year parameter asks for two digits: a ``maximum`` below 100, a ``maxLength`` of 2, a pattern of
    two digits, or a description that says so ("two-digit year", "YY", "e.g. 28"). Four digits otherwise,
    as a model writes a year (and Stripe's ``exp_year`` reads)."""
    maximum = schema.get("maximum")
    if isinstance(maximum, (int, float)) and maximum < 100:
        return True
    if schema.get("maxLength") == 2:
        return True
    pattern = str(schema.get("pattern", ""))
    if re.search(r"^\^?(?:\\d|\[0-9\])\{2\}\$?$", pattern):
        return True
    described = str(schema.get("description", ""))
    if re.search(r"\b(?:two|2)[- ]digits?\b|\bYY\b", described):
        return True
    example = re.search(r"\b(?:e\.g\.|for example|like|such as)[:,]?\s*'?\"?(\d{2,4})\b", described)
    return example is not None and len(example.group(1)) == 2


_CODE_LABEL = re.compile(
    r"\b(?:security\s+code|card\s+verification(?:\s+(?:code|value|number))?|cvv2?|cvc2?|cv2|csc|cid"
    r"|(?:3|three|4|four)[- ]digit\s+code)\b(?:\s+(?:is|number))?[\s:,]*",
    re.IGNORECASE,
)
_CODE_DIGITS = re.compile(rf"(?:{_DIGIT})(?:[\s-]*(?:{_DIGIT})){{2,3}}(?![\w-])", re.IGNORECASE)


# The words that are only a code: the answer to "What's the security code …?" ("123", "It's 1 2 3.").
_CODE_ALONE = re.compile(
    rf"^\W*(?:(?:it'?s|it\s+is|that'?s)\s+)?(?P<digits>{_DIGIT}(?:[\s-]*{_DIGIT}){{2,3}})\W*$", re.IGNORECASE
)


def security_code_for(text: str) -> Span | None:
    """The three or four digits said after "security code", "CVC", "CVV" (written or one by one), or
    said alone (the answer to the question for it: "123"); None when neither."""
    alone = _CODE_ALONE.match(text)
    if alone is not None:
        value = "".join(
            _DIGIT_WORDS.get(w.lower(), w) for w in re.split(r"[\s-]+", alone.group("digits")) if w
        )
        if value.isdigit():
            return Span(value, alone.start("digits"), alone.end("digits"))
    for label in _CODE_LABEL.finditer(text):
        digits = _CODE_DIGITS.match(text, label.end())
        if digits is None:
            continue
        value = "".join(_DIGIT_WORDS.get(w.lower(), w) for w in re.split(r"[\s-]+", digits.group(0)) if w)
        if value.isdigit() and 3 <= len(value) <= 4:
            return Span(value, label.start(), digits.end())
    return None
