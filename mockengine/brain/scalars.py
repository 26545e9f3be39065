"""Scalar values from the words: numbers for number parameters (a unit word after the number choosing
among several), enum options by their text, a synonym or their value, and booleans.

Each finder returns the ``Span`` the value came from, so ``slots`` can take those words out of the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from mockengine.brain import addresses, cards, lexicon, scales, units, values
from mockengine.brain.values import Span

_UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "percent": ("percent", "%", "per cent"),
    "minute": ("minute", "minutes", "min", "mins"),
    "hour": ("hour", "hours"),
    "degree": ("degree", "degrees", "°"),
    "price": ("dollar", "dollars", "bucks", "$", "euro", "euros", "pounds"),
    "km": ("km", "kms", "k", "kilometre", "kilometres", "kilometer", "kilometers", "klicks"),
    "kg": ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"),
    "gram": ("g", "gram", "grams", "gramme", "grammes"),
    "mile": ("mile", "miles", "mi"),
    "ml": ("ml", "mls", "mil", "mils", "millilitre", "millilitres", "milliliter", "milliliters"),
    "cm": ("cm", "cms", "centimetre", "centimetres", "centimeter", "centimeters"),
}
_UNIT_PARAMS: dict[str, tuple[str, ...]] = {
    "percent": ("brightness", "level", "volume", "percent", "dim"),
    "minute": ("minute", "duration", "length"),
    "hour": ("hour", "duration"),
    "degree": ("degree", "temperature", "temp", "celsius", "fahrenheit"),
    "price": ("price", "cost", "budget", "amount", "max"),
    "km": ("km", "kilomet", "distance"),
    "kg": ("kg", "kilo", "weight"),
    "gram": ("gram", "weight"),
    "mile": ("mile", "distance"),
    "ml": ("ml", "millilit"),
    "cm": ("cm", "centimet"),
}
_DURATIONS = (
    (re.compile(r"\b(?:for\s+)?(?:an hour and a half|one and a half hours)\b", re.I), 90),
    (re.compile(r"\b(?:for\s+)?(?:a\s+)?half(?:\s+an)?[\s-]+hour\b", re.I), 30),
    (re.compile(r"\b(?:for\s+)?(?:an|one) hour\b", re.I), 60),
    (re.compile(r"\b(?:for\s+)?(?:two|2) hours\b", re.I), 120),
)
# A part of the whole, for a percent-like parameter: "to about a fifth" → 20.
_PARTS = {"half": 2, "third": 3, "quarter": 4, "quarters": 4, "fifth": 5, "tenth": 10}
_PART = re.compile(
    r"\b(?:to|at)\s+(?:about\s+|around\s+|roughly\s+)?(?P<count>a|one|three)\s+(?P<part>third|quarters?|fifth|tenth)\b",
    re.IGNORECASE,
)
_SHARE = re.compile(
    r"\b(?:at|to|on)\s+(half|full|max|maximum)\b(?!\s+(?:an?\s+)?(?:hour|past|dozen|way|of|time))"
    r"|\b(half|full)\s+(?=(?:brightness|volume|power|blast|level|speed|strength)\b)",
    re.IGNORECASE,
)
_TRUE_WORDS = frozenset(("on", "enable", "yes", "true"))
_FALSE_WORDS = frozenset(("off", "disable", "no", "false"))


def number_for(text: str, name: str, schema: Mapping[str, Any]) -> Span | None:
    """The number for parameter ``name``: one followed by a unit word that fits the name, else the first
    number with no unit word that belongs to another kind of parameter."""
    words = " ".join([lexicon.identifier_words(name), str(schema.get("description", "")).lower()])
    none = _none_of(text, name, schema)
    if none is not None:
        return none
    counted_in = _time_unit_of(name, schema)
    if counted_in is not None:
        # a parameter counted in seconds, milliseconds or hours (``duration_seconds``, "Duration in
        # seconds"): the duration said, in its unit ("10 minutes" → 600; it was 10, and "half an hour" 30
        # by the word "duration", read as minutes)
        said = _time_said(text)
        if said is not None:
            seconds, start, end = said
            value = seconds / _SECONDS_IN[counted_in]
            if float(value).is_integer():
                return Span(int(value), start, end)
            if schema.get("type") == "number":
                return Span(value, start, end)
    duration = _duration(text, words) or _weeks(text, name)
    if duration is not None:
        return duration
    share = _SHARE.search(text) if any(p in words for p in _UNIT_PARAMS["percent"]) else None
    if share is not None:  # "at half brightness", "full volume"
        half = (share.group(1) or share.group(2)).lower() == "half"
        return Span(50 if half else 100, share.start(), share.end())
    part = _PART.search(text) if any(p in words for p in _UNIT_PARAMS["percent"]) else None
    if part is not None:  # "down to about a fifth", "to three quarters"
        count = 3 if part.group("count").lower() == "three" else 1
        return Span(round(100 * count / _PARTS[part.group("part").lower()]), part.start(), part.end())
    candidates = [
        s for s in values.numbers(text) if not _is_clock(text, s) and not _names_part(text, s, words)
    ]
    best: Span | None = None
    for span in candidates:
        after = text[span.end : span.end + 12].lower()
        unit = _unit_after(after)
        if unit is not None and any(p in words for p in _UNIT_PARAMS[unit]):
            end = span.end + len(after) - len(after.lstrip()) + len(after.lstrip().split(" ")[0])
            return Span(span.value, _comparator_start(text, span.start), end)
        if unit is None and best is None:
            best = Span(span.value, _comparator_start(text, span.start), span.end)
    return best


# The units a duration parameter may be counted in, in seconds; and the words that name each.
_SECONDS_IN = {"millisecond": 0.001, "second": 1, "minute": 60, "hour": 3600}
_TIME_UNIT_NAMES = {
    "millisecond": ("ms", "msec", "millis", "millisecond", "milliseconds"),
    "second": ("s", "sec", "secs", "second", "seconds"),
    "minute": ("min", "mins", "minute", "minutes"),
    "hour": ("h", "hr", "hrs", "hour", "hours"),
}
# A unit of time said after a number ("10 minutes", "90 secs"); a bare "s", "h" or "m" is too short to tell.
_TIME_SAID = re.compile(
    r"\s*-?\s*(?P<unit>milliseconds?|millis|msecs?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b", re.I
)
# A duration said with an article or a half ("an hour", "half a minute", "a minute and a half").
_A_TIME = re.compile(
    r"\b(?:(?P<half>half)\s+an?|an?|one)\s+(?P<unit>hour|minute|second)(?P<more>\s+and\s+a\s+half)?\b",
    re.I,
)
_AND_A_HALF = re.compile(r"\s+and\s+a\s+half\b", re.I)
_JOINED = re.compile(r"\s*(?:,\s*)?(?:and\s+)?", re.I)


def _time_unit_of(name: str, schema: Mapping[str, Any]) -> str | None:
    """The unit of time a number parameter counts in when it is not minutes: its name's last unit word
    (``duration_seconds``, ``timeout_ms``, ``hours``), else the one its description names ("Duration in
    seconds"); None for minutes (read as they were, ``_duration``) or no unit of time."""
    if schema.get("type") not in ("integer", "number"):
        return None
    named = [
        unit
        for word in lexicon.identifier_words(name).lower().split()
        for unit, forms in _TIME_UNIT_NAMES.items()
        if word in forms and (len(word) > 1 or word == lexicon.identifier_words(name).lower().split()[-1])
    ]
    if not named:
        described = {w.lower() for w in re.findall(r"[A-Za-z]+", str(schema.get("description", "")))}
        named = [u for u, forms in _TIME_UNIT_NAMES.items() if described & set(forms) and u != "minute"]
        named = named if len(named) == 1 and not described & set(_TIME_UNIT_NAMES["minute"]) else []
    unit = named[-1] if named else None
    return None if unit == "minute" else unit


def _time_said(text: str) -> tuple[float, int, int] | None:
    """The first duration said, in seconds, and its span: "10 minutes", "2 minutes 30 seconds", "1 hour and
    15 minutes", "an hour and a half", "half an hour"; None when no number is said with a unit of time."""
    parts: list[tuple[int, int, float]] = []  # (start, end, seconds) of each amount said with its unit
    for span in values.numbers(text):
        unit = _TIME_SAID.match(text, span.end)
        if unit is not None and isinstance(span.value, int | float) and not _is_clock(text, span):
            seconds = span.value * _SECONDS_IN[_unit_named(unit.group("unit"))]
            half = _AND_A_HALF.match(text, unit.end())
            end = half.end() if half else unit.end()
            parts.append((span.start, end, seconds * 1.5 if half else seconds))
    for match in _A_TIME.finditer(text):
        if any(start <= match.start() < end for start, end, _ in parts):
            continue
        seconds = _SECONDS_IN[match.group("unit").lower()]
        factor = 0.5 if match.group("half") else 1.5 if match.group("more") else 1
        parts.append((match.start(), match.end(), seconds * factor))
    if not parts:
        return None
    parts.sort()
    start, end, total = parts[0]
    for following_start, following_end, seconds in parts[1:]:
        if _JOINED.fullmatch(text[end:following_start]) is None:
            break
        end, total = following_end, total + seconds
    return total, start, end


def _unit_named(word: str) -> str:
    word = word.lower()
    return next(
        unit for unit, forms in _TIME_UNIT_NAMES.items() if word in forms or word.rstrip("s") in forms
    )


def _names_part(text: str, span: Span, words: str) -> bool:
    """Digits that end a capitalized name are part of it: "Heathrow Terminal 5", "Platform 9"; not after
    the sentence's first word, capitalised as any first word is ("Book 3 nights …"), nor before the
    parameter's own thing ("Gate 3 nights" counts nights for ``nights``)."""
    if not text[span.start : span.end].isdigit():
        return False
    if re.search(r"(?:^|[.!?]\s+)\W*[A-Z][a-z]+\s+$", text[: span.start]):
        return False
    following = re.match(r"\s+([a-z]+)", text[span.end :])
    if following is not None and lexicon.stem(following.group(1)) in {lexicon.stem(w) for w in words.split()}:
        return False
    return bool(re.search(r"\b[A-Z][a-z]+\s+$", text[: span.start]))


def _none_of(text: str, name: str, schema: Mapping[str, Any]) -> Span | None:
    """Zero for a count said to be none of the parameter's thing: "no break" → ``break_minutes`` 0,
    "without any guests" → ``guests`` 0 (when the schema allows 0)."""
    minimum = schema.get("minimum", 0)
    if not isinstance(minimum, int | float) or minimum > 0:
        return None
    words = lexicon.identifier_words(name).split()
    things = [w for w in words if w not in _COUNT_WORDS] or words
    if not things:
        return None
    stem = re.escape(lexicon.stem(things[0]))
    said = re.search(rf"\b(?:no|without(?: any| a)?|zero)\s+{stem}\w*", text, re.IGNORECASE)
    return Span(0, said.start(), said.end()) if said is not None else None


_COUNT_WORDS = frozenset(
    ("minutes", "min", "mins", "seconds", "secs", "hours", "days", "count", "number", "num")
)


# Weeks said for a count of nights or days: "staying a week" → 7 nights, "for two weeks", "a fortnight".
# ("a week on Thursday", "a week tomorrow" are dates; "next week" counts nothing.)
_WEEKS_SAID = r"(?:(?P<count>a|one|two|three|four|\d+)\s+weeks?|(?P<fortnight>a\s+fortnight))\b"
_WEEKS = (
    # how long, whatever follows: "for two weeks from Saturday", "staying a week starting Monday"
    re.compile(rf"\b(?<=for |ing )(?:about\s+)?{_WEEKS_SAID}", re.IGNORECASE),
    re.compile(
        rf"\b{_WEEKS_SAID}(?!\s+(?:on|from|after|tomorrow|today|tonight|monday|tuesday|wednesday|thursday"
        r"|friday|saturday|sunday|ago|old|late|early)\b)",
        re.IGNORECASE,
    ),
)
_WEEK_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}


def _weeks(text: str, name: str) -> Span | None:
    """Nights or days said in weeks, for a parameter that counts nights or days (``nights``, ``days``)."""
    if not {"night", "nights", "day", "days"} & set(lexicon.identifier_words(name).split()):
        return None
    found = next((m for m in (pattern.search(text) for pattern in _WEEKS) if m is not None), None)
    if found is None:
        return None
    count = found.group("count")
    weeks = 2 if found.group("fortnight") else int(count) if count.isdigit() else _WEEK_COUNTS[count.lower()]
    return Span(7 * weeks, found.start(), found.end())


def _duration(text: str, words: str) -> Span | None:
    """Minutes said as a duration ("half an hour" → 30) for a parameter whose ``words`` are minutes."""
    if any(p in words for p in _UNIT_PARAMS["minute"]):
        for pattern, minutes in _DURATIONS:
            match = pattern.search(text)
            if match:
                return Span(minutes, match.start(), match.end())
        for span in values.numbers(text):  # "in three hours" → 180, "two and a half hours" → 150
            hours = re.match(r"\s+(?:hours?|hrs?)\b", text[span.end :], re.IGNORECASE)
            if hours is not None and isinstance(span.value, int | float):
                minutes_said = span.value * 60
                value = int(minutes_said) if float(minutes_said).is_integer() else minutes_said
                return Span(value, span.start, span.end + hours.end())
    return None


def _unit_after(after: str) -> str | None:
    """The unit a number is said with ("kilos", "k", "%", "per cent"), from the words after it."""
    first = re.match(r"\s*(per cent|[a-z]+|[%°$])", after)
    word = first.group(1) if first else ""
    return next((u for u, forms in _UNIT_WORDS.items() if word in forms), None)


def units_of(name: str, schema: Mapping[str, Any]) -> set[str]:
    """The units a number parameter takes, by its name and description ("unit:kg" of ``kg``), as kinds."""
    if schema.get("type") not in ("number", "integer"):
        return set()
    words = " ".join([lexicon.identifier_words(name), str(schema.get("description", "")).lower()])
    return {
        f"unit:{u}" for u, params in _UNIT_PARAMS.items() if u != "price" and any(p in words for p in params)
    }


def counts_of(name: str, schema: Mapping[str, Any]) -> set[str]:
    """What a count parameter counts, by the nouns of its name, as kinds: ``nights`` → "count:night",
    ``num_guests`` → "count:guest" ("3 nights" is said with the thing counted, as a unit is)."""
    if schema.get("type") not in ("number", "integer"):
        return set()
    words = lexicon.identifier_words(name).split()
    return {f"count:{lexicon.stem(w)}" for w in words if w not in _COUNT_WORDS and w not in _NOT_COUNTED}


# Words of a count parameter's name that are no thing counted (``party_size``, ``max_results``).
_NOT_COUNTED = frozenset(("size", "of", "total", "max", "min", "amount", "level", "qty", "quantity"))


def value_kinds(text: str) -> set[str]:
    """The kinds of value heard: a date other than today's ("tomorrow"), a clock time ("at 6 pm"), a
    number with a unit ("unit:kg" of "four kilos"), a number with the thing it counts ("count:night" of
    "3 nights"), a phone number ("555 123 4567", "oh seven seven double nine …"), a payment card's number
    ("card": "4242 4242 4242 4242")."""
    numbers = values.numbers(text)
    found = {f"unit:{_unit_after(text[s.end : s.end + 12].lower())}" for s in numbers} - {"unit:None"}
    for span in numbers:
        counted = re.match(r"\s+([a-z]+)\b", text[span.end :])
        if counted is not None and not _is_clock(text, span):
            found.add(f"count:{lexicon.stem(counted.group(1))}")
    if any(s.value != "2000-01-03" for s in values.dates(text, date(2000, 1, 3))):  # today is no date
        found.add("date")
    if values.times(text):
        found.add("time")
    if cards.card_number_for(text) is not None:
        found.add("card")  # a card number is no phone: its own kind
    elif addresses.address_for(text, "phone") is not None:
        found.add("phone")
    return found


def _comparator_start(text: str, start: int) -> int:
    before = text[:start].lower()
    match = re.search(r"\b(?:under|below|less than|up to|at most|over|above|at least|to|at|by)\s+$", before)
    return match.start() if match else start


def _is_clock(text: str, span: Span) -> bool:
    return any(s.start <= span.start < s.end for s in values.times(text))


# A month said: its name or a short form ("March", "Mar", "Sept."; "may" only as a month is said: "in
# May", capitalised, not "May I"; "march" not as the verb: "I'll march to the office", "we march on"), a
# month and year written ("03/2028", "3/28") or ISO ("2028-03").
_MONTH_SAID = re.compile(
    r"\b(?P<name>jan(?:uary)?|feb(?:ruary)?"
    r"|(?<!\bi )(?<!\bwe )(?<!\bthey )(?<!\byou )(?<!'ll )(?<!\bwill )(?<!\blet's )"
    r"mar(?:ch(?!\s+(?:to|on|into|through|down|up|off|over|across|along|out|back|forward|past)\b))?"
    r"|apr(?:il)?|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|(?-i:May)(?!\s+(?:I|we|you|he|she|they|it)\b)"
    r"|(?:(?<=\bin )|(?<=\bof )|(?<=\bfor )|(?<=\bby )|(?<=\bto ))may)\b\.?"
    r"|(?<![\d/.-])(?P<number>0?[1-9]|1[0-2])\s*/\s*(?P<year>\d{4}|\d{2})(?![\d/])"
    r"|\b\d{4}-(?P<iso>0[1-9]|1[0-2])\b(?!-\d)",
    re.IGNORECASE,
)


def _months(options: list[Any]) -> bool:
    """``options`` are the twelve months in order, by name or short name (["January", …], ["Jan", …])."""
    return len(options) == 12 and all(
        isinstance(o, str) and len(o) >= 3 and m.startswith(o.lower().rstrip("."))
        for o, m in zip(options, values.MONTHS, strict=True)
    )


def _month_option(text: str, options: list[Any]) -> Span | None:
    """The option of a month enum (``_months``) the words name by the month's name or number; None when
    no month is said."""
    months = [str(o) for o in options]
    said = list(_MONTH_SAID.finditer(text))
    if not said:
        return None

    def rank(found: re.Match[str]) -> int:
        # a month's full name, then one written with its year ("03/2028", "2028-03"), then a number pair
        # that may be a fraction ("5/10 of last year's, in September"), then a short form that may be a
        # name ("with Jan in March")
        if found.group("name"):
            return 0 if len(found.group(0).rstrip(".")) > 3 else 3
        return 1 if found.group("iso") or len(found.group("year") or "") == 4 else 2

    found = min(said, key=lambda f: (rank(f), f.start()))
    if found.group("name"):
        index = next(i for i, m in enumerate(values.MONTHS) if m.startswith(found.group("name").lower()[:3]))
    else:
        index = int(found.group("number") or found.group("iso")) - 1
    return Span(months[index], found.start(), found.end())


def enum_for(text: str, options: list[Any], name: str = "") -> Span | None:
    """The option of an enum the words name: said as it is, else by a synonym; a number option by value
    ("half an hour" for a ``minutes`` enum of numbers is 30); a month by its name or number ("in March",
    "03/2028" → "Mar" of ["Jan", …])."""
    if _months(options):  # a month enum is filled by a month said ("may I" is none)
        return _month_option(text, options)
    numeric = [o for o in options if isinstance(o, int | float) and not isinstance(o, bool)]
    duration = _duration(text, lexicon.identifier_words(name)) if numeric else None
    for span in ([duration] if duration else []) + (
        values.numbers(text) if numeric else []
    ):  # "at one and a half speed" → 1.5
        if any(float(span.value) == float(o) for o in numeric):  # type: ignore[arg-type]
            chosen = next(o for o in numeric if float(span.value) == float(o))  # type: ignore[arg-type]
            return Span(chosen, span.start, span.end)
    denied = scales.denied(text, options)  # "not urgent" names urgent and means low
    if denied is not None:
        return denied
    spoken = lexicon.tokens(lexicon.rewrite(text))
    said = {t.lower for t in spoken}
    heard = {t.concept for t in spoken} | said
    heard |= {c for concept in list(heard) for c in lexicon.associated(concept)}  # "too dark" → on
    # An option said as it is ("the tasks I've done" → done) wins over one a synonym points at ("show" ~
    # open); then the synonyms, in the options' order.
    # its words read through the same phrases as the speech ("black and white"); the option of more words
    # said wins ("an open return" is open_return, not return)
    worded = [
        (option, lexicon.rewrite(lexicon.identifier_words(option)).split())
        for option in options
        if isinstance(option, str)
    ]
    # an option that is only a determiner ("any", "all") said before a noun ("any deals on snowboards")
    # gives way to an option the rest of the words name (snowboard); said alone, it is still the option
    determiner = None
    for option, words in sorted(worded, key=lambda e: -len(e[1])):
        if words and all(w in said for w in words):
            span = _span_of(text, str(option), [lexicon.concept(w) for w in words])
            if not all(w in lexicon.STOPWORDS for w in words):
                return span
            determiner = determiner or span
    moved = scales.move_for(text, options)  # "lower the blinds" → close; "brighter" is not dim
    if moved is not None:
        return moved
    found = []
    wanted_of = {
        option: [lexicon.concept(w) for w in lexicon.rewrite(lexicon.identifier_words(option)).split()]
        for option in options
        if isinstance(option, str)
    }
    for option, wanted in wanted_of.items():
        # options of one synonym group ("heat" and "cool" are both temperature) are not told apart by a
        # synonym: "the thermostat to 18 degrees" names neither mode
        shared = sum(other == wanted for other in wanted_of.values()) > 1
        if wanted and not shared and all(w in heard for w in wanted):
            found.append(_span_of(text, option, wanted))
    # "skip all the way to the final card": the option said as where to go wins over the verb's
    target = [s for s in found if re.search(r"\bto\s+(?:the\s+)?(?:very\s+)?$", text[: s.start], re.I)]
    picked = [s for s in target or found if s.value != (determiner.value if determiner else None)]
    if picked:
        return picked[0]
    return determiner or _unit_option(text, options) or scales.option_for(text, options)


# A unit of one measuring system: "in Fahrenheit" to an enum of ["metric", "imperial"] is imperial.
_SYSTEMS: dict[str, frozenset[str]] = {
    "imperial": frozenset(("degree Fahrenheit", "mile", "foot", "pound", "mile per hour")),
    "metric": frozenset(
        ("degree Celsius", "kilometer", "centimeter", "millimeter", "kilogram", "kilometer per hour")
    ),
}
# A unit said by its name ("fahrenheit", "kilometres"), or by its symbol after a degree sign, "degrees"
# or "in" ("°F", "in C"): a letter alone is a word too often ("plan c").
_UNIT_SAID = re.compile(r"(?:°\s*|\bdegrees?\s+|\bin\s+)(?P<symbol>[CFK])\b|\b(?P<word>[A-Za-z]{4,})\b")


def _unit_option(text: str, options: list[Any]) -> Span | None:
    """The option that is the unit the words name by another form: the symbol of a unit said by name
    ("fahrenheit" → "F"), its name for a symbol said ("°F" → "fahrenheit"), or the measuring system
    it belongs to ("fahrenheit" → "imperial"); None when no unit is said or no option is one."""
    for said in _UNIT_SAID.finditer(text):
        unit = units.unit_named(said.group("symbol") or said.group("word"))
        if unit is None:
            continue
        for option in options:
            if not isinstance(option, str):
                continue
            same = units.unit_named(option) == unit
            system = unit[0] in _SYSTEMS.get(option.lower(), frozenset())
            if same or system:
                start = said.start("symbol") if said.group("symbol") else said.start("word")
                return Span(option, start, said.end())
    return None


def more_options(after: str, options: list[Any], chosen: Any) -> list[Any]:
    """Other options said right after one, joined by "and" or commas ("the front and the back")."""
    found: list[Any] = []
    while True:
        joined = re.match(r"\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)(?:the\s+|my\s+)?([A-Za-z]+)\b", after)
        word = joined.group(1).lower() if joined else ""
        option = next((o for o in options if isinstance(o, str) and o.lower() == word), None)
        if joined is None or option is None or option == chosen or option in found:
            return found
        found.append(option)
        after = after[joined.end() :]


def _span_of(text: str, option: str, concepts: list[str]) -> Span:
    """Where in ``text`` (as written) the words that named ``option`` are, for the trace."""
    for match in re.finditer(r"[A-Za-z0-9'’]+", text):
        if lexicon.concept(match.group(0)) in concepts or match.group(0).lower() == option.lower():
            return Span(option, match.start(), match.end())
    for match in re.finditer(r"[A-Za-z0-9'’]+", text):  # the word that implied it: "dim" → on
        if set(lexicon.associated(lexicon.concept(match.group(0)))) & set(concepts):
            return Span(option, match.start(), match.end())
    return Span(option, len(text), len(text))


def boolean_for(text: str, name: str = "", said: str = "") -> Span | None:
    """A boolean the words give: how often for a repeat flag ("every morning" → true, "just the once" →
    false), the parameter's own words said ("my unread emails" → ``unread_only`` true; "no timer" →
    ``timed`` false), a switch verb's particle ("turn off the lights" → false; ``said``: the words before
    any was cut from ``text``, "" for ``text``), or on/off, yes/no, enable/disable ("go on" and "quiz me
    on that deck" are none)."""
    words = lexicon.identifier_words(name).split()
    if _REPEATING & set(words):
        often = _OFTEN.search(text)
        if often is not None:
            return Span(often.group("once") is None, often.start(), often.end())
    own = [w for w in words if w not in _FLAG_WORDS]
    if own:
        stem = re.escape(lexicon.stem(own[0])[:4] if len(own[0]) > 4 else own[0])
        negated = re.search(rf"\b(?:no|not|without|un)\s*(?:an? |the )?{stem}\w*", text, re.IGNORECASE)
        if negated is not None:
            return Span(False, negated.start(), negated.end())
    phrasal = _SWITCHED.search(said or text)
    # "turn off the lights": the particle of a switch verb, not a preposition; read in the words as said,
    # since the tool's verb may already be cut from ``text``, and placed at the particle left in it
    left = re.search(rf"\b{phrasal.group('word')}\b", text, re.IGNORECASE) if phrasal is not None else None
    if phrasal is not None and left is not None:
        return Span(phrasal.group("word").lower() == "on", left.start(), left.end())
    for token in _SWITCH.finditer(text):
        word = lexicon.concept(token.group("word"))
        if word in _TRUE_WORDS or word in _FALSE_WORDS:
            return Span(word in _TRUE_WORDS, token.start("word"), token.end("word"))
    if own and not re.search(r"\b(?:not|no|don'?t|without)\b", text, re.IGNORECASE):
        # "lock the door" for ``locked``: the word's stem, said as a word of its own ("unlock" is not)
        stem_said = re.search(rf"\b{re.escape(lexicon.stem(own[0]))}\w*\b", text, re.IGNORECASE)
        if stem_said is not None and all(
            re.search(rf"\b{re.escape(lexicon.stem(w))}", text, re.I) for w in own
        ):
            return Span(True, stem_said.start(), stem_said.end())
        synonym = _synonym_of(text, own[0]) if len(own) == 1 else None  # "mixed up" for shuffle
        if synonym is not None:
            return Span(True, synonym.start(), synonym.end())
    return None


def own_verb(text: str, tool_name: str) -> Span | None:
    """A required on/off flag the tool's own verb sets, when no switch word was said: "block Instagram"
    to ``block_apps`` → true; "unblock it", "stop blocking" → false."""
    words = lexicon.identifier_words(tool_name).split()
    if not words or words[0] in ("set", "toggle", "turn", "switch", "get", "update", "change"):
        return None
    root = re.escape(lexicon.stem(words[0]))
    undone = re.search(rf"\b(?:un{root}|(?:stop|quit|end) {root})\w*", text, re.IGNORECASE)
    if undone is not None:
        return Span(False, undone.start(), undone.end())
    done = re.search(rf"\b{root}\w*", text, re.IGNORECASE)
    return Span(True, done.start(), done.end()) if done is not None else None


def _synonym_of(text: str, word: str) -> re.Match[str] | None:
    """Where ``text`` says ``word`` through a synonym group of the lexicon ("mixed" for shuffle); a
    word in no group has none."""
    wanted = lexicon.concept(word)
    if wanted == lexicon.stem(word):
        return None
    return next((m for m in re.finditer(r"[A-Za-z]+", text) if lexicon.concept(m.group(0)) == wanted), None)


_REPEATING = frozenset(("repeat", "repeats", "recurring", "daily", "every", "recur", "repeating"))
_OFTEN = re.compile(
    r"\b(?:every (?:day|morning|evening|night|week)|each (?:day|morning|evening|night)|daily|nightly"
    r"|(?P<once>(?:just |only )?(?:the )?once|one[- ]off|(?:just )?(?:the )?one time))\b",
    re.IGNORECASE,
)
# An on/off word as a switch, not a preposition ("on my deck") nor a phrase ("go on", "carry on").
_SWITCH = re.compile(
    r"(?<!\bgo )(?<!\bcome )(?<!\bhold )(?<!\bcarry )(?<!\blater )"
    r"\b(?P<word>on|off|yes|no|enable|enabled|disable|disabled|true|false)\b"
    r"(?!\s+(?:the|a|an|my|your|his|her|our|their|this|that|these|those|it|them|top|time|each|every|all)\b)"
    r"(?!\s+then\b)"
    # nor the "on" of a day: "on 2027-03-14", "on Friday", "on March 14" (a value taken out: ¦)
    r"(?!(?<=\bon)\s+(?:\d|¦|(?:mon|tues|wednes|thurs|fri|satur|sun)day|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))",
    re.IGNORECASE,
)

# A switch verb's particle before what it switches ("turn off the bedroom lights", "switch on the fan"):
# _SWITCH leaves an on/off before "the" to prepositions ("on the table"), never so after these verbs.
_SWITCHED = re.compile(
    r"\b(?:turn|switch|flick|flip|power|shut)(?:s|ed|ing)?\s+(?P<word>on|off)\b",
    re.IGNORECASE,
)


# Words of a boolean parameter's name that say nothing heard ("only" of unread_only, "is" of is_public).
_FLAG_WORDS = frozenset(
    ("only", "is", "include", "includes", "has", "with", "use", "enable", "enabled", "flag")
)


_LEVELS = frozenset(lexicon.stem(w) for w in ("brightness", "level", "dim", "percent", "volume"))


def implied_on(arguments: Mapping[str, Any], properties: Mapping[str, Any], required: list[str]) -> list[str]:
    """The required on/off enums not heard that a level heard implies are "on" ("bring the lights down to
    thirty percent" leaves them on): a brightness-like number above zero was filled."""
    level = any(
        isinstance(value, (int, float))
        and value > 0
        and bool(_LEVELS & _words_of(name, properties.get(name)))
        for name, value in arguments.items()
    )
    implied = []
    for name in [n for n in required if n not in arguments and level]:
        options = properties[name].get("enum") if isinstance(properties.get(name), Mapping) else None
        if isinstance(options, list) and "on" in options and "off" in options:
            implied.append(name)
    return implied


_STARTS, _STOPS = ("start", "on", "enable", "enabled", "begin"), ("stop", "off", "disable", "disabled", "end")
_ENABLING = frozenset(("enabled", "enable", "active", "activated"))


def own_verb_option(text: str, tool_name: str, options: Any) -> Span | None:
    """A required start/stop enum the tool's own verb sets, when no option was said: "share the Excel
    window" to ``share_screen`` → ``start``; "unshare", "stop sharing" → ``stop``."""
    if not isinstance(options, list):
        return None
    start = next((o for o in options if str(o).lower() in _STARTS), None)
    stop = next((o for o in options if str(o).lower() in _STOPS), None)
    verb = own_verb(text, tool_name) if start is not None and stop is not None else None
    return None if verb is None else Span(start if verb.value else stop, verb.start, verb.end)


def implied_enabled(
    arguments: Mapping[str, Any], properties: Mapping[str, Any], required: list[str]
) -> list[str]:
    """The required ``enabled``-like flags not heard that a detail heard implies are true ("blur what's
    behind me" sets a background, so the camera is on): another parameter's option was filled."""
    detail = any(
        isinstance(properties.get(name), Mapping) and isinstance(properties[name].get("enum"), list)
        for name in arguments
    )
    return [
        name
        for name in required
        if detail
        and name not in arguments
        and isinstance(properties.get(name), Mapping)
        and properties[name].get("type") == "boolean"
        and bool(_ENABLING & set(lexicon.identifier_words(name).split()))
    ]


def _words_of(name: str, schema: Any) -> set[str]:
    """The stems of a parameter's name and description ("flow": "Flow level in percent")."""
    described = str(schema.get("description", "")) if isinstance(schema, Mapping) else ""
    return {lexicon.stem(t.lower) for t in lexicon.tokens(f"{lexicon.identifier_words(name)} {described}")}
