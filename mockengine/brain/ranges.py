"""Date ranges for two parameters that bound one (``date_from``/``date_to``, ``start_date``/``end_date``,
``since``/``until``): "between February the first and the seventh", "from the 3rd to the 9th of May",
"from January" or "in January" (the whole month), "since monday" (a start only).

A range's days are the *nearest* such days, past or future: a range is as often about what happened
("photos from January", said in March, are this January's) as about what is planned ("from the 20th to
the 24th"), so a day without a year more than half a year ahead is last year's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from mockengine.brain import lexicon, values
from mockengine.brain.values import MONTHS, Span

_STARTS = frozenset(("from", "start", "since", "after", "begin", "earliest", "first", "min"))
_ENDS = frozenset(("to", "end", "until", "till", "before", "latest", "last", "max"))
_MONTH_NAMES = "|".join(MONTHS)
_WHOLE_MONTH = re.compile(
    rf"\b(?:from|in|during|for|of|since)\s+(?:the month of\s+)?(?P<month>{_MONTH_NAMES})\b"
    r"(?!\s+(?:the\s+)?(?:\d|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
    r"|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth"
    r"|twenty|thirtieth|thirty))",
    re.IGNORECASE,
)
_BETWEEN = re.compile(
    r"\b(?:between|from)\s+(?P<a>.+?)\s+(?:and|to|till|until|through|-)\s+(?P<b>.+?)"
    r"(?=\s*[,.;!?]|\s*$|\s+(?:at|for|with|in|on|please)\b)",
    re.IGNORECASE,
)
_SINCE = re.compile(r"\b(?:since|after)\s+(?P<a>.+?)(?=\s*[,.;!?]|\s*$)", re.IGNORECASE)
_HALF_YEAR = timedelta(days=183)


def pair(properties: Mapping[str, Any], kinds: Mapping[str, str]) -> tuple[str, str] | None:
    """The two date parameters that bound a range (start, end), if the tool has them."""
    dated = [name for name, kind in kinds.items() if kind == "date" and name in properties]
    start = next((n for n in dated if _STARTS & set(lexicon.identifier_words(n).split())), None)
    end = next((n for n in dated if _ENDS & set(lexicon.identifier_words(n).split())), None)
    return (start, end) if start and end and start != end else None


def date_range(text: str, today: date) -> tuple[Span | None, Span | None] | None:
    """The start and end of the range ``text`` gives (ISO dates, with where they were said), or None."""
    between = _BETWEEN.search(text)
    if between is not None:
        first = _nearest(values.dates(between.group("a"), today), today)
        if first is not None:
            last = _end_day(between.group("b"), date.fromisoformat(str(first.value)), today)
            # the spans hold "between"/"from" and "and"/"to" too: they name nothing else
            start = Span(first.value, between.start(), between.start("a") + first.end)
            if last is None:
                return start, None
            return start, Span(last.isoformat(), between.end("a"), between.end("b"))
    month = _WHOLE_MONTH.search(text)
    if month is not None:
        number = MONTHS.index(month.group("month").lower()) + 1
        year = today.year if number <= today.month or number - today.month <= 6 else today.year - 1
        following = date(year + (number == 12), number % 12 + 1, 1)
        return (
            Span(date(year, number, 1).isoformat(), month.start(), month.end("month")),
            Span((following - timedelta(days=1)).isoformat(), month.end("month"), month.end("month")),
        )
    since = _SINCE.search(text)
    found = _nearest(values.dates(since.group("a"), today), today) if since else None
    if since is not None and found is not None:
        return Span(found.value, since.start(), since.start("a") + found.end), None
    return None


def _nearest(spans: list[Span], today: date) -> Span | None:
    """The first date said, moved a year back when it is more than half a year ahead."""
    if not spans:
        return None
    day = date.fromisoformat(str(spans[0].value))
    if day - today > _HALF_YEAR:
        day = day.replace(year=day.year - 1)
    return Span(day.isoformat(), spans[0].start, spans[0].end)


def _end_day(said: str, start: date, today: date) -> date | None:
    """The end of a range: a date of its own, or a day of the start's month ("and the seventh")."""
    spans = values.dates(f"on {said}" if not said.lower().startswith("on ") else said, start)
    if not spans:
        return None
    day = date.fromisoformat(str(spans[0].value))
    return day if day >= start else None


_CLOCK = r"(?:\d{1,2}(?::\d{2})?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midday)"
_CLOCK_SPAN = re.compile(
    rf"\b(?P<from>from\s+)?(?P<a>{_CLOCK}(?:\s*(?:am|pm|a\.m\.|p\.m\.))?)\s+(?P<joint>till|until|to|-)\s+"
    rf"(?P<b>{_CLOCK}(?:\s*(?:am|pm|a\.m\.|p\.m\.))?)\b(?!\s*(?:%|people|of|more|[a-z]+s\b))",
    re.IGNORECASE,
)


def time_span(text: str) -> tuple[Span, Span] | None:
    """A span of clock times ("nine till twelve", "from 2 to 3:30 pm"): the start (``HH:MM``) and the
    length in minutes, each a ``Span`` over the whole span; an end before the start is later that day
    ("eleven to two" is 11:00-14:00)."""
    found = _CLOCK_SPAN.search(text)
    # "ten to four", "at ten till four" are one time (15:50): a span says "from", or no "at" before it
    if found is None or re.search(r"\bat\s+$", text[: found.start()], re.IGNORECASE):
        return None
    if found.group("joint").lower() == "to" and not found.group("from"):
        return None
    morning = re.search(r"\b(?:morning|breakfast)\b", text, re.IGNORECASE) is not None
    first = found.group("a")
    start = values.times(f"at {first}{' am' if morning and not _MERIDIEM.search(first) else ''}")
    end = values.times(f"at {found.group('b')}")
    if not start or not end:
        return None
    minutes = _minutes(str(end[0].value)) - _minutes(str(start[0].value))
    while minutes <= 0:
        minutes += 12 * 60
    return Span(start[0].value, found.start(), found.end()), Span(minutes, found.start(), found.end())


_MERIDIEM = re.compile(r"am|pm|a\.m\.|p\.m\.", re.IGNORECASE)


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)
