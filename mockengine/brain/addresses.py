"""Email addresses and web addresses from the words, as written ("bob@example.com",
"https://example.org/a", "www.example.org") or spoken ("bob at example dot com"), for a parameter that
takes one: ``format: email`` / ``uri`` / ``url``, or a name ending in email, url, link or website; phone
numbers as written ("555-123-4567", "+1 415 555 0100") for a parameter named for a phone; and file
paths as written ("/tmp/notes.txt", "~/Downloads/report.pdf", "C:\\Users\\ada", "src/app", "notes.txt")
for a parameter named for a path, file or folder."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain.lexicon import identifier_words
from mockengine.brain.values import Span

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_SPOKEN_EMAIL = re.compile(r"\b(?P<user>[a-z][\w.]*) at (?P<host>[a-z][\w-]*(?: dot [a-z][\w-]*)+)\b", re.I)
_URL = re.compile(r"\bhttps?://[^\s\"'<>]+|\bwww\.[\w-]+(?:\.[\w-]+)+[^\s\"'<>]*", re.I)
# A written path: absolute, home or dot-relative ("/tmp/a.txt", "~/x", "./src"), a Windows one
# ("C:\\Users\\ada"), relative with a slash between named parts ("src/components"; not "24/7"), or a
# file name with an extension ("notes.txt"; not "e.g" nor a sentence's full stop).
_PATH = re.compile(
    r"(?<![\w@/~.])(?:"
    r"(?:~|\.{1,2})?/[\w.\-]+(?:/[\w.\-]+)*/?"
    r"|[A-Za-z]:\\[^\s\"'<>|?*]*"
    r"|[A-Za-z_][\w.\-]*(?:/[\w.\-]+)+/?"
    r"|[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}(?![\w@])"
    r")"
)
_NOT_FILES = frozenset({"e.g", "i.e", "etc", "a.m", "p.m"})
_PATH_FORMATS = ("path", "file-path", "filepath")
_PATH_WORDS = ("path", "file", "filename", "filepath", "dir", "directory", "folder")
_EMAIL_FORMATS = ("email", "idn-email")
_URL_FORMATS = ("uri", "url", "iri", "uri-reference", "iri-reference")
_EMAIL_WORDS = ("email", "e-mail", "mail")
# A parameter named for a phone ("phone", "phone_number", "mobile", "tel") takes a number as written.
_PHONE_WORDS = frozenset(("phone", "mobile", "tel", "telephone", "cell", "cellphone"))
_PHONE_FORMATS = ("phone", "tel", "phone-number", "telephone")
# Seven to fifteen digits (E.164's most), with the separators people write: "555-123-4567",
# "+1 (415) 555-0100", "07700 900123"; not a year, a price or a time (a colon before more: "+1415…: hi"
# ends a number, "10:30" is a time).
_PHONE = re.compile(r"(?<![\w+$£€.:/-])\+?\(?\d[\d\s().-]{5,20}\d(?!\w|:(?!\s))")
_URL_WORDS = ("url", "uri", "link", "website", "site", "homepage")


def kind_of(name: str, schema: Mapping[str, Any]) -> str | None:
    """``"email"``, ``"url"`` or ``"phone"`` when the parameter takes such an address, else None."""
    fmt = schema.get("format")
    words = identifier_words(name).split()
    last = words[-1] if words else ""
    if fmt in _EMAIL_FORMATS or last in _EMAIL_WORDS and last != "mail":
        return "email"
    if fmt in _URL_FORMATS or last in _URL_WORDS:
        return "url"
    # a phone with a ``pattern`` is read as its pattern says ("^\\+?[0-9]{7,15}$": digits only, spoken too)
    if (fmt in _PHONE_FORMATS or _PHONE_WORDS & set(words)) and "pattern" not in schema:
        return "phone"
    # send_sms(to: "Phone number"): a recipient its description says is a phone ("+1415…" lost its "+"
    # read as a name)
    described = {w.lower() for w in re.findall(r"[A-Za-z]+", str(schema.get("description") or ""))}
    if last in _RECIPIENTS and _PHONE_WORDS & described and not described.intersection(_EMAIL_WORDS):
        return "phone" if "pattern" not in schema else None
    return None


# Names of a parameter that says who gets a message, not how it reaches them.
_RECIPIENTS = frozenset(("to", "recipient", "recipients", "number"))


def named_for_phone(name: str) -> bool:
    """The parameter's name speaks of a phone (``phone``, ``phoneNumber``, ``mobile``)."""
    return bool(_PHONE_WORDS & set(identifier_words(name).split()))


def address_for(text: str, kind: str) -> Span | None:
    """The first address of ``kind`` in ``text``, trailing punctuation left out."""
    if kind == "phone":
        return _phone_for(text)
    if kind == "email":
        found = _EMAIL.search(text)
        if found is not None:
            return Span(found.group(0).rstrip("."), found.start(), found.end())
        spoken = _SPOKEN_EMAIL.search(text)
        if spoken is None:
            return None
        host = re.sub(r"\s+dot\s+", ".", spoken.group("host"))
        return Span(f"{spoken.group('user')}@{host}".lower(), spoken.start(), spoken.end())
    found = _URL.search(text)
    if found is None:
        return None
    value = found.group(0).rstrip(".,;:!?)")
    return Span(value if "://" in value else f"https://{value}", found.start(), found.start() + len(value))


def written_email(text: str) -> Span | None:
    """The first email address written in ``text`` ("bob@example.com"), trailing full stop left out."""
    found = _EMAIL.search(text)
    return Span(found.group(0).rstrip("."), found.start(), found.end()) if found is not None else None


def _phone_for(text: str) -> Span | None:
    """The first phone number in ``text``: as written (its spaces and dashes kept), else spoken digit by
    digit (``_spoken_phone``)."""
    for found in _PHONE.finditer(text):
        value = found.group(0).strip(" .-")
        if value.count("(") != value.count(")"):
            value = value.strip("()")
        if 7 <= sum(c.isdigit() for c in value) <= 15:
            start = found.start() + found.group(0).index(value)
            return Span(value, start, start + len(value))
    return _spoken_phone(text)


_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "o": "0", "nought": "0", "one": "1", "two": "2", "three": "3", "four": "4",
    "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
_SPOKEN_DIGIT = r"(?:(?:double|triple)\s+)?(?:zero|oh|o|nought|one|two|three|four|five|six|seven|eight|nine)"
# Digits said one by one, as a number is read out on a call: "five five five, one two three …", "oh
# seven seven double nine …", "plus four four …"; groups apart by commas or dashes.
_SPOKEN_PHONE = re.compile(
    rf"(?<![\w-])(?:plus\s+)?{_SPOKEN_DIGIT}(?:(?:\s*[,-]\s*|\s+){_SPOKEN_DIGIT})+(?![\w-])", re.IGNORECASE
)


def _spoken_phone(text: str) -> Span | None:
    """A phone number spoken as digits (seven to fifteen of them) written as a model writes it: ten
    digits of a North American number as "555-123-4567", any other as its digits ("07799123456"),
    "plus" as "+"; "double nine" is "99", "triple oh" "000"."""
    for found in _SPOKEN_PHONE.finditer(text):
        digits, words = "", re.split(r"[\s,-]+", found.group(0).lower())
        repeat = 1
        for word in words:
            if word in ("double", "triple"):
                repeat = 2 if word == "double" else 3
            elif word in _DIGIT_WORDS:
                digits, repeat = digits + _DIGIT_WORDS[word] * repeat, 1
        if not 7 <= len(digits) <= 15:
            continue
        if words[0] == "plus":
            value = "+" + digits
        elif len(digits) == 10 and digits[0] not in "01":
            value = f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
        else:
            value = digits
        return Span(value, found.start(), found.end())
    return None


def takes_path(name: str, schema: Mapping[str, Any]) -> bool:
    """The parameter takes a file or folder path: ``format: path``, or a name ending in path, file,
    filename, file name, dir, directory or folder (``path``, ``file_path``, ``targetFolder``)."""
    words = identifier_words(name).split()
    named = bool(words) and (words[-1] in _PATH_WORDS or words[-2:] == ["file", "name"])
    return schema.get("format") in _PATH_FORMATS or named


def path_for(text: str) -> Span | None:
    """The first path or file name written in ``text``, trailing punctuation left out; None when only
    words are said ("the notes file" is left to the words)."""
    for found in _PATH.finditer(text):
        value = found.group(0).rstrip(".,;:!?)")
        if value.lower() in _NOT_FILES or "/" not in value and "\\" not in value and "." not in value:
            continue
        return Span(value, found.start(), found.start() + len(value))
    return None


# One piece of a phone pattern that is a template: a run of digits ("\\d{3}", "[0-9]{4}", "\\d") or a
# literal ("\\(", " ", "-", "\\s").
_TEMPLATE_PIECE = re.compile(
    r"(?P<digits>(?:\\d|\[0-9\])(?:\{(?P<count>\d+)\})?)"
    r"|\\(?P<escaped>[()\-.+\s/ ])|\\s|(?P<plain>[ ()\-./+])"
)


def phone_in_pattern(text: str, pattern: str) -> Span | None:
    """The phone number said (written or spoken) in the form a template ``pattern`` gives, as a model
    rewrites it to fit: "206 555 1234" for ``^\\(\\d{3}\\) \\d{3}-\\d{4}$`` → "(206) 555-1234". None
    when the pattern is no template of digits and separators, or the digits said do not fit it."""
    body = pattern.removeprefix("^").removesuffix("$")
    pieces: list[str | int] = []
    at = 0
    while at < len(body):
        found = _TEMPLATE_PIECE.match(body, at)
        if found is None:
            return None
        if found.group("digits"):
            pieces.append(int(found.group("count") or 1))
        else:
            pieces.append(found.group("escaped") or found.group("plain") or " ")
        at = found.end()
    wanted = sum(p for p in pieces if isinstance(p, int))
    said = _phone_for(text)
    if said is None or wanted == 0:
        return None
    digits = "".join(c for c in str(said.value) if c.isdigit())
    if len(digits) == wanted + 1 and digits.startswith("1"):
        digits = digits[1:]  # a North American number said with its country code
    if len(digits) != wanted:
        return None
    value, used = "", 0
    for piece in pieces:
        if isinstance(piece, int):
            value, used = value + digits[used : used + piece], used + piece
        else:
            value += piece
    return (
        Span(value, said.start, said.end)
        if re.fullmatch(pattern.removeprefix("^").removesuffix("$"), value)
        else None
    )


def phone_fitting(text: str, pattern: str) -> Span | None:
    """The phone number said (written or spoken: "oh seven seven double nine …") as ``pattern`` accepts
    it: as read, its digits alone, or "+" and its digits ("^\\+?[0-9]{7,15}$" → "07799123456"); None when
    no phone is said or none of these fits. A code reader takes only the digits said one by one ("nine
    one two …" after "double nine"), so a phone reads the whole number first."""
    said = _phone_for(text)
    if said is None:
        return None
    value = str(said.value)
    digits = "".join(c for c in value if c.isdigit())
    for form in (value, digits, f"+{digits}" if value.startswith("+") else digits):
        try:
            if re.search(pattern, form):
                return Span(form, said.start, said.end)
        except re.error:
            return None
    return None


# A street's kind, the word that ends it ("Street", "St", "Rd").
_STREET_KIND = (
    r"(?:street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|place"
    r"|pl|court|ct|square|sq|terrace|crescent|close|row|parkway|highway)\b"
)
# What follows a house number: a street's name and its kind ("12 Baker Street", "5 Rue de Rivoli" aside).
# A "St" in the name is a Saint, which a name follows ("12 St James St"), never the kind: so "12 Main St
# St Louis" is the street "12 Main St" and the town "St Louis".
HOUSE_NUMBER_AFTER = re.compile(
    rf"\s+(?:(?!st\.?\s+{_STREET_KIND})[A-Z][\w'-]*\s+){{1,3}}{_STREET_KIND}",
    re.IGNORECASE,
)
# A direction said after the street's kind is part of the street ("42 Oak Ave North", "100 Main St NW"),
# unless a name follows it, which is the town's ("42 Oak Ave West Hollywood"), or "of" ("north of …").
_POST_DIRECTION = (
    r"(?:\s+(?:north|south|east|west|northeast|northwest|southeast|southwest|(?-i:[NS][EW]|[NSEW]))\b"
    r"(?!\s+(?:of\b|(?-i:[A-Z][a-z]))))?"
)
_STREET_WITH_NUMBER = re.compile(r"\d+[a-z]?" + HOUSE_NUMBER_AFTER.pattern + _POST_DIRECTION, re.IGNORECASE)
# A parameter's words that name a zip or postal code (``zip``, ``postal_code``); "post" only before
# "code" (``post_code``: ``post_title`` is a blog post's).
_POSTAL_WORDS = frozenset(("zip", "zipcode", "postcode", "postal"))


def is_street_with_number(value: str) -> bool:
    """``value`` is a street with its house number, name and kind ("12 Oak Street"), all of it."""
    return _STREET_WITH_NUMBER.fullmatch(value) is not None


def street_with_number_in(text: str) -> str | None:
    """The first street with its house number said in ``text`` ("40 Elm Rd" of "Send it to 40 Elm Rd.,
    Leeds"); None when there is none."""
    for found in re.finditer(r"(?<![\w-])\d", text):
        street = _STREET_WITH_NUMBER.match(text, found.start())
        if street is not None:
            return street.group(0)
    return None


# A change from one street address to another ("Change it from 40 Elm Rd to 42 Oak Ave, Leeds", "Update
# the address from 40 Elm Rd, York to 42 Oak Ave"): "from" and the old address (its town with it), up to
# the "to" before the new one's house number.
_CHANGED_FROM = re.compile(
    r"\b(?:change|changed|update|updated|move|moved|switch|correct|edit|fix)\b[^.!?]*?\s"
    r"(?P<old>from\s+(?P<street>\d[^.!?]*?)\s+to\s+)(?=\d+[a-z]?\s)",
    re.IGNORECASE,
)


def without_old_address(text: str) -> str:
    """``text`` without the address a change is from ("Change it from 40 Elm Rd to 42 Oak Ave, Leeds"
    → "Change it to 42 Oak Ave, Leeds"; "I moved from 10 High St to 42 Oak Ave" → "I moved to 42 Oak
    Ave", the "to" kept as what the new address is said after): the new address is the one a model
    fills. Unchanged when no
    street with its house number follows "from" and precedes "to" and another house number."""
    found = _CHANGED_FROM.search(text)
    if found is None:
        return text
    street = found.group("street").split(",")[0].strip()
    if not is_street_with_number(street):
        return text
    return text[: found.start("old")] + "to " + text[found.end("old") :]


# A lower-case word after a street: no town (capitalised), code or "#"; a flat's word is checked apart.
_LOWER_WORD = re.compile(r"\s+[a-z]")


def street_then_words(value: str) -> str | None:
    """The street with its house number that opens ``value`` when plain words follow it, no part of an
    address: "42 Oak Ave" of "42 Oak Ave starting next" and of "42 Oak Ave last month" (when the move
    was, not where); None when none opens it or an address goes on ("42 Oak Ave, Leeds", "42 Oak Ave apt
    4", "12 Main St Springfield 62704")."""
    street = _STREET_WITH_NUMBER.match(value)
    if street is None or street.end() == len(value):
        return None
    rest = value[street.end() :]
    if not _LOWER_WORD.match(rest) or re.match(
        r"\s+(?:apt|apartment|suite|ste|unit|flat|floor|fl|room|rm|bldg|building)\b", rest, re.IGNORECASE
    ):
        return None
    return street.group(0)


def street_at_end(value: str) -> str | None:
    """The street with its house number that ends ``value`` ("12 Main St" of "new address is 12 Main
    St"), when words that are none of it come before; else None."""
    for found in re.finditer(r"(?<![\w-])\d", value):
        if found.start() and is_street_with_number(value[found.start() :]):
            return value[found.start() :]
    return None


def street_opening(value: str) -> str | None:
    """The street with its house number that opens ``value`` when the town (a capitalised word, or a flat
    or suite first) follows it with no comma: "12 Main St" of "12 Main St Springfield 62704" (words
    before the number dropped as ``street_at_end`` does); else None ("12 Main St", "12 Main St please")."""
    for found in re.finditer(r"(?<![\w-])\d", value):
        street = _STREET_WITH_NUMBER.match(value, found.start())
        if street is not None and re.match(r"\.?\s+(?:#\s*\d|[A-Z])", value[street.end() :]):
            return value[found.start() : street.end()]
    return None


def names_postal_code(parameter: str) -> bool:
    """The parameter holds a zip or postal code (``zip``, ``zipCode``, ``postal_code``, ``post_code``)."""
    words = identifier_words(parameter).split()
    return bool(set(words) & _POSTAL_WORDS) or "post code" in " ".join(words)
