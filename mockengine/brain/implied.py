"""What a named place implies: its timezone, country and currency.

"What's the time in Tokyo?" to ``get_time {city, timezone?}`` fills ``timezone: "Asia/Tokyo"``, as a
model does: an optional parameter whose name or description asks for a timezone, a country or a currency
is filled from the place another parameter was given, in the form its description or enum asks for (an
IANA zone; a country's name, or its ISO 3166 alpha-2 code when the description says "ISO"/"code"/
"alpha-2" or its length is 2; an ISO 4217 currency code). Nothing is filled for a place the tables do not
know, nor over a value heard. A language is not implied: where someone goes says nothing of the language
they want ("I'm planning a trip to Lisbon" to a phrasebook's ``language``); only the words name one.

The places: the cities and countries below (a compact table of the most-named ones, so the answer does
not depend on the host's tz database), and any city that names an IANA zone (``zoneinfo``: "Lisbon" →
Europe/Lisbon), whose timezone alone is then known.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mockengine.brain import lexicon, places

# ISO 3166 alpha-2 → (name, ISO 4217 currency, main language, its ISO 639-1 code, the capital's IANA zone)
_COUNTRIES: dict[str, tuple[str, str, str, str, str]] = {
    "US": ("United States", "USD", "English", "en", "America/New_York"),
    "GB": ("United Kingdom", "GBP", "English", "en", "Europe/London"),
    "IE": ("Ireland", "EUR", "English", "en", "Europe/Dublin"),
    "CA": ("Canada", "CAD", "English", "en", "America/Toronto"),
    "AU": ("Australia", "AUD", "English", "en", "Australia/Sydney"),
    "NZ": ("New Zealand", "NZD", "English", "en", "Pacific/Auckland"),
    "FR": ("France", "EUR", "French", "fr", "Europe/Paris"),
    "DE": ("Germany", "EUR", "German", "de", "Europe/Berlin"),
    "AT": ("Austria", "EUR", "German", "de", "Europe/Vienna"),
    "CH": ("Switzerland", "CHF", "German", "de", "Europe/Zurich"),
    "ES": ("Spain", "EUR", "Spanish", "es", "Europe/Madrid"),
    "PT": ("Portugal", "EUR", "Portuguese", "pt", "Europe/Lisbon"),
    "IT": ("Italy", "EUR", "Italian", "it", "Europe/Rome"),
    "NL": ("Netherlands", "EUR", "Dutch", "nl", "Europe/Amsterdam"),
    "BE": ("Belgium", "EUR", "Dutch", "nl", "Europe/Brussels"),
    "SE": ("Sweden", "SEK", "Swedish", "sv", "Europe/Stockholm"),
    "NO": ("Norway", "NOK", "Norwegian", "no", "Europe/Oslo"),
    "DK": ("Denmark", "DKK", "Danish", "da", "Europe/Copenhagen"),
    "FI": ("Finland", "EUR", "Finnish", "fi", "Europe/Helsinki"),
    "PL": ("Poland", "PLN", "Polish", "pl", "Europe/Warsaw"),
    "CZ": ("Czechia", "CZK", "Czech", "cs", "Europe/Prague"),
    "GR": ("Greece", "EUR", "Greek", "el", "Europe/Athens"),
    "TR": ("Turkey", "TRY", "Turkish", "tr", "Europe/Istanbul"),
    "RU": ("Russia", "RUB", "Russian", "ru", "Europe/Moscow"),
    "JP": ("Japan", "JPY", "Japanese", "ja", "Asia/Tokyo"),
    "CN": ("China", "CNY", "Chinese", "zh", "Asia/Shanghai"),
    "HK": ("Hong Kong", "HKD", "Chinese", "zh", "Asia/Hong_Kong"),
    "KR": ("South Korea", "KRW", "Korean", "ko", "Asia/Seoul"),
    "IN": ("India", "INR", "Hindi", "hi", "Asia/Kolkata"),
    "SG": ("Singapore", "SGD", "English", "en", "Asia/Singapore"),
    "TH": ("Thailand", "THB", "Thai", "th", "Asia/Bangkok"),
    "AE": ("United Arab Emirates", "AED", "Arabic", "ar", "Asia/Dubai"),
    "EG": ("Egypt", "EGP", "Arabic", "ar", "Africa/Cairo"),
    "ZA": ("South Africa", "ZAR", "English", "en", "Africa/Johannesburg"),
    "KE": ("Kenya", "KES", "Swahili", "sw", "Africa/Nairobi"),
    "NG": ("Nigeria", "NGN", "English", "en", "Africa/Lagos"),
    "BR": ("Brazil", "BRL", "Portuguese", "pt", "America/Sao_Paulo"),
    "AR": ("Argentina", "ARS", "Spanish", "es", "America/Argentina/Buenos_Aires"),
    "MX": ("Mexico", "MXN", "Spanish", "es", "America/Mexico_City"),
}
# city → (ISO 3166 alpha-2, IANA zone); the capitals come from _COUNTRIES
_CITIES: dict[str, tuple[str, str]] = {
    "new york": ("US", "America/New_York"),
    "new york city": ("US", "America/New_York"),
    "nyc": ("US", "America/New_York"),
    "boston": ("US", "America/New_York"),
    "washington": ("US", "America/New_York"),
    "miami": ("US", "America/New_York"),
    "chicago": ("US", "America/Chicago"),
    "austin": ("US", "America/Chicago"),
    "dallas": ("US", "America/Chicago"),
    "houston": ("US", "America/Chicago"),
    "denver": ("US", "America/Denver"),
    "los angeles": ("US", "America/Los_Angeles"),
    "san francisco": ("US", "America/Los_Angeles"),
    "seattle": ("US", "America/Los_Angeles"),
    "las vegas": ("US", "America/Los_Angeles"),
    "honolulu": ("US", "Pacific/Honolulu"),
    "toronto": ("CA", "America/Toronto"),
    "montreal": ("CA", "America/Toronto"),
    "vancouver": ("CA", "America/Vancouver"),
    "london": ("GB", "Europe/London"),
    "manchester": ("GB", "Europe/London"),
    "edinburgh": ("GB", "Europe/London"),
    "dublin": ("IE", "Europe/Dublin"),
    "paris": ("FR", "Europe/Paris"),
    "lyon": ("FR", "Europe/Paris"),
    "nice": ("FR", "Europe/Paris"),
    "berlin": ("DE", "Europe/Berlin"),
    "munich": ("DE", "Europe/Berlin"),
    "hamburg": ("DE", "Europe/Berlin"),
    "frankfurt": ("DE", "Europe/Berlin"),
    "vienna": ("AT", "Europe/Vienna"),
    "zurich": ("CH", "Europe/Zurich"),
    "geneva": ("CH", "Europe/Zurich"),
    "madrid": ("ES", "Europe/Madrid"),
    "barcelona": ("ES", "Europe/Madrid"),
    "lisbon": ("PT", "Europe/Lisbon"),
    "porto": ("PT", "Europe/Lisbon"),
    "rome": ("IT", "Europe/Rome"),
    "milan": ("IT", "Europe/Rome"),
    "venice": ("IT", "Europe/Rome"),
    "florence": ("IT", "Europe/Rome"),
    "amsterdam": ("NL", "Europe/Amsterdam"),
    "brussels": ("BE", "Europe/Brussels"),
    "stockholm": ("SE", "Europe/Stockholm"),
    "oslo": ("NO", "Europe/Oslo"),
    "copenhagen": ("DK", "Europe/Copenhagen"),
    "helsinki": ("FI", "Europe/Helsinki"),
    "warsaw": ("PL", "Europe/Warsaw"),
    "prague": ("CZ", "Europe/Prague"),
    "athens": ("GR", "Europe/Athens"),
    "istanbul": ("TR", "Europe/Istanbul"),
    "moscow": ("RU", "Europe/Moscow"),
    "tokyo": ("JP", "Asia/Tokyo"),
    "osaka": ("JP", "Asia/Tokyo"),
    "kyoto": ("JP", "Asia/Tokyo"),
    "beijing": ("CN", "Asia/Shanghai"),
    "shanghai": ("CN", "Asia/Shanghai"),
    "hong kong": ("HK", "Asia/Hong_Kong"),
    "seoul": ("KR", "Asia/Seoul"),
    "mumbai": ("IN", "Asia/Kolkata"),
    "delhi": ("IN", "Asia/Kolkata"),
    "new delhi": ("IN", "Asia/Kolkata"),
    "bangalore": ("IN", "Asia/Kolkata"),
    "singapore": ("SG", "Asia/Singapore"),
    "bangkok": ("TH", "Asia/Bangkok"),
    "dubai": ("AE", "Asia/Dubai"),
    "cairo": ("EG", "Africa/Cairo"),
    "johannesburg": ("ZA", "Africa/Johannesburg"),
    "cape town": ("ZA", "Africa/Johannesburg"),
    "nairobi": ("KE", "Africa/Nairobi"),
    "lagos": ("NG", "Africa/Lagos"),
    "sydney": ("AU", "Australia/Sydney"),
    "melbourne": ("AU", "Australia/Melbourne"),
    "brisbane": ("AU", "Australia/Brisbane"),
    "perth": ("AU", "Australia/Perth"),
    "auckland": ("NZ", "Pacific/Auckland"),
    "sao paulo": ("BR", "America/Sao_Paulo"),
    "rio de janeiro": ("BR", "America/Sao_Paulo"),
    "rio": ("BR", "America/Sao_Paulo"),
    "buenos aires": ("AR", "America/Argentina/Buenos_Aires"),
    "mexico city": ("MX", "America/Mexico_City"),
}
# Parameter-name words for what a place implies.
_ASKS: dict[str, str] = {
    "timezone": "timezone",
    "tz": "timezone",
    "zone": "timezone",
    "country": "country",
    "currency": "currency",
}
# (a ride's ends, ``pickup`` / ``dropoff`` / ``origin``, are places too: "from Paris Texas" keeps its state)
_PLACE_WORDS = frozenset(
    (
        "city",
        "town",
        "location",
        "place",
        "destination",
        "where",
        "country",
        "region",
        "pickup",
        "dropoff",
        "origin",
    )
)
_CODE = re.compile(r"\b(?:iso|code|codes|alpha-?2|two-letter|2-letter|639|3166)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Place:
    """What a named place implies; ``country`` is None when only its zone is known."""

    zone: str
    country: str | None


# Names in the tables that are also everyday words: typed in lower case they are the word ("that's nice").
_ALSO_WORDS = frozenset(("nice",))
# Words of a place's name written in lower case inside it ("Rio de Janeiro"), and names written in capitals.
_PARTICLES = frozenset(("de", "del", "da", "do", "of", "la", "le", "upon", "on", "and", "the"))
_CAPITALS = {"nyc": "NYC"}


def place_name(text: str) -> str | None:
    """``text`` written as the name of a city or country the tables know ("paris" → "Paris", "new york" →
    "New York", "rio de janeiro" → "Rio de Janeiro"), as a model writes a place typed in lower case; None
    for any other words, for a name in the tables that is also an everyday word ("nice"), and for the
    names only the tz database knows (its zones are named after words too: "Christmas", "Wake")."""
    key = " ".join(text.lower().split())
    if key in _ALSO_WORDS:
        return None
    if key in _CITIES:
        zone_city = _CITIES[key][1].rsplit("/", 1)[-1].replace("_", " ")
        if zone_city.lower() == key:
            return zone_city
        if key in _CAPITALS:
            return _CAPITALS[key]
        words = key.split()
        return " ".join(w if i and w in _PARTICLES else w.capitalize() for i, w in enumerate(words))
    return next((c[0] for c in _COUNTRIES.values() if c[0].lower() == key), None)


def place(name: str) -> Place | None:
    """The place ``name`` names ("Tokyo", "new york", "Japan"), or None when the tables do not know it."""
    key = " ".join(name.lower().replace(",", " ").split())
    key = re.sub(r"^(?:the|in|at|for)\s+", "", key)
    if key in _CITIES:
        country, zone = _CITIES[key]
        return Place(zone, country)
    for code, (country_name, *_rest, zone) in _COUNTRIES.items():
        if key == country_name.lower():
            return Place(zone, code)
    named = _zones().get(key)
    return Place(named, None) if named is not None else None


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    """City → IANA zone for every zone named after a city ("Europe/Lisbon" → "lisbon")."""
    found: dict[str, str] = {}
    for zone in sorted(zoneinfo.available_timezones()):
        parts = zone.split("/")
        if len(parts) >= 2 and parts[0] not in (
            "Etc",
            "SystemV",
            "US",
            "Canada",
            "Brazil",
            "Mexico",
            "Chile",
        ):
            found.setdefault(parts[-1].replace("_", " ").lower(), zone)
    return found


def asks(parameter: str, schema: Mapping[str, Any]) -> str | None:
    """What a parameter asks a place for ("timezone", "country", "currency"), by the last word
    of its name, or its description when its name is only a generic word ("tz", "zone")."""
    words = lexicon.identifier_words(parameter).split()
    for word in reversed(words):
        if word in _ASKS and not (word == "zone" and len(words) == 1 and "time" not in _described(schema)):
            return _ASKS[word]
    return None


def _described(schema: Mapping[str, Any]) -> str:
    return str(schema.get("description", "")).lower()


def is_country(name: str) -> bool:
    """Whether ``name`` is the name of a country the tables know ("France", "japan")."""
    key = " ".join(name.lower().split())
    return any(country[0].lower() == key for country in _COUNTRIES.values())


def in_the_us(value: str, said: str = "") -> bool:
    """Whether the place ``value`` names is in the United States: a US city the tables know ("Denver",
    "New York City"), or any town with a US state after it, in the value or where ``said`` names it
    ("Springfield, IL", "Austin, Texas")."""
    parts = [part.strip() for part in value.split(",")]
    where = place(parts[0])
    if where is not None and where.country == "US":
        return True
    if len(parts) > 1 and any(places.is_us_state(part) for part in parts[1:]):
        return True
    after = re.search(rf"\b{re.escape(value)},?\s+(?P<state>{places.US_STATE})", said) if said else None
    return after is not None and places.is_us_state(after.group("state"))


def holds_place(parameter: str) -> bool:
    """The parameter holds a named place (``city``, ``location``, ``destination_city``)."""
    return any(w in _PLACE_WORDS for w in lexicon.identifier_words(parameter).split())


def value_for(kind: str, where: Place, schema: Mapping[str, Any]) -> str | None:
    """The value of ``kind`` that ``where`` implies, in the form ``schema`` asks for (an enum option, an
    ISO code when its description or length says so), or None."""
    country = _COUNTRIES.get(where.country or "")
    candidates: list[str] = []
    if kind == "timezone":
        candidates = [where.zone]
    elif country is not None and kind == "country":
        candidates = [where.country or "", country[0]]
    elif country is not None and kind == "currency":
        candidates = [country[1]]
    options = schema.get("enum")
    if isinstance(options, list):
        wanted = {c.lower() for c in candidates}
        return next((o for o in options if isinstance(o, str) and o.lower() in wanted), None)
    if not candidates:
        return None
    coded = bool(_CODE.search(_described(schema))) or schema.get("maxLength") == 2
    if kind == "country" and len(candidates) == 2:
        return candidates[0] if coded else candidates[1]
    return candidates[0]
