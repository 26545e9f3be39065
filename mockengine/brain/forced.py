"""Arguments for a call the host demands (``tool_choice`` forced or ``required``) rather than one the words
asked for: what the words say where they say it, and neutral schema-valid values where they do not.

1. The words fill what they can, as for any call (``acting.arguments_for``). When they do not ask for
   this tool at all ("add buy milk" with ``get_weather`` forced), a free-text value is only what is left of
   another request, so it is dropped ("Add buy milk" is no city); typed values (a date, a time, a number,
   an option, a code, quoted text) and a name said within the words ("It is sunny in Paris" → ``Paris``)
   stay.
2. A required parameter still missing takes a value of its kind heard anywhere in the words: a span its
   ``pattern`` accepts, an email or web address, quoted text, a number, an object whose required
   properties were all heard.
3. A required free string still missing takes what the conversation said of it before: the value the
   user's earlier words give it ("what's the weather in Paris?", then a forced ``get_time`` on "hello
   there" → ``city: Paris``), else an earlier call's argument of the same name.
4. What is still missing is built from the schema (``schema_values``, ``pattern`` included); a plain free
   string there is a plausible value of its kind, never the empty string: the first example the
   parameter's description quotes ("e.g. 'Paris'"), else a value its name asks for (a city "London", a
   timezone "UTC", a language "English"), else for free text (``query``, ``text``, ``message``) the
   words said, else its name's words ("subject" → "Subject"), as a model fills a field it must fill.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from jsonschema import validators

from mockengine.brain import (
    acting,
    heard,
    implied,
    intent,
    items,
    lexicon,
    places,
    schema_values,
    utterance,
    verbatim,
)
from mockengine.brain import kinds as kinds_of
from mockengine.brain.model import ToolSpec, TurnView
from mockengine.brain.referents import Referent
from mockengine.brain.slots import Filled, at_a_place, implied_again, place_said

_FREE_KINDS = frozenset(("string", "person", "list"))
_EXAMPLE = re.compile(
    r"\b(?:e\.g\.|eg|for example|for instance|such as|like)\s*,?\s*['\"“]([^'\"”]+)['\"”]", re.I
)


def from_words(
    tool: ToolSpec, text: str, referent: Referent, today: date, declared: Sequence[ToolSpec] = ()
) -> Filled:
    """Steps 1 and 2 (module doc): the arguments the words give, and the required ones still missing
    (of a long text, its end: ``utterance.acted_tail``). Where the words ask for several things of the
    ``declared`` tools ("the weather in Paris and what time is it in Tokyo?"), only the part asking for
    ``tool`` is read (a forced get_time takes Tokyo, not Paris)."""
    text = _part_for(tool, utterance.acted_tail(text), declared, today)
    schema = tool.parameters or {}
    properties = _properties(schema)
    filled = acting.arguments_for(tool, text, referent, today)
    for name, value in list(filled.arguments.items()):
        opening = (
            _OPENING_NAME.match(value)
            if _names_a_person(name, properties) and isinstance(value, str)
            else None
        )
        if opening is not None and not places.is_proper_name(value):
            # "John Doe is 30 years old" read whole for instructor's forced ``User``: the name opens it
            filled.arguments[name] = opening.group(0)
    if not intent.actions(text, intent.candidates([tool])):
        dropped = [
            n
            for n in filled.arguments
            if _free(n, properties) and not _kept(text, n, filled, _names_a_person(n, properties))
        ]
        for name in dropped:
            del filled.arguments[name]
            filled.sources.pop(name, None)
    filled.missing = [n for n in schema_values.required_of(schema) if n not in filled.arguments]
    if filled.missing:
        # what the words give unforced ("Can I get a latte?" → order_drink {drink: "latte"}, an address
        # sent to): a forced call never takes less than the same words asked of the tool unforced
        planned = acting.plan(text, [tool], referent, today)
        action = planned.actions[0] if planned is not None and len(planned.actions) == 1 else None
        if action is not None and action.call.name == tool.name:
            given = json.loads(action.call.arguments)
            if set(filled.missing) <= set(given):
                filled.arguments.update(given)
                filled.sources.update({n: "(the words read unforced)" for n in given})
                filled.missing = []
    for name in list(filled.missing):
        value = heard.heard_value(text, name, properties.get(name))
        if value is None and implied.holds_place(name):
            value = place_said(text)
        if value is not None and _fits(name, value, schema):
            filled.arguments[name], filled.sources[name] = value, "(heard in the words, forced call)"
            filled.missing.remove(name)
    return filled


def _part_for(tool: ToolSpec, text: str, declared: Sequence[ToolSpec], today: date) -> str:
    """The part of ``text`` that asks for ``tool`` when it asks for several things; else all of it."""
    if len(declared) < 2:
        return text
    found = intent.actions(
        text, intent.candidates(list(declared)), lambda part, match: acting.stands_alone(part, match, today)
    )
    parts = [part for part, match in found if match.tool.name == tool.name]
    return parts[0] if len(found) > 1 and len(parts) == 1 else text


def from_conversation(
    tool: ToolSpec, filled: Filled, history: Sequence[TurnView], referent: Referent, today: date
) -> None:
    """Step 3: each required free string still missing from what the conversation said before the newest
    words: the value the user's earlier words give it (newest first), else an earlier call's argument of
    the same name. ``history`` ends with the newest words."""
    schema = tool.parameters or {}
    properties = _properties(schema)
    wanted = [n for n in filled.missing if _free(n, properties)]
    if not wanted:
        return
    earlier = (
        list(history[:-1]) if history and history[-1].kind in ("user_text", "user_audio") else list(history)
    )
    for item in reversed(earlier):
        for name in [n for n in wanted if n in filled.missing]:
            value = _mentioned(tool, name, item, referent, today)
            if isinstance(value, str) and value.strip() and _fits(name, value, schema):
                filled.arguments[name], filled.sources[name] = value, "(said earlier in the conversation)"
                filled.missing.remove(name)
    implied_again(filled, schema, tool.name, tool.description)  # Paris said earlier: its timezone too
    filled.missing = [n for n in filled.missing if n not in filled.arguments]


def _mentioned(tool: ToolSpec, name: str, item: TurnView, referent: Referent, today: date) -> Any:
    """What ``item`` (earlier user words, or an earlier call) gave parameter ``name`` of ``tool``."""
    if item.kind in ("user_text", "user_audio") and item.text.strip():
        earlier = acting.arguments_for(tool, item.text, Referent(), today)
        if earlier.sources.get(name, "(").startswith("("):  # from the conversation, not the words
            return None
        properties = _properties(tool.parameters or {})
        value = earlier.arguments.get(name)
        whole = isinstance(value, str) and value.lower() == item.text.strip(" .!?").lower()  # "Paris."
        if not (
            whole
            or intent.actions(item.text, intent.candidates([tool]))
            or _kept(item.text, name, earlier, _names_a_person(name, properties))
        ):
            # earlier words that asked nothing of the tool give what step 1 keeps of the newest ones:
            # small talk ("I love my dog", "I'm Sam") gave a city "love my dog", "Sam"
            return None
        return value
    if item.kind == "function_call":
        try:
            arguments = json.loads(item.text or "{}")
        except ValueError:
            return None
        return arguments.get(name) if isinstance(arguments, dict) else None
    return None


def completed(
    filled: Filled, built: Mapping[str, Any], schema: Mapping[str, Any], said: str = ""
) -> dict[str, Any]:
    """Step 4: ``filled`` with each missing parameter from ``built`` (a whole schema-built value), a plain
    free string made a plausible value of its kind (``plausible``) when that still validates; in the
    schema's order. ``said``: the newest words, which a free-text parameter may take."""
    properties = _properties(schema)
    merged = dict(filled.arguments)
    for name in [n for n in filled.missing if n in built]:
        plain = _neutralised(built[name], properties.get(name), schema, name, said)
        merged[name] = plain if _fits(name, plain, schema) else built[name]
    order = {name: index for index, name in enumerate(properties)}
    return dict(sorted(merged.items(), key=lambda item: order.get(item[0], len(order))))


def reported(arguments: dict[str, Any], schema: Mapping[str, Any], found: str) -> dict[str, Any]:
    """``arguments`` with each plain string whose name says it is the reply itself (``answer``,
    ``summary``, ``reply``, …) made ``found``, what the tools returned, as a model reports what its tools
    found in the tool that ends its turn (smolagents' ``final_answer``); the user's question is no answer.
    Unchanged when ``found`` is empty or the value would not fit."""
    if not found.strip():
        return arguments
    properties = _properties(schema)
    said = " ".join(found.split())
    changed = dict(arguments)
    for name in arguments:
        sub = properties.get(name)
        words = set(lexicon.identifier_words(name).split())
        plain = isinstance(sub, Mapping) and plausible(sub, name, said) is not None
        if plain and words & _REPORTS and _fits(name, said, schema):
            changed[name] = said
    return changed


def plausible(schema: Any, name: str = "", said: str = "") -> str | None:
    """The value a plain free string ``name`` gets when nothing was heard for it (step 4), else None (a
    string with an enum, pattern or format keeps the builder's): the first example its description quotes,
    a value of the kind its name or description asks for, the words ``said`` for free text, else its
    name's words; never "" (a model fills a field it must fill)."""
    if not isinstance(schema, Mapping) or schema.get("type", "string") != "string":
        return None
    if any(key in schema for key in ("enum", "const", "pattern", "format")):
        return None
    description = str(schema.get("description", ""))
    example = _EXAMPLE.search(description)
    if example is not None:
        return example.group(1).strip()
    words = lexicon.identifier_words(name).split()
    for word in reversed(words):  # the last word says what it is ("pickup_city")
        if word in _PLAUSIBLE:
            return _PLAUSIBLE[word]
    described = {lexicon.stem(t.lower) for t in lexicon.tokens(description)}
    for word, value in _PLAUSIBLE.items():
        if lexicon.stem(word) in described and word not in _FREE_TEXT:
            return value
    if (set(words) & _FREE_TEXT or not words) and said.strip():
        return " ".join(said.split())
    if words in (["name"], ["label"]):
        return "Untitled"  # a thing's own name nobody gave: what apps show for one, not the word "Name"
    readable = " ".join(words)
    return readable[:1].upper() + readable[1:] if readable else "value"


# A value of the kind a parameter's name asks for, when nothing was said of it: the one a model would
# write for a field it must fill (tool_choice required), never "".
_PLAUSIBLE: dict[str, str] = {
    "city": "London",
    "town": "London",
    "location": "London",
    "place": "London",
    "destination": "London",
    "origin": "London",
    "address": "London",
    "country": "United Kingdom",
    "region": "England",
    "timezone": "UTC",
    "tz": "UTC",
    "language": "English",
    "lang": "English",
    "locale": "en-GB",
    "currency": "GBP",
    "title": "Untitled",
    "subject": "Hello",
    "display": "User",
    "username": "user",
}
# Free strings that are the reply itself: after tool outputs, what the tools found.
_REPORTS = frozenset(("summary", "answer", "reply", "response", "report", "explanation"))
_FREE_TEXT = frozenset(
    ("query", "q", "search", "text", "message", "content", "prompt", "input", "question", "body", "note")
    + ("comment", "comments", "feedback", "remarks")
    + ("summary", "answer", "reply", "response", "report", "explanation")
)


def _neutralised(value: Any, schema: Any, root: Mapping[str, Any], name: str = "", said: str = "") -> Any:
    """``value`` (schema-built) with each plain free string in it made ``plausible``, however deep."""
    if not isinstance(schema, dict):
        return value
    schema = schema_values.resolve(schema, root)
    if isinstance(value, str):
        plain = plausible(schema, name, said)
        return value if plain is None else plain
    if isinstance(value, dict):
        properties = _properties(schema)
        return {key: _neutralised(item, properties.get(key), root, key, said) for key, item in value.items()}
    if isinstance(value, list):
        items = schema_values.resolve(schema["items"], root) if isinstance(schema.get("items"), dict) else {}
        if value and int(schema.get("minItems", 0) or 0) == 0 and items.get("type") == "object":
            return []  # objects nobody said (a tree's children): the minimal call holds none
        return [_neutralised(item, schema.get("items"), root, name, said) for item in value]
    return value


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    return schema_values.properties_of(schema)


def _free(name: str, properties: Mapping[str, Any]) -> bool:
    sub = properties.get(name)
    return isinstance(sub, Mapping) and kinds_of.kind_of(name, sub) in _FREE_KINDS


def _kept(text: str, name: str, filled: Filled, person: bool = False) -> bool:
    """A free value the words give although they ask for no call: quoted text, a value stated by the
    parameter's name ("My hobbies are …"), the things a list the speaker likes names ("I like chess and
    hiking"), or a name said within the sentence ("It is 21 degrees and sunny in Paris" → ``city:
    Paris`` for a forced ``report_weather``, as LangChain's and pydantic-ai's structured output by a
    forced tool ask; a model fills what was said).
    A capitalised word opening the words ("Thanks") is no name, except for a ``person`` property: "John
    Doe is 30 years old" gives instructor's forced ``User`` its ``name``."""
    value = filled.arguments.get(name)
    if _quoted(text, name, filled) or items.stated(text, name):
        return True
    if isinstance(value, list) and items.tells_liking(text):
        return True  # "I like chess and hiking": the things the speaker tells of their own
    if not isinstance(value, str) or not places.is_proper_name(value) or len(value.split()) > 4:
        return False
    if implied.holds_place(name) and implied.place_name(value) is None and not at_a_place(value, text):
        return False  # "I'm Sam" names no city: a name is a place where it is one or is said as one
    return person or not text.lstrip().startswith(value)


def _names_a_person(name: str, properties: Mapping[str, Any]) -> bool:
    """Property ``name`` holds a person's name: its kind says so, or its name is ``name`` or ends in
    ``name`` after a word for a person (``full_name``, ``customer_name``; not ``city_name``)."""
    sub = properties.get(name)
    if not isinstance(sub, Mapping):
        return False
    if kinds_of.kind_of(name, sub) == "person":
        return True
    words = lexicon.identifier_words(name).split()
    return bool(words) and words[-1] == "name" and (len(words) == 1 or words[-2] in _PERSON_WORDS)


_PERSON_WORDS = frozenset(
    ("full", "first", "last", "given", "family", "user", "person", "customer", "guest", "patient", "student")
    + ("contact", "participant", "employee", "author", "client", "passenger", "owner", "sender", "recipient")
)
# One to four capitalised words at the start of a value: a person's name ("John Doe is 30 years old").
_OPENING_NAME = re.compile(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3}(?=\s|$)")


def _quoted(text: str, name: str, filled: Filled) -> bool:
    value = filled.arguments.get(name)
    return isinstance(value, str) and any(m.group("text") == value for m in verbatim.QUOTED.finditer(text))


def _fits(name: str, value: Any, root: Mapping[str, Any]) -> bool:
    """``value`` fits property ``name``, checked inside the root schema so a ``$ref`` still resolves."""
    alone = {**root, "required": []}
    try:
        return bool(validators.validator_for(alone)(alone).is_valid({name: value}))
    except Exception:  # a schema jsonschema cannot use (a broken $ref): no value fits
        return False
