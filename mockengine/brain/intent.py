"""Intent → tool: which declared tool the words ask for, from what the tool declares and nothing else.

Each tool's *vocabulary* is the concepts (``lexicon.concept``: stem + synonym group) of its name (weight
3), enum values (2), parameter names (1.5), and its own and its parameters' descriptions (1). A request
scores, per tool, the sum over the distinct concepts it heard of that tool's weight for the concept times
the concept's rarity among the declared tools (``log(1 + N / tools_with_it)``), so a word every tool
mentions ("card") counts little and the verb that only one tool has counts most.

The best tool is called when its score reaches ``MIN_SCORE`` and it heard at least one of the tool's
*strong* concepts (name or enum words, or a verb in its description). **Ties** (equal scores) go to the
tool whose name holds more of the heard concepts, then more of the heard words as said ("ship" is
ship_order's, though track_order shares its concept), then to the tool declared first. The HyperStudy tools
(``answer_*``, ``send_chat``, ``wait``, ``submit_response``) are never candidates: the participant
answers those from the study's context, as before.

Two actions ("open the gesture project and play it") are two requests when the words split at "and" /
"then" into two parts that each pick a tool on their own.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from mockengine.brain import (
    addresses,
    ahead,
    codes,
    declared,
    evidence,
    lexicon,
    phrases,
    questions,
    scalars,
    schema_values,
    utterance,
    verbatim,
)
from mockengine.brain import kinds as kinds_of
from mockengine.brain.implied import holds_place
from mockengine.brain.model import ToolSpec
from mockengine.brain.phrasing import LIGHT_VERBS
from mockengine.brain.situation import ANSWER_TOOLS
from mockengine.brain.wordlists import (
    ASSOCIATION_WEIGHT,
    CHANGE_VERBS,
    EXTRAS,
    KIND_WORDS,
    KINDS_TAKEN_WITH,
    NO_THING,
    NOT_SOLD,
    ORDERING_VERBS,
    PACKAGING,
    PACKAGING_KINDS,
    READ_VERBS,
    SERVICES,
    SIZES,
    SOLD_THING,
    THINGS_OF_KIND,
    WORN_AGAINST_WEATHER,
)

MIN_SCORE = 1.5
# A past action the speaker did themselves: "I already locked the front door myself" asks for no lock.
_DONE_ALREADY = re.compile(r"\b(?:already|myself|ourselves)\b", re.IGNORECASE)
# A question to a lookup that names what it reports needs less: "is it raining in Lisbon?" to a weather
# app whose every tool mentions the weather (so the word is not rare among them).
LOOKUP_MIN = 0.9
# Words for a value's kind, not a topic a lookup reports ("how many days until christmas").
_GENERIC = frozenset(("day", "days", "date", "time", "hour", "hours", "minute", "minutes", "week", "month"))
NAME_WEIGHT, ENUM_WEIGHT, PARAMETER_WEIGHT, DESCRIPTION_WEIGHT = 3.0, 2.0, 1.5, 1.0
OPTIONAL_WEIGHT = 1.4  # an optional parameter's name
KEPT_WEIGHT = 2.4  # what a tool's verb of keeping also means ("save_contact" adds one)
# HyperStudy's own tools keep their study behaviour and are never the matcher's pick: the answer tools
# (situation.ANSWER_TOOLS) and the rest HyperStudy declares.
HYPERSTUDY_TOOLS = ANSWER_TOOLS | frozenset(("send_chat", "wait", "respond", "answer"))
# What a reminder is to say: its verbs ask for nothing now ("remind me to book flights at nine").
_REMINDED = re.compile(
    r"\b(remind (?:me|us))(?: [\w:]+){0,5}? (?:to|that|about) "
    r".*?(?=\s(?:at|on|by|tomorrow|tonight|in|every)\b|$)"
)
_NAMING = re.compile(r"\b((?:a|an|the|my|our)\s+[\w-]+)\s+(?:called|named)\b", re.IGNORECASE)
_SAYING = re.compile(r"\b(saying|that says|which says)\b.*$", re.IGNORECASE)
# What a message says after a colon ("email Bob: see you tomorrow", "text Ana: the meeting moved"): its
# words ask for nothing ("see" and "moved" were taken for other actions, and no email was sent).
_DICTATED_AFTER_COLON = re.compile(
    r"^(\W*(?:please\s+)?(?:e-?mail|text|message|dm|ping|slack|whatsapp|write|reply|send)\b(?:[^:.!?]|\.(?=\w)){0,80}:).*$",
    re.IGNORECASE,
)
_COLON = re.compile(r"^(?:\S+\s+){0,6}\S*(?<!\d):\s")
_SPLIT = re.compile(r"\s*(?:,\s*)?\b(?:and then|and also|and|then|after that)\b\s*", re.IGNORECASE)
_QUOTE = re.compile(r"[\"“][^\"”]*[\"”]")
# A "like" that means similarity, not liking ("what's it like", "looks like").
_NOT_LIKING = re.compile(
    r"\b(?:look|looks|sound|sounds|seem|seems|feel|feels|what's|whats|what is)\b[^.?!]*\blike\b"
    r"|\b(?:be|been)\s+like\b"  # "what will the weather be like"
)
QUESTION_BONUS = 1.5
_READ_VERBS = READ_VERBS
_REPORTS = frozenset(("next", "upcoming", "recent", "current", "latest", "my", "nearby", "today", "todays"))
_DESCRIBED_READS = frozenset(("get", "gets", "list", "lists", "return", "returns", "find", "finds", "search"))
_LOOKING = _READ_VERBS | {"look", "see"}
# A later part opening with a question word and its verb, or a yes/no question ("… and is it raining in
# Osaka?"), may be a request of its own with no action verb ("… and what time is it in Tokyo?"), on
# strong evidence of its own (``_asks_on_its_own``).
_OWN_QUESTION = re.compile(
    r"\W*(?:(?:what|how|when|where|which|who)(?:'s|’s|\s+(?:is|are|was|were|will|does|do|did|time|day|date"
    r"|about)\b)|(?:is|will|does|did|was) it\b|(?:do|should|can) (?:i|we)\b)",
    re.IGNORECASE,
)
# When something happens ("what time does the Louvre open", "what time will it ring"), not the clock.
_WHEN_IT_HAPPENS = re.compile(
    r"\b(?:what time|when)\s+(?!is it\b)(?:is|are|was|were|does|do|did|will|would|should|can|could)\b", re.I
)
_POLITE = frozenset(("please", "also", "can", "could", "would", "will", "you", "kindly", "maybe"))
_NEED_TO_WEAR = re.compile(r"\b(?:need|bring|pack|wear|take)\b[^.!?,;]*\?", re.I)
_DO_I = re.compile(r"^\W*(?:do|does|did|will|should|is|are) (?:i|we)\b", re.I)
_ASKING = re.compile(
    r"^\s*(?:what|which|where|when|how|is|are|am|was|were|will|do|does|did|has|have|should|anything|any)\b",
    re.I,
)
_QUOTED_PHRASE = re.compile(r"'([A-Za-z]+(?: [A-Za-z]+)+)'")
_QUOTED_WORD = re.compile(r"'([A-Za-z]+)'")


@dataclass(frozen=True)
class Match:
    """A tool and how well the words asked for it: ``score`` and the heard words that counted."""

    tool: ToolSpec
    score: float
    cues: tuple[str, ...]
    strong: bool
    min_score: float = 0.0  # the score it needs to be called (MIN_SCORE, or LOOKUP_MIN for a question)


def candidates(tools: Iterable[ToolSpec]) -> list[ToolSpec]:
    """The declared tools the matcher may pick: every one but HyperStudy's own (``declared.study_tools``)."""
    tools = list(tools)
    study = declared.study_tools(tools, HYPERSTUDY_TOOLS)
    return [tool for tool in tools if tool not in study]


def rank(text: str, tools: list[ToolSpec]) -> list[Match]:
    """Every tool scored for ``text``, best first (ties by the documented rule)."""
    text = _STARTING_ON.sub("from", text)  # "starting Friday" is when, not an action
    heard = _heard(text)
    # A relative clause describes a thing ("a cab that leaves soon"): its verbs ask for no other action.
    # So is the reason given for a request ("a refund … because it arrived broken"): it asks for nothing.
    acted = _heard(_BECAUSE.sub("", utterance.without_relative_clauses(text)))
    # a word inside a proper name asks for nothing: "Heathrow Terminal 5" terminates nothing
    acted = [(c, w) for c, w in acted if w.lower() not in _inside_names(text)]
    # a word after "my"/"the" is a thing, not an action: "file a ticket: my screen is broken" asks for
    # no look at the screen (submit_ticket was passed over, lookup_order got the sentence)
    things = {m.group(1).lower() for m in _AFTER_DETERMINER.finditer(text)}
    acted = [(c, w) for c, w in acted if w.lower() not in things]
    asking = text.rstrip().endswith("?") or bool(_ASKING.match(text))
    # a question, not "can you play jazz?" ("do I need an umbrella?" is one)
    inquiring = asking and (not utterance.requests(text) or bool(_DO_I.match(text)))
    # "find me a winter coat" shops for a coat; "will I need a coat?", "…, do I need a jacket?" ask the
    # forecast: a question, or one whether to need, bring, pack or wear it
    worn_asked = " ".join(m.group(0).lower() for m in _NEED_TO_WEAR.finditer(text))
    heard = [
        (lexicon.stem(w), w)
        if w.lower() in WORN_AGAINST_WEATHER and not (inquiring or re.search(rf"\b{w.lower()}\b", worn_asked))
        else (c, w)
        for c, w in heard
    ]
    form = evidence.form_of(text)
    kinds = form.kinds
    vocabularies = [_vocabulary(_key(tool)) for tool in tools]
    wanted = {c for concept, word in heard for c in (concept, *lexicon.associated(concept, word))}
    spread = {c: sum(1 for v in vocabularies if c in v.weights) for c in wanted}
    # "add" of an app where nothing adds is a making ("add Ana Silva" → create_contact)
    fallback = {c: lexicon.fallback_associated(w) for c, w in heard if not spread.get(c)}
    spread |= {c: sum(1 for v in vocabularies if c in v.weights) for f in fallback.values() for c in f}
    opened = _opened_new(text)
    gotten = _gotten(text, vocabularies)
    # "can I get a refund for my booking AB12?" with no tool for refunds: nothing declared gives what is
    # asked for, and a tool that merely shares a noun of it ("booking") is not asked for
    undeclared = _got_undeclared(text, vocabularies)
    # the words as said, not their stems: "Has order 12345 shipped?" says no "ship" of ship_order's
    said_words = {word.lower() for _, word in heard}
    matches = []
    for order, (tool, vocabulary) in enumerate(zip(tools, vocabularies, strict=True)):
        # "can I get a refund" gets what a tool is named for: no request of get_order_status's "get"
        own = [h for h in heard if h[0] != _GET] if gotten else heard
        score, cues, strong, in_name = _score(own, vocabulary, spread, len(tools), fallback)
        heard_concepts = {c for c, _ in heard}
        for phrase in _quoted_phrases(_key(tool)):  # 'show me it working', all its words heard
            if len(phrase) > 1 and phrase <= heard_concepts:
                score += NAME_WEIGHT * len(phrase)
                strong = True
        # "open a ticket" makes one: no other verb for the tool named for it (create_ticket), whose
        # "create" was not said (lookup_order's "open" took it)
        other_verb = _other_verb(acted, vocabulary) and not (opened & vocabulary.name)
        for kind in kinds & vocabulary.kinds:  # "tomorrow" fits a tool that takes a date, "4 kilos" kg
            measured = kind.startswith(("unit:", "count:"))
            weight = PARAMETER_WEIGHT if measured else DESCRIPTION_WEIGHT
            score += weight * math.log(1 + len(tools) / sum(kind in v.kinds for v in vocabularies))
            # "four kilos" to log_weight; "3 nights at the Hilton" to book_hotel {nights} when no other
            # action is asked for
            counted = kind.startswith("count:") and not other_verb
            strong = strong or ((kind.startswith("unit:") or counted) and not inquiring)
        # A thing the tool is named for ("details", "song") is enough when no other action was asked for;
        # a question to a lookup ("is it raining in Lisbon?") is enough when it names what the tool reports.
        # ("where's the car?" names a ride, but asks where it is: no booking).
        named_for = in_name > 0 or bool(vocabulary.acted_on & {c for c, _ in own})
        answers = vocabulary.lookup or vocabulary.handoff
        strong = strong or (named_for and not other_verb and not (inquiring and not answers))
        asked = inquiring and vocabulary.lookup and not other_verb and _names_report(heard, vocabulary)
        strong = strong or asked
        if _SWITCHED.search(text) and {"on", "off"} <= vocabulary.enums:
            # "turn off the fan" to set_device(device, state: [on, off]), however few tools are declared
            # (one tool's words are all equally rare: its enum alone scored below MIN_SCORE)
            score, strong = max(score, MIN_SCORE), True
        if vocabulary.switches & _switched_things(text):
            # "turn off notifications" to update_preferences(preferences: {notifications: boolean}): the
            # switch is said of a boolean the tool declares (the word alone, an optional detail, scored
            # below MIN_SCORE; said beside the language it was called)
            score, strong = max(score, MIN_SCORE), True
        # "how do I get a refund for order A12?" asks for the refund a tool is named for, as "can I get a
        # refund" does: no how-to question of it (a model asks it of the tool, not the order's status)
        getting = bool(gotten & vocabulary.name) and not vocabulary.lookup
        allowed = dataclasses.replace(form, how_to=False) if getting else form
        strong = strong and evidence.allows(allowed, tool, vocabulary, heard_concepts)
        # "get" of get_time is no request for the time: "can I get my money back", "I need to get some
        # groceries", "get me a coffee" called get_time with the rest as its city. The thing the tool gets
        # must be heard too.
        if {c for c, _ in heard if c in vocabulary.weights} == {_GET}:
            strong = False
        if undeclared:
            strong = False
        if declared.labelled(text, tool):  # "the code's BIGSALE20": a value said as what the tool needs
            score += PARAMETER_WEIGHT
            strong = True
        if lexicon.tool_mention(text, tool.name) is not None:  # "use get_weather …", "call get forecast …"
            score += NAME_WEIGHT
            strong = True
        if inquiring and vocabulary.lookup:
            score *= QUESTION_BONUS  # a question is more likely a look than a change
        match = Match(tool, round(score, 3), tuple(cues), strong, LOOKUP_MIN if asked else MIN_SCORE)
        # "Ship order 12345" to track_order and ship_order: "ship" shares the concept of "track", but the
        # word said is ship_order's own, as a model reads it ("shipped?", "shipping status" are not: a
        # past or a noun of it asks after the order)
        literal = len(said_words & set(lexicon.identifier_words(tool.name).lower().split()))
        matches.append((-round(score, 6), -in_name, -literal, order, match, vocabulary.lookup))
    ranked = sorted(matches, key=lambda e: e[:4])
    _by_form(ranked, asking and not gotten)  # "can I get a refund?" asks for one: no question
    return _reaching_ahead(text, [entry[4] for entry in ranked])


def _reaching_ahead(text: str, ranked: list[Match]) -> list[Match]:
    """A time to come said ("Will it rain in Paris this week?", "… tomorrow?") to a lookup that reports
    only the present (``get_weather(city)``) while another lookup of the same words reaches it
    (``get_forecast(city, days)``, ``get_weekly_forecast``, one that takes a date): that one first, with
    the first one's standing, as a model picks the forecast; the present-only one was called."""
    if len(ranked) < 2 or ahead.said(text, _SOME_MONDAY) is None:
        return ranked
    top = ranked[0]
    if (
        not is_lookup(top.tool)
        or ahead.reaches_ahead(top.tool)
        or ahead.takes_a_day(top.tool)
        or not top.cues
    ):
        return ranked
    # the same words heard by both: the forecast reports what the present-only lookup does
    heard = {lexicon.concept(cue.lower()) for cue in top.cues}
    for index, match in enumerate(ranked[1:], 1):
        shared = heard & {lexicon.concept(cue.lower()) for cue in match.cues}
        if shared and is_lookup(match.tool) and ahead.reaches_ahead(match.tool):
            promoted = Match(match.tool, max(match.score, top.score), match.cues, top.strong, top.min_score)
            return [promoted, *ranked[:index], *ranked[index + 1 :]]
    return ranked


_SOME_MONDAY = date(2000, 1, 3)  # whether a time to come is said does not depend on today


# A switch thrown: "turn off the fan", "switch the heater on" ("power it down": "down" is no option; "I
# turned it off" is told, not asked).
_SWITCHED = re.compile(r"\b(?:turn|switch|power)\s+(?:[\w'-]+\s+){0,3}?(?:on|off)\b", re.I)
# What a switch is said of: "turn off (my) notifications", "turn notifications off", "disable alerts".
_SWITCHED_THING = re.compile(
    r"\b(?:(?:turn|switch)\s+(?:on|off)|enable|disable)\s+(?:(?:my|the|all|our)\s+)?(?P<after>[\w-]+)"
    r"|\b(?:turn|switch)\s+(?:(?:my|the|all|our)\s+)?(?P<before>[\w-]+)\s+(?:on|off)\b",
    re.I,
)
# Words of a boolean's name that name no thing switched ("enabled" of notifications_enabled).
_FLAGS = frozenset(lexicon.concept(w) for w in ("enabled", "enable", "is", "on", "only", "use", "flag"))


def _switched_things(text: str) -> set[str]:
    """The concepts of what ``text`` switches on or off ("turn off my notifications" → notifications)."""
    return {lexicon.concept(m.group("after") or m.group("before")) for m in _SWITCHED_THING.finditer(text)}


# "next" of a time ("next Friday", "next week"): when, not the action of going to the next thing.
_NEXT_WHEN = re.compile(
    r"\bnext\s+(?=(?:week|weekend|month|year|morning|afternoon|evening|night|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday)\b)",
    re.IGNORECASE,
)
# A start said of a date ("for three nights starting Friday", "beginning on the 3rd"): when, not a verb.
_STARTING_ON = re.compile(
    r"\b(?:starting|beginning|commencing)(?=\s+(?:(?:on|from|this|next|the)\s+){0,2}"
    r"(?:today|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next|this"
    r"|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d))",
    re.IGNORECASE,
)
_AFTER_DETERMINER = re.compile(r"\b(?:my|your|his|her|our|their|its|the|a|an)\s+([A-Za-z]+)\b", re.IGNORECASE)
_BECAUSE = re.compile(r"\s*,?\s*\b(?:because|'cause|cos|since)\b[^.!?;]*", re.IGNORECASE)
_NAME_RUN = re.compile(r"\b[A-Z][\w']*(?:\s+(?:[A-Z][\w']*|\d+))+")


# "open a ticket", "open a new support case", "open an account": a thing opened that is not there yet (an
# indefinite article, "new") is made, as "create a ticket" is; "open the ticket" looks at one.
_OPENS_NEW = re.compile(
    r"\bopen(?:\s+up)?\s+(?:a|an|another|new)\s+(?P<thing>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)", re.IGNORECASE
)


# "can I get a refund", "could I have a replacement": what is got, the noun after the verb
_GOT = re.compile(
    r"\b(?:get|have|receive)\s+(?:me\s+|us\s+)?(?:a|an|the|my|our|some|another)\s+(?P<thing>[a-z][\w-]*)",
    re.IGNORECASE,
)


def _gotten(text: str, vocabularies: list[_Vocabulary]) -> frozenset[str]:
    """The concepts of a thing asked to be got ("a refund" of "can I get a refund …") when a tool that
    acts is named for it: then "get" asks for that thing, not for a look by a tool whose name starts with
    "get" (get_order_status, get_refund_status); empty otherwise ("can I get the status of …", "get me an
    update on …" keep the lookup's "get")."""
    found = _GOT.search(text)
    if found is None:
        return frozenset()
    thing = frozenset(_concepts(found.group("thing")))
    return thing if any(thing & v.name and not v.lookup for v in vocabularies) else frozenset()


# "can I get a refund for …", "could I have a refund?", "I want a refund for …": a thing asked to be
# given (an indefinite article, then up to three words ending the clause or before "for", or before
# the words that only say when or how politely: "a refund please", "a refund today"), not a view of
# another ("a copy of my invoice", "an update on order A12"), whose thing is after "of"/"on".
_GOT_NEW = re.compile(
    r"(?:\b(?:get|have|receive|want|need)|(?:'d|\bwould)\s+like)\s+(?:me\s+|us\s+)?(?:a|an|some|another)\s+"
    r"(?P<thing>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)"
    r"(?=\s+(?:for|please|today|tonight|tomorrow|now|later|asap|thanks|thank|too|also|instead|as\s+well)\b"
    r"|\s*[,.!?]|\s*$)",
    re.IGNORECASE,
)
# "A large mocha please", "An iced tea, please.": a thing asked for by its name alone, the words opening
# with its article and ending in "please" (a reply to "what can I get you?").
_NAMED_ALONE = re.compile(
    r"^\W*(?:a|an)\s+(?P<thing>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)\s*,?\s+please\s*[.!]?\s*$",
    re.IGNORECASE,
)


def _asked_for(text: str) -> re.Match[str] | None:
    """The words asking a thing to be given, their group ``thing`` the thing ("latte" of "Can I get a
    latte?", "flat white" of "I'd like a flat white", "large mocha" of "A large mocha please"); None
    when no thing is asked for."""
    return _GOT_NEW.search(text) or _NAMED_ALONE.match(text)


# "do you have a charger?": whether a thing is there, asked, no order of it
_AVAILABLE = re.compile(r"\b(?:you|they|y'all)\s+(?:\w+\s+)?have\s+(?:a|an|some|another)\s+$", re.IGNORECASE)


def ordered_thing(text: str, tools: list[ToolSpec]) -> tuple[ToolSpec, str, str] | None:
    """The thing ``text`` asks to be given ("latte" of "Can I get a latte?") with the one tool of
    ``tools`` that orders things (its name's first word orders: ``order_drink``) and whose only required
    parameter is the thing ordered (a string, or an enum naming it): (tool, parameter, thing). A model
    knows a latte is a drink; the brain does not, so it takes a thing asked for as the one ordering
    tool's. None when nothing is asked to be given, it is a service or no thing (a refund, help, a menu,
    "a cheaper one"), its being there is asked ("do you have a charger?"), no tool or more than one
    orders, the parameter is no thing sold (``buy_ticket(event)``), or an enum names no such option."""
    found = _asked_for(text)
    if found is None:
        return None
    thing = found.group("thing")
    words = thing.lower().split()
    if (NO_THING | SERVICES) & set(words) or any(lexicon.concept(w) in (_GET,) for w in words):
        return None
    if {"but", "not"} & set(words) or set(words) <= SIZES:
        return None  # "a latte but not now" is no order yet; "A large please" names no drink
    if _extra(words):  # "a box for leftovers", "gift wrap": given with what is sold, not sold itself
        return None
    if _AVAILABLE.search(text, 0, found.start("thing")) or NOT_SOLD & set(_named(words)):
        return None
    ordering = []
    for tool in tools:
        named = lexicon.identifier_words(tool.name).lower().split()
        if not set(named[:1]) & ORDERING_VERBS:
            continue
        required = schema_values.required_of(tool.parameters or {})
        properties = schema_values.properties_of(tool.parameters or {})
        # the parameter is the thing sold (``order_drink(drink)``, ``order_food(item)``), not what the
        # thing is for (``buy_ticket(event)``: "I want a better seat" names no event)
        sold = set(named[1:]) | SOLD_THING
        if (
            len(required) == 1
            and isinstance(properties.get(required[0]), Mapping)
            and sold & set(lexicon.identifier_words(required[0]).lower().split())
        ):
            ordering.append((tool, required[0], properties[required[0]]))
    kind = _thing_kind(words)
    if kind is not None:
        # "an extra pillow" beside ``request_housekeeping(request)``: the tool whose kind it is takes it
        # (its one required string); an ordering tool of other kinds takes none of it
        ordering = [entry for entry in ordering if _takes_kind(entry[0], kind)]
        # (a lookup of that kind, ``search_amenities``, is asked nothing: only a tool that gives or does)
        of_kind = [
            tool
            for tool in tools
            if kind in tool_kinds(tool)
            and not set(lexicon.identifier_words(tool.name).lower().split()[:1]) & READ_VERBS
        ]
        # a latte beside order_drink and order_food: the drinks tool, whose own kind it is
        ordering = [entry for entry in ordering if entry[0] in of_kind] or ordering
        if of_kind and not any(entry[0] in of_kind for entry in ordering):
            ordering = []
            for tool in of_kind:
                required = schema_values.required_of(tool.parameters or {})
                properties = schema_values.properties_of(tool.parameters or {})
                schema = properties.get(required[0]) if len(required) == 1 else None
                if isinstance(schema, Mapping) and schema.get("type") == "string" and not schema.get("enum"):
                    ordering.append((tool, required[0], schema))
            if len(ordering) == 1:
                tool, name, schema = ordering[0]
                return (
                    (tool, name, thing) if not codes.record_words(name) and "format" not in schema else None
                )
    if len(ordering) != 1:
        return None
    tool, name, schema = ordering[0]
    # "A towel please" beside ``request_housekeeping`` ("… items like towels"): the thing is another
    # declared tool's, not one the ordering tool sells
    own = vocabulary_of(tool)
    heads = set(_concepts(" ".join(_named(words)))) - own
    if any(heads & vocabulary_of(other) for other in tools if other is not tool):
        return None
    options = schema.get("enum")
    if isinstance(options, list):
        option = next((o for o in options if isinstance(o, str) and o.lower() == thing.lower()), None)
        return (tool, name, option) if option is not None else None
    if schema.get("type") != "string" or codes.record_words(name) or "format" in schema:
        return None
    return tool, name, thing


def thing_of_other_kind(text: str, tools: list[ToolSpec]) -> str | None:
    """The thing ``text`` asks to be given ("muffin" of "I'd like a muffin") when it is of a known kind
    (``THINGS_OF_KIND``: food) that no declared tool takes (only ``order_drink``, whose kind is drink);
    None otherwise (no thing asked for, its kind unknown, or a tool takes it)."""
    found = _asked_for(text)
    if found is None:
        return None
    thing = found.group("thing")
    kind = _thing_kind(thing.lower().split())
    if kind is None or any(kind in tool_kinds(tool) or not tool_kinds(tool) for tool in tools):
        return None
    return thing


def _thing_kind(words: list[str]) -> str | None:
    """The kind of the thing the words name (``THINGS_OF_KIND``: "drink" of "large mocha", "housekeeping"
    of "extra pillow"), by its head, the last word before a preposition; None when no kind is known."""
    named = _named(words)
    head = named[-1].lower() if named else ""
    if " ".join(named[-2:]).lower() == "flat white":
        return "drink"
    return next((kind for kind, things in THINGS_OF_KIND.items() if head in things), None)


def tool_kinds(tool: ToolSpec) -> frozenset[str]:
    """The kinds of thing ``tool`` takes, as its name and description name them (``KIND_WORDS``: "Order
    food from room service" → food); empty when they name none."""
    said = set(re.findall(r"[a-zé]+", f"{lexicon.identifier_words(tool.name)} {tool.description}".lower()))
    if "room" in said and "service" in said:
        said.add("food")  # room service brings food and drinks
    return frozenset(kind for kind, cues in KIND_WORDS.items() if said & set(cues))


def _takes_kind(tool: ToolSpec, kind: str) -> bool:
    """Whether ``tool`` may be given a thing of ``kind``: it names no kind, or one that takes it."""
    kinds = tool_kinds(tool)
    return not kinds or any(kind in KINDS_TAKEN_WITH.get(own, frozenset((own,))) for own in kinds)


def _extra(words: list[str]) -> bool:
    """Whether the words of a thing asked for name an extra given with a sale rather than a thing sold:
    a phrase of ``EXTRAS`` ("gift wrap", "extended warranty"), or packaging not said to hold a thing
    sold ("a box", "a to-go box", "a clean glass"; not "a box of donuts", "a bento box")."""
    said = f" {' '.join(words)} "
    if any(f" {extra} " in said for extra in EXTRAS):
        return True
    named = _named(words)
    return (
        len(named) == len(words)
        and bool(named)
        and named[-1] in PACKAGING
        and all(word in PACKAGING_KINDS for word in named[:-1])  # "a to-go box", not "a bento box"
    )


def _named(words: list[str]) -> list[str]:
    """The words naming a thing asked for, before a preposition ("waiter" of "waiter over here", "glass"
    of "glass of water", "price match")."""
    return list(itertools.takewhile(lambda w: w not in _AFTER_HEAD, words))


_AFTER_HEAD = frozenset(("of", "with", "over", "from", "in", "on", "to", "at"))


def got_undeclared(text: str, tools: list[ToolSpec]) -> str | None:
    """The thing ``text`` asks to be given that no tool of ``tools`` gives ("a refund" of "can I get a
    refund for my booking AB12?" beside ``book_table`` and ``cancel_booking``), with its article; None
    when a tool has a word of it, nothing is asked to be given, or no tool shares a word of the rest of
    the request ("Can I get a latte?" to ``order_drink``: the brain cannot tell a latte from a refund, so
    it claims nothing out of reach that no declared tool was near)."""
    vocabularies = [_vocabulary(_key(tool)) for tool in tools]
    thing = _got_undeclared(text, vocabularies) if tools else None
    if thing is None:
        return None
    # the claim answers a tool that merely shares a noun ("booking"); with none, a model's reply to a
    # thing the brain has no word for is no claim that the app lacks it
    rest = {c for c, w in _heard(text) if w.lower() not in thing.lower().split()} - {_GET}
    if not any(rest & v.weights.keys() for v in vocabularies):
        return None
    return f"{'an' if thing[0].lower() in 'aeiou' else 'a'} {thing}"


# A change to a record a lookup of it cannot make, asked for: "I want to cancel it", "can you change my
# booking", "cancel reservation kq7rt" (the verb a want, a request or the sentence leads with); "cancel
# that, …" takes back what was said, no request.
_CHANGE_ASKED = re.compile(
    r"(?:\b(?:want|need|like|wish|trying|try|going|have)\s+to|\b(?:can|could|would|will)\s+you|^|[,.;!?]|\band)"
    r"\s*(?:please\s+|just\s+)?(?P<verb>cancel|delete|remove|change|update|edit|modify|reschedule|rename"
    r"|refund|move)\b(?!\s+(?:that|this)\s*(?:[,.;!?-]|$))"  # "cancel that, look it up" takes words back
    r"(?!\s+(?:me|us)\s+(?:on|about|with)\b)",  # "can you update me on order 12345" asks for news
    re.IGNORECASE,
)
# A lookup asked in words beside the change ("Where's order 12345? I may need to cancel it", "Look up
# reservation ABC123, I want to change it"): the lookup is the request, and a model makes it.
_LOOKUP_ASKED = re.compile(
    r"\b(?:look(?:ing)?\s+(?:it\s+|that\s+|this\s+)?up|check(?:ing)?|where(?:'s|\s+is|\s+are)|status"
    r"|pull(?:\s+it)?\s+up|find|show\s+me|tell\s+me|what(?:'s|\s+is))\b",
    re.IGNORECASE,
)


def change_undeclared(text: str, tools: list[ToolSpec]) -> str | None:
    """The change to a record ``text`` asks for ("cancel" of "my confirmation number is kq7rt and I want
    to cancel it") when no tool of ``tools`` declares it, by the verb or its synonyms ("delete" is a
    "remove"); None when none is asked, a tool makes it, or a lookup is asked beside it ("Where's order
    12345? I may need to cancel it")."""
    found = _CHANGE_ASKED.search(text)
    if found is None or not tools or _LOOKUP_ASKED.search(text):
        return None
    verb = found.group("verb").lower()
    concept = lexicon.concept(verb)
    if any({concept, lexicon.stem(verb)} & _vocabulary(_key(tool)).weights.keys() for tool in tools):
        return None
    return verb


def _got_undeclared(text: str, vocabularies: list[_Vocabulary]) -> str | None:
    """The thing asked to be given ("refund" of "can I get a refund for my booking AB12?") when no
    declared tool has a word of it, itself or through an association ("a cab" reaches a ride, "a table" a
    restaurant where no tool has a table); else None."""
    found = _asked_for(text)
    if found is None:
        return None
    thing = found.group("thing")
    if NO_THING & set(thing.lower().split()):  # "can I get some help?", "could I have a minute?"
        return None
    heard = _heard(thing)
    concepts = {c for c, w in heard for c in (c, *lexicon.associated(c, w), *lexicon.fallback_associated(w))}
    concepts |= set(_concepts(thing))
    return None if any(concepts & v.weights.keys() for v in vocabularies) else thing


def _opened_new(text: str) -> frozenset[str]:
    """The concepts of the words naming what "open a …" makes ("ticket", "support" of "open a support
    ticket"); empty when nothing new is opened."""
    found = _OPENS_NEW.search(text)
    return frozenset(_concepts(found.group("thing"))) if found is not None else frozenset()


def _inside_names(text: str) -> frozenset[str]:
    """The words after the first of a run of capitalized words ("Terminal" of "Heathrow Terminal 5")."""
    return frozenset(w.lower() for m in _NAME_RUN.finditer(text) for w in m.group(0).split()[1:])


def _by_form(ranked: list[Any], asking: bool) -> None:
    """Two best tools tied on the same words: a request ("I need a cab") goes to the one that acts, a
    question to the lookup (entries: -score, -in_name, -literal, order, Match, lookup), before a word of
    one's name said as it is (``literal``) decides: "can I get a refund" is request_refund's, though
    "get" is get_refund_status's own word."""
    if len(ranked) < 2 or ranked[0][:2] != ranked[1][:2] or ranked[0][4].cues != ranked[1][4].cues:
        return
    if ranked[0][5] != asking and ranked[1][5] == asking:
        ranked[0], ranked[1] = ranked[1], ranked[0]


def _score(
    heard: list[tuple[str, str]],
    vocabulary: _Vocabulary,
    spread: dict[str, int],
    tools: int,
    fallback: Mapping[str, tuple[str, ...]] | None = None,
) -> tuple[float, list[str], bool, int]:
    """(score, words that counted, whether one was strong, how many were the tool's name's) for one tool;
    a concept the tool lacks counts through its associations ("dark" → light, on) at a lower weight."""
    score, cues, strong, in_name = 0.0, [], False, 0
    weights = vocabulary.weights
    for concept, word in heard:
        if concept in weights:
            score += weights[concept] * math.log(1 + tools / spread[concept])
            cues.append(word)
            strong = strong or concept in vocabulary.strong
            in_name += concept in vocabulary.name and concept not in _PARTICLES  # "send up" ≠ wake_up
            continue
        if lexicon.stem(word) in vocabulary.kept:  # "add Ana Silva" to save_contact
            score += KEPT_WEIGHT * math.log(1 + tools / max(1, spread.get(concept, 0)))
            cues.append(word)
            strong = True
            continue
        implies = (*lexicon.associated(concept, word), *(fallback or {}).get(concept, ()))
        for implied in (c for c in implies if c in weights):
            score += ASSOCIATION_WEIGHT * weights[implied] * math.log(1 + tools / spread[implied])
            cues.append(word)
            # an action that implies the tool's own ("stop the music" → pause) asks for it
            strong = strong or (concept in _STRONG_VERBS and implied in vocabulary.strong)
            in_name += implied in vocabulary.name
    return score, cues, strong, in_name


def _names_report(heard: list[tuple[str, str]], vocabulary: _Vocabulary) -> bool:
    """Whether a question names what a lookup reports: a word of its name, its own description or its
    enum values, itself or through an association ("raining" → weather), other than a value's kind
    ("how many days until christmas"). A word only a parameter's description holds does not: "what's my
    name?" asks get_weather, whose ``city`` is "The city name", for nothing."""
    reports = vocabulary.reports
    return any(
        word.lower() not in _GENERIC
        and (concept in reports or any(a in reports for a in lexicon.associated(concept)))
        for concept, word in heard
    )


def _other_verb(heard: list[tuple[str, str]], vocabulary: _Vocabulary) -> bool:
    """An action heard that the tool does not declare ("play" for a tool that only pauses); "check the
    weather" asks a lookup (get_weather) for a look, whatever else "check" can mean."""
    return any(
        c in _STRONG_VERBS
        and c not in vocabulary.weights
        and not any(a in vocabulary.weights for a in lexicon.associated(c, w))  # "remind me" to a to-do app
        and not (vocabulary.lookup and (w.lower() in _LOOKING or c in _LOOK_CONCEPTS))  # a look is a look
        for c, w in heard
    )


def best(text: str, tools: list[ToolSpec]) -> Match | None:
    """The tool ``text`` asks for, or None when nothing matches well enough."""
    text = _STARTING_ON.sub("from", text)  # "starting Friday" is when, not an action
    if not tools or utterance.not_asking(text) is not None:
        return None
    text = utterance.without_told_reasons(utterance.without_closing(text))
    ranked = rank(text, tools)
    # A complaint acts through what it complains of ("the room is too cold": the cold, not the room).
    quality = utterance.remark_quality(text)
    said = {t.lower for t in lexicon.tokens(quality)} if quality is not None else None
    # The best tool the words may call: a higher one they only mention ("where's the car?" names a
    # ride but does not ask for one) gives way to the lookup they ask.
    # A question of what is so is a look: no tool that changes something answers it.
    looking = questions.looks_up(text)
    callable_ = [
        m
        for m in ranked
        if m.strong
        and m.score >= m.min_score
        and (said is None or said & set(m.cues))
        and not (looking and not (_vocabulary(_key(m.tool)).lookup or _vocabulary(_key(m.tool)).handoff))
    ]
    picked = _object_named(callable_[0], callable_) if callable_ else None
    return picked if picked is not None or not looking else _asked_lookup(text, ranked)


def _object_named(picked: Match, callable_: list[Match]) -> Match:
    """``picked``, unless only its name's verb was heard ("set" of ``set_alarm``) and another tool the
    words may call heard that verb too and the thing it is done to ("Set the stock of apples to 12":
    ``update_inventory`` heard "set" and "stock"): a model reads the verb's object for which tool is
    meant, and a bare verb many tools share says nothing of it."""
    verb = lexicon.identifier_words(picked.tool.name).split()[:1]
    cues = {cue.lower() for cue in picked.cues}
    if not verb or {lexicon.concept(cue) for cue in cues} != {lexicon.concept(verb[0])}:
        return picked
    return next((m for m in callable_[1:] if {c.lower() for c in m.cues} > cues), picked)


def _asked_lookup(text: str, ranked: list[Match]) -> Match | None:
    """The lookup a question of what is so reaches when its words name nothing the lookup declares
    strongly ("is there anything good on tomorrow?" → the showtimes for a day): the best-scoring lookup,
    when something it declares was heard (a word, or a kind of value it takes such as a day)."""
    form = evidence.form_of(text)
    said = _heard(text)
    heard = {c for c, _ in said}
    for match in ranked:
        vocabulary = _vocabulary(_key(match.tool))
        generic = bool(match.cues) and set(match.cues) <= _GENERIC  # "how many days until christmas"
        allowed = evidence.allows(form, match.tool, vocabulary, heard)
        # only a parameter's description heard ("what's my name?", the city *name*), no kind it takes
        described_only = (
            bool(match.cues) and not _names_report(said, vocabulary) and not form.kinds & vocabulary.kinds
        )
        if vocabulary.lookup and match.score > 0 and not generic and allowed and not described_only:
            return Match(match.tool, match.score, match.cues, True, 0.0)
    return None


def actions(
    text: str, tools: list[ToolSpec], stands_alone: Callable[[str, Match], bool] | None = None
) -> list[tuple[str, Match]]:
    """The requests in ``text``: one (part, match) per action, in the order said; [] when none matches.
    ``text`` is cleaned first (``utterance.clean``: fillers, a leading dismissal). A later part that is
    only a question ("… and what time is it in Tokyo?") is a request of its own when its own words ask
    for a tool strongly (``_asks_on_its_own``) and ``stands_alone(part, match)`` agrees (the caller's
    check of its arguments); otherwise it is more of the request before it."""
    text = utterance.clean(text)
    text = _without_refused_tool(text, tools)
    parts = [p for p in _SPLIT.split(_kept_whole(text)) if p.strip()]
    if any(utterance.negated(p) for p in parts):  # "open orbit but don't play it": only what is asked
        parts = [p for p in parts if not utterance.negated(p)]
        text = " ".join(parts)
        if not parts:
            return []
    matched: list[tuple[str, Match | None]] = []
    for part, asked in _requests(parts):
        match = best(part, tools)
        if asked and matched and not _asks_on_its_own(part, match, stands_alone):
            joined = f"{matched[-1][0]} and {part}"
            matched[-1] = (joined, best(joined, tools))
        else:
            matched.append((part, match))
    matched = _settings_together(matched, tools)
    if len(matched) > 1 and all(match is not None for _, match in matched):
        return [(part.replace(" & ", " and "), match) for part, match in matched if match is not None]
    whole = best(text, tools)
    return [(text, whole)] if whole is not None else []


def _settings_together(
    matched: list[tuple[str, Match | None]], tools: list[ToolSpec]
) -> list[tuple[str, Match | None]]:
    """Parts that each set another of one tool's settings, by its parameters' words and none of its
    name's, are one request: "Switch my language to Spanish and turn off notifications" is one
    update_preferences call with both, as a model makes it (two calls each with one, once a switch said
    of a declared boolean picked the tool on its own). "Add milk and add eggs" (the name's verb in
    each) stays two."""
    together: list[tuple[str, Match | None]] = []
    for part, match in matched:
        if together and match is not None and _other_setting(together[-1][1], match):
            joined = f"{together[-1][0]} and {part}"
            together[-1] = (joined, best(joined, tools) or match)
        else:
            together.append((part, match))
    return together


def _other_setting(before: Match | None, match: Match) -> bool:
    """``match`` picks ``before``'s tool by words of other parameters than it, none of the tool's name."""
    if before is None or before.tool is not match.tool or not before.cues or not match.cues:
        return False
    vocabulary = _vocabulary(_key(match.tool))
    first, second = ({lexicon.concept(c.lower()) for c in m.cues} for m in (before, match))
    return not (first | second) & vocabulary.name and not first & second


# Words that ask to be told something: "I just want to know where it is", "tell me where it is".
_ASKS = re.compile(r"\b(?:know|tell me|find out|check)\b", re.IGNORECASE)
# Nothing but courtesy after what is refused: "I don't want a refund for A12345, thanks".
_ONLY_COURTESY = re.compile(
    r"(?:(?:thanks|thank you|thx|cheers|please|ok|okay|bye|goodbye)(?: so much| a lot| anyway)?\W*)+",
    re.IGNORECASE,
)


def _without_refused_tool(text: str, tools: list[ToolSpec]) -> str:
    """Only what is wanted when the words refuse one tool and ask for another ("I don't need the weather,
    just the time in Tokyo": get_time, never get_weather); the whole when what is refused only says
    which action is meant ("I don't need the break, straight into the next round": skip the break). When
    what follows the refusal names no tool: a question about what the refused words name ("I don't want a
    refund for order A12345, where is it?") keeps them without the refused tool's name words (the order
    is looked up, never refunded); mere courtesy ("…, thanks") is all that is left."""
    said = utterance.wanted_instead(text)
    if said is None:
        return text
    refused, wanted = (best(words, tools) for words in said)
    if (
        refused is not None
        and wanted is None
        and not phrases.is_question(said[1])
        and not _ASKS.search(said[1])
    ):
        return said[1] if _ONLY_COURTESY.fullmatch(said[1].strip()) else text  # "…, thanks": nothing asked
    if refused is not None and wanted is None:
        # "I don't want a refund for order A12345, where is it?": the question is about what the refused
        # words name (the order), never a call of the refused tool; the words of its name leave them
        named = set(lexicon.identifier_words(refused.tool.name).lower().split())
        kept = " ".join(word for word in said[0].split() if word.strip(".,;:!?").lower() not in named)
        return text.replace(said[0], kept, 1) if kept != said[0] else text
    return said[1] if refused is not None and wanted is not None and refused.tool is not wanted.tool else text


def _requests(parts: list[str]) -> list[tuple[str, bool]]:
    """The parts as requests, each with whether it opens with only a question (no action verb): a part
    with neither is more of the one before ("add eggs and bread and then show my list")."""
    requests: list[tuple[str, bool]] = []
    for part in parts:
        verb = has_verb(part)
        asked = not verb and bool(_OWN_QUESTION.match(part))
        if requests and not verb and not asked:
            requests[-1] = (f"{requests[-1][0]} and {part}", requests[-1][1])
        else:
            requests.append((part, asked))
    return requests


def _asks_on_its_own(
    part: str, match: Match | None, stands_alone: Callable[[str, Match], bool] | None
) -> bool:
    """A question part is a request of its own only on strong evidence from its own words: a score a
    verb-led part needs, a word of the tool said in the part itself (not one a rewrite put there: "what's
    on it" is no list), and not a question of when something happens put to a clock ("what time does the
    Louvre open": the part's only words of the tool are the value's kind)."""
    if match is None or match.score < MIN_SCORE:
        return False
    said = {t.lower for t in lexicon.tokens(part)}
    own = {cue.lower() for cue in match.cues} & said
    if not own:
        return False
    if _WHEN_IT_HAPPENS.search(part) and not own - _GENERIC - _LOOKING - {"open"}:
        return False
    return stands_alone is None or stands_alone(part, match)


def _kept_whole(text: str) -> str:
    """``text`` with the "and" of quoted text and of what follows a short request's colon ("a note called
    gift ideas: a scarf and a book") marked, so it splits no request in two ("and then" still does)."""
    text = _QUOTE.sub(lambda m: m.group(0).replace(" and ", " & "), text)
    colon = _COLON.match(text)
    if colon is None:
        return text
    return text[: colon.end()] + re.sub(r" and (?!then\b)", " & ", text[colon.end() :])


def has_verb(part: str) -> bool:
    """A later part of "… and …" is a request of its own only with a verb: "and play it", "and show me
    my list"; in "add eggs and bread to my list" the "bread to my list" is more of the first's object."""
    if re.match(r"\W*(?:the|a|an|my|our|your|his|her|their)\b", part, re.IGNORECASE):
        return False  # "… and the back": a thing, no verb
    words = [t for t in lexicon.tokens(part) if not t.is_stop or t.lower in LIGHT_VERBS]
    first = next((t for t in words if t.lower not in _POLITE), None)
    # a word an object pronoun follows is used as a verb: "quiz me on it", "book him in"
    used = (
        re.search(rf"\b{re.escape(first.text)}\s+(?:me|him|her|them|us|it|the|my|our|your)\b", part, re.I)
        if first
        else None
    )
    return first is not None and (
        first.concept in lexicon.ACTIONS
        or first.lower in LIGHT_VERBS
        or first.lower in _LOOKING
        or bool(used)
    )


def _heard(text: str) -> list[tuple[str, str]]:
    """The distinct concepts of the content words heard, with the word that carried each."""
    text = lexicon.rewrite(text)  # "what does friday look like" → "list friday" first
    text = _REMINDED.sub(r"\1", text)  # "remind me to book flights": a reminder, not a booking
    text = _NEXT_WHEN.sub("", text)  # "from next Friday" says when: no "next" (skip) asked
    text = _NAMING.sub(r"\1", text)  # "an event called standup" names it: no call is asked for
    text = _SAYING.sub(r"\1", text)  # "a message saying can you take the notes": what it says asks nothing
    text = _DICTATED_AFTER_COLON.sub(r"\1", text)
    text = verbatim.DICTATED_AFTER_RECIPIENT.sub(r"\g<head>", text)  # "email Bob the meeting moved"
    if _NOT_LIKING.search(text):
        text = re.sub(r"\blike\b", " ", text)
    seen: dict[str, str] = {}
    kept = ("up", "down", "on", "off", "like")
    for token in lexicon.tokens(text):
        if (not token.is_stop or token.lower in kept) and token.concept not in seen:
            seen[token.concept] = token.lower
    return list(seen.items())


def _key(tool: ToolSpec) -> str:
    return json.dumps([tool.name, tool.description, tool.parameters], sort_keys=True, default=str)


@dataclass(frozen=True)
class _Vocabulary:
    """What one tool declares, as concepts: ``weights`` (concept → weight), the ``strong`` ones, those
    of its ``name``, whether it is a ``lookup`` (reports something rather than changing it), and the
    ``kinds`` of value its parameters take ("date", "time")."""

    weights: dict[str, float]
    strong: frozenset[str]
    name: frozenset[str]
    lookup: bool
    kinds: frozenset[str]
    enums: frozenset[str] = frozenset()
    # every concept but the form of a value that only a parameter's description holds: the tool reports
    # what it is about, not the form of what the app passes it ("The city name" of get_weather's ``city``
    # reports no name; "Maximum price in dollars" still tells what a search filters by)
    reports: frozenset[str] = frozenset()
    # words (stems) the tool's verb of keeping also means: "add" for save_contact
    kept: frozenset[str] = frozenset()
    # what its description's verb is done to ("table" of "Reserve a table …"): named for, as its name's
    acted_on: frozenset[str] = frozenset()
    # an OpenAI Agents SDK handoff (``transfer_to_<agent>``): a question about what its agent is named
    # for or handles ("what's the weather in Rome?" beside transfer_to_weather) is for that agent
    handoff: bool = False
    # the concepts of its boolean parameters' names, nested ones too ("notifications" of
    # ``preferences: {notifications}``): a switch said of one sets it
    switches: frozenset[str] = frozenset()


@lru_cache(maxsize=4096)
def _vocabulary(key: str) -> _Vocabulary:
    """The vocabulary of one tool (``_key`` JSON)."""
    name, description, parameters = json.loads(key)
    weights: dict[str, float] = {}
    strong: set[str] = set()
    name_concepts = _concepts(lexicon.identifier_words(name), ("up", "down", "on", "off"))  # lamp_on
    parts = _concepts(_phrasal_parts(name), ("back", "out", "up", "in", "off", "down", "over"))
    name_concepts += [c for c in parts if c not in name_concepts]
    _add(weights, name_concepts, NAME_WEIGHT)
    strong |= set(name_concepts[:1])  # the name's first word, usually its verb ("play" of play_music)
    # a verb of keeping names a new record too: "add Ana Silva, her number is …" to save_contact; the
    # word itself, not its concept's other words ("throw in", "stick"), and below the name's own words
    # ("add it to the playlist" still goes to add_to_playlist before save_song)
    verb = lexicon.identifier_words(name).split()[:1]
    kept = frozenset(w for v in verb for w in lexicon.word_associated(v))
    texts = [description or ""]
    properties = schema_values.properties_of(parameters)
    kinds, enums, switches = set(), set(), set()
    for parameter, schema, weight in _declared_parameters(parameters):
        _add(weights, _concepts(lexicon.identifier_words(parameter)), weight)
        if isinstance(schema, Mapping) and schema.get("type") == "boolean":
            switches |= set(_concepts(lexicon.identifier_words(parameter))) - _FLAGS
        if isinstance(schema, Mapping):
            kinds |= {kinds_of.kind_of(parameter, schema), *scalars.units_of(parameter, schema)}
            # a phone number heard fits a tool that takes one, as a day fits one that takes a date
            # ("Save Alice's number, it's 555 123 4567" to add_contact {name, phone})
            kinds |= {"phone"} if addresses.kind_of(parameter, schema) == "phone" else set()
            kinds |= {"card"} if kinds_of.kind_of(parameter, schema) == "card_number" else set()
            kinds |= scalars.counts_of(parameter, schema)
            texts.append(str(schema.get("description", "")))
            for option in schema.get("enum") or []:
                # read through the speech's phrases: "b&w" is black_and_white
                option_words = lexicon.rewrite(lexicon.identifier_words(str(option)))
                option_concepts = [t.concept for t in lexicon.tokens(option_words)]
                _add(weights, option_concepts, ENUM_WEIGHT)
                strong |= set(option_concepts)
                enums |= set(option_concepts)
    declared_before = set(weights) | set(_concepts(description or ""))
    described = _concepts(" ".join(texts))
    _add(weights, described, DESCRIPTION_WEIGHT)
    parameter_described = set(described) - declared_before
    # "Use for 'back', 'close', 'exit'": words the tool's author quoted as its triggers count like its name.
    # (an example value, "e.g. 'groceries'", is no trigger: it is what a parameter may hold)
    quoted = _concepts(" ".join(_QUOTED_WORD.findall(declared.without_examples(" ".join(texts)))))
    _add(weights, quoted, NAME_WEIGHT)
    # "Mute or unmute the user's microphone": the verbs a description starts with are the tool's actions,
    # whatever its name says (set_microphone)
    leading = _concepts(" ".join(declared.leading_verbs(description or "")))
    # "Called when the user wants to update their order": the user's verb is the trigger, as its name is
    _add(weights, leading, NAME_WEIGHT if declared.says_when_called(description or "") else PARAMETER_WEIGHT)
    strong |= set(leading)
    # The thing the description's verb makes is what the tool is for, as a thing its name holds: "Can I
    # get a table?" asks make_reservation "Reserve a table at a restaurant" for it (it counted as any
    # description word, and "get" asked for no reservation). Only a verb that makes or gets a thing: a
    # call named to "Leave the call" ("get me into the call") is asked for no leaving.
    making = bool(set(leading) & _MAKING)
    acted_on = frozenset(_concepts(declared.acted_on(description or "")) if making else ())
    acted_on -= set(name_concepts)
    _add(weights, list(acted_on), PARAMETER_WEIGHT)
    # An OpenAI Agents SDK handoff ("transfer_to_billing", "Handoff to the Billing agent to handle the
    # request. Refunds and billing questions"): what the agent handles, its handoff_description, is what
    # the tool is for, so its words count like the tool's name ("I want a refund" asks for the transfer).
    handled = _HANDOFF.match(description or "") if name.startswith("transfer_to_") else None
    if handled is not None:
        handles = _concepts(handled.group("handles"))
        _add(weights, handles, NAME_WEIGHT)
        strong |= set(handles)
        # "Take me back to the weather agent", "put me through to billing": being put through is what a
        # handoff does, whatever verb asks for it (these counted as another action, and nothing was called)
        _add(weights, _concepts(_PUT_THROUGH), PARAMETER_WEIGHT)
    lookup = _is_lookup(name, description or "")
    if lookup and _WEATHER not in weights and _reports_weather(name, description or "", properties or {}):
        _add(weights, [_WEATHER], PARAMETER_WEIGHT)
    if lookup:
        _add(weights, ["open", "list"], ENUM_WEIGHT)  # "show me / list / view my events" are one request
    strong |= set(quoted) | {c for c in weights if c in _STRONG_VERBS}
    reports = set(weights) - ((parameter_described & _VALUE_FORMS) - set(quoted) - set(leading))
    kinds = {k for k in kinds if k in ("date", "time", "phone", "card") or k.startswith(("unit:", "count:"))}
    return _Vocabulary(
        weights,
        frozenset(strong),
        frozenset(name_concepts),
        lookup,
        frozenset(kinds),
        frozenset(enums),
        frozenset(reports),
        kept,
        acted_on,
        handled is not None,
        frozenset(switches),
    )


def _declared_parameters(parameters: Any) -> list[tuple[str, Any, float]]:
    """Each parameter a tool declares, with its schema and weight: what a tool needs says what it is about
    more than an optional detail does. The parameters inside an object parameter (LiveKit's and Pipecat's
    ``preferences: {language, notifications}``) are the tool's own too, as optional details: "switch my
    language to Spanish" asks update_preferences for it as it asks a flat one (it called nothing)."""
    properties = schema_values.properties_of(parameters) or {}
    needed = schema_values.required_of(parameters)
    declared: list[tuple[str, Any, float]] = []
    for parameter, schema in properties.items():
        declared.append((parameter, schema, PARAMETER_WEIGHT if parameter in needed else OPTIONAL_WEIGHT))
    for schema in properties.values():
        inner = schema_values.object_target(schema, parameters)
        if inner is None or schema_values.properties_of(inner).keys() & properties.keys():
            continue
        declared += [(n, s, OPTIONAL_WEIGHT) for n, s in schema_values.properties_of(inner).items()]
    return declared


_GET = lexicon.concept("get")
_WEATHER = lexicon.concept("weather")
# What a lookup of the conditions at a place may say beside "conditions" and still report nothing else.
_CONDITIONS_ONLY = frozenset(
    lexicon.concept(w)
    for w in ("get", "fetch", "check", "current", "currently", "now", "live", "latest", "present", "right")
)
_CONDITIONS = lexicon.concept("conditions")
# The words of a place a conditions lookup may take beside its parameters' own names.
_PLACE_WORDS = frozenset(lexicon.concept(w) for w in ("city", "town", "location", "place", "area"))


def _reports_weather(name: str, description: str, properties: Mapping[str, Any]) -> bool:
    """A lookup of the conditions now at a place (``current_conditions(city)`` "Get the current conditions
    in a city", ``conditions_now(location)``) reports its weather, as a model reads it: "what's the weather
    in Berlin?" called nothing. Its name says "conditions", a parameter takes the place, and no word of the
    name or description names what else they are of ("road_conditions", "terms_and_conditions")."""
    if _CONDITIONS not in _concepts(lexicon.identifier_words(name)):
        return False
    places = [p for p in properties if holds_place(p)]
    if not places:
        return False
    place_words = set(_concepts(" ".join(lexicon.identifier_words(p) for p in places)))
    said = set(_concepts(f"{lexicon.identifier_words(name)} {description}"))
    return said <= _CONDITIONS_ONLY | _PLACE_WORDS | place_words | {_CONDITIONS, _WEATHER}


# Verbs that make a thing or get it for the user ("Reserve a table", "Order a pizza", "Request a ride").
_MAKING = frozenset(
    lexicon.concept(w) for w in ("create", "add", "buy", "request", "rent", "hire", "register")
)
# Words for the form a parameter's value takes ("The city name", "The order ID"), not for what a tool reports.
_VALUE_FORMS = frozenset(
    lexicon.concept(w)
    for w in ("name", "names", "id", "ids", "identifier", "number", "value", "text", "string", "code")
)
# Verbs that ask to be put through to someone: a handoff's own, beside its name's "transfer".
_PUT_THROUGH = "take send put back through switch connect bring pass hand"
_HANDOFF = re.compile(r"Handoff to the .+? agent to handle the request\.\s*(?P<handles>.*)", re.DOTALL)
_PHRASAL_COMPOUND = re.compile(r"^([a-z]{3,}?)(back|out|up|in|off|down|over)$")


def _phrasal_parts(name: str) -> str:
    """A name's phrasal compounds as their verb and particle ("book_callback" → "call back", "checkout"
    → "check out"): "call me back" asks for a callback."""
    found = (_PHRASAL_COMPOUND.match(w) for w in lexicon.identifier_words(name).split())
    return " ".join(f"{m.group(1)} {m.group(2)}" for m in found if m is not None)


def is_lookup(tool: ToolSpec) -> bool:
    """``tool`` reports rather than changes (``get_weather``, ``lookup_order``, ``forecast``)."""
    return _is_lookup(tool.name, tool.description or "")


def _is_lookup(name: str, description: str) -> bool:
    """A tool that reports rather than changes: its name starts with a read verb (get_weather,
    list_events), or neither its name's first word nor its description's is a verb that changes
    something (``forecast``, ``ride_status`` "Where the driver is…"; not ``change_destination``)."""
    words = lexicon.identifier_words(name).split()
    first = [t.lower for t in lexicon.tokens(description)[:1]]
    # named with a read verb, or described as one ("my_bookings": "List the user's upcoming bookings"), or
    # named for what it reports ("next_departures", "current_balance": no verb at all)
    reports = words and words[0] in _REPORTS and not (first and first[0] in CHANGE_VERBS)
    if (words and words[0] in _READ_VERBS) or (first and first[0] in _DESCRIBED_READS) or reports:
        return True
    changing = [w for w in words[:1] + first if w in CHANGE_VERBS or lexicon.stem(w) in _CHANGE_STEMS]
    # a name's verb comes first; a later word is a noun ("class_schedule", "order_status")
    acting = [c for c in _concepts(" ".join(words[:1])) if c in _STRONG_VERBS and c not in _LOOK_CONCEPTS]
    return not changing and not acting


@lru_cache(maxsize=4096)
def _quoted_phrases(key: str) -> tuple[frozenset[str], ...]:
    """The content concepts of each multi-word usage a tool's description quotes ('show me it working')."""
    _, description, parameters = json.loads(key)
    found = _QUOTED_PHRASE.findall(description or "")
    return tuple(frozenset(c for c in _concepts(phrase) if c not in ("it",)) for phrase in found)


def vocabulary_of(tool: ToolSpec) -> frozenset[str]:
    """Every concept ``tool`` declares (name, parameters, enums, descriptions)."""
    return frozenset(_vocabulary(_key(tool)).weights)


def _concepts(text: str, kept: tuple[str, ...] = ("up", "down")) -> list[str]:
    """The concepts of the content words of ``text`` (and of the ``kept`` particles)."""
    return [t.concept for t in lexicon.tokens(lexicon.rewrite(text)) if not t.is_stop or t.lower in kept]


def _add(weights: dict[str, float], concepts: list[str], weight: float) -> None:
    for concept in concepts:
        weights[concept] = max(weights.get(concept, 0.0), weight)


_STRONG_VERBS = lexicon.ACTIONS
_PARTICLES = frozenset(("up", "down"))
_CHANGE_STEMS = frozenset(lexicon.stem(v) for v in CHANGE_VERBS)  # "Changes …", "Records …"
_LOOK_CONCEPTS = frozenset(("open", "list", "search", "track", "state"))


def describe(match: Match) -> str:
    """Why a tool was picked, for the trace: its score and the words that pointed at it."""
    words = ", ".join(repr(c) for c in match.cues) or "none"
    return f"{match.tool.name} (score {match.score:g}; words {words})"


def tool_values(arguments: Mapping[str, Any]) -> list[str]:
    """The string values of a call's arguments, for naming the thing acted on."""
    return [value for value in arguments.values() if isinstance(value, str)]
