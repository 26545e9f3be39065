"""Whether a free string can be the thing its parameter names.

A string parameter whose name says what kind of thing it holds (a ``city``, a ``destination``, a
``contact``, a ``product``…) is filled only with words that can be such a thing. What is left of the
request's own verb is none: "Please transfer me to the weather agent" gave ``get_weather {city:
"transfer"}`` and "Connect me with the weather agent please" ``{city: "Connect with the weather agent"}``;
a model asks which city (or calls nothing). A word is the request's verb when it is the first word said
after the politeness ("please", "can you", "could you just") or an object pronoun follows it as said
("transfer me", "connect us"). Free text (``query``, ``text``, ``message``) is not checked: any words
can be a note. A capitalised word inside the words, a proper name, is kept ("weather in Reading").
"""

from __future__ import annotations

import re

from mockengine.brain import items, lexicon, names

# Parameter-name words for a place, a person or a product: a thing of a kind, never a verb.
_KINDS = frozenset(
    lexicon.stem(w)
    for w in (
        "city",
        "town",
        "country",
        "region",
        "place",
        "location",
        "destination",
        "origin",
        "airport",
        "station",
        "venue",
        "restaurant",
        "hotel",
        "address",
        "person",
        "contact",
        "recipient",
        "artist",
        "author",
        "product",
        "item",
        "ingredient",
    )
)
# What may come before the request's verb: politeness and the asking frame ("could you please just").
_FRAME = re.compile(
    r"^\W*(?:(?:please|pls|hey|hi|ok|okay|so|now|just|kindly|and|also|oh|um|uh|well)\b[\s,]*"
    r"|(?:can|could|would|will)\s+(?:you|u|someone)\b[\s,]*"
    r"|(?:i(?:'d| would) like (?:you )?to|i want (?:you )?to|i need (?:you )?to|let's)\b\s*)*",
    re.IGNORECASE,
)
_OBJECT = r"(?:me|us|him|her|them)"


def names_a_kind(parameter: str) -> bool:
    """The parameter holds a thing of a kind: a place, a person or a product (``city``, ``pickup_city``,
    ``contact``, ``product``), by a word of its name."""
    if names.takes_a_name(parameter) or items.takes_one_thing(parameter):
        return True
    return any(lexicon.stem(w) in _KINDS for w in lexicon.identifier_words(parameter).split())


def request_verb(said: str) -> str | None:
    """The verb the request starts with, lower-case, after the politeness: "Please transfer me to …" →
    "transfer"; None when the words open with no word."""
    frame = _FRAME.match(said)
    rest = said[frame.end() :] if frame else said
    first = re.match(r"\W*([A-Za-z][\w'-]*)", rest)
    return first.group(1).lower() if first else None


def is_request_verb(value: str, said: str) -> bool:
    """``value`` starts with what is left of the request's verb in ``said``: a word an object pronoun
    follows as said ("transfer me", "connect us"), or the first word said after the politeness when it is
    an action verb ("book", "transfer", "connect"); a proper name inside the words (capitalised, not the
    first word) is never one ("the weather in Reading"), nor a value said alone ("Madrid?")."""
    words = value.split()
    first = words[0] if words else ""
    bare = first.lower().strip(",.!?;:")
    if not bare.isalpha():
        return False
    start = re.search(rf"(?<![\w'-]){re.escape(first)}(?![\w'-])", said)
    if start is None:
        return False
    before = said[: start.start()]
    if first[:1].isupper() and before.strip(" ,.!?") and not _FRAME.fullmatch(before):
        return False  # "the weather in Reading": a name
    after = said[start.end() :]
    if re.match(rf"\s+{_OBJECT}\b", after, re.IGNORECASE):
        return True
    verb = bare in _TALK_VERBS or lexicon.concept(bare) in lexicon.ACTIONS
    return verb and bare == request_verb(said) and bool(re.match(r"\s+\w", after))


# Verbs of being put through to someone, which no tool's own list holds ("transfer me to billing").
_TALK_VERBS = frozenset(
    ("transfer", "connect", "patch", "forward", "redirect", "escalate", "route", "switch", "speak", "talk")
)
