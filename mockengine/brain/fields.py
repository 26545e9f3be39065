"""A lookup's output of several fields said as one sentence, as a model says it.

``{"temp": 21, "conditions": "sunny"}`` from ``get_weather {city: Paris}`` is "It's 21 degrees and sunny in
Paris.", not "Paris: temp 21, conditions sunny." (the fields read out as written, which no model does). A
temperature and the conditions open the sentence ("It's 3 degrees Celsius with snow in Oslo"); every other
field is a clause of its own: "the humidity is 40 percent" (a unit in its name said as the unit,
``units``), "it feels like 19 degrees", "it's open" / "it's not available" (a yes/no), "there are 2 tasks:
milk and eggs" (a list, its few items named). With no temperature or conditions the first clause carries
the thing's name: "The status for order 4471 is shipped, the eta is Friday and the carrier is UPS." Ids,
``ok`` and the thing's own name are not said; at most ``MAX_FIELDS`` fields are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain import lexicon, units
from mockengine.brain.wordlists import (
    CURRENCIES,
    CURRENCY_FIELDS,
    ERROR_FIELDS,
    FRACTION_WORDS,
    MINOR_UNIT_WORDS,
    MONEY_WORDS,
    PERCENT_TAILS,
    PERCENT_WORDS,
    QUALIFIER_OPENERS,
    SHARE_WORDS,
)

__all__ = ["MAX_FIELDS", "degrees", "is_temperature", "readable", "sentence"]

MAX_FIELDS = 5
# A list's items are named when there are at most this many ("2 tasks: milk and eggs").
MAX_NAMED_ITEMS = 3
# A listed record that is no name alone is said by at most this many of its facts ("airline United, …").
MAX_ITEM_FACTS = 3

# A total beside a progress ("progress": 3, "total": 5) makes the progress a count of steps.
_TOTALS = frozenset(("total", "total steps", "steps", "of", "out of", "count", "total count"))
_COUNTED_SHARES = frozenset(("progress", "completion"))
# A humidity in grams (absolute: per cubic metre; specific: per kilogram), no percentage.
_MASS_HUMIDITY = frozenset(("absolute", "specific"))
# Field names (as words) that hold the conditions a weather lookup reports.
_CONDITIONS = frozenset(("condition", "conditions", "weather", "summary", "description", "sky", "outlook"))
# A temperature field, by a word of its name; "feels like", "high" and "low" are temperatures of their own.
_TEMPERATURE = frozenset(("temp", "temperature", "temps", "temperatures"))
_FEELS = frozenset(("feels", "feel", "apparent"))
_HIGH = frozenset(("high", "max", "maximum", "tmax"))
_LOW = frozenset(("low", "min", "minimum", "tmin"))
# A unit field that says what a bare temperature is in ("unit": "celsius", "units": "imperial").
_UNIT_FIELDS = frozenset(("unit", "units", "temp unit", "temperature unit", "scale"))
_DEGREES = {
    "celsius": "degrees Celsius",
    "c": "degrees Celsius",
    "metric": "degrees Celsius",
    "fahrenheit": "degrees Fahrenheit",
    "f": "degrees Fahrenheit",
    "imperial": "degrees Fahrenheit",
    "kelvin": "kelvins",
    "k": "kelvins",
    "standard": "kelvins",
}
# Conditions said after "It's …" as they are ("sunny", "partly cloudy"); anything else comes "with" it
# ("with light rain", "with snow").
_ADJECTIVES = frozenset(
    ("clear", "overcast", "fair", "fine", "mild", "dry", "wet", "humid", "hot", "cold", "warm", "cool")
    + ("freezing", "calm", "bright", "dull", "grey", "gray", "hazy", "misty", "stormy", "icy")
)
_SKIPPED = frozenset(("ok", "id", "success", "status code"))


def sentence(data: Mapping[str, Any], named: str | None, where: str) -> str | None:
    """``data`` (a lookup's output) said as one sentence about ``named`` (the thing looked up, said
    after ``where``: " in " for a place, " for " otherwise), or None when it holds no field to say."""
    fields = _fields(data, named)
    # "as of 2026-12-05" qualifies the fact said first: no clause of its own ("the as of is …")
    qualifiers = [f for f in fields if f[0].split()[0] in QUALIFIER_OPENERS and len(f[0].split()) > 1]
    fields = _counted_once([f for f in fields if f not in qualifiers])
    if not fields:
        return None
    unit = _unit_of(fields)
    temperature = next((f for f in fields if _kind(f[0]) == "temperature"), None)
    condition = next((f for f in fields if _kind(f[0]) == "condition"), None)
    rest = [f for f in fields if f is not temperature and f is not condition and not _unit_field(*f)]
    about = f"{where}{named}" if named else ""
    clauses: list[str] = []
    if temperature is not None or condition is not None:
        said = degrees(*temperature, unit) if temperature is not None else ""
        if condition is not None:
            look = str(condition[1]).strip().rstrip(".")
            joined = " and " if _adjective(look) else " with "
            said = f"{said}{joined}{look.lower()}" if said else look.lower()
        clauses.append(f"It's {said}{about}")
        about = ""
    for words, value in rest[: MAX_FIELDS - len(clauses)]:
        if isinstance(value, bool) and about and named and where.strip() == "for":  # "Chez Tom is open"
            clauses.append(_yes_no(words, value, "", subject=named))
            about = ""
            continue
        clause = _clause(words, value, unit, about)
        if clause is not None:
            clauses.append(clause)
            about = ""
    if not clauses:
        return None
    clauses[0] += "".join(f" {words} {value}" for words, value in qualifiers if isinstance(value, (str, int)))
    first = clauses[0][0].upper() + clauses[0][1:]
    listed = [first, *clauses[1:]]
    text = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"
    return f"{text}."


# A field that counts a list's items in all ("total": 14 beside the 2 results of a page).
_TOTALS = frozenset(("total", "count", "total count", "total results", "num results", "result count", "hits"))
# A page's place in a longer list: a cursor or page token is no fact to say; "has_more" is said once.
_PAGING = frozenset((
    "next", "next page", "next cursor", "cursor", "next page token", "page token", "next token", "offset",
    "page", "page size", "limit", "per page", "prev", "previous", "previous page", "next url", "next link",
))  # fmt: skip
_MORE = frozenset(("has more", "more", "has next", "has next page", "more results", "truncated"))


def _counted_once(fields: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The fields beside a list as a model says them: a total that only counts the list is not said again
    ("There are no results for sushi and the total is 0." → "There are no results for sushi."), a total
    past the page's items is said as how many there are in all ("14 in all"), a cursor or page token not
    at all, and "has_more" as "there are more" (was "it has more")."""
    listed = next((value for _, value in fields if isinstance(value, list)), None)
    if listed is None:
        return fields
    total = next(
        (v for w, v in fields if w in _TOTALS and _number_of(v) is not None and v > len(listed) > 0), None
    )
    more = any(w in _MORE and v is True for w, v in fields)
    kept: list[tuple[str, Any]] = []
    for words, value in fields:
        if words in _PAGING or words in _MORE and isinstance(value, bool):
            continue
        if words in _TOTALS and _number_of(value) is not None:
            continue
        kept.append((words, _Page(value, total) if value is listed and total is not None else value))
    if more and total is None:  # "14 results" says there are more already
        kept.append(("more", True))
    return kept


class _Page(list):  # type: ignore[type-arg]
    """A page of a longer list: its items, and how many there are in all (``total``)."""

    def __init__(self, items: list[Any], total: int) -> None:
        super().__init__(items)
        self.total = total


def readable(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data``'s values as a model says them, the keys kept: a quantity given as an object with its unit
    (``{"value": 18, "unit": "C"}``, ``{"amount": 249, "currency": "USD"}``) as one value with its unit
    ("18 degrees Celsius", "249.00 US dollars"); an amount of money (a field named ``balance``, ``total``,
    ``price``, … beside a ``currency`` field) with its currency, the currency field then dropped
    ("1,234.50 US dollars"); a share given as a fraction (``"humidity": 0.82``) in percent
    (``humidity_pct: 82``, "82 percent")."""
    currency = next(
        (
            str(value).strip().upper()
            for key, value in data.items()
            if lexicon.identifier_words(str(key)) in CURRENCY_FIELDS
            and isinstance(value, str)
            and value.strip().upper() in CURRENCIES
        ),
        None,
    )
    said: dict[str, Any] = {}
    # {"progress": 3, "total": 5}: the progress is a count of the total's steps, no percent
    counted = any(lexicon.identifier_words(str(key)) in _TOTALS for key in data)
    for key, value in data.items():
        words = lexicon.identifier_words(str(key))
        if currency is not None and words in CURRENCY_FIELDS:
            continue
        minor = words.split()
        if (
            currency is not None
            and _number_of(value) is not None
            and len(minor) > 1
            and minor[-1] in MINOR_UNIT_WORDS
            and set(minor) & MONEY_WORDS
        ):
            # balance_cents: 12345 is 123.45 dollars, said under the amount's own name ("the balance")
            key = "_".join(word for word in minor[:-1] if word != "in")
            value = _money(value / 100, currency)
        elif isinstance(value, Mapping):
            value = _quantity(value)
        elif (
            currency is not None
            and (amount := _number_of(value)) is not None
            and set(words.split()) & MONEY_WORDS
        ):
            value = _money(amount, currency)
        elif (
            isinstance(value, float)
            and 0 <= value <= 1
            and set(words.split()) & SHARE_WORDS
            and units.with_unit(words, value) is None
        ):
            percent = round(value * 100, 1)
            key, value = f"{key}_pct", int(percent) if percent.is_integer() else percent
        elif (percent_of := _percent(words, value)) is not None and not (
            counted and set(words.split()) & _COUNTED_SHARES
        ):
            key, value = f"{key}_pct", percent_of
        elif isinstance(value, str) and (when := when_said(value)) is not None:
            value = when
        said[str(key)] = value
    return said


# An ISO 8601 date or date-time as a tool writes it: "2026-12-03", "2026-12-03T14:30:00Z",
# "2026-12-07T09:30:00+01:00", "2026-12-08 07:15".
_ISO = re.compile(
    r"^(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::\d{2}(?:\.\d+)?)?(?P<zone>Z|[+-]\d{2}:?\d{2})?)?$"
)
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def when_said(value: str) -> str | None:
    """An ISO date or date-time as a model reads it out: "2026-12-03" → "December 3, 2026",
    "2026-12-03T14:30:00Z" → "December 3, 2026 at 2:30 PM UTC"; a time with an offset is said as the
    local time it writes ("…T09:30:00+01:00" → "9:30 AM"), as a model reads the clock time it was given.
    None for anything else (an invalid date included)."""
    found = _ISO.match(value.strip())
    if found is None:
        return None
    month, day = int(found["month"]), int(found["day"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    said = f"{_MONTHS[month - 1]} {day}, {found['year']}"
    if found["hour"] is None:
        return said
    hour, minute = int(found["hour"]), int(found["minute"])
    if hour > 23 or minute > 59:
        return None
    clock = f"{(hour % 12) or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"
    return f"{said} at {clock}{' UTC' if found['zone'] == 'Z' else ''}"


def _percent(words: str, value: Any) -> int | float | None:
    """A percentage field's number up to 100 (``humidity: 82``, ``battery_level: 45``) as its percent;
    an integer 1 of a share that is a fraction (``progress: 1``) as 100; None for any other field, a
    number past 100, or one whose name already gives a unit (``battery_mah``)."""
    parts = words.split()
    number = _number_of(value)
    if number is None or not parts or not 0 <= number <= 100 or units.with_unit(words, value) is not None:
        return None
    if parts[0] in _MASS_HUMIDITY:  # absolute_humidity: 12 is grams a cubic metre, no share
        return None
    named = (
        parts[-1] in PERCENT_WORDS
        or parts[-1] in PERCENT_TAILS
        and bool(set(parts) & PERCENT_WORDS)
        or parts[0] in PERCENT_WORDS
        and parts[1:2] == ["of"]  # "chance of rain", "probability of precipitation"
    )
    if not named:
        return None
    if number == 1 and isinstance(number, int) and set(parts) & FRACTION_WORDS:
        return 100
    return number


def _quantity(value: Mapping[str, Any]) -> Any:
    """An object that is one quantity with its unit or currency, said as one value; else as it is."""
    parts = {lexicon.identifier_words(str(k)): v for k, v in value.items()}
    number = next((_number_of(parts[k]) for k in ("value", "amount", "val") if k in parts), None)
    if number is None:
        return value
    currency = next((parts[k] for k in CURRENCY_FIELDS if isinstance(parts.get(k), str)), None)
    if currency is not None and currency.strip().upper() in CURRENCIES:
        return _money(number, currency.strip().upper())
    unit = next((parts[k] for k in ("unit", "units", "uom") if isinstance(parts.get(k), str)), None)
    if unit is None or not unit.strip():
        return value
    named = units.unit_named(unit.strip())
    if named is None:
        return f"{number} {unit.strip()}"
    return f"{number} {named[0] if number == 1 and isinstance(number, int) else named[1]}"


def _money(amount: float, currency: str) -> str:
    name, digits = CURRENCIES[currency]
    return f"{amount:,.{digits}f} {name}"


def _number_of(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _fields(data: Mapping[str, Any], named: str | None) -> list[tuple[str, Any]]:
    """The fields worth saying, as (name as words, value): the top level's, then one nested object's;
    not ids, ``ok``, nulls, empty strings or the thing's own name."""
    nested = [v for v in data.values() if isinstance(v, Mapping)]
    found: list[tuple[str, Any]] = []
    for key, value in [*data.items(), *(nested[0].items() if len(nested) == 1 else ())]:
        words = lexicon.identifier_words(str(key))
        if not words or words in _SKIPPED or words.endswith((" id", " ids")) or value == named:
            continue
        if value is None or isinstance(value, Mapping) or isinstance(value, str) and not value.strip():
            continue
        if words in ERROR_FIELDS and not value:
            # {"error": false}, {"errors": []} beside the answer: no error, nothing to say
            continue
        found.append((words, value))
    return found


def _kind(words: str) -> str:
    """What a field is to the sentence: "temperature" (the one it opens with), "condition", "unit", or
    "other" (a clause of its own, a feels-like, high or low temperature included)."""
    parts = set(words.split())
    if words in _UNIT_FIELDS:
        return "unit"
    if words in _CONDITIONS:
        return "condition"
    if parts & _TEMPERATURE and not parts & (_FEELS | _HIGH | _LOW):
        return "temperature"
    return "other"


def is_temperature(words: str) -> bool:
    """A field named ``words`` ("temp", "temperature c") holds the temperature itself."""
    return _kind(words) == "temperature"


def _unit_of(fields: list[tuple[str, Any]]) -> str | None:
    """The unit a unit field gives a bare temperature ("celsius" → "degrees Celsius"), else None."""
    for words, value in fields:
        if _unit_field(words, value) and isinstance(value, str):
            return _DEGREES.get(value.strip().lower())
    return None


def _unit_field(words: str, value: Any) -> bool:
    """A field that says what unit a temperature is in: a unit field, or a ``format`` that holds a
    temperature unit (Pipecat's get_current_weather returns the ``format`` it was asked for: it was read
    back as "the format is fahrenheit")."""
    if _kind(words) == "unit":
        return True
    return words in _FORMAT_FIELDS and isinstance(value, str) and value.strip().lower() in _DEGREES


_FORMAT_FIELDS = frozenset(("format", "temperature format", "temp format"))


def degrees(words: str, value: Any, unit: str | None) -> str:
    """A temperature as said: with the unit its name gives ("21 degrees Celsius" of ``temp_c``), else
    the unit field's, else "degrees" for a number ("21 degrees"); a word as it is ("n/a")."""
    measured = units.with_unit(words, value)
    if measured is not None:
        return measured[len(words.rpartition(" ")[0]) + 1 :]
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not numeral(value):
        return str(value)
    return f"{value} {unit or 'degrees'}"


def numeral(value: Any) -> bool:
    """Whether ``value`` is a number written as text ("21", "-3.5")."""
    return isinstance(value, str) and value.strip().lstrip("+-").replace(".", "", 1).isdigit()


def degrees_asked(arguments: Any) -> str | None:
    """The temperature unit a call asked for (``unit: "fahrenheit"``, ``units: "metric"``) as said
    ("degrees Fahrenheit"); None when it asked for none."""
    if not isinstance(arguments, Mapping):
        return None
    for key, value in arguments.items():
        words = set(lexicon.identifier_words(str(key)).lower().split())
        if words & {"unit", "units", "scale", "format"} and isinstance(value, str):
            found = _DEGREES.get(value.strip().lower())
            if found is not None:
                return found
    return None


def _adjective(look: str) -> bool:
    """Conditions said after "It's" as they are: "sunny", "partly cloudy", "clear"; not "rain", "snow"."""
    last = look.lower().split()[-1] if look.split() else ""
    return last.endswith("y") and last not in ("fog", "spray") or last in _ADJECTIVES


def _clause(words: str, value: Any, unit: str | None, about: str) -> str | None:
    """One field as a clause ("the humidity is 40 percent", "it feels like 19 degrees", "it's open",
    "there are 2 tasks: milk and eggs"); ``about`` ("in Paris") goes with the first clause said."""
    parts = set(words.split())
    if words == "more" and value is True:
        return "there are more"
    if isinstance(value, bool):
        return _yes_no(words, value, about)
    if isinstance(value, list):
        return _listed(words, value, about)
    if not isinstance(value, (int, float, str)):
        return None
    temperature = parts & (_TEMPERATURE | {"dew", "heat", "chill"}) or parts & _FEELS
    if parts & _FEELS:
        return f"it feels like {degrees(words, value, unit)}{about}"
    if temperature and parts & _HIGH:
        return f"the high{about} is {degrees(words, value, unit)}"
    if temperature and parts & _LOW:
        return f"the low{about} is {degrees(words, value, unit)}"
    measured = units.with_unit(words, value)
    head = words.rpartition(" ")[0] if measured is not None else words
    said = measured[len(head) + 1 :] if measured is not None else str(value).strip()
    happened = words.split()
    if (
        len(happened) == 2
        and happened[1] in ("at", "on")
        and happened[0].endswith("ed")
        and isinstance(value, str)
        and _ISO_SAID.match(said)
    ):
        # "shipped_at": "December 3, 2026 at 2:30 PM" → "it was shipped on December 3, 2026 at 2:30 PM"
        return f"it was {happened[0]}{about} on {said}"
    verb = "are" if _plural(head) else "is"
    return f"the {head}{about} {verb} {said}"


# A date as ``when_said`` says it ("December 3, 2026 …").
_ISO_SAID = re.compile(rf"^(?:{'|'.join(_MONTHS)}) \d{{1,2}}, \d{{4}}\b")


def plural(words: str) -> bool:
    """The last of ``words`` is a plural noun ("tasks", "flights"; not "status", "address", "days" too
    short: see ``_plural``)."""
    return _plural(words)


def _plural(words: str) -> bool:
    last = words.split()[-1] if words.split() else ""
    return last.endswith("s") and not last.endswith(("ss", "us", "is", "ys")) and len(last) > 3


def _yes_no(words: str, value: bool, about: str, subject: str = "it") -> str:
    """A yes/no field as a clause: ``is_open`` → "it's open" / "it's not open", ``has_parking`` → "it
    has parking" / "it doesn't have parking"; of a thing named (``subject``): "Chez Tom is open"."""
    parts = words.split()
    if parts[0] in ("has", "have") and len(parts) > 1:
        thing = " ".join(parts[1:])
        return f"{subject} has {thing}{about}" if value else f"{subject} doesn't have {thing}{about}"
    if parts[0] in ("is", "are") and len(parts) > 1:
        parts = parts[1:]
    state = " ".join(parts)
    verb = "'s" if subject == "it" else " is"
    return f"{subject}{verb} {state}{about}" if value else f"{subject}{verb} not {state}{about}"


def _listed(words: str, value: list[Any], about: str) -> str:
    """A list as a clause: "there are 2 tasks: milk and eggs", "there is 1 result", "there are no
    tasks"; its items named by their title or name (or as they are, for strings) when there are few."""
    if not value:
        return f"there are no {words}{about}"
    thing = words[:-1] if len(value) == 1 and _plural(words) else words
    verb = "is" if len(value) == 1 else "are"
    names = [n for n in (_item_name(item) for item in value) if n]
    said = f"there {verb} {len(value)} {thing}{about}"
    if isinstance(value, _Page) and len(names) == len(value) <= MAX_NAMED_ITEMS:
        # a page of a longer list: "there are 14 results for sushi; the first 2 are Sushi Ko and Umi"
        first = "the first is" if len(names) == 1 else f"the first {len(names)} are"
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        return f"there are {value.total} {words}{about}; {first} {listed}"
    if isinstance(value, _Page):
        said = f"there are {value.total} {words}{about}"
    if len(names) == len(value) <= MAX_NAMED_ITEMS:
        named = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        said = f"{said}: {named}"
    elif isinstance(value[0], Mapping):  # flights, results: a model names the first one's facts
        facts = _item_facts(words, value[0])
        if facts:
            said = f"{said}; {'it' if len(value) == 1 else 'the first'} is {facts}"
    return said


def _item_facts(words: str, item: Mapping[str, Any]) -> str | None:
    """A listed record said by what names it and its first few facts: "UA 123 (airline United, departure
    08:15, arrival 11:05)"; what names it is its name or title, else a field named as the list's thing
    (``flight`` in ``flights``), a number or a code; None when it holds no scalar to say."""
    thing = words.split()[-1].rstrip("s") if words.split() else ""
    facts: list[tuple[str, Any]] = []
    label: str | None = _item_name(item)
    for key, value in readable(item).items():
        name = lexicon.identifier_words(str(key))
        if isinstance(value, bool) or not isinstance(value, (int, float, str)) or not str(value).strip():
            continue
        if name in _SKIPPED or name.endswith(" id") or str(value).strip() == label:
            continue
        if label is None and (name in (thing, "number", "code") or name.startswith(f"{thing} ")):
            label = str(value).strip()
            continue
        facts.append((name, value))
    said = ", ".join(f"{name} {value}" for name, value in facts[:MAX_ITEM_FACTS])
    if label is None:
        return said or None
    return f"{label} ({said})" if said else label


def _item_name(item: Any) -> str | None:
    if isinstance(item, str) and item.strip():
        return item.strip()
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        return str(item)
    if isinstance(item, Mapping):
        for key in ("title", "name", "label", "text"):
            if isinstance(item.get(key), str) and item[key].strip():
                return str(item[key]).strip()
    return None
