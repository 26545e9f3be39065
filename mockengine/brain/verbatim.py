"""Text taken as said, for free-text parameters: quoted text, what follows a short request and a colon,
what follows "saying", a name after "called" ("a note called gift ideas: a scarf for mum" → title
``gift ideas``, body ``a scarf for mum``), and an enum value said with its parameter's name ("…, high
priority") so it leaks into no text.

Each finder returns the ``Span`` the value came from, so ``slots`` can take those words out of the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mockengine.brain import addresses, lexicon, units
from mockengine.brain.phrasing import BLANK, ROLES
from mockengine.brain.values import Span

# "take a note: the gate code is 4512": what follows a short request and a colon, verbatim.
_AFTER_COLON = re.compile(r"^(?:\S+\s+){0,6}\S*(?<!\d)\s*:\s+(?P<text>\S.{0,199}?)\s*[.!]?$")
# "a note saying the meeting moved to Friday": all of it, prepositions and dates too.
# "… with subject Lunch and say let's meet at noon": "and say" / "and tell them" dictates as "saying" does.
_SAYING = re.compile(
    r"\b(?:saying|that says|which says|and\s+(?:say|tell\s+(?:him|her|them))(?:\s+that)?)\s+"
    r"(?P<text>\S.{0,199}?)\s*[.!]?$",
    re.IGNORECASE,
)
# "Email bob@example.com the meeting moved", "text Ana I'm running late" (read as "send a message to Ana
# …"), "text 415 555 0199 that I'm late", "send an SMS to +14155550199: dinner at 8": what follows a
# message verb and its recipient (an address, a capitalized name, him/her/them, a phone number) is the
# message itself. After a word that says something else ("email Bob about …", "text Ana and …", "message
# Ana at 5") it is no message.
DICTATED_AFTER_RECIPIENT = re.compile(
    r"^(?P<head>\W*(?i:(?:please\s+)?(?:can|could|would|will)?\s*(?:you\s+)?(?:please\s+)?)"
    r"(?i:e-?mail|text|message|dm|whatsapp|sms"
    r"|send\s+(?:a|an)\s+(?:message|text(?:\s+message)?|e-?mail|sms)\s+to)\s+"
    r"(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?i:him|her|them)|[A-Z][\w'-]*(?:\s+(?!I\b)[A-Z][\w'-]*)?"
    r"|\+?\(?\d{2,4}\)?(?:[\s.-]?\d{2,4}){1,4}\b))"
    r"\s*[,:]?\s+(?!(?i:and|to|about|at|on|with|for|or|but|if|when|in|re|regarding|saying|that\s+says|please"
    r"|tomorrow|today|tonight|later|now|asap|soon|again|back|a|an|my)\b)(?:(?i:that)\s+)?"
    r"(?P<text>\w.{0,199}?)\s*[.!]?$"
)
QUOTED = re.compile(r"(?<!\w)[\"“'‘](?P<text>[^\"”'’]{1,200})[\"”'’](?=\W|$)")
# "a playlist called road trip", "a note named gift ideas: …": the name, up to a clause's end.
_CALLED = re.compile(
    r"\b(?:called|named|titled|entitled)\s+(?!(?:it|them|me|you|him|her|us|this|that|off)\b)"
    r"(?P<text>[^:,;.!?¦]{1,80}?)\s*(?=[:,;.!?¦]|$|\s(?:with|and)\s)",
    re.IGNORECASE,
)
# "'Blue' by Joni Mitchell": the maker named after a quoted title belongs to a search for it.
_BY_MAKER = re.compile(r"\s+by\s+[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3}")
_SEARCHED = ("query", "search", "song", "track", "book", "film", "movie", "title")
_NAMES = ("title", "name", "subject")
_ONE_LINE = ("title", "subject", "summary")
FREE_TEXT = (
    "title",
    "text",
    "message",
    "query",
    "name",
    "note",
    "content",
    "body",
    "subject",
    "code",
    "task",
    "summary",
    "description",
    "comment",
    "details",
)


def quoted(text: str, name: str) -> Span | None:
    """Quoted text, a name after "called", or what follows a colon or "saying", for a free-text parameter
    ``name``; a quoted title keeps the maker named after it when the parameter is searched."""
    words = lexicon.identifier_words(name).split()
    if not any(word in words for word in FREE_TEXT):
        return None
    match = QUOTED.search(text)
    if match is None and any(word in words for word in _NAMES) and _CALLED.search(text):
        return None  # the name after "called", once dates and times are out of the way (``called``)
    match = match or _AFTER_COLON.search(text)
    stems = {lexicon.stem(w) for w in words}
    if match is None and stems & {lexicon.stem(r) for r in ROLES["saying"]}:  # the message, not its subject
        match = _SAYING.search(text) or DICTATED_AFTER_RECIPIENT.search(text)
    if match is None:
        return None
    maker = _BY_MAKER.match(text, match.end()) if match.re is QUOTED else None
    if maker is not None and any(word in words for word in _SEARCHED):
        return Span(match.group("text") + maker.group(0), match.start(), maker.end())
    said = match.group("text").split(BLANK)[0].rstrip(" ,;.-")  # up to a value already taken out
    if match.re is _AFTER_COLON and any(w in words for w in _NAMES) and _only_a_number(said):
        # "Save Ana Silva's number: 555-123-4567", "Add Bob, number: five five five …": a phone, not the
        # contact's name
        return None
    if match.re is _AFTER_COLON and any(word in words for word in _ONE_LINE):  # its first sentence
        said = re.split(r"(?<=\w)[.!?]\s", said, maxsplit=1)[0]
    end = match.end()
    contact = _CONTACT_CLAUSE.search(said) if match.re is not QUOTED else None
    if contact is not None:  # "…: I can't log in, email bob@example.com": the address is its own value
        said = said[: contact.start()].rstrip(" ,;.-")
        end = match.start("text") + len(said)
    # after a colon only the text is taken: "a note called gift ideas: …" still has its name, and "email
    # bob@example.com: see you tomorrow" its recipient
    head = text[: match.start("text")]
    keeps_head = _CALLED.search(text) is not None or _ADDRESS_IN_HEAD.search(head) is not None
    after_head = (match.re is _AFTER_COLON and keeps_head) or match.re is DICTATED_AFTER_RECIPIENT
    start = match.start("text") if after_head else match.start()
    return Span(said, start, end) if said else None


def _only_a_number(said: str) -> bool:
    """``said`` is digits alone, or a phone number and nothing else ("oh seven seven double nine …")."""
    if not re.search(r"[^\W\d_]", said):
        return True
    phone = addresses.address_for(said, "phone")
    return (
        phone is not None
        and not said[: phone.start].strip(" ,.;:-")
        and not said[phone.end :].strip(" ,.;:-")
    )


# An email address before the colon: the request's recipient, not part of what it says.
_ADDRESS_IN_HEAD = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# A clause of its own that gives an email address, after a comma: no part of the free text before it.
_CONTACT_CLAUSE = re.compile(r",\s*(?=[^,]*?\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b[^,]*(?:,|$))")


def called(text: str, name: str) -> Span | None:
    """The name after "called" / "named" for a title-like parameter ("a meeting called budget review"),
    looked for after dates and times are taken out, so it ends where they were."""
    if not any(word in lexicon.identifier_words(name).split() for word in _NAMES):
        return None
    match = _CALLED.search(text)
    said = re.sub(r"(?:\s+(?:on|at|for|by|from|to|in|and))+$", "", match.group("text")) if match else ""
    return Span(said, match.start(), match.end()) if match and said else None


def labelled_enum(text: str, name: str, options: list[object]) -> Span | None:
    """An enum option said with the parameter's name next to it: "high priority", "priority high",
    "colour: red". Found before free text is taken, so the value leaks into no text."""
    label = r"\s+".join(re.escape(w) for w in lexicon.identifier_words(name).split())
    if not label:
        return None
    for option in options:
        if not isinstance(option, str) or not option.strip():
            continue
        value = re.escape(option)
        found = re.search(
            rf"(?<![\w-])(?:{value}\s+{label}|{label}\s*(?:is\s+|of\s+|:\s*|=\s*)?{value})(?![\w-])",
            text,
            re.I,
        )
        if found:
            return Span(option, found.start(), found.end())
    return None


def labelled_string(text: str, name: str) -> Span | None:
    """A value said as what the parameter is: "the passcode is tulip", "password: hunter2", "my
    username's jo_b" (up to four words, ending at a pause)."""
    label = r"\s+".join(re.escape(w) for w in lexicon.identifier_words(name).split())
    if not label:
        return None
    found = re.search(
        rf"\b(?:the|my|our|its)\s+{label}(?:\s+is|'s|\s*:|\s*=)\s+"
        r"(?P<value>\w[\w'-]*(?:\s+[\w'-]+){0,3}?)(?=\s*(?:[,.;!?]|$|\band\b|\bplease\b))",
        text,
        re.I,
    )
    if found is None or found.group("value").lower() in _VAGUE:
        return None
    return Span(found.group("value"), found.start(), found.end())


_VAGUE = frozenset(
    ("something", "anything", "everything", "stuff", "things", "whatever", "some", "any", "one", "someone")
    + ("her", "him", "them", "us", "me", "it")  # a pronoun left over ("for her") names no value
)


def before_label(text: str, name: str) -> Span | None:
    """A value said right before its parameter's name, after a determiner: "to my Spanish deck" →
    ``deck`` Spanish, "the Orbit playlist" → ``playlist`` Orbit (one to three words)."""
    words = lexicon.identifier_words(name).split()
    if not words or len(words[-1]) < 3:
        return None
    found = re.search(
        rf"\b(?:my|the|that|this|your|our)\s+(?P<text>(?:[\w'-]+\s+){{0,2}}?[\w'-]+)\s+{re.escape(words[-1])}s?\b",
        text,
        re.IGNORECASE,
    )
    if (
        found is None
        or BLANK in found.group("text")
        or all(t.is_stop for t in lexicon.tokens(found.group(1)))
    ):
        return None
    return Span(found.group("text"), found.start(), found.end())


def quoted_list(text: str) -> list[re.Match[str]]:
    """The quoted things of a list said in a row ("'el perro', 'el gato' and 'la casa'"), the first alone
    when no other follows it with only a comma or "and" between."""
    found = list(QUOTED.finditer(text))[:1]
    for later in list(QUOTED.finditer(text))[1:]:
        if not re.fullmatch(r"\s*(?:,|,?\s*(?:and|or|&))\s*", text[found[-1].end() : later.start()]):
            break
        found.append(later)
    return found


def vague(value: object) -> bool:
    """A string that names nothing ("print something", "search for anything"): no value, so the
    parameter is asked for instead."""
    if not isinstance(value, str):
        return False
    words = value.lower().split()
    # "anything good", "something nice": an indefinite pronoun and what it should be like names nothing
    indefinite = len(words) == 2 and words[0] in ("something", "anything", "everything")
    return " ".join(words) in _VAGUE or indefinite


def verb_remnant(value: object) -> bool:
    """A free string that is what is left of the request's verb, no thing: its particle ("close off X":
    'off') or the verb on its object pronoun ("can you sort me out a taxi": 'sort me out')."""
    if not isinstance(value, str):
        return False
    words = value.lower().split()
    particles = bool(words) and all(w in _PARTICLES for w in words)
    verb_phrase = len(words) in (2, 3) and words[1] in _OBJECT_PRONOUNS and set(words[2:]) <= _PARTICLES
    return particles or verb_phrase


def lone_modifier(value: object) -> bool:
    """A free string that is only what was said before a number or time the other parameters took ("for
    the next 3 days": 'next'): no thing."""
    return isinstance(value, str) and bool(value.split()) and set(value.lower().split()) <= _MODIFIERS


_MODIFIERS = frozenset(("next", "last", "past", "coming", "following", "previous", "few", "couple"))
_PARTICLES = frozenset(("off", "out", "up", "down", "on", "in", "away", "over", "back", "around", "round"))
_OBJECT_PRONOUNS = frozenset(("me", "us", "him", "her", "them", "it"))


_REMINDER_CONTENT = re.compile(r"\bremind (?:me|us)\b(?: [\w:]+){0,5}? (to|that|about) ", re.IGNORECASE)


def rewritten(said: str, *, to_dos: bool = True) -> str:
    """``said`` with the phrases rewritten ("give me a shout" → remind me), except what a reminder is to
    say, which keeps the words as said ("remind me at 9 pm to take out the trash"); without ``to_dos``
    (a tool that keeps none), "I need to …" and "to do" stay as said: no to-do is asked of it. The words
    dictated after "saying" ("that says", or a message's colon) stay as said too."""
    dictated = _SAYING.search(said)
    if dictated is not None:
        # "Text Bob saying turn on the lights" ("Text Bob: …" reads so): the message is the sender's own
        # words, no request of the user's to rewrite ("turn on" is read "on" in a request; it lost "turn")
        head = lexicon.rewrite(said[: dictated.start("text")], keep_case=True, to_dos=to_dos)
        return f"{head} {said[dictated.start('text') :]}"
    rewritten = lexicon.rewrite(said, keep_case=True, to_dos=to_dos)
    found = _REMINDER_CONTENT.search(rewritten)
    if found is None:
        return rewritten
    connector = found.group(1)
    nth = len(re.findall(rf"\b{connector}\b", rewritten[: found.end()], re.IGNORECASE))
    places = [m.end() for m in re.finditer(rf"\b{connector}\b", said, re.IGNORECASE)]
    if len(places) < nth:
        return rewritten
    return rewritten[: found.end()] + said[places[nth - 1] :].lstrip()


# "Tag/category, or 'all' to clear": the value a parameter's description gives for clearing it.
_CLEARS_WITH = re.compile(
    r"['\"](\w+)['\"] (?:to|will|would) (?:clear|reset|remove|show (?:all|everything))", re.I
)


def clearing_value(said: str, schema: Mapping[str, Any]) -> str | None:
    """The value a parameter's description names for clearing it, when the words remove or clear
    something ("lose the filter", "get rid of the filter", "clear it"); None otherwise."""
    found = _CLEARS_WITH.search(str(schema.get("description", "")))
    if found is None:
        return None
    removing = any(t.concept == "remove" for t in lexicon.tokens(lexicon.rewrite(said)))
    return found.group(1) if removing else None


# A value a parameter's description quotes: "'latest' or a title", "e.g. 'spin', 'yoga'".
_DESCRIBED = re.compile(r"'([A-Za-z][A-Za-z -]{1,24})'")


def described_value(text: str, schema: Mapping[str, Any]) -> Span | None:
    """A value the parameter's description quotes, said as a word of its own ("the latest Hard Fork" →
    ``episode: latest`` for "'latest' or a title")."""
    for value in _DESCRIBED.findall(str(schema.get("description", ""))):
        said = re.search(rf"\b{re.escape(value)}\b", text, re.IGNORECASE)
        if said is not None and value.lower() not in lexicon.STOPWORDS:
            return Span(value, said.start(), said.end())
    return None


# A unit said as what a value is wanted in: "in celsius", "in miles", "in kilograms please".
_IN_UNIT = re.compile(r"\bin\s+(?:degrees\s+)?(?P<unit>[A-Za-z]{2,})\b", re.IGNORECASE)
_UNIT_WORD = re.compile(r"\b[A-Za-z]{2,}\b")
# Units of time are when, not how a value is given: "the forecast for 5 days", "in 10 minutes".
_WHEN_UNITS = frozenset(units.unit_named(w) for w in ("ms", "seconds", "minutes", "hours", "days"))
# A unit refused just before it is said: "not in fahrenheit", "no fahrenheit", "instead of fahrenheit",
# "never kelvin". A unit taken back for another ("Paris? Not in fahrenheit, celsius") never reaches here:
# ``utterance.corrected`` took it back for every slot; one refused with none after it ("Weather in Paris.
# Not fahrenheit") does, and is no unit wanted. "no X" stays a unit's own case: for other slots it is a
# value ("pizza, no onions").
_REFUSED_BEFORE = re.compile(
    r"\b(?:not|no|never|don't|dont|instead\s+of|rather\s+than)\s+(?:\w+\s+){0,2}$", re.IGNORECASE
)


def _described_units(name: str, schema: Any) -> dict[tuple[str, str], str]:
    """The units the description of unit parameter ``name`` names, each with its spelling there; empty
    when it is no unit parameter or its description names none."""
    if not isinstance(schema, Mapping) or "enum" in schema:
        return {}
    if not {"unit", "units"} & set(lexicon.identifier_words(name).lower().split()):
        return {}
    described: dict[tuple[str, str], str] = {}
    for word in re.findall(r"[A-Za-z]+", str(schema.get("description", ""))):
        unit = units.unit_named(word)
        if unit is not None and (len(word) > 1 or word.isupper()):  # "C or F", not the article "a"
            described.setdefault(unit, word)
    return described


def not_a_unit(name: str, value: Any, schema: Any) -> bool:
    """A value for a unit parameter whose description names its units that is none of them ("next 5
    days" for a ``unit`` described "celsius or fahrenheit")."""
    described = _described_units(name, schema)
    systems = (
        {s.lower() for s in _SYSTEMS.findall(str(schema.get("description", "")))} if described else set()
    )
    if isinstance(value, str) and value.lower() in systems:  # "'metric' (Celsius) or 'imperial' …"
        return False
    return bool(described) and not (isinstance(value, str) and units.unit_named(value) in described)


# Systems of units a unit parameter may be described by instead of units ("metric or imperial").
_SYSTEMS = re.compile(r"\b(?:metric|imperial|standard)\b", re.IGNORECASE)


def unit_said(text: str, name: str, schema: Mapping[str, Any]) -> Span | None:
    """A unit said for a plain-string unit parameter (``unit``, ``temperature_unit``, ``units``; no enum):
    "in celsius" for a ``unit`` described "celsius or fahrenheit" → ``"celsius"``, spelled as the
    description spells the unit ("C or F" → ``"C"``). When the description names units, only those are
    taken, said anywhere; when it names none, a unit said after "in" ("in miles") other than one of time
    ("in 10 minutes" is when); when it names systems of units ("metric or imperial"), one of those said
    ("metric please"), never a unit ("in kelvin"). None when the parameter is no unit or none is said."""
    if not {"unit", "units"} & set(lexicon.identifier_words(name).lower().split()):
        return None
    described = _described_units(name, schema)
    systems = _SYSTEMS.findall(str(schema.get("description", "")))
    if systems:  # "metric or imperial", "'metric' (Celsius)": one of those systems said, never a unit
        named = {system.lower(): system for system in systems}
        for match in _SYSTEMS.finditer(text):
            wanted = match.group(0).lower() in named and not _REFUSED_BEFORE.search(text[: match.start()])
            if wanted:
                return Span(named[match.group(0).lower()], match.start(), match.end())
        return None
    found = _UNIT_WORD.finditer(text) if described else (m for m in _IN_UNIT.finditer(text))
    for match in found:
        said = match.group("unit") if not described else match.group(0)
        start = match.start("unit") if not described else match.start()
        unit = units.unit_named(said)
        if unit is None or (described and unit not in described) or (not described and unit in _WHEN_UNITS):
            continue
        if _REFUSED_BEFORE.search(text[: match.start()]):
            continue  # "not in fahrenheit, celsius": the unit wanted is the other one
        return Span(described.get(unit, said.lower()), start, start + len(said))
    return None


# The names of an enum whose options, all units, say how a value is given: ``unit``, and ``format`` or
# ``scale`` (Pipecat's and OpenAI's cookbook ``get_current_weather(location, format: [celsius,
# fahrenheit])`` "Infer this from the user's location": it was asked "Which format would you like?").
_ENUM_OF_UNITS = frozenset(("unit", "units", "format", "scale"))


def unit_unsaid(text: str, name: str, schema: Mapping[str, Any]) -> Any | None:
    """The option a model sends for a required unit enum (``unit``: ``["metric", "imperial"]``) when the
    words say no unit and no system ("weather in Paris"): the schema's ``default`` when it is an option,
    else the first option, as a model picks one rather than asking "Which unit?"; when every option said
    is refused and one is left ("not celsius" of celsius and fahrenheit), that one. None when the
    parameter is no unit enum, or a unit, a system or an option was said otherwise (taken, or refused
    leaving more than one: "not kelvin" of three is asked about); a unit of time ("the next 5 days") is
    no unit of the value. Every option must be a unit or a system: ``unit: ["ICU", "ER"]`` (a hospital's)
    is asked about."""
    options = schema.get("enum")
    if not isinstance(options, list) or not options:
        return None
    if not _ENUM_OF_UNITS & set(lexicon.identifier_words(name).lower().split()):
        return None
    if not all(isinstance(o, str) and (units.unit_named(o) or _SYSTEMS.fullmatch(o)) for o in options):
        return None  # a hospital's unit ("ICU"), a flat ("2B"), a storage unit's size: no measure
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    options_said = {str(o).lower() for o in options} & said
    if options_said and not _SYSTEMS.search(text) and all(refused_unit(text, name, o) for o in options_said):
        # "Weather in Denver, not celsius": every option said is refused; of two, the other is wanted
        rest = [o for o in options if str(o).lower() not in options_said]
        return rest[0] if len(rest) == 1 else None
    if _SYSTEMS.search(text) or options_said:
        return None
    named = [units.unit_named(w) for w in said if len(w) > 1]
    if any(unit is not None and unit not in _WHEN_UNITS for unit in named):
        return None
    default = schema.get("default")
    return default if default in options else options[0]


def refused_unit(text: str, name: str, value: Any) -> bool:
    """Whether ``value``, a unit taken for unit parameter ``name`` (an enum's option: ``"fahrenheit"``),
    is only said refused in ``text`` ("Weather in Paris. Not fahrenheit", "no fahrenheit"): no unit
    wanted, as for a plain-string unit (``unit_said``)."""
    if not isinstance(value, str) or not _ENUM_OF_UNITS & set(lexicon.identifier_words(name).lower().split()):
        return False
    unit = units.unit_named(value)
    said = [
        m
        for m in _UNIT_WORD.finditer(text)
        if m.group(0).lower() == value.lower() or (unit is not None and units.unit_named(m.group(0)) == unit)
    ]
    return bool(said) and all(_REFUSED_BEFORE.search(text[: m.start()]) for m in said)


def us_unit(schema: Mapping[str, Any]) -> Any | None:
    """The option of a unit enum a model picks for a place in the United States, which measures in US
    customary units: "fahrenheit" ("F", "°F") of a temperature, "imperial" of a system ("standard",
    "metric", "imperial": OpenWeatherMap's), "miles" ("mi") of a distance and "mph" of a speed; None
    when there is none. (brk7 had pinned a system and a distance to the first option for US places;
    brain11 reads them as the Fahrenheit rule does: a model answering about Chicago in the US picks
    the units the US uses, and "Distance from Boston to New York" in miles.)"""
    options = schema.get("enum")
    wanted = {units.unit_named(name) for name in _US_UNITS}
    for option in options if isinstance(options, list) else []:
        if isinstance(option, str) and (option.lower() == "imperial" or units.unit_named(option) in wanted):
            return option
    return None


# The units of the US's own customary measures, of which a unit enum holds one at most.
_US_UNITS = ("fahrenheit", "miles", "mph")


def beside_label(text: str, name: str) -> Span | None:
    """A free value said right next to its parameter's name, as a last resort for a required string:
    "a priority of high", "priority: high" (one or two words after, up to a pause), else "with high
    priority" / "a high priority item" (the word before), else "priority high"."""
    label = r"\s+".join(re.escape(w) for w in lexicon.identifier_words(name).split())
    if not label:
        return None
    value = r"(?P<value>[\w'-]+(?:\s+[\w'-]+)?)(?=\s*(?:[,.;:!?]|$|\band\b|\bplease\b))"
    forms = (
        rf"\b{label}\s*(?:of\s+|:\s*|=\s*|is\s+){value}",
        rf"(?P<value>[\w'-]+)\s+{label}\b",
        rf"\b{label}\s+{value}",
    )
    for form in forms:
        found = re.search(form, text, re.I)
        if found is None:
            continue
        said = found.group("value")
        tokens = lexicon.tokens(said)
        if BLANK in said or said.lower() in _VAGUE or not tokens or all(t.is_stop for t in tokens):
            continue
        return Span(said, found.start(), found.end())
    return None
