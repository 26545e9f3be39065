"""A time to come, said ("tomorrow", "this week", "over the next few days", "on Friday"), and the lookups
that reach it.

A model given ``get_weather(city)`` and ``get_forecast(city, days)`` calls the forecast for "Will it
rain in Paris this week?": the present-only lookup cannot answer a day to come. ``said`` finds the time
and how many days from today (today counted as one) cover it; ``reaches_ahead`` tells a lookup that says it
answers one (a forecast, an upcoming or a weekly lookup, by its name or description) from one that
reports only the present; ``takes_a_day`` one that takes a date or a count of days.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from mockengine.brain import kinds, lexicon, schema_values
from mockengine.brain.model import ToolSpec

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_FEW = {"few": 3, "couple": 2, "couple of": 2, "several": 5, "two": 2, "three": 3, "four": 4, "five": 5}
_FEW.update({"six": 6, "seven": 7, "ten": 10, "fourteen": 14})
_COUNT = r"(?P<count>\d{1,2}|few|couple(?:\s+of)?|several|two|three|four|five|six|seven|ten|fourteen)"
_TIME_AHEAD = re.compile(
    r"\b(?:(?P<after>(?:the\s+)?day\s+after\s+tomorrow)|(?P<tomorrow>tomorrow)|(?P<tonight>tonight)"
    r"|(?:the\s+)?(?:next|coming|following)\s+" + _COUNT + r"\s+days"
    r"|in\s+(?P<inside>\d{1,2}|a\s+few|two|three|four|five)\s+days"
    r"|(?P<rest>(?:later\s+|the\s+rest\s+of\s+)(?:this|the)\s+week)"
    r"|(?P<which>this|next|the\s+coming|the)\s+(?P<span>weekend|week)"
    r"|(?:on|this|next|coming)\s+(?P<weekday>" + "|".join(_WEEKDAYS) + r"))\b",
    re.IGNORECASE,
)
# What a lookup's name or description says of a time to come ("Get the 5-day forecast", "weekly").
# ("days" or "daily" say no more than when a thing recurs: "the collection days for an address")
_AHEAD_WORDS = frozenset(("forecast", "forecasts", "upcoming", "future", "ahead", "weekly"))


@dataclass(frozen=True)
class Ahead:
    """A time to come as said: ``phrase`` ("tomorrow", "this week", "over the next 3 days") and ``days``,
    how many days from today, today counted, reach it (tomorrow: 2, this week: 7)."""

    phrase: str
    days: int
    words: str = ""  # as said ("the day after tomorrow")


def said(text: str, today: date) -> Ahead | None:
    """The first time to come ``text`` names; None when it names none ("today", "now", a past)."""
    found = _TIME_AHEAD.search(text)
    if found is None:
        return None
    return dataclasses.replace(_ahead(found, today), words=found.group(0))


def _ahead(found: re.Match[str], today: date) -> Ahead:
    group = found.groupdict()
    if group["after"]:
        return Ahead("the day after tomorrow", 3)
    if group["tomorrow"]:
        return Ahead("tomorrow", 2)
    if group["tonight"]:
        return Ahead("tonight", 1)
    if group["count"]:
        count = group["count"].lower()
        days = int(count) if count.isdigit() else _FEW[" ".join(count.split())]
        return Ahead(f"over the next {count} days", days)
    if group["inside"]:
        inside = " ".join(group["inside"].lower().split())
        days = int(inside) if inside.isdigit() else _FEW.get(inside.removeprefix("a "), 3)
        # "in 3 days" names one day, today + 3; a forecast's ``days`` counts the days it covers from today,
        # today the first (WeatherAPI's days=1 and Open-Meteo's forecast_days=1 are today alone), so 4
        # reach it, as 2 reach tomorrow. A model that sends 3 gets a forecast ending the day before.
        return Ahead(f"in {inside} days", days + 1)
    if group["rest"]:
        return Ahead(" ".join(group["rest"].lower().split()), 7 - today.weekday())
    if group["span"]:
        which = "next" if group["which"].lower() == "next" else "this"
        if group["span"].lower() == "week":
            return Ahead(f"{which} week", 14 if which == "next" else 7)
        sunday = 6 - today.weekday() + (7 if which == "next" else 0)
        return Ahead(f"{which} weekend", sunday + 1)
    weekday = group["weekday"].lower()
    return Ahead(f"on {weekday.capitalize()}", (_WEEKDAYS.index(weekday) - today.weekday()) % 7 + 1)


def reaches_ahead(tool: ToolSpec) -> bool:
    """Whether a lookup says it answers a time to come: its name or description does (a forecast,
    weekly, upcoming). A date it takes is not enough: a council's ``list_events(date)`` is no forecast of
    what ``get_opening_hours`` reports."""
    return says_ahead(tool.name, tool.description or "")


def says_ahead(name: str, description: str) -> bool:
    """Whether a tool's ``name`` or ``description`` says it answers a time to come (``reaches_ahead``)."""
    words = f"{lexicon.identifier_words(name)} {description}".lower()
    return bool(_AHEAD_WORDS & set(re.findall(r"[a-z]+", words)))


def takes_a_day(tool: ToolSpec) -> bool:
    """Whether ``tool`` takes a date, a date-time or a count of days: it reports more than the present."""
    return any(_takes_day(name, sub) for name, sub in _properties(tool).items())


def one_day_named(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Where "in N days" is in ``text`` (start, end) when the number at ``text[start:end]`` is its N: one
    day to come named, not a count of days (``said`` reads it as the days that reach it, today counted);
    None otherwise."""
    before, after = _IN_BEFORE.search(text[:start]), _DAYS_AFTER.match(text[end:])
    return (before.start(), end + after.end()) if before is not None and after is not None else None


_IN_BEFORE = re.compile(r"\bin\s+$", re.IGNORECASE)
_DAYS_AFTER = re.compile(r"\s+days?\b", re.IGNORECASE)


def days_parameter(name: str, schema: Any) -> bool:
    """Whether parameter ``name`` counts days (``days``, ``num_days``, ``forecast_days``)."""
    if not isinstance(schema, dict) or schema.get("type") not in ("integer", "number"):
        return False
    return bool({"day", "days"} & set(lexicon.identifier_words(name).lower().split()))


def _takes_day(name: str, schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    return kinds.kind_of(name, schema) in ("date", "datetime") or days_parameter(name, schema)


def _properties(tool: ToolSpec) -> dict[str, Any]:
    return schema_values.properties_of(tool.parameters or {})
