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

from collections.abc import Mapping
from typing import Any

from mockengine.brain import lexicon, units

__all__ = ["MAX_FIELDS", "degrees", "is_temperature", "sentence"]

MAX_FIELDS = 5
# A list's items are named when there are at most this many ("2 tasks: milk and eggs").
MAX_NAMED_ITEMS = 3

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
    if not fields:
        return None
    unit = _unit_of(fields)
    temperature = next((f for f in fields if _kind(f[0]) == "temperature"), None)
    condition = next((f for f in fields if _kind(f[0]) == "condition"), None)
    rest = [f for f in fields if f is not temperature and f is not condition and _kind(f[0]) != "unit"]
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
    first = clauses[0][0].upper() + clauses[0][1:]
    listed = [first, *clauses[1:]]
    text = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"
    return f"{text}."


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
        if _kind(words) == "unit" and isinstance(value, str):
            return _DEGREES.get(value.strip().lower())
    return None


def degrees(words: str, value: Any, unit: str | None) -> str:
    """A temperature as said: with the unit its name gives ("21 degrees Celsius" of ``temp_c``), else
    the unit field's, else "degrees" for a number ("21 degrees"); a word as it is ("n/a")."""
    measured = units.with_unit(words, value)
    if measured is not None:
        return measured[len(words.rpartition(" ")[0]) + 1 :]
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not _numeral(value):
        return str(value)
    return f"{value} {unit or 'degrees'}"


def _numeral(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lstrip("+-").replace(".", "", 1).isdigit()


def _adjective(look: str) -> bool:
    """Conditions said after "It's" as they are: "sunny", "partly cloudy", "clear"; not "rain", "snow"."""
    last = look.lower().split()[-1] if look.split() else ""
    return last.endswith("y") and last not in ("fog", "spray") or last in _ADJECTIVES


def _clause(words: str, value: Any, unit: str | None, about: str) -> str | None:
    """One field as a clause ("the humidity is 40 percent", "it feels like 19 degrees", "it's open",
    "there are 2 tasks: milk and eggs"); ``about`` ("in Paris") goes with the first clause said."""
    parts = set(words.split())
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
    verb = "are" if _plural(head) else "is"
    return f"the {head}{about} {verb} {said}"


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
    if len(names) == len(value) <= MAX_NAMED_ITEMS:
        named = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        said = f"{said}: {named}"
    return said


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
