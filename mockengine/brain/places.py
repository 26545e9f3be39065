"""Places joined by "and" after the one a parameter took ("the weather in Paris and in Rome"): a parameter
that holds one place gets one call per place, as a model makes parallel calls of the same tool."""

from __future__ import annotations

import re

__all__ = [
    "US_STATE",
    "is_proper_name",
    "is_us_state",
    "us_state_code",
    "joined_name",
    "more_places",
    "split_names",
    "with_state_comma",
]

# A proper name, as transcripts write a place's ("Rome", "Salt Lake City", "Stratford upon Avon").
_PROPER_NAME = re.compile(r"[A-Z][\w'.-]*(?: (?:[A-Z][\w'.-]*|of|de|del|la|le|upon|on))*(?<! of)")


# A US state as an address says it after the town: its two capitals ("IL") or its name ("Illinois",
# "New York"), as a model reads "Springfield Illinois 62704" as Springfield in Illinois.
_US_STATE_NAMES = (
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
    "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky",
    "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri",
    "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York",
    "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island",
    "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington",
    "West Virginia", "Wisconsin", "Wyoming", "District of Columbia",
)  # fmt: skip
# The states' (and DC's) postal codes, as written after a town ("Springfield, IL").
_US_STATE_CODE_LIST = ((
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY",
    "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND",
    "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC",
))  # fmt: skip
_US_STATE_CODES = frozenset(_US_STATE_CODE_LIST)
# A state's name → its postal code ("Texas" → "TX"), the two lists being in the same order.
_CODE_OF_STATE = {name.lower(): code for name, code in zip(_US_STATE_NAMES, _US_STATE_CODE_LIST, strict=True)}
US_STATE = r"(?:[A-Z]{2}|" + "|".join(sorted(_US_STATE_NAMES, key=len, reverse=True)) + r")\b"


# Places whose own name holds "and": one place, not two ("the weather in Trinidad and Tobago").
_JOINED = frozenset(
    name.lower()
    for name in (
        "Trinidad and Tobago",
        "Bosnia and Herzegovina",
        "Antigua and Barbuda",
        "Saint Kitts and Nevis",
        "St Kitts and Nevis",
        "St. Kitts and Nevis",
        "Saint Vincent and the Grenadines",
        "St Vincent and the Grenadines",
        "Sao Tome and Principe",
        "São Tomé and Príncipe",
        "Turks and Caicos",
        "Turks and Caicos Islands",
        "Wallis and Futuna",
        "Saint Pierre and Miquelon",
        "Svalbard and Jan Mayen",
        "Heard Island and McDonald Islands",
        "South Georgia and the South Sandwich Islands",
        "Newcastle and Gateshead",
        "Brighton and Hove",
        "Kensington and Chelsea",
        "Hammersmith and Fulham",
        "Barking and Dagenham",
        "Richmond and Twickenham",
    )
)


# Well-known US cities and their states' postal codes: one city of the name a model means without asking
# (no Springfield, Portland or Washington, which are several).
US_CITY_STATES = {
    "new york": "NY",
    "new york city": "NY",
    "boston": "MA",
    "chicago": "IL",
    "austin": "TX",
    "dallas": "TX",
    "houston": "TX",
    "san antonio": "TX",
    "denver": "CO",
    "los angeles": "CA",
    "san francisco": "CA",
    "san diego": "CA",
    "san jose": "CA",
    "seattle": "WA",
    "las vegas": "NV",
    "miami": "FL",
    "orlando": "FL",
    "atlanta": "GA",
    "phoenix": "AZ",
    "philadelphia": "PA",
    "pittsburgh": "PA",
    "detroit": "MI",
    "minneapolis": "MN",
    "nashville": "TN",
    "new orleans": "LA",
    "honolulu": "HI",
    "salt lake city": "UT",
}
# A description that asks for the state beside the city: "The city and state, e.g. San Francisco, CA".
_ASKS_STATE = re.compile(r"\b(?i:city\s*(?:and|,|/)\s*state)\b|\b[A-Z][a-z]+(?: [A-Z][a-z]+)*, [A-Z]{2}\b")


def asks_state(description: str) -> bool:
    """Whether a place parameter's ``description`` asks the US state with the city ("The city and state,
    e.g. San Francisco, CA", OpenAI's and Pipecat's weather tool)."""
    return _ASKS_STATE.search(description) is not None


def known_us_city(text: str) -> str | None:
    """The state's postal code of a well-known US city named by ``text`` ("San Francisco" → "CA");
    None for any other, or one of several of the name."""
    return US_CITY_STATES.get(" ".join(text.lower().split()))


def us_state_code(text: str) -> str | None:
    """The postal code of the US state ``text`` names ("Texas" → "TX", "TX" → "TX"); None for none."""
    key = " ".join(text.split())
    if key.upper() in _US_STATE_CODES and key.isupper():
        return key.upper()
    return _CODE_OF_STATE.get(key.lower())


def is_us_state(text: str) -> bool:
    """Whether ``text`` names a US state (or DC): its name ("Texas", "new york") or its postal code
    written in capitals ("TX")."""
    said = " ".join(text.split())
    return said in _US_STATE_CODES or said.lower() in {n.lower() for n in _US_STATE_NAMES}


def joined_name(first: str, second: str) -> str | None:
    """``first`` "and" ``second`` when its end is one place's name ("in Trinidad" and "Tobago" → "in
    Trinidad and Tobago"), else None."""
    words = first.split()
    for start in range(max(0, len(words) - 3), len(words)):
        if f"{' '.join(words[start:])} and {second}".lower() in _JOINED:
            return f"{first} and {second}"
    return None


def split_names(text: str) -> list[str]:
    """``text`` split at its commas, "and"s and "or"s ("Berlin and Rome" → two), a place whose own name
    holds "and" kept whole ("Trinidad and Tobago or Jamaica" → two)."""
    pieces = re.split(r"(\s*,\s*|\s+and\s+|\s+or\s+)", text)
    merged = [pieces[0]]
    for joint, part in zip(pieces[1::2], pieces[2::2], strict=True):
        whole = joined_name(merged[-1], part) if joint.strip() == "and" else None
        if whole is not None:
            merged[-1] = whole
        else:
            merged.append(part)
    return merged


def is_proper_name(text: str) -> bool:
    """``text`` is written as a proper name is ("Tokyo", "Salt Lake City"), not as words ("sunset")."""
    return bool(_PROPER_NAME.fullmatch(text))


def more_places(after: list[tuple[str, str]], preposition: str) -> tuple[list[str], list[tuple[str, str]]]:
    """More places joined to the one a parameter took ("in Paris and Rome", "in Paris and in Rome"): a
    parameter that holds one place gets one call per place, as a model makes parallel calls. Only
    proper names join (so "in the kitchen and then …" does not); returns the places and the segments
    they used."""
    places: list[str] = []
    used: list[tuple[str, str]] = []
    rest = list(after)
    while rest and rest[0][0] == "and":
        joined = [rest[0]]
        phrase = rest[0][1]
        if not phrase and len(rest) > 1 and rest[1][0] == preposition:  # "and in Rome"
            joined.append(rest[1])
            phrase = rest[1][1]
        if not _PROPER_NAME.fullmatch(phrase):
            break
        if places and joined_name(places[-1], phrase):  # "in Paris and Trinidad and Tobago"
            places[-1] = f"{places[-1]} and {phrase}"
            used += joined
            rest = rest[len(joined) :]
            continue
        places.append(phrase)
        used += joined
        rest = rest[len(joined) :]
    return places, used


# A town then its US state's name with no comma between ("the weather in Paris Texas", "Salt Lake City
# Utah"), as speech transcribed writes it: after a preposition of place, up to three capitalised words,
# then the state's name. Without the preposition the words may be a person's name ("a table for
# Florence Georgia", "for Jordan Washington"), no town; "for" is one of place only after the weather
# asked ("Weather for Paris Texas", "the forecast for Austin Texas").
_TOWN_THEN_STATE = re.compile(
    r"(?P<before>\b(?i:in|near|around|at|from|to|into|outside|towards?"
    r"|(?:weather|forecast|temperature|temp|rain|conditions)\s+for)\s+)"
    r"(?P<town>[A-Z][a-z][\w'.-]*(?:\s+[A-Z][a-z][\w'.-]*){0,2}?)\s+(?P<state>"
    + "|".join(sorted(_US_STATE_NAMES, key=len, reverse=True))
    + r")\b(?!\s+[A-Z])"
)


def with_state_comma(text: str) -> str:
    """``text`` with a comma between a town after a preposition of place and the US state named after it
    ("in Paris Texas" → "in Paris, Texas"), as written places say it; a state's own name ("West
    Virginia", "New York") is left whole, and so is a name that goes on after the state ("Washington
    Square Park") or one after no such preposition ("for Jordan Washington": a person)."""

    def comma(found: re.Match[str]) -> str:
        town, state = found.group("town"), found.group("state")
        if is_us_state(f"{town.split()[-1]} {state}") or is_us_state(town):
            return found.group(0)
        return f"{found.group('before')}{town}, {state}"

    return _TOWN_THEN_STATE.sub(comma, text)
