"""What a pronoun names: ``Referent`` (the values the last call or output named) and, within one
utterance, the thing a first clause is about ("the piano lesson is off, take it out" → piano lesson)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mockengine.brain import lexicon


@dataclass(frozen=True)
class Referent:
    """What "it" means now: string values the last call or output named, by key (lower case), newest
    first, and ``name``, the thing's name when one was found; ``established``, the identifiers earlier
    calls used."""

    values: tuple[tuple[str, str], ...] = ()
    name: str | None = None
    # identifiers every earlier call used, by key (lower case), newest first: the order a refund carries
    # from a lookup two turns back (``acting._established``); no pronoun reads them
    established: tuple[tuple[str, str], ...] = ()

    def for_parameter(self, parameter: str, exact: bool = False) -> str | None:
        """The value a field whose key contains ``parameter`` holds, else (unless ``exact``) the name."""
        key = parameter.lower()
        for candidate, value in self.values:
            if candidate == key or key in candidate:
                return value
        return None if exact else self.name


# "the piano lesson is off, take it out": the thing a first clause is about, that "it" then names.
_SUBJECT = re.compile(
    r"^\W*(?:the|my|our|that|this)\s+(?P<np>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}?)\s+"
    r"(?:is|are|was|were|has been|have been|got)\b[^,;¦]*[,;]\s*(?P<then>.+)$",
    re.IGNORECASE,
)


def subject(text: str) -> str | None:
    """The thing a first clause is about ("piano lesson"), None when the text opens with no such clause."""
    found = _SUBJECT.match(text)
    return found.group("np") if found and has_pronoun(found.group("then")) else None


def has_pronoun(text: str) -> bool:
    return any(t.lower in lexicon.PRONOUNS for t in lexicon.tokens(text))
