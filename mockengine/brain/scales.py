"""Enum options said in other words, as a model maps them: a synonym of an option's word ("sit outside"
→ ``outdoor``, "indoors" → ``indoor``, "a big one" → ``large``), or a place on an ordered scale the options
make ("something cheap" → ``$`` of ``["$", "$$", "$$$"]``, "nothing fancy" → ``$``, "it's urgent" →
``urgent``, else the highest of ``["low", "medium", "high"]``). The scale's words are those of price and
urgency only: "light", "small" or "fast" are said of too many other things to set a level.

Only options the schema lists are ever picked; words that place nothing on the options' scale pick
nothing (the parameter is then asked for, with its options).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mockengine.brain import lexicon, wordlists
from mockengine.brain.values import Span

# An option's word → the words said for it (an option named by any of them, or by the word itself).
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "outdoor": ("outside", "outdoors", "alfresco", "al fresco", "on the patio", "on the terrace", "open air"),
    "indoor": ("inside", "indoors"),
    "large": ("big", "huge", "jumbo"),
    "small": ("tiny", "mini"),
    "vegetarian": ("veggie", "meat-free", "meatless"),
    "vegan": ("plant-based", "plant based"),
    # clothing sizes by their names
    "xs": ("extra small", "extra-small", "x-small"),
    "s": ("small",),
    "m": ("medium",),
    "l": ("large",),
    "xl": ("extra large", "extra-large", "x-large"),
    "xxl": ("double extra large", "xx-large", "2xl"),
}
# One of two opposite moves said in other words: "lower the blinds" to ``["open", "close"]`` is close,
# "make it brighter" to ``["dim", "brighten"]`` brighten. Read before the lexicon's concepts, whose groups
# hold both sides of a pair ("bright brightness dim brighter dimmer").
_MOVES: dict[str, tuple[str, ...]] = {
    "open": ("raise", "raised", "raising", "lift", "roll up", "pull up", "put up"),
    "close": ("lower", "lowered", "lowering", "shut", "roll down", "pull down", "let down", "draw"),
    "up": ("raise", "lift", "higher"),
    "down": ("lower", "drop"),
    "brighten": ("brighter", "lighter", "brighten up", "turn up", "more light"),
    "dim": ("dimmer", "darker", "dim down", "turn down", "less bright", "lower"),
    "lock": ("secure", "bolt"),
    "unlock": ("unbolt", "let in"),
}
# Options named by what the speaker says happened (a support request's topic: "I was charged twice" →
# billing): the words still tell it, for a summary beside them.
_TOLD = wordlists.SUPPORT_TOPICS

# Places on an ordered scale, lowest first: an option at one (by its own word: "low", "high") is picked
# by any word at that place ("cheap", "fancy"); options with no word of their own but a rank ("$",
# "$$", "$$$") take the scale's ends and its middle.
_LOW, _MIDDLE, _HIGH, _TOP = range(4)
_LOW_WORDS = ("cheap", "cheapest", "inexpensive", "affordable", "budget", "low", "lowest", "minor")
_MIDDLE_WORDS = ("moderate", "moderately", "mid", "medium", "average", "reasonable", "midrange")
_HIGH_WORDS = ("expensive", "pricey", "fancy", "upscale", "luxury", "luxurious", "posh", "splurge", "high")
_TOP_WORDS = ("urgent", "critical", "emergency", "asap", "highest")
_SCALE: dict[str, int] = {
    **dict.fromkeys(_LOW_WORDS, _LOW),
    **dict.fromkeys(_MIDDLE_WORDS, _MIDDLE),
    **dict.fromkeys(_HIGH_WORDS, _HIGH),
    **dict.fromkeys(_TOP_WORDS, _TOP),
}
_PHRASES = (
    (re.compile(r"\b(?:mid[- ]range|mid[- ]priced|not too (?:expensive|pricey|fancy))\b", re.I), _MIDDLE),
    (re.compile(r"\b(?:high[- ]end|top[- ]end|special occasion)\b", re.I), _HIGH),
    (
        re.compile(
            r"\b(?:low[- ]cost|on a budget|nothing (?:fancy|expensive)|not (?:urgent|important))\b", re.I
        ),
        _LOW,
    ),
)
_SAID = re.compile(r"[A-Za-z]+")
# A symbol repeated to rank the options: "$", "$$", "$$$" (or "€€", "££", "**").
_TIERED = re.compile(r"^(.)\1*$")


def option_for(text: str, options: Sequence[Any]) -> Span | None:
    """The option of ``options`` (strings) that ``text`` names by a synonym, by a place on the options'
    scale, or by its place in the list (the whole words "the second one" answering "Which seating would
    you like: indoor or outdoor?"); None when it names none."""
    words = [str(o) for o in options if isinstance(o, str)]
    if not words:
        return None
    return _synonym(text, words) or _ordering(text, words) or _on_scale(text, words) or _by_place(text, words)


# A sort order said in words, to options that name orders ("price_asc", "price_desc", "rating",
# "distance"): each order's words said, and the words of the options that are it (all must be in an
# option's name; the first group that matches an option wins).
_ORDERS: tuple[tuple[re.Pattern[str], tuple[frozenset[str], ...]], ...] = tuple(
    (re.compile(said, re.IGNORECASE), tuple(frozenset(w.split()) for w in names))
    for said, names in (
        (
            r"\b(?:cheapest|least expensive|lowest[- ]priced?|lowest (?:price|cost)"
            r"|price(?:s|d)? (?:from )?low(?:est)? to high(?:est)?|cheap(?:er)? (?:ones? )?first"
            r"|(?:by|on) price(?! (?:from )?(?:high|desc)))\b",
            ("price asc", "price ascending", "price low", "price low to high", "lowest price", "cheapest"),
        ),
        (
            r"\b(?:most expensive|priciest|highest[- ]priced?|highest (?:price|cost)"
            r"|price(?:s|d)? (?:from )?high(?:est)? to low(?:est)?|(?:more )?expensive (?:ones? )?first)\b",
            ("price desc", "price descending", "price high", "price high to low", "highest price"),
        ),
        (
            r"\b(?:best[- ]rated|highest[- ]rated|top[- ]rated|best[- ]reviewed|best reviews"
            r"|(?:by|on) (?:rating|ratings|reviews|stars))\b",
            ("rating", "ratings", "rated", "stars", "reviews"),
        ),
        (
            r"\b(?:closest|nearest|(?:by|on) distance|near(?:by)? (?:ones? )?first|shortest distance)\b",
            ("distance", "nearest", "closest"),
        ),
    )
)


def _ordering(text: str, options: list[str]) -> Span | None:
    """The option that is the sort order said ("the cheapest first" → ``price_asc``)."""
    named = {o: frozenset(lexicon.identifier_words(o).lower().split()) for o in options}
    for said, names in _ORDERS:
        found = said.search(text)
        if found is None:
            continue
        for words in names:
            option = next((o for o, own in named.items() if words <= own), None)
            if option is not None:
                return Span(option, found.start(), found.end())
    return None


_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1}
_BY_PLACE = re.compile(
    r"^\W*(?:(?:um|uh|ok|okay|yes|yeah)\W+)?(?:the\s+)?(?P<ordinal>first|second|third|fourth|fifth|last)"
    r"(?:\s+(?:one|option|choice))?(?:\W+please)?\W*$",
    re.IGNORECASE,
)


def move_for(text: str, options: Sequence[Any]) -> Span | None:
    """The one of ``options`` (strings) a move said in other words names (``_MOVES``: "lower" → close,
    "brighter" → brighten); None when none is said or the option is not offered."""
    pairs = sorted(
        ((o, said) for o in options if isinstance(o, str) for said in _MOVES.get(o.lower(), ())),
        key=lambda e: -len(e[1]),
    )
    for option, said in pairs:
        found = re.search(rf"\b{re.escape(said)}\b", text, re.IGNORECASE)
        if found is not None:
            return Span(option, found.start(), found.end())
    return None


def _by_place(text: str, options: list[str]) -> Span | None:
    found = _BY_PLACE.match(text)
    if found is None:
        return None
    index = _ORDINALS[found.group("ordinal").lower()]
    if index >= len(options):
        return None
    return Span(options[index], found.start("ordinal"), found.end())


def _synonym(text: str, options: list[str]) -> Span | None:
    # the longest said first: "extra large" is XL, not the L of "large"
    pairs = sorted(
        ((o, said) for o in options for said in _SYNONYMS.get(o.lower(), ())), key=lambda e: -len(e[1])
    )
    for option, said in pairs:
        found = re.search(rf"\b{re.escape(said)}\b", text, re.IGNORECASE)
        if found is not None:
            return Span(option, found.start(), found.end())
    for option in options:
        for said in _TOLD.get(option.lower(), ()):
            found = re.search(rf"\b{re.escape(said)}\b", text, re.IGNORECASE)
            if found is not None:  # no words taken: "I was charged twice" is still the summary
                return Span(option, found.start(), found.start())
    return None


def _on_scale(text: str, options: list[str]) -> Span | None:
    ranks = _ranks(options)
    if ranks is None:
        return None
    said = _place_said(text)
    if said is None:
        return None
    place, start, end = said
    same = [o for o, rank in ranks.items() if rank == place]
    if same:
        return Span(same[0], start, end)
    # no option at that place: the nearest one on the same side ("urgent" → high; "cheap" → the lowest)
    nearest = min(ranks.items(), key=lambda e: (abs(e[1] - place), e[1] if place < _MIDDLE else -e[1]))
    if (nearest[1] < _MIDDLE) != (place < _MIDDLE) and place != _MIDDLE:
        return None  # "cheap" to options that are all high says nothing of them
    return Span(nearest[0], start, end)


def _ranks(options: list[str]) -> dict[str, int] | None:
    """Each option's place on the scale: by its own word, or (options of one symbol repeated) by how many
    times it repeats, the fewest lowest; None when the options make no scale."""
    if all(_TIERED.match(o) for o in options) and len({o[0] for o in options}) == 1 and len(options) > 1:
        ordered = sorted(options, key=len)
        last = len(ordered) - 1
        return {o: _LOW if i == 0 else _HIGH if i == last else _MIDDLE for i, o in enumerate(ordered)}
    ranks = {o: _SCALE.get(lexicon.identifier_words(o)) for o in options}
    known = {o: r for o, r in ranks.items() if r is not None}
    return known if len(known) >= 2 else None


def _place_said(text: str) -> tuple[int, int, int] | None:
    """The place on the scale the words say, and where they say it: a phrase ("nothing fancy"), else the
    first word of the scale ("something cheap"); "not" before a word of the top half says the bottom."""
    for pattern, place in _PHRASES:
        found = pattern.search(text)
        if found is not None:
            return place, found.start(), found.end()
    for found in _SAID.finditer(text):
        scaled = _SCALE.get(found.group(0).lower())
        if scaled is not None:
            place = scaled
            if place >= _HIGH and re.search(
                r"\b(?:not|no|nothing|isn't|never)\s+(?:\w+\s+)?$", text[: found.start()], re.I
            ):
                place = _LOW
            return place, found.start(), found.end()
    return None


_DENIED = re.compile(r"\b(?:not|nothing|no|isn't|never)\s+(?:too\s+|very\s+|that\s+|so\s+)?([A-Za-z]+)", re.I)


def denied(text: str, options: Sequence[Any]) -> Span | None:
    """The lowest option of a scale when the words deny its top half ("not urgent" → ``low``, "nothing
    fancy" → ``$``), where the option said after "not" is not the one meant; None otherwise."""
    ranks = _ranks([str(o) for o in options if isinstance(o, str)])
    if ranks is None:
        return None
    for found in _DENIED.finditer(text):
        if _SCALE.get(found.group(1).lower(), _LOW) >= _HIGH:
            lowest = min(ranks.items(), key=lambda e: e[1])
            return Span(lowest[0], found.start(), found.end()) if lowest[1] < _MIDDLE else None
    return None
