"""Acting on an app's own tools: the calls the words ask for, the clause said while acting, the question
when a required argument is missing, and the grounding sentence after the app's output.

``plan()`` is the whole decision for one user turn (``intent`` picks tools, ``slots`` fills arguments);
``referent()`` reads what "it" means from the history; ``grounding()`` speaks a function output.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from jsonschema import validators

from mockengine.brain import intent, lexicon, utterance
from mockengine.brain.arguments import check_schema
from mockengine.brain.model import ToolCall, ToolSpec, TurnView
from mockengine.brain.slots import Filled, Referent, fill

_NAME_KEYS = ("title", "name", "label", "card", "product", "event", "item", "text", "track", "song", "room")
_STATE_KEYS = ("mode", "status", "state")
_CLAUSE_ENDINGS = (" —", "…")
_GERUNDS = {
    "get": "Checking",
    "go": "Going",
    "set": "Setting",
    "run": "Running",
    "stop": "Stopping",
    "flip": "Flipping",
    "view": "Checking",
    "list": "Checking",
    "show": "Showing",
}


@dataclass(frozen=True)
class Action:
    """One call the words ask for, and why: the tool's match and which words filled which argument."""

    call: ToolCall
    why: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Plan:
    """The decision: calls to make (with a clause to say while acting), or a question to ask instead."""

    actions: tuple[Action, ...]
    question: str | None
    why: str


def plan(text: str, tools: list[ToolSpec], referent: Referent, today: date) -> Plan | None:
    """The calls ``text`` asks for among ``tools``, or the question a missing argument needs; None when
    no tool matches (the participant then talks)."""
    found = intent.actions(text, intent.candidates(tools))
    if not found:
        return None
    done: list[Action] = []
    for part, match in found:
        check_schema(match.tool)  # a broken schema fails the response, as for any call
        vocabulary = intent.vocabulary_of(match.tool)
        tool = match.tool
        filled = fill(tool.name, tool.parameters or {}, part, referent, today, vocabulary, tool.description)
        if filled.missing:
            why = f"{intent.describe(match)}; missing required {', '.join(filled.missing)}"
            return Plan(tuple(done), ask_for(filled.missing[0], match.tool), why)
        if not is_valid(filled.arguments, match.tool.parameters or {}):
            # Each value fits its property, but not the whole (a dependency, a oneOf): call nothing.
            why = f"{intent.describe(match)}; arguments {filled.arguments} do not fit its schema"
            return Plan(tuple(done), None, why) if done else None
        done.append(_action(match, filled))
        for name, thing in filled.more:  # "add eggs and bread": one call per thing
            other = Filled({**filled.arguments, name: thing}, {**filled.sources, name: thing})
            if is_valid(other.arguments, match.tool.parameters or {}):
                done.append(_action(match, other))
        referent = _after_call(referent, filled.arguments)
    return Plan(tuple(done), None, "; ".join(a.why for a in done))


def arguments_for(tool: ToolSpec, text: str, referent: Referent, today: date) -> Filled:
    """Arguments for a tool chosen by someone else (``tool_choice``), from the words."""
    words = utterance.clean(text)
    vocabulary = intent.vocabulary_of(tool)
    return fill(tool.name, tool.parameters or {}, words, referent, today, vocabulary, tool.description)


def _action(match: intent.Match, filled: Filled) -> Action:
    sources = ", ".join(f"{name} ← {words!r}" for name, words in filled.sources.items()) or "no arguments"
    call = ToolCall(match.tool.name, json.dumps(filled.arguments, ensure_ascii=False))
    return Action(call, f"{intent.describe(match)}; {sources}", filled.arguments)


def _after_call(referent: Referent, arguments: Mapping[str, Any]) -> Referent:
    values = tuple((k.lower(), v) for k, v in arguments.items() if isinstance(v, str))
    if not values:
        return referent
    return Referent(values + referent.values, values[0][1])


def ask_for(parameter: str, tool: ToolSpec) -> str:
    """The question for a missing required argument ("Which card do you mean?")."""
    words = lexicon.identifier_words(parameter)
    if words in ("text", "message", "note", "body", "content"):
        return "What should it say?"
    if words in ("query", "search", "term"):
        return "What should I look for?"
    if words in ("date", "day", "time", "when"):
        return f"What {words} should I use?"
    return f"Which {words} do you mean?"


def clause(actions: tuple[Action, ...], rng: random.Random) -> str:
    """The short clause said while the first call goes out: the action as a gerund and what it acts on
    ("Opening gesture project —", "Pausing —", "Setting timer —"), else "On it —"."""
    first = actions[0]
    name_words = lexicon.identifier_words(first.call.name).split()
    ending = rng.choice(_CLAUSE_ENDINGS)
    spoken = [v for v in first.arguments.values() if isinstance(v, str) and v.lower() in _VERBS]
    verb = spoken[0].lower() if spoken else (name_words[0] if name_words[0] in _VERBS else None)
    if verb is None:
        return "On it" + ending
    gerund = _GERUNDS.get(verb) or _gerund(verb)
    things = [v for k, v in first.arguments.items() if isinstance(v, str) and _is_thing(k)]
    rest = " ".join(name_words[1:]) if not spoken and verb == name_words[0] else ""
    target = things[0] if things else rest
    return (f"{gerund} {target}" if target else gerund) + ending


def _is_thing(parameter: str) -> bool:
    return bool(set(lexicon.identifier_words(parameter).split()) & _THINGS)


_THINGS = frozenset(
    [
        "card",
        "title",
        "name",
        "query",
        "product",
        "item",
        "text",
        "song",
        "track",
        "file",
        "page",
        "project",
        "tag",
        "code",
        "message",
        "event",
    ]
)
_VERBS = frozenset(
    [
        "open",
        "launch",
        "play",
        "pause",
        "resume",
        "restart",
        "close",
        "show",
        "flip",
        "filter",
        "navigate",
        "go",
        "rate",
        "favorite",
        "get",
        "set",
        "add",
        "remove",
        "create",
        "cancel",
        "delete",
        "search",
        "find",
        "send",
        "start",
        "stop",
        "turn",
        "lock",
        "unlock",
        "apply",
        "track",
        "list",
        "view",
        "check",
        "book",
        "schedule",
        "remind",
        "complete",
        "mark",
        "move",
        "update",
        "edit",
        "save",
        "buy",
        "order",
        "pay",
        "call",
        "share",
        "translate",
        "shuffle",
        "mute",
        "unmute",
        "skip",
    ]
)


def _gerund(verb: str) -> str:
    if verb in _DOUBLED:
        stem = verb + verb[-1]
    elif verb.endswith("e") and not verb.endswith("ee"):
        stem = verb[:-1]
    else:
        stem = verb
    return (stem + "ing").capitalize()


_DOUBLED = frozenset(
    [
        "stop",
        "flip",
        "drop",
        "plan",
        "skip",
        "shop",
        "tap",
        "pin",
        "log",
        "ship",
        "run",
        "get",
        "set",
        "put",
        "cut",
        "dim",
        "swap",
        "zip",
        "tag",
        "plug",
    ]
)


def referent(history: tuple[TurnView, ...]) -> Referent:
    """What "it" means: the newest function output's named fields, then the newest call's arguments."""
    values: list[tuple[str, str]] = []
    name: str | None = None
    for item in reversed(history):
        if item.kind == "function_call_output" and name is None:
            data = _json(item.text)
            if isinstance(data, Mapping) and "error" not in data:
                found = _named_fields(data)
                values += found
                name = name or (found[0][1] if found else None)
        elif item.kind == "function_call":
            data = _json(item.text)
            if isinstance(data, Mapping):
                found = [(k.lower(), v) for k, v in data.items() if isinstance(v, str)]
                values += found
                name = name or (found[0][1] if found else None)
            if name is not None:
                break
        elif item.kind in ("user_text", "user_audio") and values:
            break
    titled = [value for key, value in values if key in ("title", "name", "label")]
    return Referent(tuple(values), titled[0] if titled else name)


def _named_fields(data: Mapping[str, Any], depth: int = 0) -> list[tuple[str, str]]:
    """String fields that name a thing, e.g. ``card.id``, ``focusedCardId``, ``title`` (depth ≤ 2)."""
    found: list[tuple[str, str]] = []
    for key, value in data.items():
        lowered = key.lower()
        if isinstance(value, str) and (lowered in _NAME_KEYS or lowered.endswith("id")):
            found.append((lowered, value))
        elif isinstance(value, list) and value and isinstance(value[0], Mapping) and depth < 2:
            # A list of things (an inbox, search results): "it" is the first, any of its fields.
            first = value[0]
            found += [(k.lower(), v) for k, v in first.items() if isinstance(v, str) and v]
        elif isinstance(value, Mapping) and depth < 2:
            inner = _named_fields(value, depth + 1)
            ids = [v for k, v in inner if k == "id"]
            found += [(lowered, ids[0])] if ids else []
            found += inner
    return found


def grounding(output: str, call_name: str | None, call_arguments: str | None) -> str:
    """One sentence from a function output's fields: the thing's name and its state."""
    data = _json(output)
    arguments = _json(call_arguments or "")
    named = _display_name(data) or _first_string(arguments)
    state = _state(data)
    verb = lexicon.identifier_words(call_name or "").split()[:1]
    concept = lexicon.concept(verb[0]) if verb else ""
    where = f", in {state} view" if state else ""
    facts = _facts(data, named) if verb and verb[0] in _LOOKUPS else []
    if facts:  # a lookup's answer is its fields: "Oslo: temp c 3, condition snow."
        lead = f"{named[0].upper()}{named[1:]}: " if named else ""
        return f"{lead}{', '.join(facts)}."
    if named is None:
        return f"Done{where}." if where else "Done."
    name = named[0].upper() + named[1:]
    if concept == "launch":
        return f"{name} is playing{where}."
    if concept == "open":
        return f"{name} is open{where}."
    return f"Done: {named}{where}."


_LOOKUPS = frozenset(
    ("get", "list", "check", "view", "show", "find", "search", "track", "read", "lookup", "fetch")
)


def _facts(data: Any, named: str | None, limit: int = 4) -> list[str]:
    """A lookup output's top-level facts, as words: scalars ("condition snow"), list sizes ("2 tasks"),
    and one nested object's scalars; not ids, ``ok`` or the thing's own name."""
    if not isinstance(data, Mapping) or "error" in data:
        return []
    facts: list[str] = []
    nested = [v for v in data.values() if isinstance(v, Mapping)]
    for key, value in [*data.items(), *(nested[0].items() if len(nested) == 1 else ())]:
        words = lexicon.identifier_words(str(key))
        if not words or words in ("ok", "id") or words.endswith((" id", " ids")) or value == named:
            continue
        if isinstance(value, bool):
            facts.append(f"{words} {'yes' if value else 'no'}")
        elif isinstance(value, (int, float, str)) and str(value):
            facts.append(f"{words} {value}")
        elif isinstance(value, list):
            facts.append(f"{len(value)} {words}")
        if len(facts) == limit:
            break
    return facts


def _display_name(data: Any, depth: int = 0) -> str | None:
    if not isinstance(data, Mapping) or depth > 2:
        return None
    for key in ("title", "name", "label"):
        if isinstance(data.get(key), str) and data[key]:
            return str(data[key])
    for value in data.values():
        inner = _display_name(value, depth + 1)
        if inner:
            return inner
    for key, value in data.items():
        if isinstance(value, str) and key.lower().endswith("id") and value:
            return value.replace("-", " ").replace("_", " ")
    return None


def _state(data: Any, depth: int = 0) -> str | None:
    if not isinstance(data, Mapping) or depth > 2:
        return None
    for key in _STATE_KEYS:
        if isinstance(data.get(key), str) and data[key]:
            return str(data[key]).replace("_", " ")
    for value in data.values():
        inner = _state(value, depth + 1)
        if inner:
            return inner
    return None


def _first_string(data: Any) -> str | None:
    if isinstance(data, Mapping):
        return next((v for v in data.values() if isinstance(v, str) and v), None)
    return None


def is_valid(arguments: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    """``arguments`` validate against the tool's ``parameters`` schema (a schema jsonschema cannot use,
    such as one with a broken ``$ref``, validates nothing)."""
    try:
        return bool(validators.validator_for(schema)(schema).is_valid(arguments))
    except Exception:  # referencing and schema errors alike
        return False


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
