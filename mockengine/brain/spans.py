"""Values that fill two parameters from one span of words, or none: a range of dates ("between the
first and the seventh"), a span of clock times ("nine till twelve" → a start and a length), a route said
without "from" ("Bath to Bristol"); and the request's own verb, which is no value ("ping Marcus a
reminder" leaves no note 'ping'). Used by ``slots``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any, Protocol

from mockengine.brain import lexicon, ranges
from mockengine.brain.values import Span


class Work(Protocol):
    """The text being filled from (``slots._Work``): what is left, today's date, and ``take``."""

    text: str
    today: date

    def take(self, span: Span) -> str: ...


class Filled(Protocol):
    """The arguments built so far and the words each came from (``slots.Filled``)."""

    arguments: dict[str, Any]
    sources: dict[str, str]


def fits(name: str, roles: tuple[str, ...]) -> bool:
    """A word of the parameter's name is one of the ``roles`` (by stem: ``attendees`` ~ attendee)."""
    words = {lexicon.stem(w) for w in lexicon.identifier_words(name).split()}
    return any(lexicon.stem(role) in words for role in roles)


def fill_range(work: Work, filled: Filled, bounds: tuple[str, str] | None) -> None:
    """A range's two ends ("between February the first and the seventh") into its two parameters."""
    found = ranges.date_range(work.text, work.today) if bounds else None
    if bounds is None or found is None:
        return
    for name, span in sorted(zip(bounds, found, strict=True), key=lambda e: -(e[1].start if e[1] else 0)):
        if span is not None:  # the later span first, so the earlier one's place is unchanged
            filled.sources[name] = work.take(span) or "(the range's month)"
            filled.arguments[name] = span.value


_ROUTE = re.compile(
    r"(?<!\bfrom )(?<![\w'-])(?P<a>(?-i:[A-Z][\w'-]*)(?:\s+(?-i:[A-Z][\w'-]*)){0,2})\s+to\s+"
    r"(?P<b>(?-i:[A-Z][\w'-]*)(?:\s+(?-i:[A-Z][\w'-]*)){0,2})(?![\w'-])"
)


def fill_route(work: Work, filled: Filled, kinds: Mapping[str, str]) -> None:
    """Two places said as a route with no "from" ("Bath to Bristol") into a from-like and a to-like
    parameter, when the tool takes both."""
    strings = [n for n, k in kinds.items() if k in ("string", "person")]
    origin = next((n for n in strings if fits(n, ("from", "origin", "departure", "source"))), None)
    target = next((n for n in strings if fits(n, ("to", "destination", "arrival"))), None)
    found = _ROUTE.search(work.text) if origin and target else None
    if found is None or origin is None or target is None:
        return
    filled.arguments[origin], filled.arguments[target] = found.group("a"), found.group("b")
    filled.sources[origin] = filled.sources[target] = work.take(Span(None, found.start(), found.end()))


def fill_time_span(work: Work, filled: Filled, kinds: Mapping[str, str]) -> None:
    """A span of clock times ("nine till twelve") into a start time and a length in minutes, when the
    tool takes both."""
    clock = next((n for n, k in kinds.items() if k == "time"), None)
    length = next(
        (n for n, k in kinds.items() if k == "number" and fits(n, ("minute", "duration", "length", "mins"))),
        None,
    )
    found = ranges.time_span(work.text) if clock and length else None
    if found is None or clock is None or length is None:
        return
    filled.sources[clock] = filled.sources[length] = work.take(found[0])
    filled.arguments[clock], filled.arguments[length] = found[0].value, found[1].value


def without_leading_verb(filled: Filled, said: str, optional: list[str]) -> None:
    """An optional detail that is only the first word said is the request's verb, not a value ("ping
    Marcus a reminder" leaves no note 'ping'; "hop me into meeting 842…" no passcode 'hop')."""
    first = re.match(r"\W*([\w'-]+)", said)
    for name in [n for n in optional if isinstance(filled.arguments.get(n), str)]:
        if first is not None and filled.arguments[name].strip().lower() == first.group(1).lower():
            del filled.arguments[name]
            filled.sources.pop(name, None)
