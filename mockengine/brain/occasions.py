"""An occasion told in a statement, as a model extracts it into an event object (OpenAI's Structured
Outputs ``CalendarEvent``: ``name``, ``date``, ``participants``): its title ("Alice and Bob are going to a
science fair on Friday." → "science fair"; "Team standup with Raj and Mia tomorrow" → "Team standup";
"I'm meeting Priya for coffee" → "coffee") and the people in it ("Alice", "Bob"), never the sentence.

The title keeps the words as said (their case too); the people are the proper names said outside the
title that are no day, month or sentence-opening word (``names.proper_names``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain import lexicon, names
from mockengine.brain.values import Span

# What ends a title: a preposition or a day word that says when, where or with whom, or the clause's end.
_END = (
    r"(?=\s+(?:on|at|in|with|next|this|tomorrow|today|tonight|from|for|by|until|till|between|around|"
    r"after|before|and\s+(?:then|after))\b|\s*[,.!?;]|\s*$)"
)
_DETERMINER = r"(?:a|an|the|our|my|their|his|her|your|its)\s+"
# "going to a science fair", "hosting a book club meeting", "at the Science Fair"
_ATTENDED = re.compile(
    r"\b(?:going\s+to|go\s+to|goes\s+to|headed\s+to|heading\s+to|attending|attend|attends|hosting|host|hosts"
    r"|holding|hold|holds|having|have|has|throwing|throw|organi[sz]ing|planning|plan|at)\s+"
    rf"{_DETERMINER}(?P<title>[\w'-]+(?:\s+[\w'-]+){{0,4}}?){_END}",
    re.IGNORECASE,
)
# "meeting Priya for coffee", "seeing Tom and Lee for lunch"
_FOR = re.compile(
    r"\b(?:meeting|meet|meets|seeing|see|joining|join|taking|take)\s+"
    r"(?-i:[A-Z][\w'-]*(?:\s+(?:and\s+)?[A-Z][\w'-]*){0,3})\s+for\s+(?:a\s+|an\s+)?"
    rf"(?P<title>[\w'-]+(?:\s+[\w'-]+){{0,3}}?){_END}",
    re.IGNORECASE,
)
# "Team standup with Raj and Mia …", "Lunch with Dana …": the words the statement opens with
_OPENING = re.compile(r"^\W*(?P<title>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:with|on|at)\b", re.IGNORECASE)
# A parameter holding the people who take part.
_PEOPLE = frozenset(
    ("participants", "attendees", "guests", "invitees", "people", "members", "persons", "who", "invited")
)
# Properties that say an object is a person, not an occasion.
_PERSONAL = frozenset(
    ("age", "email", "phone", "birthday", "birthdate", "gender", "occupation", "job", "nationality", "height")
)
_PLACED = re.compile(r"\b(?:at|in|to|from|near)\s+(?:the\s+)?$", re.IGNORECASE)
_WHEN = frozenset(("date", "day", "time", "when", "datetime", "start", "starts", "start_time", "start_date"))


def is_occasion(properties: Mapping[str, Any]) -> bool:
    """An object schema that describes an occasion: a name or title beside a date, a time or a list of
    the people taking part, and nothing only a person has (an age, an email)."""
    words = [set(lexicon.identifier_words(name).split()) for name in properties]
    named = any(w & {"name", "title", "event"} for w in words)
    personal = any(w & _PERSONAL for w in words)
    dated = any(w & _WHEN for w in words) or any(takes_people(name) for name in properties)
    return named and dated and not personal


def takes_people(name: str) -> bool:
    """``name`` (its last word) holds the people who take part (``participants``, ``attendees``)."""
    words = lexicon.identifier_words(name).split()
    return bool(words) and words[-1] in _PEOPLE


def title(said: str) -> Span | None:
    """The occasion's title as said: what someone goes to, hosts or meets someone for, else the words the
    statement opens with before "with" / "on" / "at" when they are no request."""
    for pattern in (_FOR, _ATTENDED):
        found = pattern.search(said)
        if found is not None and _a_title(found.group("title")):
            return Span(found.group("title"), found.start("title"), found.end("title"))
    opening = _OPENING.match(said)
    if opening is not None and _a_title(opening.group("title")):
        first = opening.group("title").split()[0]
        if lexicon.concept(first) not in lexicon.ACTIONS:  # "Book with Ana on Friday" is a request
            return Span(opening.group("title"), opening.start("title"), opening.end("title"))
    return None


def _a_title(text: str) -> bool:
    """Words that can name an occasion: no pronoun or verb of being, not only stop words."""
    words = text.lower().split()
    content = [w for w in words if w not in lexicon.STOPWORDS]
    return bool(content) and not {"is", "are", "was", "were", "i", "we", "you", "they", "he", "she"} & set(
        words
    )


def people(said: str, outside: Span | None = None) -> list[str]:
    """The proper names said (each once, in order, without a possessive "'s") outside ``outside``."""
    found: list[str] = []
    for span in names.proper_names(said):
        if outside is not None and span.start < outside.end and outside.start < span.end:
            continue
        if _PLACED.search(said[: span.start]):
            continue  # "dinner at Luigi's", "a trip to Rome": a place
        for name in re.split(r"\s+and\s+", str(span.value)):
            name = name.removesuffix("'s").strip()
            if name and name not in found:
                found.append(name)
    return found
