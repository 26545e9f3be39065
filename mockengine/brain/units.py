"""Units written into a field's name (``temperature_c``, ``latency_ms``, ``price_usd``), said as units.

A tool output's fields are read out as "name value"; a unit suffix read as a word gave "temperature c 21".
Here the suffix becomes the unit after the number, in words a voice can say and a reader expects:
``temperature_c: 21`` → "temperature 21 degrees Celsius", ``humidity_pct: 40`` → "humidity 40 percent".
Only suffixes that name one unit are taken (``_m`` could be metres or minutes: it stays a word).
"""

from __future__ import annotations

# suffix → (singular, plural); US spellings, as the service's English replies use
_UNITS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("c", "celsius", "degc"), ("degree Celsius", "degrees Celsius")),
    **dict.fromkeys(("f", "fahrenheit", "degf"), ("degree Fahrenheit", "degrees Fahrenheit")),
    **dict.fromkeys(("k", "kelvin"), ("kelvin", "kelvin")),
    **dict.fromkeys(("ms", "msec", "millis", "milliseconds"), ("millisecond", "milliseconds")),
    **dict.fromkeys(("s", "sec", "secs", "seconds"), ("second", "seconds")),
    **dict.fromkeys(("min", "mins", "minutes"), ("minute", "minutes")),
    **dict.fromkeys(("h", "hr", "hrs", "hours"), ("hour", "hours")),
    "days": ("day", "days"),
    "km": ("kilometer", "kilometers"),
    "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"),
    **dict.fromkeys(("mi", "miles"), ("mile", "miles")),
    "ft": ("foot", "feet"),
    **dict.fromkeys(("kmh", "kph"), ("kilometer per hour", "kilometers per hour")),
    "mph": ("mile per hour", "miles per hour"),
    "mps": ("meter per second", "meters per second"),
    "kg": ("kilogram", "kilograms"),
    **dict.fromkeys(("lb", "lbs"), ("pound", "pounds")),
    **dict.fromkeys(("pct", "percent", "percentage"), ("percent", "percent")),
    "usd": ("dollar", "dollars"),
    "eur": ("euro", "euros"),
    "gbp": ("pound", "pounds"),
    "jpy": ("yen", "yen"),
    "hz": ("hertz", "hertz"),
    "khz": ("kilohertz", "kilohertz"),
    "kb": ("kilobyte", "kilobytes"),
    "mb": ("megabyte", "megabytes"),
    "gb": ("gigabyte", "gigabytes"),
    "bytes": ("byte", "bytes"),
}


def with_unit(words: str, value: object) -> str | None:
    """``words`` (a field name as words, "temperature c") and its number ``value`` said with the unit
    its last word names ("temperature 21 degrees Celsius"); None when the last word is no unit, it is the
    only word, or the value is not a number."""
    head, _, last = words.rpartition(" ")
    unit = _UNITS.get(last.lower())
    if not head or unit is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return f"{head} {value} {unit[0] if value == 1 else unit[1]}"
