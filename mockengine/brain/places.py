"""Places joined by "and" after the one a parameter took ("the weather in Paris and in Rome"): a parameter
that holds one place gets one call per place, as a model makes parallel calls of the same tool."""

from __future__ import annotations

import re

__all__ = ["is_proper_name", "more_places"]

# A proper name, as transcripts write a place's ("Rome", "Salt Lake City", "Stratford upon Avon").
_PROPER_NAME = re.compile(r"[A-Z][\w'.-]*(?: (?:[A-Z][\w'.-]*|of|de|del|la|le|upon|on))*(?<! of)")


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
        places.append(phrase)
        used += joined
        rest = rest[len(joined) :]
    return places, used
