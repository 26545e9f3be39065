"""Phrases in a request: the text cut at prepositions into the object the verb governs and the phrases
after "in", "to", "called", …, each trimmed of verbs, determiners, politeness and the tool's own words.
``slots`` decides which parameter each phrase fills."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mockengine.brain import lexicon
from mockengine.brain.names import ABBREVIATED_TITLES

if TYPE_CHECKING:
    from mockengine.brain.slots import Referent

# Prepositions (and the like) that open a phrase, and the parameter-name words each one fills.
ROLES: dict[str, tuple[str, ...]] = {
    "in": (
        *("room", "location", "place", "where", "area", "zone", "city", "town", "country", "region", "in"),
        *("neighborhood", "neighbourhood", "district"),
        *("notebook", "folder", "list", "category", "board", "project", "calendar", "album", "playlist"),
    ),
    "at": (
        *("location", "place", "where", "room", "address", "city", "at", "venue"),
        *("restaurant", "hotel", "store", "shop", "cafe", "bar", "club", "gym", "office", "clinic"),
        *("cinema", "theater", "theatre", "venue", "stadium", "station", "stop", "branch", "pharmacy"),
    ),
    "into": ("language", "target", "destination", "format", "into", "folder"),
    "on": ("room", "location", "place", "device", "on", "subject", "topic"),
    "to": (
        "recipient",
        "person",
        "contact",
        "to",
        "destination",
        "dropoff",
        "drop",
        "arrival",
        "address",
        "text",
        "note",
        "task",
        "playlist",
        "list",
        "folder",
    ),
    "for": (
        "query",
        "recipient",
        "person",
        "for",
        "search",
        "term",
        "keyword",
        "keywords",
        "text",
        "city",
        "town",
        "country",
        "region",
        "location",
    ),
    "called": ("title", "name", "label", "text", "subject"),
    "named": ("title", "name", "label", "text", "subject"),
    "titled": ("title", "name", "label", "subject"),
    "saying": ("text", "message", "body", "note", "content"),
    "about": ("text", "subject", "topic", "note", "title", "query", "keyword", "keywords"),
    "near": ("near", "location", "place", "where", "area", "city", "address", "neighborhood", "district"),
    "around": ("near", "location", "place", "where", "area", "city", "address", "neighborhood", "district"),
    "mention": ("query", "search", "term", "keyword", "text"),
    "mentions": ("query", "search", "term", "keyword", "text"),
    "mentioning": ("query", "search", "term", "keyword", "text"),
    "containing": ("query", "search", "term", "keyword", "text"),
    "with": (
        *("with", "attendee", "person", "participant", "contact", "recipient", "friend", "member", "guest"),
    ),
    "from": ("from", "source", "sender", "pickup", "origin", "start", "departure", "stop", "station"),
    "by": ("artist", "author", "by", "near"),
    # "a refund for order 4471 because it arrived broken": the clause says the reason
    "because": ("reason", "why", "cause", "because"),
}


# A phrase after one of these can be the object when the verb has none ("take me to the X", "two of X").
OBJECT_PREPOSITIONS = frozenset(
    (
        "to",
        "for",
        "called",
        "named",
        "titled",
        "about",
        "saying",
        "of",
        "by",
        "mention",
        "mentioning",
        "with",
        "from",
        "into",
        "onto",
    )
)


_INTERJECTIONS = frozenset(("hey", "hi", "hello", "yeah", "yes", "oh", "okay", "ok"))

BLANK = "¦"  # where a value was taken out of the text
COLON = ":"  # the boundary a colon after the request's words makes (``_pieces``)


_BOUNDARIES = frozenset(ROLES) | {"and", "then", "under", "below", "over", "above", "of", "as"}
# a clause of its own starts ("block Instagram while I work"): no part of the thing named
_BOUNDARIES |= {"while", "because", "since", "unless", "if", "cos", "cause"}
_RELATIVE = frozenset(("that", "which", "who"))
_SUBJECTS = frozenset(("i", "we", "you", "they"))


LIGHT_VERBS = frozenset(
    [
        "pull",
        "bring",
        "take",
        "turn",
        "switch",
        "mark",
        "give",
        "get",
        "set",
        "show",
        "tell",
        "let",
        "help",
        "can",
        "could",
        "would",
        "mind",
        "please",
        "go",
        "put",
        "try",
        "make",
        "keep",
    ]
)


# The speaker's own having or needing before the thing: "I've got a vet appointment", "needs his jabs".
_HAVING = frozenset(
    ("got", "gotten", "have", "has", "need", "needs", "needed", "i've", "we've", "i", "we", "he's", "she's")
    + ("his", "her", "their", "its", "our")
)


# An embedded question's word starts no name: "check when it's on tomorrow".
_QUESTION_WORDS = frozenset(("when", "where", "whether", "why", "if"))


_TRAILING = frozenset(
    [
        "please",
        "now",
        "again",
        "thanks",
        "thank",
        "today",
        "tomorrow",
        "tonight",
        "right",
        "away",
        "straight",
        "quickly",
        "for",
        "me",
        "thing",
        "things",
        "stuff",
        "one",
        "ones",
        *["outside", "inside", "outdoors", "indoors", "around"],
        *[
            "instead",
            "anyway",
            "anymore",
            "more",
            "too",
            "also",
            "then",
            "later",
            "soon",
        ],  # where the speaker is, no place
        *["morning", "afternoon", "evening", "week", "weekend"],  # "this morning": when, no name
        *["bit", "tad", "lot", "bunch"],  # "dim the lights a bit": a degree, no name
        # A possessive determines a noun after it, so it never ends a thing: "Update Bob and his zip is
        # 90210" leaves "Bob and his" once the zip is taken, and the name is "Bob". Not "her", which is
        # also who a request is about ("remind her", "text her").
        *["his", "their", "its", "my", "our", "your"],
    ]
)


# A vague head the thing said goes with, written in lower case ("a cheap Italian place", "somewhere
# Japanese"): no part of what the speaker wants; "Melrose Place" keeps its name.
_VAGUE = frozenset(("place", "spot", "joint"))


@dataclass(frozen=True)
class Cues:
    """What a phrase is trimmed of: the tool's vocabulary concepts (verbs at its start) and the stems of
    its name's words (nouns at its end: "the voice harness card"); and the referent for pronouns."""

    vocabulary: frozenset[str]
    name_stems: frozenset[str]
    referent: Referent
    name_concepts: frozenset[str] = frozenset()
    own_stems: frozenset[str] = frozenset()  # the tool's name and description words (not its examples)
    name_verb: str = ""  # the stem of the first word of the tool's name


_EXAMPLES = re.compile(r"\b(?:e\.g\.|for example|such as|like)[^.;)]*", re.IGNORECASE)


def own_stems(name_words: str, description: str) -> frozenset[str]:
    """The stems of a tool's own words: its name and its description without the examples it gives
    ("Room name, e.g. kitchen" gives "room", "name")."""
    words = lexicon.tokens(f"{name_words} {_EXAMPLES.sub(' ', description)}")
    return frozenset(lexicon.stem(w.lower) for w in words if not w.is_stop)


def only_own_words(phrase: str, cues: Cues) -> bool:
    """Every word of ``phrase`` is the tool's own ("start a parking session", "the latest episode"):
    it names what the tool does, not a value."""
    words = [w for w in lexicon.tokens(phrase) if not w.is_stop]
    return bool(words) and bool(cues.own_stems) and all(_own(w, cues) for w in words)


def _own(word: lexicon.Token, cues: Cues) -> bool:
    """The tool's word, or a synonym of a thing its name says ("car" for book_trip, a trip)."""
    return lexicon.stem(word.lower) in cues.own_stems or _named_thing(word, cues)


def _named_thing(word: lexicon.Token, cues: Cues) -> bool:
    """A synonym of a thing the tool's name says; a verb's synonym stays a word of the value ("my
    running playlist" for play_music)."""
    return word.concept in cues.name_concepts and word.concept not in lexicon.ACTIONS


def bare(phrase: str) -> str:
    """``phrase`` without a leading "the"."""
    return phrase[4:] if phrase.lower().startswith("the ") else ("" if phrase.lower() == "the" else phrase)


def split_phrases(text: str, cues: Cues) -> list[tuple[str, str]]:
    """The text cut at prepositions and blanked spans: [("", object phrase), (preposition, phrase), …],
    each phrase trimmed of verbs, determiners, politeness and the tool's own nouns ("card").

    The object comes from the clause (comma-separated chunk) holding the word that asked for the tool
    ("nah, not a fan, thumbs down on that one" has none), and not from words before that word in the same
    phrase ("big thumbs up" has none either). A blanked span (a value already taken) ends a phrase but
    not the object: "add ¦ coffee filters" still has the object "coffee filters"."""
    chunks = _CLAUSE_BREAK.split(text)
    acting = [i for i, chunk in enumerate(chunks) if any(_is_action(w, cues) for w in lexicon.tokens(chunk))]
    # a clause led by the tool's own verb is the request ("log a robin, I saw it yesterday")
    led = [i for i, chunk in enumerate(chunks) if _led_by_name(chunk, cues)]
    acting = led[:1] + acting
    main = acting[0] if acting else next((i for i, c in enumerate(chunks) if _content(lexicon.tokens(c))), 0)
    obj = ""
    merged: list[tuple[str, str]] = []
    before_colon: list[tuple[str, str]] = []
    for index, chunk in enumerate(chunks):
        pieces = _pieces(chunk)
        if index == main:
            pieces = _after_lead_verb(pieces, cues)
        reminding = False
        for number, (preposition, part) in enumerate(pieces):
            if index == main and number == 0:
                part = _from_verb(part, cues)
            # what "remind me to …" reminds of is said as it is, the tool's own verbs in it too ("Remind me
            # to make a booking" to create_reminder: "make" and "booking" are create's, and nothing was left)
            reminded = reminding and preposition == "to"
            reminding = (reminding and not reminded) or _reminds(part)
            phrase = (
                _trim_reminded(part, cues)
                if reminded
                else _trim(
                    part,
                    cues,
                    at_start=number == 0 or preposition in (BLANK, COLON),
                    after_to=preposition == "to",
                )
            )
            # the words after a colon are what the request is for when it named nothing yet ("Add to my
            # shopping list: eggs and milk"), whatever phrases came before the colon
            opening = (preposition in ("", BLANK) and not merged) or preposition == COLON
            if index == main and not obj and opening:
                obj = phrase
                # what came before the colon goes after what the colon gives: its list ("and milk")
                # follows it
                before_colon, merged = (merged, []) if preposition == COLON else (before_colon, merged)
            elif number > 0 and preposition not in (BLANK, COLON):
                merged.append((preposition, phrase))
            elif preposition == BLANK and merged and merged[-1][1].lower() in LIGHT_VERBS:
                merged[-1] = (merged[-1][0], phrase)  # "to give ¦ her tablet": the tablet, given
    merged += before_colon
    return [("", _titles_as_written(obj, text)), *((p, _titles_as_written(v, text)) for p, v in merged)]


# Where a clause ends: a comma, semicolon or sentence mark, but not a title's full stop ("with Dr. Lee
# tomorrow": "Dr." ended the clause and the doctor was "Dr").
_CLAUSE_BREAK = re.compile(r"(?:[,;!?]|" + "".join(rf"(?<!\b{t})" for t in ABBREVIATED_TITLES) + r"\.)+")
_BARE_TITLE = re.compile(rf"\b({'|'.join(ABBREVIATED_TITLES)}) (?=[A-Z])")


def _titles_as_written(phrase: str, text: str) -> str:
    """``phrase`` with a title's full stop put back where the text wrote it: the words' tokens drop it
    ("Dr Lee" → "Dr. Lee"), and a model keeps the name as said."""

    def written(found: re.Match[str]) -> str:
        rest = phrase[found.end() :].split()[0]
        dotted = re.search(rf"\b{found.group(1)}\.\s+{re.escape(rest)}\b", text) is not None
        return f"{found.group(1)}. " if dotted else found.group(0)

    return _BARE_TITLE.sub(written, phrase)


def _after_lead_verb(
    pieces: list[tuple[str, list[lexicon.Token]]], cues: Cues
) -> list[tuple[str, list[lexicon.Token]]]:
    """The clause from the tool's action on when words with no action of the tool lead to it with "to"
    ("I can't wait to book a table", "don't forget to book it", "I'd love to book …"): what the speaker
    feels about the action is no part of its object."""
    if len(pieces) < 2 or pieces[1][0] != "to" or any(_is_action(w, cues) for w in pieces[0][1]):
        return pieces
    content = [w for w in pieces[1][1] if not w.is_stop]
    if not content or not _is_action(content[0], cues):
        return pieces
    return [("", pieces[1][1]), *pieces[2:]]


def _led_by_name(chunk: str, cues: Cues) -> bool:
    """The clause's first content word is the first word of the tool's name, its verb ("log" of
    log_sighting)."""
    words = [w for w in lexicon.tokens(chunk) if not w.is_stop and w.lower not in LIGHT_VERBS]
    return bool(words) and bool(cues.name_verb) and lexicon.stem(words[0].lower) == cues.name_verb


# A colon after the request's words gives what it is for ("Save my hobbies: I like chess and hiking"): the
# words after it are no relative clause of the noun before it (a time's "7:30" is no colon).
_GIVING_COLON = re.compile(r"(?<!\d):(?!\d)")


def _pieces(chunk: str) -> list[tuple[str, list[lexicon.Token]]]:
    """The chunk's phrases, each with the boundary word before it ("" for the first, ``BLANK`` after a
    value taken out, ``COLON`` after a colon)."""
    pieces: list[tuple[str, list[lexicon.Token]]] = []
    stretches = [
        (COLON if after else BLANK, stretch)
        for blanked in chunk.split(BLANK)
        for after, stretch in enumerate(_GIVING_COLON.split(blanked))
    ]
    for position, (boundary, stretch) in enumerate(stretches):
        pieces.append(("" if position == 0 else boundary, []))
        for token in lexicon.tokens(stretch):
            # "lasagna that takes an hour": a relative clause after a noun describes it, it is no part
            # of its name ("that" before any noun is a pronoun: "delete that").
            before = pieces[-1][1][-1] if pieces[-1][1] else None
            # so is a contact clause: "a curry I can make" (its subject right after the noun)
            relative = (
                (
                    token.lower in _RELATIVE
                    or (token.lower in _SUBJECTS and before and before.lower not in _HAVING)
                )
                and before is not None
                and _is_noun_like(before)
            )
            if token.lower in _BOUNDARIES or relative:
                pieces.append((token.lower, []))
            else:
                pieces[-1][1].append(token)
    return pieces


_DETERMINERS = frozenset(("the", "a", "an", "my", "our", "some", "your", "his", "her", "their"))


def _opens(words: list[lexicon.Token], start: int) -> bool:
    """The words' first word, lower-case and before a determiner, is the request's verb even when no
    list knows it: "stick the utility room light on"."""
    word = words[start]
    return (
        start == 0
        and len(words) > 1
        and words[1].lower in _DETERMINERS
        and word.text.isalpha()
        and word.text.islower()
        and word.lower not in lexicon.STOPWORDS
    )


def _is_noun_like(word: lexicon.Token) -> bool:
    return not word.is_stop and word.concept not in lexicon.ACTIONS and word.lower not in LIGHT_VERBS


def _from_verb(words: list[lexicon.Token], cues: Cues) -> list[lexicon.Token]:
    """``words`` from the tool's action word on, when nothing before it is a verb ("big thumbs up")."""
    first = next((i for i, w in enumerate(words) if _is_action(w, cues)), 0)
    before = words[:first]
    if any(w.lower in LIGHT_VERBS or w.concept in cues.vocabulary for w in before):
        return words
    return words[first:]


def _is_action(word: lexicon.Token, cues: Cues) -> bool:
    """A word that asked for this tool: one of its actions."""
    implied = any(c in cues.vocabulary for c in lexicon.associated(word.concept))  # "put on" a channel
    return word.concept in lexicon.ACTIONS and (word.concept in cues.vocabulary or implied)


def _is_lead(word: lexicon.Token, cues: Cues) -> bool:
    """A word a phrase may start with before its object: an action, or a thing the tool's name says
    ("tell me more about …" for show_details)."""
    return _is_action(word, cues) or (word.concept in cues.vocabulary and word.concept in cues.name_concepts)


def _is_name(word: lexicon.Token, index: int, words: list[lexicon.Token]) -> bool:
    """A capitalised word inside the sentence is part of a name ("play Hey Jude"), never filler."""
    return index > 0 and word.text[:1].isupper() and word.lower != "i"


def _content(words: list[lexicon.Token]) -> bool:
    return any(not w.is_stop for w in words)


# Where a tool keeps its things, said after the thing it keeps: "my to-do list", "the shopping list".
_KEPT_IN = frozenset(("list", "lists"))


def _named_at(word: lexicon.Token, cues: Cues) -> bool:
    """``word`` is a thing the tool's name says ("to-do" for add_todo), no action."""
    return word.concept in cues.name_concepts and word.concept not in lexicon.ACTIONS


# Words that make the word after them a thing: "my booking", "the reservation".
_DETERMINING = frozenset(("my", "our", "your", "his", "her", "their", "the", "this", "that", "a", "an"))


_REMINDING = frozenset(("remind", "reminds", "reminding"))
_REMINDED_ONE = frozenset(("me", "us", "him", "her", "them"))


def _reminds(words: list[lexicon.Token]) -> bool:
    """The words ask for a reminder of someone ("remind me", "remind us at 8"): the "to" after them
    gives what they are reminded of."""
    return any(
        w.lower in _REMINDING and i + 1 < len(words) and words[i + 1].lower in _REMINDED_ONE
        for i, w in enumerate(words)
    )


def _trim_reminded(words: list[lexicon.Token], cues: Cues) -> str:
    """What a reminder reminds of ("make a booking" of "remind me to make a booking"), as said: only
    stop words and the tool's own nouns ("… reminder") at its ends go, no verb of the tool's."""
    start, end = 0, len(words)
    while (
        start < end and words[start].lower in lexicon.STOPWORDS and not _is_name(words[start], start, words)
    ):
        start += 1
    while end > start and (
        words[end - 1].lower in lexicon.STOPWORDS
        or words[end - 1].lower in _TRAILING
        or (
            lexicon.stem(words[end - 1].lower) in cues.name_stems
            and words[end - 1].concept not in lexicon.ACTIONS
        )
    ):
        end -= 1
    return " ".join(w.text for w in words[start:end])


def _trim(words: list[lexicon.Token], cues: Cues, at_start: bool, after_to: bool = False) -> str:
    """``words`` without what leads up to the thing (verbs, determiners, politeness) and what trails it
    (the tool's own nouns and actions). After "to" only the tool's own verb goes: "I'd like to see the
    X" → "X", but "remind me to take my pills" keeps "take"."""
    start, verbs = 0, 0
    while start < len(words):
        word = words[start]
        lead = _is_lead(word, cues) or (at_start and _opens(words, start))
        is_verb = (at_start or after_to) and not verbs and lead
        # A thing the tool's name says ("more" for show_details) may come after its verb: "show me more".
        named = at_start and word.concept in cues.name_concepts and word.concept not in lexicon.ACTIONS
        # where the tool keeps what its name says, after it: "to my to-do list" for add_todo
        named = named or (start > 0 and word.lower in _KEPT_IN and _named_at(words[start - 1], cues))
        kept_article = not at_start and word.lower == "the"  # "call with the bank" keeps its "the"
        # Right after the verb, a greeting word starts a title, as transcripts write it: "play hey jude".
        titled = verbs > 0 and word.lower in _INTERJECTIONS
        if (
            kept_article
            or titled
            or _is_name(word, start, words)
            or not (
                word.lower in lexicon.STOPWORDS
                or word.lower in _QUESTION_WORDS
                or (at_start and (word.lower in LIGHT_VERBS or word.lower in _HAVING))
                or is_verb
                or named
            )
        ):
            break
        verbs += is_verb  # only the one verb that asked for the tool: "play my running playlist"
        start += 1
    while start < len(words) - 1 and words[start].text == "somewhere":  # "somewhere Japanese" → Japanese
        start += 1
    end = len(words)
    while end > start + 1 and words[end - 1].text in _VAGUE:  # "a french place" → french
        end -= 1
    while end > start and (
        words[end - 1].lower in lexicon.STOPWORDS
        or words[end - 1].lower in _TRAILING
        or lexicon.stem(words[end - 1].lower) in cues.name_stems
        or (
            words[end - 1].concept in cues.vocabulary
            and words[end - 1].concept in lexicon.ACTIONS
            # "remind me to cancel my booking": a word of the tool's action owned or determined is a thing
            # of what is to be done (it was "cancel"), no action of the tool's
            and not (after_to and end - 2 >= start and words[end - 2].lower in _DETERMINING)
        )
    ):
        end -= 1
    return " ".join(w.text for w in words[start:end])
