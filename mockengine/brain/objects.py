"""The thing a request names, where the verb's own object is not it: a measure before it ("a pair of
running shoes"), a light verb and the tool's own noun before it ("put a hold on X", "the background on
X"), a place set to a value ("set the nursery to nineteen degrees")."""

from __future__ import annotations

import re

from mockengine.brain import lexicon
from mockengine.brain.phrasing import Cues

# Measures and containers before the thing itself ("a pair of running shoes", "a couple of lemons").
MEASURES = frozenset(
    ("pair", "couple", "pack", "packet", "box", "bottle", "bag", "can", "tin", "jar", "carton", "bunch")
)


_LIGHT_NOUN = re.compile(
    r"\b(?:(?:put|place|take|do|give|make|have)\s+(?:a|an)|the|some|any)\s+(\w+)\s+(?:on|at)\b", re.I
)


def set_to(said: str, place: str) -> bool:
    """A place set to a value ("set the nursery to nineteen degrees", "make the spare room twenty"): the
    object is the place, not a thing the tool makes."""
    number = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|\w+ty)\b"
    verb = r"\b(?:set|make|put|keep|get)\s+(?:the\s+|my\s+|our\s+)?"
    pattern = rf"{verb}{re.escape(place)}\s+(?:to\s+|at\s+)?{number}"
    return re.search(pattern, said, re.IGNORECASE) is not None


def light_noun(text: str, cues: Cues) -> bool:
    """A light verb and the tool's own noun before on/at ("put a hold on", "take a look at", "the
    background on"): what follows is the thing acted on."""
    found = _LIGHT_NOUN.search(text)
    word = found.group(1).lower() if found else ""
    own = lexicon.stem(word) in cues.own_stems or lexicon.concept(word) in cues.name_concepts
    return bool(word) and own
