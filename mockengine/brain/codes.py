"""Codes from the words: identifiers as written or spoken digit by digit ("order nine one four two" →
``9142``, "flight BA 283" → ``BA283``) and currencies by name for a parameter that takes an ISO 4217 code
("a hundred euros in US dollars" → ``EUR``, ``USD``).

Each finder returns the ``Span`` the value came from, so ``slots`` can take those words out of the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain.lexicon import identifier_words
from mockengine.brain.values import Span, numbers

_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
_DIGIT = "|".join(_DIGIT_WORDS)
# Three or more digits said one by one: a code, not a quantity.
_SPOKEN_CODE = re.compile(rf"\b(?:{_DIGIT})(?:[\s-]+(?:{_DIGIT})){{2,}}\b", re.IGNORECASE)
# Capital letters then digits, as a code is read out: "BA 283", "KL 1002".
_PREFIXED = re.compile(r"(?<![\w-])([A-Z]{1,3})\s+(\d{1,6})(?![\w-])")
_WRITTEN = re.compile(r"(?<![\w-])[A-Za-z]*\d[\w-]*")

# Currency names, longest first, with their ISO 4217 codes.
_CURRENCIES: tuple[tuple[str, str], ...] = (
    (r"u\.?s\.? dollars?|american dollars?|dollars? us", "USD"),
    (r"canadian dollars?", "CAD"),
    (r"australian dollars?|aussie dollars?", "AUD"),
    (r"new zealand dollars?", "NZD"),
    (r"hong kong dollars?", "HKD"),
    (r"swiss francs?|francs?", "CHF"),
    (r"british pounds?|pounds? sterling|pounds?|sterling|quid", "GBP"),
    (r"euros?", "EUR"),
    (r"japanese yen|yen", "JPY"),
    (r"chinese yuan|yuan|renminbi", "CNY"),
    (r"indian rupees?|rupees?", "INR"),
    (r"swedish kron(?:a|or)", "SEK"),
    (r"norwegian kron(?:e|er)", "NOK"),
    (r"danish kron(?:e|er)", "DKK"),
    (r"mexican pesos?|pesos?", "MXN"),
    (r"(?:polish )?zloty|zlotys", "PLN"),
    (r"(?:south african )?rand", "ZAR"),
    (r"(?:turkish )?lira", "TRY"),
    (r"dollars?|bucks", "USD"),
)
_CURRENCY = re.compile(
    r"\b(?:" + "|".join(f"(?P<c{i}>{name})" for i, (name, _) in enumerate(_CURRENCIES)) + r")\b"
    r"|(?<![\w-])(?P<iso>[A-Z]{3})(?![\w-])",
    re.IGNORECASE,
)
_INTO = re.compile(r"\b(?:in|into|to)\s+(?:the\s+)?$", re.IGNORECASE)


def identifier_for(text: str) -> Span | None:
    """The first code in ``text``: digits said one by one, capital letters and digits read apart, or a
    word with a digit as written."""
    found = [
        *(Span(_digits(m.group(0)), m.start(), m.end()) for m in _SPOKEN_CODE.finditer(text)),
        *(Span(m.group(1) + m.group(2), m.start(), m.end()) for m in _PREFIXED.finditer(text)),
        *(
            Span(m.group(0), m.start(), m.end())
            for m in _WRITTEN.finditer(text)
            if not _counts(text, m) and not _clock_time(text, m)
        ),
    ]
    return min(found, key=lambda s: (s.start, -s.end)) if found else None


# What a number counts, said after it: a plural ("4 people", "3 nights", "2 tickets"), no code; a verb
# ending in "s" ("order 12345 was sent", "… has not arrived") counts nothing.
_COUNTED = re.compile(
    r"\s+(?!(?:was|has|does|goes|says|thanks|this|plus|yes)\b)(?:[a-z]+[a-rt-z]s|people|children|men|women|kids)\b"
)
# What a count follows: "a reservation for 4 people", "a party of 6 guests", "the last 5 transactions on
# account 887766". A number right after the record's word is its id, whatever follows ("flight 1234
# updates", "track 784512 details").
_BEFORE_COUNT = re.compile(r"\b(?:for|of|with|last|next|first|past|top)\s+$", re.IGNORECASE)


# A time of day said: "at 7", "around 7:30", "7pm", "7 o'clock" (a number after "at" of up to two digits,
# or one the clock's words follow). "for 2 at 7:30": the number before the time counts the party.
_BEFORE_TIME = re.compile(r"\b(?:at|around|about|by|until|till)\s+$", re.IGNORECASE)
_CLOCK_AFTER = re.compile(r"(?::\d{2}\b|\s*(?:a\.?m\.?|p\.?m\.?|o'clock)(?!\w))", re.IGNORECASE)
_CLOCK_WRITTEN = re.compile(r"\d{1,2}(?:am|pm)", re.IGNORECASE)
_PARTY_BEFORE_TIME = re.compile(r"\s+(?:at|around|tonight|tomorrow|today)\b", re.IGNORECASE)


def _clock_time(text: str, written: re.Match[str]) -> bool:
    """The written ``written`` is a time of day ("7" of "a reservation at 7", "7pm", "7:30"), or a party
    of up to two digits said after "for" before one ("2" of "a reservation for 2 at 7:30"): no record's
    id."""
    number = written.group(0)
    if _CLOCK_WRITTEN.fullmatch(number):
        return True
    if not number.isdigit() or len(number) > 2:
        return False
    if _BEFORE_TIME.search(text, 0, written.start()) or _CLOCK_AFTER.match(text, written.end()):
        return True
    if re.search(r"\d:$", text[: written.start()]):  # the minutes of "7:30"
        return True
    return bool(
        re.search(r"\bfor\s+$", text[: written.start()], re.IGNORECASE)
        and _PARTY_BEFORE_TIME.match(text, written.end())
    )


def said_as_time(text: str, value: Any) -> bool:
    """Whether ``value`` is said in ``text`` only as a time of day or a party before one ("7" of "I have
    a reservation for 4 people at 7", "30" of "at 7:30", "7pm"): no record's id, however a free string
    took it."""
    if not isinstance(value, str) or not value.strip():
        return False
    said = [m for m in _WRITTEN.finditer(text) if m.group(0).lower() == value.strip().lower()]
    return bool(said) and all(_clock_time(text, m) for m in said)


def _counts(text: str, written: re.Match[str]) -> bool:
    """The written ``written`` is a plain number of up to three digits that counts the plural said right
    after it, after "for" / "of" / "with" / "last" / "next" … ("a reservation for 4 people", "the last 5
    transactions"): a quantity, which no record's id is."""
    number = written.group(0)
    return (
        number.isdigit()
        and len(number) <= 3
        and _BEFORE_COUNT.search(text, 0, written.start()) is not None
        and _COUNTED.match(text, written.end()) is not None
    )


def _digits(spoken: str) -> str:
    return "".join(_DIGIT_WORDS[w.lower()] for w in re.split(r"[\s,-]+", spoken) if w)


# Digits said in groups, as a long number is read out: "eight four two, five five one, nine zero three";
# digits written in groups: "550 118 2297".
_GROUPED_SPOKEN = re.compile(rf"\b(?:{_DIGIT})(?:(?:\s*,\s*|[\s-]+)(?:{_DIGIT})){{2,}}\b", re.IGNORECASE)
_GROUPED_DIGITS = re.compile(r"(?<![\w-])\d+(?:[ -]\d+)+(?![\w-])")
_TOKEN = re.compile(r"(?<![\w-])[A-Za-z0-9][\w-]*")


def is_code_pattern(pattern: Any) -> bool:
    """A ``pattern`` for a code (a ticket reference, a meeting id): it accepts no plain word and no date
    or time, and compiles."""
    if not isinstance(pattern, str) or format_of_pattern(pattern) is not None:
        return False
    try:
        return not any(re.search(pattern, word) for word in ("x", "hello", "the", "please", "Excel"))
    except re.error:
        return False


def patterned(text: str, pattern: str) -> Span | None:
    """The first code in ``text`` that ``pattern`` accepts: as written ("QX4T7B2M"), upper-cased when
    it holds a digit ("qx4t7b2m"), capitals and digits read apart ("BA 283"), its digit groups joined
    ("550 118 2297") or digits said one by one in groups ("eight four two, five five one")."""
    found = [
        *(Span(_digits(m.group(0)), m.start(), m.end()) for m in _GROUPED_SPOKEN.finditer(text)),
        *(Span(re.sub(r"[ -]", "", m.group(0)), m.start(), m.end()) for m in _GROUPED_DIGITS.finditer(text)),
        *(Span(m.group(1) + m.group(2), m.start(), m.end()) for m in _PREFIXED.finditer(text)),
        *(Span(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)),
        *(
            Span(m.group(0).upper(), m.start(), m.end())
            for m in _TOKEN.finditer(text)
            if re.search(r"\d", m.group(0))
        ),
    ]
    found += [Span(_spelled_value(m), m.start(), m.end()) for m in _SPELLED_CODE.finditer(text)]
    # "^INC[0-9]{6}$", "^ORD-[0-9]{5}$": the letters it starts with, and the separator after them
    prefix = re.match(r"\^\(?([A-Z]{1,5}(?:-|_|/|\\-)?)(?=[\[\\(])", pattern)
    if prefix is not None:  # "incident two oh nine, nine one four": the digits, the pattern's letters
        letters = prefix.group(1).replace("\\", "")
        found += [Span(letters + str(span.value), span.start, span.end) for span in found]
    try:
        fitting = [span for span in found if re.search(pattern, str(span.value))]
    except re.error:
        return None
    return min(fitting, key=lambda s: (s.start, -s.end)) if fitting else None


# Letters spelled out or written, then digits spoken or written: "I N C zero zero seven", "D K 0419".
_SPELLED_CODE = re.compile(
    rf"(?<![\w-])(?P<letters>(?:[A-Z]\s+){{1,3}}[A-Z]|[A-Z]{{2,4}})\s+"
    rf"(?P<digits>(?i:{_DIGIT}|\d+)(?:(?:\s*,\s*|[\s-]+)(?i:{_DIGIT}|\d+))*)(?![\w-])"
)


def _spelled_value(match: re.Match[str]) -> str:
    digits = re.split(r"[\s,-]+", match.group("digits"))
    letters = re.sub(r"\s+", "", match.group("letters"))
    return letters + "".join(_DIGIT_WORDS.get(d.lower(), d) for d in digits)


def is_currency(name: str, schema: Mapping[str, Any]) -> bool:
    """A string parameter that takes a currency code: its pattern accepts "EUR" but no word, and its
    name or description speaks of a currency (or ISO 4217)."""
    about = f"{name} {schema.get('description', '')}".lower()
    pattern = schema.get("pattern")
    if not ("currency" in about or "iso 4217" in about or "iso4217" in about):
        return False
    try:
        if not isinstance(pattern, str):
            return True
        return bool(re.search(pattern, "EUR")) and not re.search(pattern, "euro")
    except re.error:
        return False


def currencies(text: str) -> list[tuple[Span, bool]]:
    """The currencies named in ``text``, in order, each with whether it is the target ("in dollars")."""
    found = []
    for match in _CURRENCY.finditer(text):
        iso = match.group("iso")
        if iso is not None and not iso.isupper():
            continue
        code = iso or next(_CURRENCIES[i][1] for i in range(len(_CURRENCIES)) if match.group(f"c{i}"))
        found.append((Span(code, match.start(), match.end()), bool(_INTO.search(text[: match.start()]))))
    return found


def format_of_pattern(pattern: Any) -> str | None:
    """The value format a ``pattern`` accepts, tried on samples: "^[0-2][0-9]:[0-5][0-9]$" → time."""
    if not isinstance(pattern, str):
        return None
    for fmt, sample in (("date-time", "2026-03-02T18:30:00"), ("date", "2026-03-02"), ("time", "18:30")):
        try:
            if re.search(pattern, sample) and not re.search(pattern, "x"):
                return fmt
        except re.error:
            return None
    return None


def lacks_digit(name: str, value: Any, description: str = "") -> bool:
    """A string for an ``order_number``-like parameter (or an id described as a number) that holds no
    digit ("anything free", "an update")."""
    last = identifier_words(name).split()[-1:]
    numbered = last in (["number"], ["num"], ["no"]) or (
        last == ["id"] and re.search(r"\bnumber\b", description, re.I) is not None
    )
    if not (numbered and isinstance(value, str)) or re.search(r"\d", value):
        return False
    # a record's number written as a code in capitals ("confirmation number XYZ") is one, as an id is
    return not (record_words(name) and _CAPITALS_CODE.fullmatch(value.strip()))


# The identifier of a record a business keeps (``order_id``, ``booking_ref``, ``confirmation_code``):
# what it is of, and the words that make a parameter its identifier.
_RECORDS = frozenset((
    "order", "account", "booking", "reservation", "confirmation", "ticket", "invoice", "tracking",
    "transaction", "case", "policy", "claim", "shipment", "parcel", "package", "customer", "member",
    "membership", "patient", "appointment", "refund", "return", "payment", "receipt", "loyalty",
    "subscription",
))  # fmt: skip
_IDENTIFIES = frozenset(("id", "ref", "reference", "number", "num", "no", "code"))
# An id written as a code: a digit, or letters in capitals ("XKCDQ", "ORD-AB"), or joined parts.
_LOOKS_LIKE_ID = re.compile(r"\d|^[A-Z]{2,}(?:[-_][A-Z0-9]+)*$|^\w+[-_]\w+$")


# Words written in capitals that are no record's code: "Look up reservation OK", "… ASAP", "… TBD".
_NO_CODE = frozenset(("OK", "ASAP", "TBD", "TBC", "FYI", "ETA", "AM", "PM", "ID", "PIN", "NA", "N/A"))

# Records one business keeps under several names: a table's or a room's reservation is the booking its
# confirmation number names ("my confirmation number is kq7rt" to ``get_reservation {reservation_id}``).
_SAME_RECORD = frozenset(("reservation", "booking", "confirmation"))
_CAPITALS_CODE = re.compile(r"[A-Z]{2,}(?:[-_][A-Z0-9]+)*")


def record_words(name: str) -> frozenset[str]:
    """The words a parameter identifying a record a business keeps may be said by (``reservation_id`` →
    reservation, booking, confirmation; ``order_number`` → order); empty for any other parameter."""
    words = identifier_words(name).lower().split()
    if not words or words[-1] not in _IDENTIFIES:
        return frozenset()
    records = _RECORDS & set(words[:-1])
    return records | _SAME_RECORD if records & _SAME_RECORD else records


def record_code(text: str, name: str, *, labelled: bool = False) -> Span | None:
    """The id of the record parameter ``name`` identifies, said after a word for that record: "reservation
    XYZ", "booking AB-12", "my confirmation number is kq7rt"; with ``labelled``, only an id said as what
    it is ("my confirmation number is kq7rt", "booking ref: AB12"). The id must look like one (a digit,
    capitals, or parts joined: ``_LOOKS_LIKE_ID``); None when none is said so."""
    records = record_words(name)
    if not records:
        return None
    said = rf"(?:\s+(?:{'|'.join(_IDENTIFIES)})\b\.?)" + ("" if labelled else "?")
    given = r"(?:\s+is|'s|\s*:|\s*#)" + ("" if labelled else "?")
    pattern = rf"\b(?:{'|'.join(sorted(records))}){said}{given}\s*(?P<code>[\w-]*\w)"
    for found in re.finditer(pattern, text, re.IGNORECASE):
        code = found.group("code")
        if (
            _LOOKS_LIKE_ID.search(code) is not None
            and code.lower() not in _IDENTIFIES
            and code.upper() not in _NO_CODE
        ):
            return Span(code, found.start(), found.end())
    return None


def word_for_id(name: str, value: Any) -> bool:
    """An ordinary word taken for a record's identifier: ``order_id`` ← "second" of "my second order",
    ``booking_ref`` ← "mother" of "the booking for my mother", ``reservation_id`` ← "4 people" of "a
    reservation for 4 people" (a count). A record's id holds a digit or is written
    as a code (capitals, or parts joined by ``-``/``_``); other ids (``user_id``, ``voice_id``, ``room_id``)
    may be words and are left alone."""
    words = identifier_words(name).lower().split()
    if not isinstance(value, str) or not words or words[-1] not in _IDENTIFIES:
        return False
    record = bool(_RECORDS & set(words)) or words in (["reference"], ["ref"], ["booking", "ref"])
    value = value.strip()
    counted = re.fullmatch(r"(\d{1,3})(.*)", value)
    return record and (
        _LOOKS_LIKE_ID.search(value) is None
        or value.upper() in _NO_CODE
        or (counted is not None and _COUNTED.match(counted.group(2)) is not None)  # "4 people"
    )


_WORDY = ("text", "title", "name", "message", "note", "task", "subject", "body", "content", "query")


def only_a_number(name: str, value: Any) -> bool:
    """A free-text value that is nothing but a number ("eight" of "a reminder for eight tomorrow"): a
    time or quantity misheard as the text, not what the text says."""
    if not isinstance(value, str) or not set(identifier_words(name).split()) & set(_WORDY):
        return False
    spans = numbers(value)
    return bool(spans) and sum(s.end - s.start for s in spans) >= len(value.strip()) - len(spans) + 1
