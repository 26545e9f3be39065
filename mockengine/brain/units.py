"""Units written into a field's name (``temperature_c``, ``latency_ms``, ``price_usd``), said as units.

A tool output's fields are read out as "name value"; a unit suffix read as a word gave "temperature c 21".
Here the suffix becomes the unit after the number, in words a voice can say and a reader expects:
``temperature_c: 21`` → "temperature 21 degrees Celsius", ``humidity_pct: 40`` → "humidity 40 percent".
Only suffixes that name one unit are taken (``_m`` could be metres or minutes: it stays a word). A short
suffix that is also a common abbreviation (``_c`` in ``vitamin_c``, ``_min`` in ``temp_min``, ``_h`` in
``image_h``, ``_k`` in ``top_k``, ``_ms`` in ``wind_speed_ms``, metres per second) counts only after a
word that fixes its sense: a temperature (``temp_c``, ``feels_like_f``) or a time (``latency_ms``,
``timeout_min``). A suffix after ``per`` (``calls_per_min``) or after another unit (``wind_km_h``, ``m_s``) is
part of a rate, not the value's unit: the words stay as they are.
"""

from __future__ import annotations

# suffix → (singular, plural); US spellings, as the service's English replies use
_UNITS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("c", "celsius", "degc"), ("degree Celsius", "degrees Celsius")),
    **dict.fromkeys(("f", "fahrenheit", "degf"), ("degree Fahrenheit", "degrees Fahrenheit")),
    **dict.fromkeys(("k", "kelvin"), ("kelvin", "kelvins")),
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


# Short suffixes that are also ordinary abbreviations: a unit only after a word of the matching kind.
_TEMPERATURE_UNITS = frozenset(("c", "f", "k"))
_TIME_UNITS = frozenset(("ms", "s", "min", "mins", "h", "hr", "hrs"))
_TEMPERATURE_WORDS = frozenset(
    [
        "temp",
        "temps",
        "temperature",
        "temperatures",
        "feels",
        "dew",
        "high",
        "low",
        "heat",
        "chill",
        "tmin",
        "tmax",
    ]
)
_TIME_WORDS = frozenset(
    [
        "latency",
        "duration",
        "delay",
        "timeout",
        "elapsed",
        "uptime",
        "downtime",
        "time",
        "wait",
        "interval",
        "ttl",
        "period",
        "runtime",
        "eta",
        "remaining",
        "retry",
        "cooldown",
        "expiry",
        "lifetime",
        "age",
        "travel",
        "commute",
        "offset",
        "backoff",
        "lag",
        "jitter",
    ]
)
# Before a unit, a word that makes the pair a rate (``per min``, ``km h``); ``min`` there means minimum
# (``temp_min_c``), so it does not.
_RATE_WORDS = frozenset(("per", "m", *_UNITS)) - {"min", "mins"}


def unit_named(word: str) -> tuple[str, str] | None:
    """The unit a word or symbol names ("fahrenheit", "F", "km", "kilometres", "miles" → its singular and
    plural names), else None."""
    lowered = word.lower().replace("metre", "meter")
    return _UNITS.get(lowered) or _BY_NAME.get(lowered)


# A unit by the last word of its name, singular or plural ("celsius", "kilometers"); a rate's ("kilometer
# per hour") is its own.
_BY_NAME: dict[str, tuple[str, str]] = {
    name.split()[-1].lower(): unit for unit in _UNITS.values() for name in unit if " per " not in name
}


def with_unit(words: str, value: object) -> str | None:
    """``words`` (a field name as words, "temperature c") and its number ``value`` (or a number written as
    a string, ``"21"``) said with the unit its last word names ("temperature 21 degrees Celsius"); None
    when the last word is no unit or an ambiguous one (see the module's docstring), it is the only word, or
    the value is not a number. The unit is singular only for the integer 1."""
    head, _, last = words.rpartition(" ")
    unit = _UNITS.get(last.lower())
    number = _number(value)
    if not head or unit is None or number is None or not _is_unit_here(head.lower().split(), last.lower()):
        return None
    return f"{head} {value} {unit[0] if number == 1 and isinstance(number, int) else unit[1]}"


def _is_unit_here(head: list[str], last: str) -> bool:
    if head[-1] in _RATE_WORDS:
        return False
    if last in _TEMPERATURE_UNITS:
        return not _TEMPERATURE_WORDS.isdisjoint(head)
    if last in _TIME_UNITS:
        return not _TIME_WORDS.isdisjoint(head)
    return True


def _number(value: object) -> int | float | None:
    """``value`` as a number: an int or float as is, a string that is a plain decimal numeral parsed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and value.strip() == value and value:
        text = value[1:] if value[0] in "+-" else value
        if text.isdecimal():
            return int(value)
        whole, dot, fraction = text.partition(".")
        if dot and whole.isdecimal() and fraction.isdecimal():
            return float(value)
    return None
