"""Arguments from the words: fill a tool's top-level parameters from what the user said.

In this order, each value taking its words out of the text so no word fills two parameters:

1. quoted text, verbatim, into the first free-text parameter (title, text, message, query, name…);
2. dates ("tomorrow", "March 5th") into ``format: date`` / ``*date*`` / ``*day*`` parameters, clock times
   ("3 pm", "noon") into ``format: time`` / ``*time*`` ones (``date-time`` gets both);
3. numbers, written or spoken, into number/integer parameters, a unit word after the number ("percent",
   "minutes", "degrees", "dollars") choosing among several;
4. enum values (and booleans) by their text or a synonym ("pause it" → ``pause``, "the one before" →
   ``prev``, "thumbs up" → ``up``);
5. strings: the noun phrase the verb governs ("show me the gesture project" → ``gesture project``) into
   the main string parameter (the first required one, else the first); phrases after a preposition
   ("in the kitchen", "called dentist") into the parameter whose name fits the preposition's role;
6. a pronoun ("it", "this one") and no noun phrase → the ``Referent`` (what the last call/output named).

Required parameters are always filled — from the words, else the schema's ``default`` — or reported
missing (the caller asks for them); optional ones only when heard. Values that do not validate against
their property schema are dropped (a required one then counts as missing).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from jsonschema import validators

from mockengine.brain import (
    addresses,
    ahead,
    cards,
    codes,
    heard,
    implied,
    items,
    labels,
    lexicon,
    names,
    objects,
    questions,
    ranges,
    referents,
    scalars,
    schema_values,
    spans,
    things,
    told,
    utterance,
    values,
    verbatim,
)
from mockengine.brain import kinds as kinds_of
from mockengine.brain.options import options_for
from mockengine.brain.phrasing import (
    BLANK,
    OBJECT_PREPOSITIONS,
    ROLES,
    Cues,
    bare,
    only_own_words,
    own_stems,
    split_phrases,
)
from mockengine.brain.places import (
    US_STATE,
    asks_state,
    is_proper_name,
    joined_name,
    known_us_city,
    more_places,
    us_state_code,
    with_state_comma,
)
from mockengine.brain.referents import Referent
from mockengine.brain.values import Span
from mockengine.brain.wordlists import CITY_STATES, NEED_TO, STATE_PARAMETERS

# Objects inside objects filled from the words (a Pydantic model inside a model), at most this deep.
MAX_OBJECT_DEPTH = 2
_PLACES = ("room", "location", "place", "where", "area", "zone", "neighborhood", "neighbourhood", "district")
# Parameters that hold one place, which "in Paris and Rome" asks one call each of.
ONE_PLACE = (*_PLACES, "city", "town", "country", "region")


@dataclass
class Filled:
    """The arguments built, which words filled each (``sources``), and the required ones not filled."""

    arguments: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    used_referent: bool = False
    more: list[tuple[str, str]] = field(default_factory=list)  # other things, other places: one call each


def fill(
    tool_name: str,
    schema: Mapping[str, Any],
    text: str,
    referent: Referent,
    today: date,
    vocabulary: frozenset[str] = frozenset(),
    description: str = "",
    *,
    depth: int = 0,
    as_heard: str = "",
) -> Filled:
    """Arguments for a call described by ``schema`` (a JSON Schema object) from ``text``; the tool's
    ``description`` tells which words are its own, never a value. ``depth``: how deep in objects this
    schema is (a required object parameter is filled as a call of its own, ``_fill_object``); ``as_heard``:
    the words as heard when ``text`` is what an outer object left of them ("" for ``text``)."""
    properties = schema_values.properties_of(schema)  # a required name without one: a free string
    required = schema_values.required_of(schema)
    # a value taken back ("not Paris, Berlin") is no value; a town's US state said without its comma
    # ("Paris Texas") is read as written with it ("Paris, Texas") by a tool that takes a place: a person's
    # name ("a table for Florence Georgia") is no town
    placed = with_state_comma(text) if any(implied.holds_place(name) for name in properties) else text
    said = items.commas_as_and(
        _without_tool_mention(questions.without_frame(utterance.corrected(placed)), tool_name)
    )
    if _takes_street_only(properties):  # "from 40 Elm Rd to 42 Oak Ave, Leeds": the new address
        said = addresses.without_old_address(said)
    # "I need to update my shipping address": the to-do "I need to" names to a to-do tool is no value of a
    # tool that keeps none (it filled ``street: "todo"``)
    to_dos = not vocabulary or lexicon.TO_DO in vocabulary
    if not to_dos:
        # opening the words, "I have to …" frames the request ("I have to add a dentist appointment at
        # 3pm": title "dentist appointment"); inside them it is what is said ("Text John that I need to …")
        said = _NEED_OPENING.sub("", said, count=1)
    else:
        # "Create a task: I have to renew my passport": after the request's own words, "I have to" frames
        # the task, which is "renew my passport" (it was "todo renew my passport")
        said = _NEED_AFTER_FRAME.sub(r"\g<frame> ", said, count=1)
    work = _Work(verbatim.rewritten(said, to_dos=to_dos), today, as_heard or text)
    work.reaches_ahead = ahead.says_ahead(tool_name, description)
    filled = Filled()

    def nested(target: Mapping[str, Any], text: str) -> Filled:
        """An object parameter's own parameters from ``text``, one object deeper; the words as heard go
        with them ("turn off my notifications": the switch's verb, cut as the tool's, says "off" of
        ``preferences.notifications``, which was true by its own word)."""
        return fill(
            tool_name,
            target,
            text,
            referent,
            today,
            vocabulary,
            description,
            depth=depth + 1,
            as_heard=work.heard,
        )

    kinds = {
        name: "other" if _untyped_object(sub, schema) else kinds_of.kind_of(name, sub)
        for name, sub in properties.items()
        if isinstance(sub, Mapping)
    }
    spans.fill_range(work, filled, ranges.pair(properties, kinds))
    spans.fill_time_span(work, filled, kinds)
    spans.fill_route(work, filled, kinds)
    introduction = names.introduction(work.text) if "list" in kinds.values() else None
    if introduction is not None:
        # "I'm Ana, I like chess and hiking", "My name is Ana, …": the speaker's name is no hobby (it was
        # ``["Ana", "chess", "hiking"]``, and "name" one); the whole introduction is taken out before any
        # list is read, with the "and" that joins the next clause (a blank would cut the list's phrase),
        # its name given to a parameter that takes the speaker's own
        wanted = [n for n, k in kinds.items() if k in _STRINGS and names.takes_own_name(n, tool_name)]
        if wanted:
            filled.arguments[wanted[0]] = introduction.value
            filled.sources[wanted[0]] = f"{introduction.value} (introduced)"
        after = re.sub(r"^\s*(?:,|\band\b)?\s*", "", work.text[introduction.end :])
        head = work.text[: introduction.start].rstrip()
        work.text = f"{head} {after}" if head and after else head or after
    _fill_introduced(work, filled, [n for n, k in kinds.items() if k in _STRINGS], tool_name)
    # "subject: Report, body: The report is attached": a form filled in words, each value by its name (the
    # labels read as words, the body was asked for, the subject took "Report, body")
    unfilled = {n: properties[n] for n in kinds if n not in filled.arguments}
    # "… body: Bus leaves at 9. CC dave@example.com" to a tool with no ``cc``: the copy is no part of the
    # body (it was pasted into it)
    work.text = labels.without_copies_not_taken(work.text, dict(properties))
    for name, value, start, end in reversed(labels.labelled_fields(work.text, unfilled)):
        filled.arguments[name] = value
        filled.sources[name] = f"{work.take(Span(value, start, end))} (said by its name)"
    _fill_expiry_parts(work, filled, {n: properties[n] for n, k in kinds.items() if k == "expiry_part"})
    # an address object's parts; a tool's own street and city only from an address that ends the words
    # (a flat, a state or a code after the town keep their reading, _fill_postal_address)
    _fill_street_and_town(work, filled, properties, kinds, ending=depth == 0)
    # "…, assign it to Maria", "…, tag it auth and frontend": an instruction about the thing made, said
    # after it, is read before the passes that take a title or a message (its words leaked into the title)
    _assigned_to(work, filled, [n for n, k in kinds.items() if k in ("string", "person")])
    _labelled_lists(work, filled, [n for n, k in kinds.items() if k == "list"])
    for kind in _PASSES:
        passed = [n for n, k in kinds.items() if k == kind or (kind, k) in _ALSO]
        if kind == "quoted" and not any(n in required for n in passed if spans.fits(n, _ONE_LINE)):
            # what is dictated ("email Bob: the meeting moved") is the message, not an optional subject
            # declared before it
            passed.sort(key=lambda n: not spans.fits(n, ROLES["saying"]))
        for name in passed:
            # a detail's value before its name ("to my Spanish deck"); a required one's name may be
            # part of the value ("the living room")
            if name not in filled.arguments and not (
                kind == "label" and (name in required or spans.fits(name, _PLACES))
            ):
                rivals = [
                    n for n, k in kinds.items() if k in _STRINGS and n != name and n not in filled.arguments
                ]
                _fill_one(work, filled, name, properties[name], kind, rivals)
    _more_paths(work, filled, [n for n in kinds if addresses.takes_path(n, properties[n])])
    _address_lists(work, filled, {n: properties[n] for n, k in kinds.items() if k == "list"})
    _labelled_lists(work, filled, [n for n, k in kinds.items() if k == "list"])
    if depth < MAX_OBJECT_DEPTH:  # before the free strings, which would take the list's words
        for name in [n for n in required if n not in filled.arguments]:
            _fill_object_list(work, filled, name, schema, nested)
    _changed_to(work, filled, [n for n, k in kinds.items() if k in ("string", "person")])
    textual = [n for n, k in kinds.items() if k in ("string", "identifier") and n in required]
    as_said = any(n in filled.arguments for n in textual)  # quoted, or after "saying" / a colon
    strings = [n for n, k in kinds.items() if k in _STRINGS and n not in filled.arguments]
    lists = frozenset(n for n, k in kinds.items() if k == "list")
    cues = _cues(tool_name, description, vocabulary, referent)
    # a strict-mode optional (required but nullable) is filled as an optional one: only when meant
    needed = [n for n in required if not schema_values.admits_null(properties.get(n))]
    _fill_strings(work, filled, _Strings(strings, needed, cues, as_said, lists))
    spans.without_leading_verb(filled, text, [n for n in strings if n not in required])
    free = [n for n in required if kinds.get(n) == "string" and not spans.fits(n, ONE_PLACE)]
    labels.fill_beside_label(
        work.said, filled.arguments, filled.sources, free, lambda value: only_own_words(value, cues)
    )
    for name in [n for n in required if n not in filled.arguments and isinstance(properties.get(n), Mapping)]:
        cleared = verbatim.clearing_value(work.said, properties[name])  # "lose the filter" → 'all'
        if cleared is not None:
            filled.arguments[name], filled.sources[name] = cleared, "(the value its description clears with)"
    for name in scalars.implied_on(filled.arguments, properties, required):
        filled.arguments[name], filled.sources[name] = "on", "(a level was set)"
    for name in scalars.implied_enabled(filled.arguments, properties, required):
        filled.arguments[name], filled.sources[name] = True, "(a detail was set)"
    _required_options_from_all(work, filled, properties, [n for n in required if kinds.get(n) == "enum"])
    for name in [n for n in required if n not in filled.arguments and kinds.get(n) == "enum"]:
        # a required filter offering a catch-all ("any", "all"), no option said: the catch-all, as a model
        # sends ``category: "any"`` for "any sales going on?" rather than asking which
        options = kinds_of.one_branch(properties[name]).get("enum") or []
        catch_all = next((o for o in options if isinstance(o, str) and o.lower() in _CATCH_ALL), None)
        if catch_all is not None:
            filled.arguments[name], filled.sources[name] = catch_all, "(the catch-all option)"
            continue
        # a required unit, none said ("weather in Paris" to ``unit: ["metric", "imperial"]``): the
        # default or first option, as a model picks one rather than asking which
        picked = verbatim.unit_unsaid(work.heard, name, kinds_of.one_branch(properties[name]))
        # a unit of a number the user gives (set_thermostat's temperature, log_weight's weight) is theirs
        # to say: "Set the thermostat to 72" is no 72 degrees Celsius
        measured = any(kinds.get(other) == "number" for other in properties if other != name)
        if picked is not None and not measured:
            # the option left when the other was refused ("not celsius") is the user's, not the place's
            options = kinds_of.one_branch(properties[name]).get("enum") or []
            left = any(verbatim.refused_unit(work.heard, name, o) for o in options)
            filled.arguments[name], filled.sources[name] = (
                picked,
                ("(the option left)" if left else _UNIT_UNSAID),
            )
    for name in [n for n in required if n not in filled.arguments and kinds.get(n) in ("boolean", "enum")]:
        verb = (
            scalars.own_verb(work.said, tool_name)
            if kinds[name] == "boolean"
            else scalars.own_verb_option(
                work.said, tool_name, kinds_of.one_branch(properties[name]).get("enum")
            )
        )
        if verb is not None:
            filled.arguments[name], filled.sources[name] = verb.value, "(the tool's own verb)"
    for name in [
        n for n in required if isinstance(properties.get(n), Mapping) and heard.takes_object(properties[n])
    ]:
        if isinstance(filled.arguments.get(name), dict):
            continue
        found = heard.heard_value(work.said, name, properties[name], loose=False)  # "share with bob@x.org"
        if isinstance(found, dict) and _valid_property(name, found, schema):
            filled.arguments[name], filled.sources[name] = found, "(an object whose parts were heard)"
    if depth < MAX_OBJECT_DEPTH:
        for name in [n for n in required if n not in filled.arguments]:
            _fill_object(work, filled, name, schema, nested)
    _fill_postal_address(work, filled, properties, kinds)
    _fill_wider_place(work, filled, properties, kinds)
    _town_in_country(work, filled, properties, vocabulary)
    _without_request_verbs(work, filled, kinds)
    _without_price_asked(filled, kinds, vocabulary)
    _owners_of_details(work, filled, kinds)
    _languages_only(filled)
    _place_name_within(filled, kinds, work.said)
    _places_as_names(filled)
    _implied_by_place(filled, properties)
    if measures(tool_name, description):
        _optional_unit_of_place(work, filled, properties, kinds, required)
    _unit_of_place(filled, properties, work.said)
    _us_state_kept(work, filled, properties)
    for name, value in filled.arguments.items():  # an object built from parts heard ("Location")
        if isinstance(value, dict) and isinstance(properties.get(name), Mapping):
            inner = schema_values.resolve(dict(properties[name]), schema)
            part = Filled({k: v for k, v in value.items() if v is not None})
            _implied_by_place(part, schema_values.properties_of(inner))
            value.update({k: v for k, v in part.arguments.items() if value.get(k) is None})
    for name in [
        n for n in required if kinds.get(n) == "string" and told.tells_the_matter(n, tool_name, description)
    ]:
        value = filled.arguments.get(name)
        if value is None or len(str(value).split()) < 2 or isinstance(value, str):
            # "never" of "my package never arrived, …"; "my laptop won't on" of "… won't turn on": the
            # clause that holds the value's words, and more, tells it better
            clause = told.told_clause(text, cues)
            longer = (
                isinstance(value, str)
                and len(clause or "") > len(value)
                and told.tells_better(clause or "", value)
            )
            if clause is not None and (
                value is None or len(str(value).split()) < 2 or longer or _the_request(str(value))
            ):
                filled.arguments[name], filled.sources[name] = clause, "(the clause that tells what happened)"
    for name in [n for n in properties if kinds.get(n) == "string" and told.gives_the_reason(n)]:
        if name in filled.arguments:
            continue
        # "My order A12345 arrived broken, I want a refund": the reason the user gave, as a model fills an
        # optional ``reason`` (it was left out)
        others = [v for k, v in filled.arguments.items() if k != name and isinstance(v, str)]
        reason = told.reason_told(text, cues, others)
        if reason is not None:
            filled.arguments[name], filled.sources[name] = reason, "(the reason the words told)"
    _split_full_name(filled, list(properties))
    _question_as_asked(text, filled, [n for n in required if kinds.get(n) == "string"])
    for name in [
        n
        for n in properties
        if codes.record_words(n)
        and (
            codes.said_as_time(work.said, filled.arguments.get(n))
            or addresses.is_street_with_number(str(filled.arguments.get(n, "")))
        )
    ]:
        # "I have a reservation for 4 people at 7": the time is when, no reservation's id; nor is "10
        # Downing Street" of "a reservation at 10 Downing Street" (a street is where)
        del filled.arguments[name]
        filled.sources.pop(name, None)
    for name in [n for n, v in filled.arguments.items() if verbatim.refused_unit(work.said, n, v)]:
        # "Weather in Paris. Not fahrenheit" to ``unit: ["celsius", "fahrenheit"]``: not the refused unit;
        # of two, the other is the one wanted (a model sends celsius), of more, which is asked
        refused = filled.arguments.pop(name)
        filled.sources.pop(name, None)
        options = kinds_of.one_branch(properties.get(name) or {}).get("enum")
        rest = [o for o in options if o != refused] if isinstance(options, list) else []
        if len(rest) == 1:
            filled.arguments[name], filled.sources[name] = rest[0], f"(the option left: not {refused})"
    if ahead.says_ahead(tool_name, description):
        _days_ahead(work, filled, properties, kinds)
    _without_bare_verb(work, filled, kinds)
    _finish(filled, schema, required, lists)
    return filled


def _days_ahead(work: _Work, filled: Filled, properties: Mapping[str, Any], kinds: Mapping[str, str]) -> None:
    """A time to come said as a span, not a count ("this week", "tomorrow", "over the next few days"),
    to a tool that reaches ahead (a forecast; a snooze's ``days`` counts otherwise): a count of days
    not filled (``get_forecast(city, days)``) takes how many days from today reach it
    (7, 2, 3), and a date not filled takes today's for a span that starts today ("this week"), as a
    model fills them; "How many days?" was asked."""
    when = ahead.said(work.said, work.today)
    if when is None:
        return
    said = when.words.lower().split()
    for name, value in filled.arguments.items():
        # "Paris the day after" of "… in Paris the day after tomorrow": the time's opening words are none
        # of the place's
        words = value.split() if isinstance(value, str) else []
        cut = next((k for k in range(len(said) - 1, 0, -1) if [w.lower() for w in words[-k:]] == said[:k]), 0)
        if cut and len(words) > cut:
            filled.arguments[name] = " ".join(words[:-cut])
    for name, sub in properties.items():
        if name in filled.arguments:
            continue
        if ahead.days_parameter(name, sub):
            days = min(when.days, sub.get("maximum", when.days))  # a forecast of at most 5 days: 5
            filled.arguments[name], filled.sources[name] = days, f"{when.phrase} (days from today)"
        elif kinds.get(name) in ("date", "datetime") and when.phrase.startswith(("this week", "over the")):
            day = work.today.isoformat()
            filled.arguments[name] = day if kinds[name] == "date" else f"{day}T00:00:00"
            filled.sources[name] = f"{when.phrase} (from today)"


def _without_bare_verb(work: _Work, filled: Filled, kinds: Mapping[str, str]) -> None:
    """A free string that is nothing but the request's verb is no value: "Add a task, please" to
    ``create_task(task)`` gave the task "Add"; dropped, a required one is asked for, as a model asks
    what the task is."""
    for name, value in list(filled.arguments.items()):
        if kinds.get(name) not in _STRINGS or not isinstance(value, str) or len(value.split()) != 1:
            continue
        if filled.sources.get(name, "").startswith("(") or not things.is_request_verb(value, work.said):
            continue
        del filled.arguments[name]
        filled.sources.pop(name, None)


def _changed_to(work: _Work, filled: Filled, strings: list[str]) -> None:
    """A free string said as the speaker's own detail and its new value ("Update my country to France",
    "set my city to Lyon", "my nickname is Bo"): that parameter takes the value, and its name is no
    other parameter's value (``city: "country"`` was filled before), as a model reads the detail
    named."""
    for name in [n for n in strings if n not in filled.arguments]:
        label = r"\s+".join(re.escape(w) for w in lexicon.identifier_words(name).split())
        if not label:
            continue
        found = re.search(
            rf"\b(?:my|our|the)\s+{label}\s+(?:to|is|as)\s+(?P<value>[^\s,.;!?¦][^,.;!?¦]{{0,60}}?)"
            r"(?=\s*(?:[,.;!?¦]|$|\b(?:and|please|instead|now)\b))",
            work.text,
            re.IGNORECASE,
        )
        if found is None or BLANK in found.group("value"):
            continue
        value = found.group("value").strip()
        if not lexicon.tokens(value) or all(t.is_stop for t in lexicon.tokens(value)):
            continue  # "set my city to it"
        work.take(Span(value, found.start(), found.end()))
        filled.arguments[name], filled.sources[name] = value, f"{found.group(0)} (said as the detail changed)"


_ASKED = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<q>(?:what|what's|which|when|where|who|why|how|is|are|do|does|can|could|will|would"
    r"|should|did|have|has)\b[^.!?]*\?)",
    re.IGNORECASE,
)


_DETERMINERS = frozenset(("a", "an", "the", "new", "another", "my", "our"))


def _the_request(value: str) -> bool:
    """``value`` is the request's own words, an action and its object ("open a support" of "Can you open a
    support ticket? My laptop won't turn on"), not what happened."""
    words = list(lexicon.tokens(value))
    return len(words) >= 2 and words[0].concept in lexicon.ACTIONS and words[1].lower in _DETERMINERS


def _question_as_asked(text: str, filled: Filled, strings: list[str]) -> None:
    """A required ``question`` (``user_question``, ``inquiry``) of a tool the user's question is put to
    ("Ask any question related to our restaurant") takes the question as asked ("What are your opening
    hours?"), as a model passes it on, not a phrase cut from it."""
    for name in strings:
        if lexicon.identifier_words(name).split()[-1:] not in (["question"], ["inquiry"]):
            continue
        asked = _ASKED.search(text.strip())
        if asked is not None:
            filled.arguments[name], filled.sources[name] = asked.group("q").strip(), "(the question as asked)"


def implied_again(
    filled: Filled, schema: Mapping[str, Any], tool_name: str = "", description: str = ""
) -> None:
    """``filled`` with what its place implies made anew: one call per place ("weather in Paris and in
    Rome") gives Rome's call Italy, not Paris's France; an optional unit only for a tool that
    ``measures`` (by its name and description; without them, as one that does)."""
    for name in [n for n, source in filled.sources.items() if source.startswith(_IMPLIED)]:
        filled.arguments.pop(name, None)
        filled.sources.pop(name, None)
    _implied_by_place(filled, schema_values.properties_of(schema))
    properties = schema_values.properties_of(schema)
    places = [v for n, v in filled.arguments.items() if isinstance(v, str) and implied.holds_place(n)]
    required = schema_values.required_of(schema)
    for name, about in properties.items():
        # "weather in Paris and Denver": Denver's call takes the optional unit Paris's left out (a unit
        # said is in both calls already)
        unit = kinds_of.one_branch(about) if isinstance(about, Mapping) else {}
        if name in required or name in filled.arguments or not places or "enum" not in unit:
            continue
        if (tool_name or description) and not measures(tool_name, description):
            continue
        if verbatim.unit_unsaid("", name, unit) is None:
            continue
        picked = _unit_for_place(places[0], unit)
        if picked is not None:
            filled.arguments[name], filled.sources[name] = picked, _UNIT_OF_PLACE
    _unit_of_place(filled, properties)
    order = {name: index for index, name in enumerate(schema_values.properties_of(schema))}
    filled.arguments = dict(sorted(filled.arguments.items(), key=lambda e: order.get(e[0], len(order))))


_IMPLIED = "(implied by "
# The source of a required unit enum no word gave (``verbatim.unit_unsaid``), and of the one a US place
# gave (``_unit_of_place``).
_UNIT_UNSAID = "(no unit said: the default or first option)"
_UNIT_OF_THE_US = "(no unit said: a place in the US, in Fahrenheit)"
_UNIT_OF_PLACE = "(no unit said, none required: the unit the place measures in)"
_DIRECTIONS = frozenset(("from", "to", "source", "target", "base", "quote", "input", "output", "src", "dest"))


# A tool whose answer is a measure a unit sets: the weather's, a route's or a distance's ("get_weather",
# "Get driving directions"); a store finder's or an events list's optional unit is the app's own.
_MEASURES = re.compile(
    r"weather|forecast|temperature|climate|conditions|direction|route|navigat|distance|commute|travel"
    r"|\btrip|\bdrive|driving|elevation|altitude|speed|wind|rain|snow",
    re.IGNORECASE,
)


def measures(tool_name: str, description: str) -> bool:
    """Whether the tool named ``tool_name`` (``description``) answers with a measure a unit sets
    (``_MEASURES``): only then does a US place fill its optional unit (``_optional_unit_of_place``)."""
    return _MEASURES.search(f"{lexicon.identifier_words(tool_name)} {description}") is not None


def _optional_unit_of_place(
    work: _Work, filled: Filled, properties: Mapping[str, Any], kinds: Mapping[str, str], required: list[str]
) -> None:
    """An optional unit enum no word gave, for a place in the United States: its US unit ("weather in
    Paris, Texas" → ``units: imperial``, ``unit: fahrenheit``), as a model fills a unit the place
    settles though the schema lets it out, the app's default being most likely metric. Anywhere else it
    is left out (the labelled ``user_r1`` case "use get_weather for Paris" → ``{city: Paris}``: the
    default already fits), and so it is for an enum with no US option; a unit said, or a number the
    user gives in its unit (a thermostat's 72), is theirs, as for a required unit (``_UNIT_UNSAID``)."""
    places = [v for n, v in filled.arguments.items() if isinstance(v, str) and implied.holds_place(n)]
    if not places or any(kinds.get(other) == "number" for other in properties):
        return
    for name in [n for n in properties if n not in required and n not in filled.arguments]:
        schema = kinds_of.one_branch(properties.get(name) or {})
        if kinds.get(name) != "enum" or verbatim.unit_unsaid(work.heard, name, schema) is None:
            continue
        picked = _unit_for_place(places[0], schema, work.said)
        if picked is not None:
            filled.arguments[name], filled.sources[name] = picked, _UNIT_OF_PLACE


def _unit_for_place(value: str, schema: Mapping[str, Any], said: str = "") -> Any | None:
    """The option of a unit enum the US place ``value`` measures in (``_optional_unit_of_place``), or
    None when the place is not in the US or the enum offers none of its units."""
    return verbatim.us_unit(schema) if implied.in_the_us(value, said) else None


def _unit_of_place(filled: Filled, properties: Mapping[str, Any], said: str = "") -> None:
    """A required unit enum no word gave, from the place another parameter holds: Fahrenheit for a
    place in the United States ("weather in Denver"), as a model picks it there; the
    schema's default or first option anywhere else (``verbatim.unit_unsaid``). One call per place ("in
    Paris and in Denver") makes each its own; ``said``, the words, may name the state after the town
    ("Springfield, IL")."""
    places = [v for n, v in filled.arguments.items() if isinstance(v, str) and implied.holds_place(n)]
    for name in [n for n, s in filled.sources.items() if s == _UNIT_OF_PLACE]:  # optional: the place's own
        schema = kinds_of.one_branch(properties.get(name) or {})
        picked = _unit_for_place(places[0], schema, said) if places else None
        if picked is None:
            del filled.arguments[name], filled.sources[name]
        else:
            filled.arguments[name] = picked
    for name in [n for n, s in filled.sources.items() if s in (_UNIT_UNSAID, _UNIT_OF_THE_US)]:
        schema = kinds_of.one_branch(properties.get(name) or {})
        us = verbatim.us_unit(schema) if places and implied.in_the_us(places[0], said) else None
        if us is not None:
            filled.arguments[name], filled.sources[name] = us, _UNIT_OF_THE_US
            continue
        options = schema.get("enum") or []
        default = schema.get("default")
        filled.arguments[name] = default if default in options else options[0]
        filled.sources[name] = _UNIT_UNSAID


def _us_state_kept(work: _Work, filled: Filled, properties: Mapping[str, Any]) -> None:
    """ "Weather in Paris, Texas": a place parameter that is no city's alone (``location``) keeps the US
    state said after the town, as its postal code ("Paris, TX"), the way OpenAI's function-calling guide
    writes a location ("San Francisco, CA") and a model tells Paris, Texas from Paris, France; unless a
    state parameter takes the state. A ``city`` keeps the town alone."""
    if any(n in STATE_PARAMETERS for n in properties):
        return
    for name, value in list(filled.arguments.items()):
        words = set(lexicon.identifier_words(name).lower().split())
        if (
            not isinstance(value, str)
            or "," in value
            or {"city", "town"} & words
            or not implied.holds_place(name)
        ):
            continue
        found = re.search(rf"\b{re.escape(value)},?\s+(?P<state>{US_STATE})", work.said)
        code = us_state_code(found.group("state")) if found is not None else None
        sub = properties.get(name)
        description = str(sub.get("description", "")) if isinstance(sub, Mapping) else ""
        if code is None and asks_state(description):
            # "The city and state, e.g. San Francisco, CA": a well-known US city said alone is sent with its
            # state, as a model writes it (it was "San Francisco")
            code = known_us_city(value)
        if code is not None:
            filled.arguments[name] = f"{value}, {code}"


def _implied_by_place(filled: Filled, properties: Mapping[str, Any]) -> None:
    """A timezone, country, currency or language not heard, from the place another parameter holds
    ("the time in Tokyo" → ``timezone: Asia/Tokyo``; ``implied``)."""
    places = [
        (name, value)
        for name, value in filled.arguments.items()
        if isinstance(value, str) and implied.holds_place(name)
    ]
    asked = {
        name: implied.asks(name, schema) for name, schema in properties.items() if isinstance(schema, Mapping)
    }
    for name, schema in properties.items():
        if name in filled.arguments or not isinstance(schema, Mapping):
            continue
        kind = asked.get(name)
        if kind is None or schema.get("type", "string") not in ("string", ["string", "null"]):
            continue
        same = [other for other, k in asked.items() if k == kind]
        if len(same) > 1 and any(set(lexicon.identifier_words(o).split()) & _DIRECTIONS for o in same):
            continue  # a source and a target language ("translate … from/to"): the place says neither
        for held, value in places:
            where = implied.place(value)
            found = implied.value_for(kind, where, schema) if where is not None else None
            if found is not None and held != name:
                filled.arguments[name], filled.sources[name] = found, f"{_IMPLIED}{held} {value!r})"
                break


def _languages_only(filled: Filled) -> None:
    """A language parameter holds a language the words name ("in Portuguese"), never another phrase
    ("I'm planning a trip to Lisbon" gave ``language: Lisbon``): a value that names none is dropped."""
    for name, value in list(filled.arguments.items()):
        if not isinstance(value, str) or not names.takes_a_language(name):
            continue
        if not filled.sources.get(name, "").startswith("(") and not names.names_a_language(value):
            del filled.arguments[name]
            filled.sources.pop(name, None)


# A run of capitalised words, the way a place's name is written ("Tokyo", "Salt Lake City", "Rio de Janeiro").
# A day or month after a place is when, not the place's name ("Oslo on Friday", "Paris in May" is no
# run; "Stratford upon Avon" is).
_DAY_OR_MONTH = (
    r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June"
    r"|July|August|September|October|November|December)\b"
)
_CAPITALISED_RUN = re.compile(
    r"(?<![\w'])[A-Z][\w'.-]*(?:\s+(?:(?:de|del|la|le|upon|on|of)\s+)?(?!"
    + _DAY_OR_MONTH
    + r")[A-Z][\w'.-]*)*"
)
# The words a place's name is said among that say nothing of which place: a preposition, a verb of going
# ("visiting", "flying"), what is left of a date ("next" of "next week"). A noun ("the time difference
# with Tokyo") says the value is something else.
_AROUND_A_PLACE = frozenset(
    ("in", "at", "to", "for", "from", "near", "around", "next", "this", "last", "coming")
)
# Parameters that hold one named town or country, never a street or a description of where.
_TOWN_OR_COUNTRY = ("city", "town", "country", "destination")


def _place_name_within(filled: Filled, kinds: Mapping[str, str], said: str) -> None:
    """A town's or country's parameter that took a phrase around the name ("visiting Tokyo next" of "I'm
    visiting Tokyo next week", "in Tokyo next") holds the name alone, as a model fills ``city: Tokyo``:
    when the phrase holds exactly one run of capitalised words and the rest is lower case (so no street,
    no number, no second name), that run is the value. One that took only such words, no name ("flying"
    of "I'm flying to Oslo on Friday, will I need a coat?": the filler read "I'm X"), holds the place
    ``said`` names (``place_said``), when it names one."""
    for name, value in list(filled.arguments.items()):
        if (
            kinds.get(name) != "string"
            or not isinstance(value, str)
            or not spans.fits(name, _TOWN_OR_COUNTRY)
        ):
            continue
        # "Heading" of "Heading to Berlin on Monday": a verb of going that opens the words is no name
        runs = [
            m
            for m in _CAPITALISED_RUN.finditer(value)
            if m.group(0) != "I" and not (m.start() == 0 and _only_around_a_place([m.group(0).lower()]))
        ]
        if not runs and _only_around_a_place(value.split()):
            # a verb of going, the filler's "I'm X"; a place another parameter holds is not this one's
            # (a country left as a preposition is the city's country, filled later)
            going = any(word.lower().endswith("ing") for word in value.split())
            named = place_said(said) if going and implied.place_name(value) is None else None
            if named is not None and named not in filled.arguments.values():
                filled.arguments[name] = named
            continue
        if len(runs) != 1 or runs[0].group(0) == value or re.search(r"\d", value):
            continue
        rest = (value[: runs[0].start()] + " " + value[runs[0].end() :]).split()
        if _only_around_a_place(rest):
            filled.arguments[name] = runs[0].group(0)


def _only_around_a_place(words: list[str]) -> bool:
    """``words`` say nothing of which place: prepositions, a verb of going ("visiting", "flying"), what is
    left of a date."""
    return all(word.lower() in _AROUND_A_PLACE or word.lower().endswith("ing") for word in words)


def place_said(text: str) -> str | None:
    """The first place ``text`` names: a name said where a place is ("flying to Tokyo", "heading to
    Tokyo", "my trip to Tokyo") or a city or country the tables know ("Tokyo next week"), as a model fills
    ``city`` from any mention of one; None when none is."""
    for match in _CAPITALISED_RUN.finditer(text):
        value = match.group(0)
        if value != "I" and (at_a_place(value, text) or implied.place_name(value) == value):
            return value
    return None


def at_a_place(value: str, text: str) -> bool:
    """``value`` is said where a place is ("in Tromsø", "from Leeds", "to Springfield")."""
    return re.search(rf"\b(?:in|at|from|to|near|around)\s+{re.escape(value)}\b", text) is not None


def _places_as_names(filled: Filled) -> None:
    """A place typed in lower case is written as its name, as a model writes it ("the weather in paris" →
    ``city: Paris``): a city or country the tables know (``implied.place_name``), in a parameter that
    holds a place; other words stay as said."""
    for name, value in list(filled.arguments.items()):
        if not isinstance(value, str) or value != value.lower():
            continue
        if not (implied.holds_place(name) or spans.fits(name, ONE_PLACE)):
            continue
        written = implied.place_name(value)
        if written is not None:
            filled.arguments[name] = written


def _without_request_verbs(work: _Work, filled: Filled, kinds: Mapping[str, str]) -> None:
    """A place, person or product said as the request's verb is no value ("Please transfer me to the
    weather agent" gives no city 'transfer'): it is dropped, so a required one is asked for
    (``things``)."""
    for name, value in list(filled.arguments.items()):
        if kinds.get(name) not in _STRINGS or not isinstance(value, str) or not things.names_a_kind(name):
            continue
        if filled.sources.get(name, "").startswith("(") or not things.is_request_verb(value, work.said):
            continue  # a value from the conversation, or one that can be the thing
        del filled.arguments[name]
        filled.sources.pop(name, None)


# The price asked of a thing ("what does a Margherita cost?" is read "price of a Margherita"): the thing is
# the value of a parameter that names it, the price what the lookup reports.
_PRICE_OF = re.compile(
    r"^(?:the\s+)?(?:price|prices|cost|costs)\s+of\s+(?:the\s+|a\s+|an\s+)?(?P<thing>\S.*)$", re.I
)


def _without_price_asked(filled: Filled, kinds: Mapping[str, str], vocabulary: frozenset[str]) -> None:
    """A string value "price of Margherita" for a tool that declares no price (``get_menu_item
    {name}``) is the thing, "Margherita"; a tool that reports prices leaves out its own word already."""
    if "price" in vocabulary:
        return
    for name, value in list(filled.arguments.items()):
        found = _PRICE_OF.match(value) if kinds.get(name) in _STRINGS and isinstance(value, str) else None
        if found is not None:
            filled.arguments[name] = found.group("thing")


# "Ana Silva's number": whose a contact detail is ("Save Ana Silva's number 555-…" names Ana Silva).
_OWNER_OF_DETAIL = re.compile(
    r"(?:^|\s)(?P<owner>[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3})['’]s"
    r"(?:\s+(?:(?:new|mobile|cell|home|work|phone|email|e-mail|contact)\s+)?"
    r"(?:number|phone|mobile|email|e-mail|address|details|contact|info|information)\b.*)?$"
)


def _owners_of_details(work: _Work, filled: Filled, kinds: Mapping[str, str]) -> None:
    """A name parameter (``name``, ``contact_name``, a person's) given "Ana Silva's number" or "Save Ana
    Silva's" takes whose the detail is, "Ana Silva", as a model does ("Tom's birthday party", a thing of
    Tom's, not a detail, is kept); given the request's verb before a proper name ("Add Ana Silva" to
    save_contact, whose own verb is not "add"), the name alone."""
    for name, value in list(filled.arguments.items()):
        words = lexicon.identifier_words(name).split()
        if not isinstance(value, str) or not (kinds.get(name) == "person" or words[-1:] == ["name"]):
            continue
        if len(value.split()) == 1 and names.known_word(value) and things.is_request_verb(value, work.said):
            # "Save the number 555-… for Ana Silva": the request's verb alone is no one's name
            whose = names.booked_for(work.said)
            if whose is None:
                del filled.arguments[name]
                filled.sources.pop(name, None)
            else:
                filled.arguments[name] = filled.sources[name] = str(whose.value)
            continue
        found = _OWNER_OF_DETAIL.search(value)
        said = found.group("owner").split() if found is not None else value.split()
        if len(said) > 1 and names.known_word(said[0]) and things.is_request_verb(" ".join(said), work.said):
            said = said[1:]  # "Save Ana Silva's": the request's verb, capitalised to open it
        if (found is not None or said != value.split()) and all(w[:1].isupper() for w in said):
            filled.arguments[name] = " ".join(said)


def _fill_postal_address(
    work: _Work, filled: Filled, properties: Mapping[str, Any], kinds: dict[str, str]
) -> None:
    """ "12 Oak Street, Springfield, 62704": an address read out in one go after the street filled (a
    house number, a name, its kind) gives the town after it to an empty ``city``/``town`` and the code
    after the town (a US zip, a Canadian or British postcode; a state's two capitals between are
    skipped) to an empty zip or postal code parameter, as a model reads it. Left empty, the caller was
    asked "Which city do you mean?" for the town just said."""
    for name, value in list(filled.arguments.items()):
        trimmed = addresses.street_at_end(value) if isinstance(value, str) else None
        # "42 Oak Ave starting next week": when the move is, no part of where
        trimmed = (addresses.street_then_words(value) if isinstance(value, str) else None) or trimmed
        if trimmed is not None and {"street", "address"} & set(lexicon.identifier_words(name).split()):
            filled.arguments[name] = trimmed  # "my new address is 12 Main St.": the street, not the words
    town = next((n for n in properties if n in ("city", "town") and kinds.get(n) == "string"), None)
    if town is not None and not isinstance(filled.arguments.get(town), str):
        for name, value in list(filled.arguments.items()):
            opening = addresses.street_opening(value) if isinstance(value, str) else None
            if opening is not None and {"street"} & set(lexicon.identifier_words(name).split()):
                # "12 Main St Springfield 62704" (no comma): the street, its town and code read after it
                filled.arguments[name] = opening
    street = next(
        (
            value
            for name, value in filled.arguments.items()
            if isinstance(value, str)
            and {"street", "address"} & set(lexicon.identifier_words(name).split())
            and addresses.is_street_with_number(value)
        ),
        None,
    )
    if street is None:
        return
    if town is not None and not isinstance(filled.arguments.get(town), str):
        # "St., …", "St., Apt 4, …", "in Springfield"; with no comma a town only before its code ("St
        # Springfield 62704"): "12 Main St ASAP" or "… Instead" names none. A quadrant ("Ave NW") is the
        # street's, never the town's.
        found = re.search(
            rf"{re.escape(street)}(?P<quadrant>\s+(?:[NS][EW]|[NSEW])\b)?\.?(?:,?\s*(?P<unit>{_UNIT}))?"
            rf"(?:(?:,\s*|\s+in\s+)(?P<town>{_TOWN})|\s+(?P<bare>{_TOWN}?)(?={_CODE_AFTER_TOWN}))",
            work.said,
        )
        named = found and (found.group("town") or found.group("bare"))
        if found is not None and named and named.split()[0].lower() not in _CALENDAR_NAMES:
            filled.arguments[town], filled.sources[town] = named, found.group(0)
            street_name = next(n for n, v in filled.arguments.items() if v == street and n != town)
            if found.group("quadrant"):  # "1600 Pennsylvania Ave NW"
                street = filled.arguments[street_name] = street + found.group("quadrant")
            if found.group("unit"):  # the flat or suite is the street's: "12 Main St, Apt 4"
                street = filled.arguments[street_name] = f"{street}, {found.group('unit')}"
    said_town = filled.arguments.get(town) if town is not None else None
    postal = next(
        (n for n in properties if addresses.names_postal_code(n) and n not in filled.arguments),
        None,
    )
    if postal is None or not isinstance(said_town, str):
        return
    found = re.search(
        rf"\b{re.escape(said_town)},?\s+(?:(?P<state>{US_STATE}),?\s+)?({_POSTCODE})\b", work.said
    )
    if found is not None:
        filled.arguments[postal], filled.sources[postal] = found.group(2), found.group(0)
    region = next((n for n in properties if n in STATE_PARAMETERS and kinds.get(n) == "string"), None)
    if found is not None and found.group("state") and region is not None and region not in filled.arguments:
        # "Springfield Illinois 62704", "Springfield IL 62704": the state between the town and its code
        filled.arguments[region], filled.sources[region] = found.group("state"), found.group(0)


def _fill_street_and_town(
    work: _Work, filled: Filled, properties: Mapping[str, Any], kinds: dict[str, str], *, ending: bool
) -> None:
    """An address's ``street`` and ``city`` (or ``town``) from a street with its house number said and the
    town after it ("he lives at 12 Oak Street, Springfield" → "12 Oak Street", "Springfield"), both taken
    before the passes that read a place: "at 12 Oak Street" was read as a place, so the city took the street
    and the street the words before it ("he lives"). Nothing unless both parameters are declared, empty,
    and a street with its number is said (``ending``: and its town ends the words)."""
    street_name = next(
        (
            n
            for n in properties
            if n not in filled.arguments
            and kinds.get(n) in _STRINGS
            and "street" in lexicon.identifier_words(n).lower().split()
        ),
        None,
    )
    town = next(
        (
            n
            for n in properties
            if n in ("city", "town") and n not in filled.arguments and kinds.get(n) == "string"
        ),
        None,
    )
    street = addresses.street_with_number_in(work.text) if street_name and town else None
    if street_name is None or town is None or street is None:
        return
    start = work.text.index(street)
    found = re.compile(rf"\.?(?:,\s*|\s+in\s+)(?P<town>{_TOWN})").match(work.text, start + len(street))
    named = found.group("town") if found is not None else None
    if ending and (found is None or work.text[found.end() :].strip(" .!?")):
        return  # ``ending``: only an address said last, its town the words' last ("…, Springfield.")
    if named is not None and named.split()[0].lower() in _CALENDAR_NAMES:
        named = None  # "12 Oak Street, Monday": when, not where
    if named is not None and found is not None:
        filled.arguments[town] = named
        filled.sources[town] = work.take(Span(named, found.start("town"), found.end("town")))
    filled.arguments[street_name] = street
    filled.sources[street_name] = work.take(Span(street, start, start + len(street)))


# words of letters: "Leeds" of "Leeds LS1 4AP", not "Leeds LS1" (a postcode's first half), nor
# "Springfield IL" (a state's two capitals after the town)
_TOWN = r"[A-Z][A-Za-z'-]+\b(?:\s+(?![A-Z]{2}\b)[A-Z][A-Za-z'-]+\b){0,2}"
# A flat, suite or unit said after the street ("Apt 4", "Suite 200", "Unit 3B", "#12"): never the town.
_UNIT = r"(?:(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor|Fl|Room|Rm|Bldg|Building)\.?\s*#?|#\s*)\d+[A-Za-z]?\b"
# A US zip (and ZIP+4), a Canadian postcode, a British one.
_POSTCODE = r"\d{5}(?:-\d{4})?|[A-Z]\d[A-Z]\s?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}"
# What follows a town said with no comma before it: its code, a state first or not (two capitals or its
# name: the town read before it is the shortest that leaves one, "Springfield" of "Springfield Illinois")
_CODE_AFTER_TOWN = rf",?\s+(?:{US_STATE},?\s+)?(?:{_POSTCODE})\b"


def _takes_street_only(properties: Mapping[str, Any]) -> bool:
    """Whether the parameters take one street address (``street``, ``address_line1``) and no origin of a
    route (``pickup``, ``origin``, ``from_address``), whose "from" is a value of its own."""
    words = [set(lexicon.identifier_words(n).lower().split()) for n in properties]
    return any(w & {"street", "address"} for w in words) and not any(w & _ORIGIN_WORDS for w in words)


_ORIGIN_WORDS = frozenset(("from", "origin", "pickup", "start", "source", "old", "current", "previous"))


# "I need to …", "we have to …" opening the words: the request's frame, as "can you …" is (the phrases the
# to-do rewrite reads, any space between their words).
_NEED_TO = "|".join(phrase.replace(" ", r"\s+") for phrase in NEED_TO)
_NEED_OPENING = re.compile(
    r"^\W*(?:(?:ok|okay|so|well|um|uh|hey|hi)\W+)*(?:i|we)\s+(?:really\s+)?"
    rf"(?:{_NEED_TO})\s+(?=\w)",
    re.IGNORECASE,
)

# The same after a short request and a colon or comma ("Create a task: I have to …", "Add a task to my
# list, I must …"): the words before it no more than seven, none of them "I"/"we" (no clause of their
# own), nor all of them words that only open a turn ("Okay, I have to …", "Well, …": the to-do itself).
_NEED_AFTER_FRAME = re.compile(
    r"^(?!\W*(?:(?:ok|okay|so|well|um|uh|hmm|oh|hey|hi|hello|yes|yeah|yep|no|actually|right|alright|sure"
    r"|and|also|then|now|sorry|wait)\W+)+(?:i|we)\b)"
    r"(?P<frame>\W*(?:(?!(?:i|we)\b)[\w'-]+\s+){0,6}(?!(?:i|we)\b)[\w'-]+\s*[:,;])\s*"
    rf"(?:i|we)\s+(?:really\s+)?(?:{_NEED_TO})\s+(?=\w)",
    re.IGNORECASE,
)


# A town said in its country: "Lyon in France", "Lyon is in France" (the town a proper name right before).
_TOWN_IN = r"(?P<town>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){{0,2}})\s*,?\s+(?:is\s+)?in\s+{country}\b"


def _tool_word(words: str, vocabulary: frozenset[str]) -> bool:
    """Whether ``words`` are one word of the tool's own (``vocabulary``: "Weather" of get_weather)."""
    return len(words.split()) == 1 and lexicon.concept(words.lower()) in vocabulary


# The words for a kind of place, never a place's name ("update my city" names no country "city").
_PLACE_WORDS = frozenset(("city", "town", "country", "location", "place", "home", "address"))


def _town_in_country(
    work: _Work, filled: Filled, properties: Mapping[str, Any], vocabulary: frozenset[str] = frozenset()
) -> None:
    """ "Lyon in France": a town (``city``, ``town``) that took the country is the town said before it, and
    the country goes to a country parameter the words left empty, as a model reads it (``city:
    "France"`` was kept of "Lyon in France"). A country said alone ("I live in France") is no town: it
    goes to the country parameter, if any, and the town is left to be asked; a city-state
    (``CITY_STATES``: "Singapore") is left as it is."""
    town = next((n for n in ("city", "town") if isinstance(filled.arguments.get(n), str)), None)
    if town is None or not implied.is_country(filled.arguments[town]):
        return
    country = filled.arguments[town]
    named_after = re.search(rf"\b{re.escape(country)}\s+City\b", work.said)
    if named_after is not None:  # "Mexico City", "Kuwait City": the city named after its country
        filled.arguments[town], filled.sources[town] = named_after.group(0), named_after.group(0)
        return
    found = re.search(_TOWN_IN.format(country=re.escape(country)), work.said)
    wider = next((n for n in properties if n in ("country", "country_name")), None)
    # "Weather in Singapore" to get_weather: the tool's own word is no town ("Weather" was the city)
    if (
        found is None
        or implied.is_country(found.group("town"))
        or _tool_word(found.group("town"), vocabulary)
    ):
        if " ".join(country.lower().split()) in CITY_STATES:
            return
        # "I live in France": a country is no city; it fills the country, and a city required is asked
        source = filled.sources.pop(town, country)
        del filled.arguments[town]
        # ("Update my city, I live in France" had filled country "city": a place's word is no place)
        said_wider = str(filled.arguments.get(wider, "")).lower() if wider is not None else ""
        if wider is not None and (wider not in filled.arguments or said_wider in _PLACE_WORDS):
            filled.arguments[wider], filled.sources[wider] = country, source
        return
    filled.arguments[town], filled.sources[town] = found.group("town"), found.group(0)
    if wider is not None and wider not in filled.arguments:
        filled.arguments[wider], filled.sources[wider] = country, found.group(0)


def _fill_wider_place(
    work: _Work, filled: Filled, properties: Mapping[str, Any], kinds: dict[str, str]
) -> None:
    """ "Paris, France": the name after a comma behind the city (or town) filled goes to a country,
    state or region parameter the words left empty (or gave only a "next" to), as a model reads it; a
    day or month name ("Paris, Monday") is none."""
    town = next((n for n in ("city", "town") if isinstance(filled.arguments.get(n), str)), None)
    wider = [
        n
        for n in properties
        if kinds.get(n) == "string"
        and n in _WIDER_PLACES
        and (filled.arguments.get(n) is None or verbatim.lone_modifier(filled.arguments[n]))
    ]
    if town is None or not wider:
        return
    after = rf"\b{re.escape(filled.arguments[town])},\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){{0,2}})"
    found = re.search(after, work.said)
    if found is not None and found.group(1).split()[0].lower() not in _CALENDAR_NAMES:
        filled.arguments[wider[0]], filled.sources[wider[0]] = found.group(1), found.group(0)


_WIDER_PLACES = ("country", "state", "region", "province", "county")
_CATCH_ALL = frozenset(("any", "all", "everything", "anything"))
_CALENDAR_NAMES = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow")
    + ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october")
    + ("november", "december", "please", "thanks", "then", "and")
)


def _fill_object_list(
    work: _Work,
    filled: Filled,
    name: str,
    schema: Mapping[str, Any],
    nested: Callable[[Mapping[str, Any], str], Filled],
) -> None:
    """A required array of objects (``items: list[Item]``) from a list said ("two apples and three
    bananas" → ``[{"name": "apples", "quantity": 2}, {"name": "bananas", "quantity": 3}]``): each part
    between "and"s and commas filled as one object (``_fill_object``'s rule), the parts that fill one kept
    in order and their words taken. Nothing when no part fills one, or the list does not validate."""
    sub = schema_values.properties_of(schema).get(name)
    if not isinstance(sub, Mapping):
        return
    shape = schema_values.resolve(dict(sub), schema)
    target = schema_values.object_target(shape.get("items"), schema)
    if shape.get("type") != "array" or target is None:
        return
    found: list[tuple[str, Filled]] = []
    for part in re.split(r"\s*,\s*|\s+and\s+", work.text):
        part = _after_the_count(part, name)
        if not part.strip(" :;."):
            continue
        inner = nested(target, part)
        _counted_one(inner, part, target)
        if not inner.missing and any(value is not None for value in inner.arguments.values()):
            found.append((part, inner))
    value = [inner.arguments for _, inner in found]
    if not value or not _valid_property(name, value, schema):
        return
    for part, inner in found:
        start = work.text.find(part)
        heard = _heard_within(part, inner)
        work.take(Span(part, start + heard[0], start + heard[1]))
    filled.arguments[name] = value
    filled.sources[name] = " and ".join(part.strip() for part, _ in found)


# "a coke", "an apple": one thing, said by its article ("order two pizzas and a coke")
_ONE_BY_ARTICLE = re.compile(r"(?:^|\s)(?:a|an)\s+[\w'-]+(?:\s+[\w'-]+){0,2}\s*[.!?]?\s*$", re.I)
_COUNT_NAMES = frozenset(("quantity", "qty", "count", "number", "amount"))


def _counted_one(inner: Filled, part: str, target: Mapping[str, Any]) -> None:
    """The count an object of a list lacks, 1, when its part names one thing by its article ("a coke" of
    "two pizzas and a coke" → ``{"name": "coke", "quantity": 1}``): the part was dropped for its missing
    ``quantity``, and "a pizza and a coke" asked which items."""
    properties = schema_values.properties_of(target)
    counts = [
        n
        for n in inner.missing
        if isinstance(properties.get(n), Mapping)
        and properties[n].get("type") == "integer"
        and set(lexicon.identifier_words(n).split()) & _COUNT_NAMES
    ]
    if len(counts) != 1 or len(inner.missing) != 1:
        return
    named = [value for value in inner.arguments.values() if isinstance(value, str) and value]
    # the article before the thing the object took, wherever the sentence goes on ("a coffee to my
    # cart": the cart's words followed it, and the coffee was dropped)
    if not named or not (
        _ONE_BY_ARTICLE.search(part) or any(_article_before(value).search(part) for value in named)
    ):
        return
    inner.arguments[counts[0]] = 1
    inner.missing.remove(counts[0])


def _article_before(value: str) -> re.Pattern[str]:
    """ "a" or "an" before ``value``, with at most two words between ("a large iced coffee")."""
    return re.compile(rf"(?:^|\s)(?:a|an)\s+(?:[\w'-]+\s+){{0,2}}?{re.escape(value)}\b", re.IGNORECASE)


_COUNTED = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|both)\s+(?:of\s+)?(?:us\s+)?(\w+)", re.I
)


def _after_the_count(part: str, name: str) -> str:
    """``part`` after the words that count the list's own things ("… for two passengers: Ada" of a
    ``passengers`` list → ": Ada"; "" when nothing follows): how many there are is none of them."""
    own = lexicon.stem(name.rsplit("_", 1)[-1])
    counts = [found for found in _COUNTED.finditer(part) if lexicon.stem(found.group(1)) == own]
    return part[counts[-1].end() :] if counts else part


def _heard_within(part: str, inner: Filled) -> tuple[int, int]:
    """Where in ``part`` the values an object was filled from were said: from the first to the last
    (``"Ada aged 30"`` of "book a flight from Boston to Denver for Ada aged 30"), so the words around
    them stay for the call's other parameters (the route); the whole part when none is found."""
    found: list[tuple[int, int]] = []
    for source in inner.sources.values():
        words = re.sub(r"\s*\([^)]*\)\s*$", "", source).strip()  # "Ada (booked for)": the words said
        at = part.lower().find(words.lower()) if words else -1
        if at >= 0:
            found.append((at, at + len(words)))
    if not found:
        return 0, len(part)
    return min(start for start, _ in found), max(end for _, end in found)


def _untyped_object(sub: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    """``sub`` says no ``type`` of its own but takes an object (``{"$ref": "#/$defs/Location"}``, and
    ``anyOf`` it or null): no string, whatever its name ("location" is no place name)."""
    return "type" not in sub and schema_values.object_target(sub, root) is not None


def _fill_object(
    work: _Work,
    filled: Filled,
    name: str,
    schema: Mapping[str, Any],
    nested: Callable[[Mapping[str, Any], str], Filled],
) -> None:
    """A required object parameter (a Pydantic model: ``location: {"$ref": "#/$defs/Location"}``) filled
    as its own parameters would be, from the words the other parameters left: "the forecast for Paris for
    3 days" → ``location: {"city": "Paris", "country": null}``, ``days: 3``. Kept only when every part it
    requires was filled (else the parameter is asked for, as before) and it validates."""
    target = schema_values.object_target(schema_values.properties_of(schema).get(name), schema)
    if target is None:
        return
    # The words another parameter took are not this object's to fill again: "a trip to Lisbon for ADA"
    # (whisper's capitals) made ``traveller.name`` the destination's "Lisbon".
    text = work.text
    for other, words in filled.sources.items():
        if other != name and isinstance(filled.arguments.get(other), str) and words and words in text:
            text = text.replace(words, f" {BLANK} ", 1)
    inner = nested(target, text)
    heard_parts = [part for part, value in inner.arguments.items() if value is not None]
    if inner.missing or not heard_parts or not _valid_property(name, inner.arguments, schema):
        return
    filled.arguments[name] = inner.arguments
    filled.sources[name] = "; ".join(inner.sources[part] for part in heard_parts if part in inner.sources)


def _required_options_from_all(
    work: _Work, filled: Filled, properties: Mapping[str, Any], names: list[str]
) -> None:
    """A required option still missing, read from all that was said: words taken as text may name it
    too ("open a ticket: no access to the share drive" → summary, and category ``access``)."""
    for name in [n for n in names if n not in filled.arguments]:
        span = scalars.enum_for(work.said, kinds_of.one_branch(properties[name])["enum"], name)
        if span is not None:
            filled.arguments[name] = span.value
            filled.sources[name] = f"{span.value!r} (said within another value)"


_STRINGS = ("string", "identifier", "list", "person", "patterned")
# The passes over the parameters, in order, and the kinds a pass takes besides its own.
_PASSES = (
    "counts",
    "card",
    "labelled",
    "quoted",
    "options",
    "address",
    "path",
    "described",
    "patterned",
    "identifier",
    "currency",
    "datetime",
    "date",
    "time",
    "called",
    "label",
    "person",
    "number",
    "enum",
    "boolean",
)
_ALSO = frozenset(
    {
        ("card", "card_number"),
        ("card", "expiry"),
        ("card", "card_code"),
        ("labelled", "enum"),
        ("labelled", "string"),
        ("labelled", "patterned"),
        ("labelled", "identifier"),  # "my confirmation number is ABC123", not the seat "14C" said first
        ("quoted", "string"),
        ("quoted", "identifier"),
        ("called", "string"),
        ("path", "string"),
        ("path", "person"),
        ("address", "string"),  # a recipient ("to") with an address written: that address (``_recipient``)
        ("address", "person"),
        ("options", "list"),
    }
    | {("described", "string")}
    | {("quoted", "person"), ("called", "person"), ("label", "string")}
)


def _cues(tool_name: str, description: str, vocabulary: frozenset[str], referent: Referent) -> Cues:
    words = lexicon.identifier_words(tool_name)
    name_stems = frozenset(lexicon.stem(w) for w in words.split())
    name_concepts = frozenset(lexicon.concept(w) for w in words.split())
    verb = lexicon.stem(words.split()[0]) if words.split() else ""
    return Cues(vocabulary, name_stems, referent, name_concepts, own_stems(words, description), verb)


def _finish(filled: Filled, schema: Mapping[str, Any], required: list[str], lists: frozenset[str]) -> None:
    """Lists split, defaults for required parameters not heard, values that do not validate dropped,
    and the required ones still missing listed."""
    properties = schema_values.properties_of(schema)
    for name in [n for n in lists if isinstance(filled.arguments.get(n), str)]:
        filled.arguments[name] = items.as_list(re.split(r"\s*,\s*|\s+and\s+", filled.arguments[name]))
    for name in required:
        schema_of = properties.get(name)
        if name not in filled.arguments and isinstance(schema_of, Mapping) and "default" in schema_of:
            filled.arguments[name] = schema_of["default"]
            filled.sources[name] = "(schema default)"
    for name, value in list(filled.arguments.items()):
        about = properties.get(name)
        described = str(about.get("description", "")) if isinstance(about, Mapping) else ""
        if (
            not _valid_property(name, value, schema)
            or codes.lacks_digit(name, value, described)
            or codes.only_a_number(name, value)
            or codes.word_for_id(name, value)  # "my second order" names no order_id
            or verbatim.not_a_unit(name, value, about)  # "next 5 days" is no unit "celsius or fahrenheit"
            or (verbatim.vague(value) and not _an_option(value, about))  # "any" may be an option
            or (
                isinstance(about, Mapping)
                and "enum" not in about
                and (verbatim.verb_remnant(value) or verbatim.lone_modifier(value))
            )
        ):
            del filled.arguments[name]
            filled.sources.pop(name, None)
    for name in [n for n in required if n not in filled.arguments]:
        # strict mode writes an optional parameter as required and nullable: not heard, it is null
        if isinstance(properties, Mapping) and schema_values.admits_null(properties.get(name)):
            filled.arguments[name], filled.sources[name] = None, "(not heard; its schema admits null)"
    for name in [
        n for n in required if n not in filled.arguments and _nests_its_own_kind(n, properties, schema)
    ]:
        # a tree's "children" nobody named: none, as a model makes a leaf; never asked for
        filled.arguments[name], filled.sources[name] = [], "(no nested ones said; an empty list is allowed)"
    filled.missing = [name for name in required if name not in filled.arguments]
    if isinstance(properties, Mapping):  # in the schema's order, as a model writes them
        order = {name: index for index, name in enumerate(properties)}
        filled.arguments = dict(sorted(filled.arguments.items(), key=lambda e: order.get(e[0], len(order))))


def _nests_its_own_kind(name: str, properties: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    """Array ``name`` holds objects of the kind that holds it (a tree's ``children``, each with its own
    ``children``: a recursive ``$ref``) and may be empty: an empty list is a whole value of it."""
    about = properties.get(name)
    if not isinstance(about, Mapping) or kinds_of.one_branch(about).get("type") != "array":
        return False
    array = kinds_of.one_branch(about)
    if int(array.get("minItems", 0) or 0) > 0 or not isinstance(array.get("items"), Mapping):
        return False
    try:
        item = schema_values.resolve(dict(array["items"]), root)
    except Exception:  # a $ref jsonschema cannot follow: nothing is known of the items
        return False
    inner = item.get("properties")
    return isinstance(inner, Mapping) and name in inner


def _an_option(value: Any, about: Any) -> bool:
    """``value`` is one of the enum options ``about`` offers (``"any"`` of a category filter)."""
    options = kinds_of.one_branch(about).get("enum") if isinstance(about, Mapping) else None
    return isinstance(options, list) and value in options


def _without_tool_mention(text: str, tool_name: str) -> str:
    """``text`` without the words that name the tool itself: "please use get_weather for Paris" → "please
    Paris" (``lexicon.tool_mention``)."""
    found = lexicon.tool_mention(text, tool_name)
    return text if found is None else f"{text[: found.start()]} {text[found.end() :]}"


class _Work:
    """The text with the spans already used blanked out (so they also act as phrase boundaries)."""

    def __init__(self, text: str, today: date, heard: str = "") -> None:
        self.text = text
        self.said = text  # as said, before any value was taken out
        self.heard = heard or text  # as heard, before the tool's mention and frame were cut
        self.today = today
        self.reaches_ahead = False  # the tool answers a time to come (``ahead.says_ahead``: a forecast)

    def take(self, span: Span) -> str:
        words = self.text[span.start : span.end]
        self.text = self.text[: span.start] + f" {BLANK} " + self.text[span.end :]
        return words.strip()


def _fill_introduced(work: _Work, filled: Filled, strings: list[str], tool_name: str) -> None:
    """The name the speaker introduces themselves by ("Name's Tom", "Tom speaking", "call me Tom"), books
    under ("a table for two under Tom") or for ("a table for 2 for John Smith") or says with a title
    ("Dr. Who") into the first parameter that takes a person's own name (``name``, ``guest_name``:
    ``names.takes_own_name``)."""
    wanted = [n for n in strings if n not in filled.arguments and names.takes_own_name(n, tool_name)]
    if not wanted or re.search(r"\b(?:called|named|titled)\b", work.text, re.IGNORECASE):
        return  # "it's Tom here, make a playlist called Chill": the name said is the thing's
    for finder, how in _OWN_NAME_FINDERS:
        found = finder(work.text)
        if found is not None:
            words = work.take(found)
            filled.arguments[wanted[0]], filled.sources[wanted[0]] = found.value, f"{words} ({how})"
            return


# The speaker's own name, first found: introduced ("Name's Tom"), the name a booking is made under
# ("under Tom"), the person it is for ("for John Smith"), a name a title marks ("Dr. Who", whose "Who"
# would end the phrase as a relative clause). "for" before a title: "an appointment with Dr. Lee for
# Maria" is Maria's.
_OWN_NAME_FINDERS: tuple[tuple[Callable[[str], Span | None], str], ...] = (
    (names.introduced, "introduced"),
    (names.booked_under, "booked under"),
    (names.booked_for, "booked for"),
    (names.titled, "a titled name"),
)


def _fill_expiry_parts(work: _Work, filled: Filled, parts: Mapping[str, Any]) -> None:
    """A card's expiry declared as two parameters (``exp_month`` / ``exp_year``, integers or strings),
    both filled from the one expiry said ("expires 04/28" → 4 and 2028): read as numbers, the month took
    the 4 and the year asked "What exp year would you like?" (or took 4242 of the card's number)."""
    if not parts:
        return
    found = cards.expiry_parts_for(
        work.text, {n: (cards.expiry_part(n) or "", kinds_of.one_branch(s)) for n, s in parts.items()}
    )
    if found is None or not isinstance(found.value, dict):
        return
    words = work.take(found)
    for name, value in found.value.items():
        filled.arguments[name], filled.sources[name] = value, f"{words} (the card's expiry)"


def _address_lists(work: _Work, filled: Filled, lists: Mapping[str, Any]) -> None:
    """A list of email or web addresses (``attendees`` whose items are ``format: email``, ``emails``,
    ``links``, a recipient list ``to`` / ``cc`` with an address written) takes every such address said, as
    written: read as phrases, "ana@example.com and
    raj@example.com" was ``["ana example", "raj example"]``."""
    for name, schema in lists.items():
        inner = schema.get("items") if isinstance(schema, Mapping) else None
        if name in filled.arguments or not isinstance(inner, Mapping):
            continue
        singular = name[:-1] if name.endswith("s") else name
        kind = addresses.kind_of(singular, inner)
        if kind is None and _RECIPIENT & set(lexicon.identifier_words(name).split()):
            # ``to: [string]`` of an email tool: the addresses written are its recipients, as written (they
            # were read as phrases, "carol example"); none written, the names are read as before
            kind = "email" if addresses.written_email(work.text) is not None else None
        found: list[str] = []
        while kind is not None and len(found) < _MAX_ADDRESSES:
            span = addresses.address_for(work.text, kind)
            if span is None:
                break
            found.append(str(span.value))
            work.take(span)
        if found:
            filled.arguments[name], filled.sources[name] = found, ", ".join(found)


_MAX_ADDRESSES = 20


def _split_full_name(filled: Filled, names: list[str]) -> None:
    """A whole name filled into ``first_name`` ("Jane Doe") split between it and ``last_name`` (``given``
    / ``family`` / ``surname`` too), as a model fills them: it was ``first_name: "Jane Doe"`` and
    ``last_name`` another name said ("Dr. Patel")."""
    first = next((n for n in names if _name_part(n) == "first"), None)
    last = next((n for n in names if _name_part(n) == "last"), None)
    whole = filled.arguments.get(first) if first is not None else None
    if first is None or last is None or not isinstance(whole, str):
        return
    parts = whole.split()
    if len(parts) < 2 or not all(p[:1].isupper() for p in parts):
        return
    filled.arguments[first], filled.arguments[last] = parts[0], " ".join(parts[1:])
    filled.sources[last] = f"{whole!r} (the rest of the whole name)"


def _name_part(parameter: str) -> str | None:
    """ "first" for ``first_name`` / ``given_name`` / ``firstname``, "last" for ``last_name`` /
    ``family_name`` / ``surname`` / ``lastname``, else None."""
    words = lexicon.identifier_words(parameter).split()
    joined = "".join(words)
    if (
        joined in ("firstname", "givenname", "forename")
        or words[:1] in (["first"], ["given"])
        and "name" in words
    ):
        return "first"
    if (
        joined in ("lastname", "familyname", "surname")
        or words[:1] in (["last"], ["family"])
        and "name" in words
    ):
        return "last"
    return None


def _directed_option(text: str, options: list[Any], name: str) -> Span | None:
    """The option said after "from" for a source parameter (``from_account``, ``source``), after
    "to"/"into" for a target (``to_account``, ``destination``): "from savings to checking" is
    ``from_account: savings``, whichever parameter is filled first; None when no such option is said."""
    words = set(lexicon.identifier_words(name).split())
    if words & _SOURCES:
        preposition = "from"
    elif words & _TARGETS:
        preposition = "(?:to|into|onto)"
    else:
        return None
    said = {str(o).replace("_", " ").lower(): o for o in options if isinstance(o, str) and o.strip()}
    if not said:
        return None
    alternatives = "|".join(re.escape(o) for o in sorted(said, key=len, reverse=True))
    found = re.search(
        rf"\b{preposition}\s+(?:(?:the|my|our|your|a)\s+)?(?P<option>{alternatives})\b", text, re.IGNORECASE
    )
    if found is None:
        return None
    return Span(said[found.group("option").lower()], found.start("option"), found.end("option"))


_SOURCES = frozenset(("from", "source", "origin"))
_TARGETS = frozenset(("to", "target", "destination", "into"))
# Lists of labels a user names as they say them ("tag it groceries"), read beside their own name.
_LABELS = frozenset(("tag", "label", "keyword", "topic", "hashtag"))


def _labelled_lists(work: _Work, filled: Filled, names: list[str]) -> None:
    """A list of strings said right after its own name: "tag it groceries", "tagged groceries", "with
    the tags groceries and home", "tags: groceries, home" → ``tags``. Read as any list, such words were
    asked about again ("What tags would you like?")."""
    for name in [n for n in names if n not in filled.arguments]:
        words = lexicon.identifier_words(name).split()
        stem = words[-1][:-1] if words and words[-1].endswith("s") else words[-1] if words else ""
        if stem not in _LABELS:  # "play songs by Adele": a list's name before other words is no label
            continue
        found = re.search(
            rf"\b{stem}(?:s|ged|ed)?\b\s*:?\s+(?:(?:it|them|this|that)\s+)?(?:(?:as|with)\s+)?"
            r"(?P<values>[\w'-]+(?:(?:\s*,\s*|\s+and\s+|\s+)[\w'-]+){0,5})\s*(?=[.;!?]|$)",
            work.text,
            re.IGNORECASE,
        )
        if found is None:
            continue
        values = items.as_list(re.split(r"\s*,\s*|\s+and\s+", found.group("values")))
        filled.arguments[name] = values
        # the "and" or comma that joined it to what came before goes with it ("broken, tag it auth":
        # the title was "broken and")
        joined = re.search(r"(?:\s*,|\s+and)\s*$", work.text[: found.start()], re.IGNORECASE)
        start = joined.start() if joined is not None else found.start()
        filled.sources[name] = work.take(Span(values, start, found.end())).lstrip(", ")
        if filled.sources[name].lower().startswith("and "):
            filled.sources[name] = filled.sources[name][4:]


# A parameter for whom a thing made is given to (``assignee``, ``assigned_to``, ``owner``) and the words
# that give it: "assign it to Maria", "assigned to Maria", "and give it to Dev Patel".
_ASSIGNEE_WORDS = frozenset(("assignee", "assigned", "assign", "owner"))
_ASSIGNED = re.compile(
    r"(?:\s*,|\s+and)?\s*\b(?:assign(?:ed)?|give)\s+(?:(?:it|this|that|them|the\s+ticket|the\s+task)\s+)?"
    r"to\s+(?P<who>(?-i:[A-Z][\w'-]*)(?:\s+(?-i:[A-Z][\w'-]*))?)\b",
    re.IGNORECASE,
)


def _assigned_to(work: _Work, filled: Filled, names: list[str]) -> None:
    """The person a thing made is given to ("create a ticket …, assign it to Maria" → ``assignee:
    "Maria"``) into the one parameter named for it; the words are taken, so no title or message keeps
    them. Nothing when no such parameter is declared (nor is "assign it to Maria" then any other value's:
    it is left as said)."""
    wanted = [
        n
        for n in names
        if n not in filled.arguments and _ASSIGNEE_WORDS & set(lexicon.identifier_words(n).lower().split())
    ]
    found = _ASSIGNED.search(work.text) if wanted else None
    if found is None:
        return
    filled.arguments[wanted[0]] = found.group("who")
    work.take(Span(found.group("who"), found.start(), found.end()))
    filled.sources[wanted[0]] = f"{found.group('who')} (assigned to)"


_ONE_LINE = ("title", "subject", "summary")
# A string parameter for whom a message goes to (``to``, ``recipient``, ``cc``): an email address written
# in the words is that recipient, as written ("bob@example.com" was read as words, "bob example").
_RECIPIENT = frozenset(("to", "recipient", "recipients", "cc", "bcc"))


def _fill_one(
    work: _Work, filled: Filled, name: str, schema: Mapping[str, Any], kind: str, rivals: list[str]
) -> None:
    """Parameter ``name`` of kind ``kind`` from the words left; ``rivals``: the string parameters still
    to fill, whose phrases a person's name is not taken from."""
    # a nullable written as anyOf (``Optional[Literal[…]]``) is filled as its branch: its enum, its type
    schema = kinds_of.one_branch(schema)
    span: Span | None = None
    if kind == "labelled":
        options = schema.get("enum")
        span = (
            verbatim.labelled_enum(work.text, name, options)
            if isinstance(options, list)
            else verbatim.labelled_string(work.text, name)
        )
    elif kind == "quoted":
        span = verbatim.quoted(work.text, name)
    elif kind == "card":  # a card read out: its number in groups, its expiry, its security code
        card = kinds_of.kind_of(name, schema)
        if card == "card_number":
            span = cards.card_number_for(work.text)
        elif card == "expiry":
            span = cards.expiry_for(work.text, schema)
        else:
            span = cards.security_code_for(work.text)
    elif kind == "counts":
        span = values.counts(work.text)
    elif kind == "called":
        span = verbatim.called(work.text, name)
    elif kind == "label":
        span = verbatim.before_label(work.text, name)
    elif kind == "described":
        span = verbatim.described_value(work.text, schema) or verbatim.unit_said(work.text, name, schema)
    elif kind == "options":
        span = options_for(work.text, schema)
    elif kind == "address":
        address = addresses.kind_of(name, schema)
        if address is not None:
            span = addresses.address_for(work.text, address)
        elif _RECIPIENT & set(lexicon.identifier_words(name).split()):
            span = addresses.written_email(work.text)
    elif kind == "path":
        # written as a path ("/tmp/notes.txt"), not split into words ("tmp notes")
        span = addresses.path_for(work.text) if addresses.takes_path(name, schema) else None
    elif kind == "identifier":
        # "reservation XYZ": an id in capitals after a word for the record it identifies
        span = codes.identifier_for(work.text) or codes.record_code(work.text, name)
        if (
            span is not None
            and addresses.HOUSE_NUMBER_AFTER.match(work.text, span.end)
            and (addresses.names_postal_code(name) or codes.record_words(name))
        ):
            # "12 Baker Street": the 12 is the street's, not a zip code, nor the order of "send my order
            # to 40 Elm Rd"
            span = None
    elif kind == "patterned":
        # a phone is read whole ("oh seven seven double nine …" was "9123456"), then in the form a
        # template pattern gives ("(206) 555-1234" from "206 555 1234")
        phone = addresses.named_for_phone(name)
        span = addresses.phone_fitting(work.text, schema["pattern"]) if phone else None
        span = span or codes.patterned(work.text, schema["pattern"])
        if span is None and phone:
            span = addresses.phone_in_pattern(work.text, schema["pattern"])
    elif kind == "person":
        span = _person(work.text, name, rivals)
    elif kind == "currency":
        target = bool({"to", "into", "target"} & set(lexicon.identifier_words(name).split()))
        found = codes.currencies(work.text)
        span = next((s for s, into in found if into == target), found[0][0] if found else None)
    elif kind in ("date", "datetime"):
        span = _first(values.dates(work.text, work.today))
        if kind == "datetime":
            span = _datetime(work, span)
    elif kind == "time":
        span = values.in_the_evening(_first(values.times(work.text)), work.said)
    elif kind == "number":
        span = scalars.number_for(work.text, name, schema)
        named = (
            ahead.one_day_named(work.text, span.start, span.end)
            if span is not None and work.reaches_ahead and ahead.days_parameter(name, schema)
            else None
        )
        if named is not None:
            # "in 3 days" to a forecast's ``days`` names one day, no count of days: ``_days_ahead`` fills
            # the days from today that reach it (4, as tomorrow is 2; a forecast of 3 ends the day before).
            # Its words are a time, no string's value ("Paris forecast in 5 days": no city "5 days").
            work.take(Span("", *named))
            span = None
    elif kind == "enum":
        span = _directed_option(work.text, schema["enum"], name) or scalars.enum_for(
            work.text, schema["enum"], name
        )
    elif kind == "boolean":
        span = scalars.boolean_for(work.text, name, work.heard)
    if span is not None:
        after = work.text[span.end :]
        if kind == "number":
            span = _with_own_unit(work.text, span, name)
        filled.sources[name] = work.take(_with_label(work.text, span, name))
        filled.arguments[name] = span.value
        if kind == "enum":  # "lock the front and the back": one call per option
            filled.more += [
                (name, other) for other in scalars.more_options(after, schema["enum"], span.value)
            ]


def _person(text: str, name: str, rivals: list[str]) -> Span | None:
    """The person (or language) parameter ``name``'s proper name: the first said that no preposition
    places in another string parameter's role, as a model reads "a table for 2 at Sakura for John Smith"
    (Sakura is the restaurant's, "at" fits it and not ``guest``; the guest is John Smith)."""
    if names.takes_a_language(name):
        return names.proper_name(text, name)
    for span in names.proper_names(text):
        before = _LAST_WORD.search(text[: span.start])
        roles = ROLES.get(before.group(1).lower(), ()) if before is not None else ()
        if roles and not spans.fits(name, roles) and any(spans.fits(other, roles) for other in rivals):
            continue
        return span
    return None


_LAST_WORD = re.compile(r"\b(\w+)\s+(?:the\s+)?$")


def _more_paths(work: _Work, filled: Filled, takes_path: list[str]) -> None:
    """Paths written after the one a tool's only path parameter took: one call each ("delete /tmp/a.txt
    and /tmp/b.txt"). With two path parameters (``source_path``, ``target_path``) each took its own."""
    if len(takes_path) != 1 or takes_path[0] not in filled.arguments:
        return
    while (other := addresses.path_for(work.text)) is not None:
        filled.more.append((takes_path[0], str(other.value)))
        work.take(other)


def _with_label(text: str, span: Span, name: str) -> Span:
    """``span`` and the parameter's own name said right before it ("due on March 20", "priority high"),
    so the label joins no other value ("renew insurance due")."""
    words = "|".join(re.escape(w) for w in lexicon.identifier_words(name).split() if len(w) > 2)
    if not words:
        return span
    label = re.search(rf"\b(?:{words})\w*\s+(?:(?:on|at|is|of|for|by|to|=|:)\s+)?$", text[: span.start], re.I)
    return Span(span.value, label.start(), span.end) if label else span


def _with_own_unit(text: str, span: Span, name: str) -> Span:
    """A number's span and the parameter's own name said right after it as its unit ("for 3 days" for
    ``days``, "4 people" for ``people``), so the unit is left to no string parameter ("for the next
    days" gave ``country: next``)."""
    words = "|".join(re.escape(w) for w in lexicon.identifier_words(name).split() if len(w) > 2)
    unit = re.match(rf"\s+(?:{words})\w*\b", text[span.end :], re.I) if words else None
    return Span(span.value, span.start, span.end + unit.end()) if unit else span


def _first(spans: list[Span]) -> Span | None:
    return spans[0] if spans else None


def _datetime(work: _Work, day: Span | None) -> Span | None:
    clock = _first(values.times(work.text))
    if day is None and clock is None:
        return None
    when = day.value if day is not None else work.today.isoformat()
    value = f"{when}T{clock.value if clock is not None else '09:00'}:00"
    spans = [s for s in (day, clock) if s is not None]
    if len(spans) == 2:
        work.take(spans[1] if spans[1].start > spans[0].start else spans[0])
    first = min(spans, key=lambda s: s.start)
    return Span(value, first.start, first.end)


@dataclass(frozen=True)
class _Strings:
    """The string parameters still to fill and what decides how: the required ones, the cues, whether
    the main text was said verbatim, and which take a list."""

    names: list[str]
    required: list[str]
    cues: Cues
    verbatim: bool
    lists: frozenset[str]


def _fill_strings(work: _Work, filled: Filled, todo: _Strings) -> None:
    if not todo.names:
        return
    primary = next((n for n in todo.required if n in todo.names), todo.names[0])
    if primary in todo.required:
        _named_whole(work, filled, primary, todo.cues, todo.lists)
    open_before_roles = primary not in filled.arguments
    segments = _fill_roles(split_phrases(work.text, todo.cues), filled, todo)
    if (
        open_before_roles
        and primary in filled.arguments
        and not spans.fits(primary, ONE_PLACE)  # a place taken so: ``_thing_left`` below
        and segments
        and not segments[0][0]
        and bare(segments[0][1])
        and not only_own_words(segments[0][1], todo.cues)
    ):
        # the first required string took a phrase by its role ("to my groceries list" → ``list_name``):
        # the object is still said ("Add eggs and milk …"), and goes to the next required one open
        # (``items``), as a model reads it; it was asked for
        primary = next((n for n in todo.required if n in todo.names and n not in filled.arguments), primary)
    if primary in filled.arguments and spans.fits(primary, ONE_PLACE):
        _thing_left(segments, filled, todo)  # "in California, … the return policy on boots"
        _kind_of_thing(segments, filled, todo)  # "a cheap Italian place in Soho": cuisine "Italian"
    # The main thing was said verbatim ("a note saying buy bread"): an optional parameter gets only
    # a phrase meant for it, not what is left of the object.
    if primary in filled.arguments or (todo.verbatim and primary not in todo.required):
        return
    obj = segments[0][1] if segments else ""
    own = only_own_words(obj, todo.cues) or objects.light_noun(work.text, todo.cues)  # "put a hold on X": X
    obj = "" if own or obj.lower() in lexicon.PRONOUNS else obj  # "… of X": X
    rest = [s for s in segments[1:] if bare(s[1])]
    if own and rest and rest[0][0] in ("on", "at") and not _names_tool(rest[0][1], todo.cues):
        obj, rest = bare(rest[0][1]), rest[1:]
    if obj.lower() in objects.MEASURES and rest and rest[0][0] == "of":  # "a pair of running shoes"
        obj, rest = bare(rest[0][1]), rest[1:]
    preposition = ""
    if not obj and rest and rest[0][0] in OBJECT_PREPOSITIONS and not _names_tool(rest[0][1], todo.cues):
        preposition, obj, rest = rest[0][0], bare(rest[0][1]), rest[1:]
    primary = _thing_not_place(primary, obj, preposition, filled, todo)
    if obj and not (
        primary not in todo.required
        and spans.fits(primary, _PLACES)
        and not objects.set_to(work.said, obj)
        and not _before_own_thing(work.text, obj, todo.cues)
    ):
        # the things of a list the speaker likes ("I enjoy chess and hiking"), not "enjoy chess"
        listed = [items.without_liking(obj) if primary in todo.lists else obj]
        while rest and rest[0][0] == "and":  # "eggs and bread": more of the object, not a new request
            listed, rest = [*listed, bare(rest[0][1])], rest[1:]
        # "something cheap, Italian, and …": a part that names nothing is no thing of the list
        listed = [part for part in listed if not verbatim.vague(part)] or listed
        # a parameter that holds one thing is a call per thing; a list holds them all ("pasta and a salad")
        one_each = items.takes_one_thing(primary) and primary not in todo.lists
        things = items.as_list(listed) if one_each else [" and ".join(listed)]
        value = " ".join([things[0]] + [f"{p} {phrase}" for p, phrase in rest if p in ("with", "of", "by")])
        filled.arguments[primary], filled.sources[primary] = (
            items.without_kind(value, primary),
            value,
        )
        filled.more = [(primary, items.without_kind(thing, primary)) for thing in things[1:]]
    elif _said_there(work.text, primary, todo.cues.referent):  # "… in Edinburgh and then a hotel there"
        filled.arguments[primary] = todo.cues.referent.for_parameter(primary, exact=True)
        filled.sources[primary], filled.used_referent = "(there → last place)", True
    elif referents.has_pronoun(work.text):
        # "it" names the thing: a required parameter, or one the last output named by key ("card" ←
        # focusedCardId); never an optional detail such as a cancellation's "reason".
        referent = todo.cues.referent
        keyed = primary in todo.required or referent.for_parameter(primary, exact=True) is not None
        named = referent.for_parameter(primary) if keyed else None
        if named:
            filled.arguments[primary], filled.sources[primary] = named, "(pronoun → last named)"
            filled.used_referent = True
        elif primary in todo.required:
            told = _THING_TOLD_BEFORE.match(work.text)
            thing = told.group("thing") if told is not None else ""
            if thing and not only_own_words(thing, todo.cues) and not verbatim.vague(thing):
                # "I have a haircut on the 12th, can you add it?": "it" is the thing the words told of
                filled.arguments[primary], filled.sources[primary] = (
                    thing,
                    "(pronoun → the thing told before)",
                )


# A clause telling of the speaker's own thing, then a request for "it": "I have a haircut on ¦, can you add
# it?", "I've got a dentist appointment ¦, put it in". The thing is the words after the article, up to a
# preposition, a value taken out or the clause's end.
_THING_TOLD_BEFORE = re.compile(
    r"^\W*(?:i\s+have|i've\s+got|i\s+got|there's|there\s+is)\s+(?:a|an|my|the)\s+"
    r"(?P<thing>[a-z][a-z'-]*(?:\s+(?!on\b|at\b|in\b|for\b|with\b|from\b|to\b)[a-z][a-z'-]*){0,2})"
    rf"\s*(?=\b(?:on|at|in|for|with|from|to)\b|{re.escape(BLANK)}|[,;.]).*?[,;.]\s*(?:\w+\s+){{0,4}}"
    r"(?:it|that|this)\b",
    re.IGNORECASE,
)


# Parameters that take what kind a thing is ("cuisine", "genre", "category"), which the words before a
# search's thing tell ("an Italian restaurant", "a Thai place", "sci-fi movies").
_KIND_NAMES = frozenset(
    ("cuisine", "genre", "category", "kind", "type", "style", "flavor", "flavour", "theme")
)
# The heads a kind is said with, which are no part of it ("Italian food" → "Italian").
_KIND_HEADS = frozenset(("food", "foods", "cuisine", "dish", "dishes", "restaurant", "restaurants", "place"))
_KIND_HEADS |= frozenset(("places", "spot", "spots", "joint", "joints", "one", "ones"))
# What a thing is like, said before its kind, which is no kind ("a cheap Italian place", "a good Thai one").
_LIKE = frozenset(("good", "nice", "great", "best", "decent", "cheap", "cheapest", "affordable", "budget"))
_LIKE |= frozenset(("expensive", "pricey", "fancy", "upscale", "posh", "popular", "top", "local", "new"))


def _kind_of_thing(segments: list[tuple[str, str]], filled: Filled, todo: _Strings) -> None:
    """The kind of thing said as the request's object once a place filled the main parameter ("Find a
    cheap Italian place in Soho" → ``location: "Soho"``): a parameter named for a kind (``cuisine``,
    ``genre``, ``category``; required or optional) left open takes it ("Italian"), without the words of
    what the thing is like and the head it is said with, as a model fills it (it was left out)."""
    if not segments or segments[0][0]:
        return
    phrase = bare(segments[0][1])
    if not phrase or only_own_words(phrase, todo.cues) or phrase.lower() in lexicon.PRONOUNS:
        return
    target = next(
        (
            n
            for n in [*todo.required, *todo.names]
            if n in todo.names
            and n not in filled.arguments
            and set(lexicon.identifier_words(n).lower().split()) & _KIND_NAMES
        ),
        None,
    )
    words = phrase.split()
    while words and words[0].lower() in _LIKE:
        words = words[1:]
    while len(words) > 1 and words[-1].lower() in _KIND_HEADS:
        words = words[:-1]
    value = " ".join(words)
    if target is None or not value or value.lower() in _KIND_HEADS or verbatim.vague(value):
        return
    filled.arguments[target], filled.sources[target] = value, phrase


def _thing_left(segments: list[tuple[str, str]], filled: Filled, todo: _Strings) -> None:
    """A thing said after for/on/about that no role took ("the return policy on boots"), once a place
    filled the first required string: the next required string that holds no place takes it."""
    for preposition, phrase in segments[1:]:
        value = bare(phrase)
        if preposition not in ("for", "on", "about") or not value or value[:1].isupper():
            continue
        if only_own_words(phrase, todo.cues) or _names_tool(phrase, todo.cues):
            continue
        target = _thing_not_place(next(iter(todo.required), ""), value, preposition, filled, todo)
        if target and target not in filled.arguments and not spans.fits(target, ONE_PLACE):
            filled.arguments[target], filled.sources[target] = items.without_kind(value, target), phrase
        return


def _thing_not_place(primary: str, obj: str, preposition: str, filled: Filled, todo: _Strings) -> str:
    """The parameter a thing said ("the return policy on boots") goes to: a required place parameter
    (``region``, declared first) takes no common noun said after for/on/of/about when another required
    string that holds no place is still open (``itemCategory``); a proper name ("Oregon") stays."""
    if not (obj and preposition in ("for", "on", "of", "about") and spans.fits(primary, ONE_PLACE)):
        return primary
    if is_proper_name(obj) or obj[:1].isupper():
        return primary
    other = [
        n
        for n in todo.required
        if n != primary and n in todo.names and n not in filled.arguments and not spans.fits(n, ONE_PLACE)
    ]
    return other[0] if other else primary


def _before_own_thing(text: str, obj: str, cues: Cues) -> bool:
    """``obj`` was said right before the tool's own thing, which it names the place of: "raise the
    living room blinds" to ``control_blinds(room)`` → ``living room`` (the blinds were trimmed off)."""
    after = re.search(rf"\b{re.escape(obj)}\s+([A-Za-z]+)\b", text, re.IGNORECASE)
    return after is not None and lexicon.stem(after.group(1).lower()) in cues.own_stems


def _named_whole(work: _Work, filled: Filled, primary: str, cues: Cues, lists: frozenset[str]) -> None:
    """A required string named whole: quoted ("open the 'Paper Planes' card"), or the thing a first
    clause is about when a later one says "it" ("the piano lesson is off, take it out")."""
    quoted = verbatim.QUOTED.search(work.text)
    if quoted is not None:
        listed = verbatim.quoted_list(work.text) if primary in lists else [quoted]
        value: Any = [q.group("text") for q in listed] if primary in lists else quoted.group("text")
        filled.sources[primary] = work.take(Span(value, listed[0].start(), listed[-1].end()))
        filled.arguments[primary] = value
        return
    subject = referents.subject(work.text)
    if subject is None or referents.has_pronoun(subject) or verbatim.vague(subject):
        return
    if not only_own_words(subject, cues) and not _names_tool(subject, cues):
        filled.arguments[primary], filled.sources[primary] = subject, "(it → what the first clause is about)"


def _fill_roles(segments: list[tuple[str, str]], filled: Filled, todo: _Strings) -> list[tuple[str, str]]:
    """Phrases after a preposition into the parameter whose name fits its role ("in the kitchen" →
    room); the segments left over."""
    said = list(segments)
    for index, (preposition, phrase) in enumerate(said[1:], start=1):
        if (preposition, phrase) not in segments:  # taken with an earlier one ("and in Rome")
            continue
        roles = ROLES.get(preposition, ())
        target = next((n for n in todo.names if n not in filled.arguments and spans.fits(n, roles)), None)
        if target is None or not bare(phrase) or only_own_words(phrase, todo.cues):  # "to my to-do list"
            continue
        value = items.without_kind(bare(phrase), target)
        moved = _thing_not_place(target, value, preposition, filled, todo)  # "policy for boots"
        if moved != target:
            target, value = moved, items.without_kind(bare(phrase), moved)
        one_place = spans.fits(target, ONE_PLACE)
        placed = _place_said_later(phrase, value, said[index + 1 :]) if one_place else None
        if placed is not None:  # "for my trip to Lisbon": the city is Lisbon, not 'trip'
            segments = [s for s in segments if s not in ((preposition, phrase), placed)]
            preposition, phrase = placed
            value = items.without_kind(bare(phrase), target)
        # "in Trinidad and Tobago": one place whose name holds "and"
        if index + 1 < len(said) and said[index + 1][0] == "and" and spans.fits(target, ONE_PLACE):
            whole = joined_name(value, said[index + 1][1])
            if whole is not None:
                value = whole
                segments = [s for s in segments if s != said[index + 1]]
                said = [*said[: index + 1], ("", ""), *said[index + 2 :]]
        # "with Ana and Bo" for a list of attendees: the "and" phrases that follow belong to it
        for joined, more in said[index + 1 :] if target in todo.lists else ():
            if joined != "and":
                break
            value = f"{value} and {bare(more)}"
            segments = [s for s in segments if s != (joined, more)]
        filled.arguments[target], filled.sources[target] = value, f"{preposition} {phrase}"
        segments = [s for s in segments if s != (preposition, phrase)]
        if target not in todo.lists and spans.fits(target, ONE_PLACE):
            places, taken = more_places(said[index + 1 :], preposition)
            filled.more += [(target, place) for place in places]
            segments = [s for s in segments if s not in taken]
    return segments


_POSSESSIVES = frozenset(("my", "our", "your", "his", "her", "their"))
# Where a place is said after ("my trip to Lisbon", "our office in Leeds").
_PLACE_PREPOSITIONS = frozenset(("in", "at", "to", "for", "near", "around"))


def _place_said_later(phrase: str, value: str, after: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The later phrase that names the place when this one, in a place's role, names none, as a model
    reads it ("for my trip to Lisbon": the city is Lisbon, not 'trip'): this one is owned ("my trip",
    "our office") or everyday words no table knows as a place, and a later one after a preposition that
    places it is a proper name. None when this phrase is the place."""
    words = phrase.split()
    owned = bool(words) and words[0].lower() in _POSSESSIVES
    if not owned and (is_proper_name(value) or implied.place_name(value) is not None):
        return None
    return next(
        ((p, later) for p, later in after if p in _PLACE_PREPOSITIONS and is_proper_name(bare(later))), None
    )


def _said_there(text: str, name: str, referent: Referent) -> bool:
    """ "there" for a place parameter the last call or output filled by the same key."""
    place = spans.fits(name, (*_PLACES, "city", "town", "destination", "near"))
    return (
        place
        and bool(re.search(r"\bthere\b(?!'s| is| are)", text, re.I))
        and bool(referent.for_parameter(name, exact=True))
    )


def _names_tool(phrase: str, cues: Cues) -> bool:
    """Every word of ``phrase`` is a thing the tool's name says ("my calendar" for cancel_event)."""
    words = [t for t in lexicon.tokens(phrase) if not t.is_stop]
    return bool(words) and all(t.concept in cues.name_concepts for t in words)


def _valid_property(name: str, value: Any, root: Mapping[str, Any]) -> bool:
    """``value`` fits property ``name``, checked inside the root schema so a ``$ref`` still resolves."""
    alone = {**root, "required": []}
    try:
        return bool(validators.validator_for(alone)(alone).is_valid({name: value}))
    except Exception:  # a schema jsonschema cannot use (a broken $ref): not a valid value
        return False
