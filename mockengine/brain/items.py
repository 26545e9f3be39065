"""Lists in a request: "add eggs and bread", "put milk, butter and flour on the list".

A tool that takes one thing per call (its parameter is an item, a product, an ingredient…) gets one call
per thing, as a real model makes them; any other parameter keeps the whole phrase ("call mom and dad",
"rock and roll"). A list whose last part alone has more than one word after single words is one name
("salt and vinegar chips", "black and white photos"), not a list.
"""

from __future__ import annotations

import re

from mockengine.brain import lexicon

# Parameter-name words that hold one thing of a list.
_ONE_THING = frozenset(
    lexicon.stem(w)
    for w in ("item", "product", "ingredient", "grocery", "groceries", "article", "thing", "food")
)
_PART = r"[\w'-]+(?:\s+[\w'-]+){0,2}"
# "milk, butter and flour": the commas of a list that ends in "and", read as "and".
_LIST_COMMA = re.compile(rf"(?<=\w),\s+(?=(?:{_PART},\s+)*{_PART},?\s+and\s)")


def commas_as_and(text: str) -> str:
    """``text`` with the commas of a list read as "and" ("milk, butter and flour"), and a comma before
    the speaker's verb of liking read as the colon it stands for ("Save my hobbies, I love chess and
    hiking" as "Save my hobbies: I love …": the list comma read it "hobbies and I love chess", and the
    things liked were asked for)."""
    return _LIST_COMMA.sub(" and ", _LIKING_COMMA.sub(_as_colon, text))


def _as_colon(comma: re.Match[str]) -> str:
    """A colon for a liking comma after a request ("Save my hobbies, I love …"); the comma kept after a
    clause with a subject of its own ("I'm Ana, I like chess": Ana is no thing liked)."""
    before = re.split(r"[.!?;:\n]", comma.string[: comma.start()])[-1]
    return "," if _TELLING.match(before) else ":"


def takes_one_thing(parameter: str) -> bool:
    """The parameter holds one thing of a list (``item``, ``product``), so a list is one call each."""
    return any(lexicon.stem(w) in _ONE_THING for w in lexicon.identifier_words(parameter).split())


def as_list(parts: list[str]) -> list[str]:
    """``parts`` (joined by "and") as the list they name: one entry per part, or one entry for a name
    such as "salt and vinegar chips"."""
    parts = [p for p in parts if p]
    counted = bool(parts) and _COUNTED.match(parts[-1]) is not None  # "… and two cokes" is a thing more
    if (
        len(parts) > 1
        and not counted
        and all(len(p.split()) == 1 for p in parts[:-1])
        and len(parts[-1].split()) > 1
    ):
        return [" and ".join(parts)]
    return parts


# A verb of liking that opens a list of the speaker's own ("I enjoy chess and hiking", "Save my hobbies:
# I love chess …"): it tells how they feel about the things, it is no part of the first thing.
LIKING_VERBS = ("like", "love", "enjoy", "prefer", "adore")
_LIKING = re.compile(
    r"^(?:really\s+|also\s+|just\s+)?(?:" + "|".join(LIKING_VERBS) + r")s?\s+(?=\S)", re.IGNORECASE
)


# A comma before the speaker's verb of liking: what the request is for follows, as after a colon.
_LIKING_COMMA = re.compile(
    r",(?=\s*(?:i|we)(?:\s+(?:really|also|just))?\s+(?:" + "|".join(LIKING_VERBS) + r")s?\s)",
    re.IGNORECASE,
)


# A clause that tells of its subject rather than asking ("I'm Ana", "my name is Ana", "we are new here").
_TELLING = re.compile(
    r"^\W*(?:i|i'm|im|we|we're|my|our|it|it's|this|that|he|she|they|there|hi|hello|hey)\b", re.IGNORECASE
)


def without_liking(part: str) -> str:
    """``part`` without a verb of liking that opens it ("enjoy chess" → "chess"); as said otherwise."""
    return _LIKING.sub("", part, count=1)


# A part that starts with how many of it there are: a thing of its own, not the end of a name.
_COUNTED = re.compile(
    r"^(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a few|some|a couple of)\s", re.I
)


_CONTAINERS = frozenset(
    lexicon.stem(w)
    for w in ("playlist", "list", "folder", "album", "channel", "board", "notebook", "calendar")
    # a name followed by its kind: "the Northern line", "the Curzon cinema", "Kings Cross station"
    + ("line", "route", "station", "stop", "cinema", "theater", "theatre", "deck")
)


def without_kind(value: str, parameter: str) -> str:
    """ "tag audio" → "audio" for the parameter ``tag``."""
    words = value.split(" ")
    names = {lexicon.stem(w) for w in lexicon.identifier_words(parameter).split()}
    while len(words) > 1 and lexicon.stem(words[0]) in names:
        words = words[1:]
    # A container named after its kind: "my road trip playlist" → "road trip" (but a "living room" stays).
    while len(words) > 1 and lexicon.stem(words[-1]) in names and names & _CONTAINERS:
        words = words[:-1]
    return " ".join(words)


# The speaker telling what they like ("I like chess and hiking", "I'm into chess …"): a list of theirs,
# no leftover of another request.
_LIKED = re.compile(
    r"\b(?:i|we)(?:\s+(?:really|also|just))?\s+(?:" + "|".join(LIKING_VERBS) + r")\b"
    r"|\b(?:i'm|i\s+am)\s+into\b",
    re.IGNORECASE,
)


def tells_liking(text: str) -> bool:
    """The speaker tells what they like ("I like chess and hiking", "we really enjoy …", "I'm into …")."""
    return _LIKED.search(text) is not None


def stated(text: str, name: str) -> bool:
    """The words say what the parameter is, by its name: "My hobbies are chess and hiking" for
    ``hobbies``, "our budget is 200", "my hobbies: chess …" (a model fills a forced ``save_hobbies`` with
    the hobbies said; it was sent its name's word, ``["Hobbies"]``)."""
    return _statement(text, name) is not None


def stated_as(text: str, name: str) -> str | None:
    """What the words say the parameter ``name`` is (``stated``), to the sentence's end: "chess and
    hiking" of "My hobbies are chess and hiking."; None when they do not say it by its name."""
    found = _statement(text, name)
    rest = re.split(r"[.!?;\n]", text[found.end() :], maxsplit=1)[0].strip() if found is not None else ""
    return rest or None


def _statement(text: str, name: str) -> re.Match[str] | None:
    label = r"\s+".join(re.escape(w) for w in lexicon.identifier_words(name).split())
    if not label:
        return None
    pattern = rf"\b(?:the|my|our|its|his|her|their)\s+{label}(?:\s+(?:is|are|were|was|include)\b|'s\b|\s*:)"
    return re.search(pattern, text, re.IGNORECASE)
