"""A fast first look at a JSON Schema check, for the plain shapes the wire schemas use.

``jsonschema`` costs ~90 µs per content part of a ``conversation.item.create`` item (four ``if``/``then``
branches each) and ~270 µs per ``response.input`` item, on the event loop: a 0.8 MB item of 20,000
short parts held every session of the engine for 5 s, and a 32 MiB frame could hold it for minutes.
:func:`verdict` walks the schema's common keywords in plain Python. It answers ``True`` only when the
instance is valid, ``False`` only when it is not, and ``None`` when it meets anything it does not
implement (``$ref``, ``oneOf``, ``format``, …); the caller then asks ``jsonschema``, which words every
error, so no error message depends on this module (``schema_errors.validate``). ``anyOf``, ``pattern`` and
the numeric bounds are judged here too: a session's tools (a ``pattern`` on each name) and its fields
(``anyOf``s) otherwise sent a ``session.update`` of 60,000 tools through ``jsonschema`` for ~40 s.

Semantics follow draft 2020-12 as far as implemented: each keyword constrains only instances of its
type; ``enum`` and ``const`` compare strings, ``None`` and booleans by type and value (``True`` is not
``1`` in JSON Schema, as it is in Python), anything else is left to ``jsonschema``.
"""

from __future__ import annotations

import re
from typing import Any

# Keywords that never constrain an instance.
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "deprecated"})
# Judged together, once per object (_object).
_OBJECT_KEYWORDS = frozenset({"properties", "required", "additionalProperties"})
_IS_TYPE = {
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    # 5.0 is no integer here (schema_errors.VALIDATOR_CLASS): left to jsonschema (None), which words it.
    "integer": lambda v: True if isinstance(v, int) and not isinstance(v, bool) else None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def _all(verdicts: Any) -> bool | None:
    """``False`` when any verdict is ``False``, else ``None`` when any is unsure, else ``True``."""
    unsure = False
    for one in verdicts:
        if one is False:
            return False
        unsure = unsure or one is None
    return None if unsure else True


def _any(verdicts: Any) -> bool | None:
    """``True`` when any verdict is ``True``, else ``None`` when any is unsure, else ``False``."""
    unsure = False
    for one in verdicts:
        if one is True:
            return True
        unsure = unsure or one is None
    return None if unsure else False


# Numeric bounds, judged as jsonschema judges them (numbers only; a boolean is none).
_BOUNDS = {
    "minimum": lambda value, bound: value >= bound,
    "maximum": lambda value, bound: value <= bound,
    "exclusiveMinimum": lambda value, bound: value > bound,
    "exclusiveMaximum": lambda value, bound: value < bound,
}


def _same(a: Any, b: Any) -> bool | None:
    if isinstance(a, (str, bool)) or a is None:
        return type(a) is type(b) and a == b
    return None


def _type(value: Any, allowed: Any) -> bool | None:
    names = allowed if isinstance(allowed, list) else [allowed]
    answers = []
    for name in names:
        check = _IS_TYPE.get(name)
        if check is None:
            return None
        answers.append(check(value))
    if True in answers:
        return True
    return None if None in answers else False


def _enum(value: Any, options: list[Any]) -> bool | None:
    answers = [_same(value, option) for option in options]
    if True in answers:
        return True
    return None if None in answers or not isinstance(value, (str, bool, type(None))) else False


def _object(value: dict[str, Any], schema: dict[str, Any]) -> bool | None:
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    verdicts: list[bool | None] = [key in value for key in schema.get("required", ())]
    for key, item in value.items():
        if key in properties:
            verdicts.append(verdict(item, properties[key]))
        elif extra is False:
            return False
        elif extra is not True:
            verdicts.append(verdict(item, extra))
    return _all(verdicts)


def _keyword(value: Any, key: str, arg: Any, schema: dict[str, Any]) -> bool | None:
    if key == "type":
        return _type(value, arg)
    if key == "enum":
        return _enum(value, arg)
    if key == "const":
        return _enum(value, [arg])
    if key == "items":
        return _all(verdict(item, arg) for item in value) if isinstance(value, list) else True
    if key == "allOf":
        return _all(verdict(value, sub) for sub in arg)
    if key == "anyOf":
        return _any(verdict(value, sub) for sub in arg)
    if key == "pattern":
        # As jsonschema's ``pattern`` keyword: Python's ``re.search``, unanchored, on strings only.
        return re.search(arg, value) is not None if isinstance(value, str) else True
    if key in _BOUNDS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True  # not a number to JSON Schema
        return _BOUNDS[key](value, arg)
    if key == "if":
        met = verdict(value, arg)
        if met is None:
            return None
        branch = schema.get("then" if met else "else")
        return True if branch is None else verdict(value, branch)
    if key in ("then", "else") and "if" in schema:
        return True  # judged with their "if"
    if key in ("maxLength", "minLength") and isinstance(value, str):
        return len(value) <= arg if key == "maxLength" else len(value) >= arg
    if key in ("maxItems", "minItems") and isinstance(value, list):
        return len(value) <= arg if key == "maxItems" else len(value) >= arg
    if key in ("maxLength", "minLength", "maxItems", "minItems"):
        return True  # not of the keyword's type
    return None


def verdict(value: Any, schema: Any) -> bool | None:
    """Whether ``value`` is valid for ``schema``: ``True`` or ``False`` when sure, ``None`` when the schema
    uses a keyword not implemented here (the caller then asks ``jsonschema``)."""
    if schema is True:
        return True
    if not isinstance(schema, dict):
        return None
    checked = [
        _keyword(value, key, arg, schema)
        for key, arg in schema.items()
        if key not in _ANNOTATIONS and key not in _OBJECT_KEYWORDS
    ]
    if isinstance(value, dict) and not _OBJECT_KEYWORDS.isdisjoint(schema):
        checked.append(_object(value, schema))
    return _all(checked)
