"""Arguments for a call the host demands (``tool_choice`` forced or ``required``) rather than one the words
asked for: what the words say where they say it, and neutral schema-valid values where they do not.

1. The words fill what they can, as for any call (``acting.arguments_for``). When they do not ask for
   this tool at all ("add buy milk" with ``get_weather`` forced), a free-text value is only what is left of
   another request, so it is dropped ("Add buy milk" is no city); typed values (a date, a time, a number,
   an option, a code, quoted text) stay.
2. A required parameter still missing takes a value of its kind heard anywhere in the words: a span its
   ``pattern`` accepts, an email or web address, quoted text, a number, an object whose required
   properties were all heard.
3. What is still missing is built from the schema (``schema_values``, ``pattern`` included); a plain free
   string there is neutral instead of an invented phrase: the first example the parameter's description
   quotes ("e.g. 'Paris'"), else the empty string when its ``minLength`` allows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from jsonschema import validators

from mockengine.brain import acting, heard, intent, schema_values, utterance, verbatim
from mockengine.brain import kinds as kinds_of
from mockengine.brain.model import ToolSpec
from mockengine.brain.referents import Referent
from mockengine.brain.slots import Filled

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
    if not intent.actions(text, intent.candidates([tool])):
        for name in [n for n in filled.arguments if _free(n, properties) and not _quoted(text, n, filled)]:
            del filled.arguments[name]
            filled.sources.pop(name, None)
    filled.missing = [n for n in schema_values.required_of(schema) if n not in filled.arguments]
    for name in list(filled.missing):
        value = heard.heard_value(text, name, properties.get(name))
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


def completed(filled: Filled, built: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Step 3: ``filled`` with each missing parameter from ``built`` (a whole schema-built value), a plain
    free string made neutral when that still validates; in the schema's order."""
    properties = _properties(schema)
    merged = dict(filled.arguments)
    for name in [n for n in filled.missing if n in built]:
        plain = _neutralised(built[name], properties.get(name), schema)
        merged[name] = plain if _fits(name, plain, schema) else built[name]
    order = {name: index for index, name in enumerate(properties)}
    return dict(sorted(merged.items(), key=lambda item: order.get(item[0], len(order))))


def neutral(schema: Any) -> str | None:
    """The value a plain free string gets when nothing was heard for it (step 3), else None."""
    if not isinstance(schema, Mapping) or schema.get("type", "string") != "string":
        return None
    if any(key in schema for key in ("enum", "const", "pattern", "format")):
        return None
    example = _EXAMPLE.search(str(schema.get("description", "")))
    return example.group(1).strip() if example is not None else ""


def _neutralised(value: Any, schema: Any, root: Mapping[str, Any]) -> Any:
    """``value`` (schema-built) with each plain free string in it made ``neutral``, however deep."""
    if not isinstance(schema, dict):
        return value
    schema = schema_values.resolve(schema, root)
    if isinstance(value, str):
        plain = neutral(schema)
        return value if plain is None else plain
    if isinstance(value, dict):
        properties = _properties(schema)
        return {key: _neutralised(item, properties.get(key), root) for key, item in value.items()}
    if isinstance(value, list):
        return [_neutralised(item, schema.get("items"), root) for item in value]
    return value


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    return schema_values.properties_of(schema)


def _free(name: str, properties: Mapping[str, Any]) -> bool:
    sub = properties.get(name)
    return isinstance(sub, Mapping) and kinds_of.kind_of(name, sub) in _FREE_KINDS


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
