"""Several options of an array-of-enum parameter from the words: the options said ("on monday and
wednesday" → ``["mon", "wed"]``) and, for days of the week, the groups people say ("weekdays" → monday to
friday, "the weekend" → saturday and sunday, "every day" / "daily" → all seven)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain.values import Span

_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_GROUPS = (
    (
        re.compile(r"\b(?:every\s+)?week\s?days?\b|\bmonday\s+(?:to|through|till|until|-)\s+friday\b", re.I),
        _DAYS[:5],
    ),
    (re.compile(r"\b(?:the\s+|every\s+)?weekends?\b", re.I), _DAYS[5:]),
    (re.compile(r"\bevery\s?day\b|\bdaily\b|\ball\s+week\b", re.I), _DAYS),
)
_DAY_WORD = re.compile(r"\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*\b", re.I)
_DAY_NAMES = re.compile(r"^(?:mon|tues?|wed|thu|fri|sat|sun)", re.I)


def options_for(text: str, schema: Mapping[str, Any]) -> Span | None:
    """The options of ``schema`` (an array whose ``items`` have an ``enum``) that ``text`` names, in the
    enum's order, with the span from the first to the last word that named one; None when none is said."""
    items = schema.get("items")
    options = items.get("enum") if isinstance(items, Mapping) else None
    if not isinstance(options, list) or not options:
        return None
    found: dict[Any, tuple[int, int]] = {}
    days = _day_options(options)
    for pattern, group in _GROUPS if days else ():
        for match in pattern.finditer(text):
            found.update({days[day]: match.span() for day in group if day in days})
    for match in _DAY_WORD.finditer(text) if days else ():
        if match.group(1).lower() in days and not _inside(match.span(), found.values()):
            found.setdefault(days[match.group(1).lower()], match.span())
    for option in [o for o in options if isinstance(o, str) and not days and len(o) > 1]:
        said = re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text, re.I)
        if said is not None:
            found.setdefault(option, said.span())
    if not found:
        return None
    spans = list(found.values())
    chosen = [o for o in options if o in found]
    return Span(chosen, min(s[0] for s in spans), max(s[1] for s in spans))


def _day_options(options: list[Any]) -> dict[str, Any]:
    """Options that are days of the week ("mon", "Monday", "tuesday"), by their three-letter name; {}
    when fewer than five options are days."""
    days = {o[:3].lower(): o for o in options if isinstance(o, str) and _DAY_NAMES.match(o)}
    return days if len(days) >= 5 else {}


def _inside(span: tuple[int, int], others: Any) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in others)
