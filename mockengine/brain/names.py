"""Proper names for a parameter that holds a person or an animal (``pet``, ``payee``, ``recipient``, …):
the first run of capitalised words that is no day, month, language or sentence-opening verb ("took Max
out" → Max, "Luna weighs four kilos" → Luna, "put Max's weight down" → Max)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mockengine.brain import implied, lexicon, values
from mockengine.brain.values import Span
from mockengine.brain.wordlists import LANGUAGES, LOWER_ABBREVIATIONS

# Parameter names (their last word) that hold someone's name.
WHO = frozenset(
    [
        "pet",
        "person",
        "payee",
        "recipient",
        "contact",
        "child",
        "kid",
        "patient",
        "guest",
        "friend",
        "attendee",
        "dog",
        "cat",
        "animal",
        "member",
        "owner",
        "passenger",
    ]
)
_NOT_NAMES = frozenset(
    [
        "i",
        "i'm",
        "i've",
        "i'd",
        "i'll",
        "english",
        "spanish",
        "french",
        "german",
        "italian",
        "japanese",
        "chinese",
        "portuguese",
        "dutch",
        "ok",
        "okay",
        "hey",
        "hi",
        "please",
        "can",
        "could",
        "would",
        "will",
    ]
    + list(values.WEEKDAYS)
    + values.MONTHS
)
# A title before a name, its full stop no sentence's end ("Dr. Who", "Mrs Jones", "Prof. Xavier").
# The titles written short with a full stop ("Dr.", "Mrs."), which ends no sentence or clause.
ABBREVIATED_TITLES = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "Capt", "Rev", "Fr", "St")
TITLE = r"(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Sir|Dame|Lady|Lord|Capt|Rev|Fr|Sr|St)\b\.?"
_CAPITALISED = re.compile(rf"(?<![\w'])((?:{TITLE}\s*)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)(?:'s)?(?![\w])")
# Where one sentence ends and the next starts: after ".", "!" or "?" and a space, but not after a title's
# full stop ("I met Dr. Who today." is one sentence).
# Nor after a lower-case abbreviation's stop before a lower-case word ("at 7 p.m. on Friday" is one; "at 7
# p.m. Then …" is two).
SENTENCE_BREAK = re.compile(
    r"(?<=[.!?])"
    + "".join(rf"(?<!\b{t}\.)" for t in ABBREVIATED_TITLES)
    + r"(?:"
    + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in LOWER_ABBREVIATIONS)
    + r"\s+|\s+(?![a-z]))"
)
_TITLED = re.compile(rf"(?<![\w'])(?-i:{TITLE})\s*(?-i:[A-Z][a-z'-]*)(?:\s+(?-i:[A-Z][a-z'-]+))?(?![\w'])")


def takes_a_name(parameter: str) -> bool:
    """``parameter`` (its name's last word) holds someone's name, or a language's."""
    words = lexicon.identifier_words(parameter).split()
    return bool(words) and (words[-1] in WHO or words[-1] in _LANGUAGE)


_LANGUAGE = frozenset(("language", "lang", "locale"))


def is_language(word: str) -> bool:
    """``word`` is a language's English name ("Portuguese", "spanish")."""
    return word.lower() in LANGUAGES  # a language parameter takes one; a place's name is none


def takes_a_language(parameter: str) -> bool:
    """``parameter`` (its name's last word) holds a language (``language``, ``target_lang``, ``locale``)."""
    words = lexicon.identifier_words(parameter).split()
    return bool(words) and words[-1] in _LANGUAGE


_CODE = re.compile(r"[a-z]{2,3}(?:[-_][a-z]{2,4})?", re.IGNORECASE)


def names_a_language(value: str) -> bool:
    """``value`` names a language: its name, ending one ("Brazilian Portuguese"), or a code ("pt",
    "en-US"); a place's name does not ("Lisbon")."""
    words = value.split()
    return bool(words) and (is_language(words[-1]) or len(words) == 1 and bool(_CODE.fullmatch(value)))


def proper_name(text: str, parameter: str = "") -> Span | None:
    """The first proper name in ``text`` (its span includes a possessive "'s"), None when none; for a
    language parameter the language named after "in"/"into"/"to" ("from" for a source language), else
    the first language named ("let's do some Italian"): a place is none ("a trip to Lisbon")."""
    words = lexicon.identifier_words(parameter).split()
    if words and words[-1] in _LANGUAGE:
        before = "from" if {"source", "from"} & set(words) else "in|into|to"
        for said in re.finditer(rf"\b(?:{before})\s+([A-Za-z]+)\b", text, re.IGNORECASE):
            if is_language(said.group(1)):
                return Span(said.group(1).capitalize(), said.start(), said.end())
        if "from" in before:
            return None
        named = next(
            (
                m
                for m in re.finditer(r"[A-Za-z]+", text)
                if is_language(m.group(0)) and not re.search(r"\bfrom\s+$", text[: m.start()], re.I)
            ),
            None,
        )  # "from English" is the source, not the language wanted
        return Span(named.group(0).capitalize(), named.start(), named.end()) if named else None
    return next(proper_names(text), None)


def proper_names(text: str) -> Iterator[Span]:
    """The proper names in ``text`` in the order said (each span includes a possessive "'s"): runs of
    capitalised words that are no day, month, language or sentence-opening word of the language."""
    for found in _CAPITALISED.finditer(text):
        name = found.group(1)
        if name.split()[0].lower() in _NOT_NAMES:
            continue
        at_start = not text[: found.start()].strip(" ,.;!?-")
        if at_start and known_word(name.split()[0]):
            continue  # "Open coral reef", "Log a walk": a word of the language, capitalised as the first
        yield Span(name, found.start(), found.end())


def known_word(word: str) -> bool:
    """``word`` is a word of the language (a stop word, an action, a stemmed word), not a name."""
    token = lexicon.tokens(word)[0]
    return token.is_stop or token.concept in lexicon.ACTIONS or token.concept != lexicon.stem(word)


# Who the speaker says they are: "Name's Tom", "my name is Tom", "call me Tom", "Tom speaking", "it's Tom
# here", "this is Tom". A name in lower case (a transcript) counts only after words that say a name follows.
_NAME = rf"(?:{TITLE}\s*)?[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?"
# "speaking of which", "here we go": no introduction
_HERE = r"(?:here|speaking)\b(?!\s+(?:of|about|to|with|for|as|is|are|we|you|comes?)\b)"
_INTRODUCED = re.compile(
    r"(?:\b(?:(?:the|my)\s+)?name'?s|\bmy name is|\bthe name is|\b(?:you can )?call me)\s+"
    rf"(?P<said>(?-i:{TITLE}\s*)?[A-Za-z][a-z'-]+(?-i:\s+[A-Z][a-z'-]+)?)"
    rf"|(?-i:\b(?:[Ii]t'?s|[Tt]his is)\s+(?P<here>{_NAME})\s+{_HERE})"
    rf"|(?-i:(?:^|[,.;!?]\s*)(?:[Tt]his is\s+)?(?P<speaking>{_NAME})\s+{_HERE})"
    rf"|(?-i:(?:^|[,.;!?]\s*)(?:[Hh]i|[Hh]ello|[Hh]ey)?[, ]*[Tt]his is\s+(?P<this>{_NAME})\b)"
    # "I'm Tom", a clause of its own ("I'm Tom, book a table"; not "I'm Tom's dad")
    r"|(?-i:(?:^|[,.;:!?]\s*|\band\s+)(?:(?:[Hh]i|[Hh]ello|[Hh]ey),?\s+)?(?:I'?m|I am)\s+"
    # "I'm Ana and I like chess": a clause of its own when another with its own subject follows
    rf"(?P<im>{_NAME})(?=\s*(?:$|[,.;!?])|\s+and\s+(?:I|I'm|I've|my|we)\b))",
    re.IGNORECASE,
)
# Parameters that take the speaker's own name: ``name``, ``guest_name``, ``full_name``, ``customer``, …
_OWN_NAME_WORDS = frozenset(
    ("first", "full", "last", "guest", "customer", "user", "your", "caller", "contact", "person", "client")
)
_OWN_NAME_WHO = frozenset(
    ("guest", "customer", "caller", "person", "patient", "passenger", "member", "client")
)


# A tool that makes or names a new thing (``create_playlist {name}``): its ``name`` is the thing's.
_NAMING_VERBS = frozenset(("create", "new", "add", "make", "rename", "name", "save", "start"))


def takes_own_name(parameter: str, tool_name: str = "") -> bool:
    """``parameter`` of ``tool_name`` holds a person's name the speaker may give as their own (``name``,
    ``guest_name``, ``full_name``, ``customer``); not a pet's, a file's, or the ``name`` of what a tool
    creates (``create_playlist``)."""
    words = lexicon.identifier_words(parameter).split()
    if not words:
        return False
    if words == ["name"]:
        verb = lexicon.identifier_words(tool_name).split()[:1]
        return not (set(verb) & _NAMING_VERBS)
    if words[-1] == "name":  # ``guest_name``, ``passenger_name``: the name of one a booking is for
        return set(words[:-1]) <= _OWN_NAME_WORDS | _OWN_NAME_WHO
    return len(words) == 1 and words[0] in _OWN_NAME_WHO


# What "call me" is followed by when it asks for a call rather than gives a name.
_NOT_AFTER_CALL_ME = frozenset(
    ("when", "whenever", "if", "once", "back", "later", "soon", "tonight", "tomorrow", "today", "anytime")
    + ("asap", "again", "after", "before", "at", "on", "in", "first", "then", "sometime", "around", "maybe")
)


# The name a booking is made under: "a table for two under Tom", "under the name of Dr. Who", "put it
# under Smith". After "the name" a name typed in lower case counts ("under the name tom").
_UNDER = re.compile(
    rf"\bunder\s+(?:(?P<named>(?:the|my)\s+name\s+(?:of\s+)?)(?P<any>(?-i:{TITLE}\s*)?[A-Za-z][a-z'-]+"
    rf"(?-i:\s+[A-Z][a-z'-]+)?)|(?P<name>(?-i:{_NAME})))(?![\w'])",
    re.IGNORECASE,
)


def booked_under(text: str) -> Span | None:
    """The name a booking is made under ("Tom" of "book a table for two under Tom", "Dr. Who" of "under
    the name Dr. Who"); None for "under the table", "under 20 dollars", "Under Armour"-like words of the
    language."""
    for found in _UNDER.finditer(text):
        group = "any" if found.group("any") else "name"
        name = found.group(group)
        if re.match(TITLE, name) is None:  # a title says a name follows, whatever its words ("Dr. Who")
            first = name.split()[0]
            if first.lower() in _NOT_NAMES or group == "name" and known_word(first):
                continue
        return Span(_as_name(name), found.start(group), found.end(group))
    return None


# The person a booking is for: "a table for John Smith", "for Dr. Who". A name only, written as one: not
# what someone owns ("for Mom's birthday"), nor a lower-case word ("for two", "for lunch").
_FOR = re.compile(rf"\bfor\s+(?P<name>(?-i:{_NAME}))(?![\w'])", re.IGNORECASE)


# Occasions a booking is for, written as names ("a table for Christmas").
_OCCASIONS = frozenset(
    ("christmas", "easter", "thanksgiving", "halloween", "hanukkah", "diwali", "ramadan", "eid", "passover")
    + ("new", "valentine's", "valentines", "mother's", "father's", "mothers", "fathers", "nye")
)


def booked_for(text: str) -> Span | None:
    """The person a booking is for ("John Smith" of "a table for 2 at Sakura for John Smith"), None when
    "for" is followed by no person's name: a day, month, language or occasion ("for Friday", "for
    Spanish", "for Christmas"), something someone owns ("for Mom's birthday"), a word of the language
    capitalised ("For example"), or a place the tables know ("for Paris", a destination)."""
    for found in _FOR.finditer(text):
        name = found.group("name")
        first = name.split()[0]
        if re.match(TITLE, name) is None and (first.lower() in _NOT_NAMES or known_word(first)):
            continue
        if implied.place_name(name) is not None or is_language(first) or first.lower() in _OCCASIONS:
            continue
        if re.search(r"'s?$", name):  # "for Mom's birthday": what the booking is for, owned by someone
            continue
        return Span(name, found.start("name"), found.end("name"))
    return None


def titled(text: str) -> Span | None:
    """A name a title marks as a person's ("Dr. Who", "Mrs Jones"), None when none is said."""
    found = _TITLED.search(text)
    return Span(found.group(0), found.start(), found.end()) if found is not None else None


def _as_name(name: str) -> str:
    """A name as a name is written: "tom" → "Tom"; one already capitalised ("Dr. Who") as it is."""
    return name if name[0].isupper() else name.title()


def introduced(text: str) -> Span | None:
    """The name a speaker introduces themselves by ("Tom" of "Name's Tom", "It's Tom here", "Tom
    speaking", "call me Tom"); None when the words introduce no one."""
    found = _introduction(text)
    return found[0] if found is not None else None


def introduction(text: str) -> Span | None:
    """The whole clause a speaker introduces themselves with ("I'm Ana" of "I'm Ana, I like chess", "my
    name is Ana"), its value the name; None when the words introduce no one. Its words are no thing of a
    list ("hobbies": "Ana" is no hobby)."""
    found = _introduction(text)
    if found is None:
        return None
    name, clause = found
    start = clause.start() + _CLAUSE_OPENING.match(clause.group(0)).end()  # type: ignore[union-attr]
    return Span(name.value, start, max(clause.end(), name.end))


# What opens an introduction's clause but is none of it: the mark or the "and" before it.
_CLAUSE_OPENING = re.compile(r"[\s,.;:!?]*(?:and\s+)?", re.IGNORECASE)


def _introduction(text: str) -> tuple[Span, re.Match[str]] | None:
    """``introduced``'s name and the match of the clause that says it."""
    for found in _INTRODUCED.finditer(text):
        group = next(g for g in ("said", "here", "speaking", "this", "im") if found.group(g))
        name = found.group(group)
        titled_name = re.match(TITLE, name) is not None
        first = name.split()[0]
        if titled_name:  # "Dr. Who": a title says a name follows, whatever its words
            pass
        elif first.lower() in _NOT_NAMES or known_word(first) and (group != "said" or first.islower()):
            continue
        if first.lower() in _NOT_AFTER_CALL_ME and "call me" in found.group(0).lower():
            continue  # "call me when it's done", "call me back"
        # a transcript in lower case: the name written as a name ("my name is tom" → Tom)
        return Span(name if name[0].isupper() else name.title(), found.start(group), found.end(group)), found
    return None
