"""Build a JSON value that satisfies a JSON Schema, deterministically from a seeded ``random.Random``.

Covers what function-tool schemas use in practice: object (properties, required, additionalProperties as a
schema), string (enum, const, minLength/maxLength, a few formats, a ``pattern`` via
``patterns.generated``), number/integer (minimum, maximum,
exclusive bounds, multipleOf), boolean, null, array (items, minItems/maxItems, uniqueItems, enum items),
anyOf/oneOf (first branch), allOf (merged) and local ``$ref``. ``Hints`` steer leaf values towards what the
conversation suggests (a number from a question's range, a colour name, dimension labels as keys).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mockengine.brain import patterns

_PHRASES = ("sounds good", "I think so", "not sure yet", "that works for me", "maybe later", "yes, please")
_FORMAT_VALUES = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T12:00:00Z",
    "time": "12:00:00",
    "email": "participant@example.org",
    "uri": "https://example.org/",
    "uuid": "00000000-0000-4000-8000-000000000000",
}


@dataclass(frozen=True)
class Hints:
    """Preferred leaf values: ``text`` for strings, ``number`` for numbers, ``keys`` for open objects."""

    text: str | None = None
    number: float | None = None
    keys: tuple[str, ...] = ()
    # How deep in the value the builder is: past ``LEAN_DEPTH`` only what the schema requires is built, so a
    # recursive schema (``{"$ref": "#"}``) ends.
    depth: int = 0


LEAN_DEPTH = 3
_MAX_REF_HOPS = 32


def value_for(schema: Any, rng: random.Random, hints: Hints = Hints(), root: Any = None) -> Any:
    """A value valid against ``schema`` (a dict, or ``True``/``{}`` for "anything")."""
    root = schema if root is None else root
    if not isinstance(schema, dict):
        return hints.text or rng.choice(_PHRASES)
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _pick_enum(schema["enum"], rng, hints)
    kind = _schema_type(schema)
    builder = _BUILDERS.get(kind, _string_value)
    return builder(schema, rng, hints, root)


def resolve(schema: dict[str, Any], root: Any) -> dict[str, Any]:
    """``schema`` with local ``$ref``s merged in (Draft 2020-12: a ``$ref`` applies alongside its sibling
    keywords), the first non-null anyOf/oneOf branch merged in and ``allOf`` merged: the shape ``value_for``
    builds. A ``$ref`` met again inside its own target (``{"allOf": [{"$ref": "#"}]}``) adds nothing."""
    return _resolve(schema, root)


def _resolve(
    schema: dict[str, Any], root: Any, seen: frozenset[str] = frozenset(), first_branch: bool = True
) -> dict[str, Any]:
    """``first_branch``: an anyOf/oneOf is one branch merged whole (a value to build); else the branches'
    properties only, none of them required (the properties an object may have)."""
    schema = _with_ref(schema, root, seen, first_branch)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            rest = {k: v for k, v in schema.items() if k != key}
            if first_branch:
                non_null = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
                chosen = (non_null or branches)[0]
                part = _resolve(chosen, root, seen) if isinstance(chosen, dict) else {}
                return _resolve(_merge(rest, part), root, seen)
            return _resolve(_with_branch_properties(rest, branches, root, seen), root, seen, first_branch)
    if isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            merged = _merge(
                merged, _resolve(part, root, seen, first_branch) if isinstance(part, dict) else {}
            )
        return merged
    return schema


def _with_ref(schema: dict[str, Any], root: Any, seen: frozenset[str], first_branch: bool) -> dict[str, Any]:
    ref = schema.get("$ref")
    if not (isinstance(ref, str) and ref.startswith("#")):
        return schema
    own = {k: v for k, v in schema.items() if k != "$ref"}
    if ref in seen or len(seen) >= _MAX_REF_HOPS:  # a cycle (or a chain past reason): it adds nothing
        return own
    target: Any = root
    for part in ref[1:].split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        target = target.get(key, {}) if isinstance(target, dict) else {}
    resolved = _resolve(target, root, seen | {ref}, first_branch) if isinstance(target, dict) else {}
    return _merge(resolved, own)


def _with_branch_properties(
    schema: dict[str, Any], branches: list[Any], root: Any, seen: frozenset[str]
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for branch in branches:
        shape = _resolve(branch, root, seen, first_branch=False) if isinstance(branch, dict) else {}
        found.update(_mapping(shape.get("properties")))
    return {**schema, "properties": {**found, **_mapping(schema.get("properties"))}} if found else schema


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Both schemas' keywords (``right``'s where both have one); ``properties`` and ``required`` united,
    what is not a mapping / list of names ignored."""
    merged = {**left, **right}
    if "properties" in left or "properties" in right:
        merged["properties"] = {**_mapping(left.get("properties")), **_mapping(right.get("properties"))}
    if "required" in left or "required" in right:
        merged["required"] = sorted(set(_names(left.get("required"))) | set(_names(right.get("required"))))
    return merged


def _mapping(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _names(value: Any) -> list[str]:
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _schema_type(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    if any(key in schema for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return "number"
    return "string"


def _pick_enum(options: list[Any], rng: random.Random, hints: Hints) -> Any:
    if hints.text is not None:
        wanted = hints.text.strip().lower()
        for option in options:
            if isinstance(option, str) and option.strip().lower() == wanted:
                return option
    return rng.choice(options)


def _deeper(hints: Hints) -> Hints:
    return Hints(hints.text, hints.number, hints.keys, hints.depth + 1)


def properties_of(schema: Any) -> dict[str, Any]:
    """An object schema's ``properties`` with each name its ``required`` lists but does not declare added:
    such a name takes what ``patternProperties`` (a pattern it matches) or ``additionalProperties`` (a
    schema) allow, else it is a free string. ``{"required": ["city"]}`` → ``{"city": {"type": "string"}}``:
    valid JSON Schema (any object with a ``city``), so a required name has a property schema, unless
    ``additionalProperties: false`` forbids it (no value satisfies that schema: it is left out).
    A top-level ``$ref`` and ``allOf`` are merged with the schema's own keywords, an ``anyOf`` / ``oneOf``
    adds its branches' properties (not their ``required``: one branch holds, not each), and a boolean
    property schema is read as JSON Schema says: ``true`` anything (``{}``), ``false`` nothing (the property
    is left out, required or not: no value can fill it). A recursive ``$ref`` adds nothing. A property
    that is a local ``$ref`` to a value (Pydantic's enums: ``{"$ref": "#/$defs/Units"}``) is given with its
    target merged in, so its ``enum`` is seen."""
    root = schema
    schema = _object_shape(schema)
    found = _mapping(schema.get("properties"))
    properties = {
        name: {} if sub is True else _scalar_ref(sub, root)
        for name, sub in found.items()
        if sub is True or isinstance(sub, Mapping)
    }
    for name in required_of(schema):
        if name in found:
            continue
        undeclared = _undeclared(schema, name)
        if undeclared is not None:
            properties[name] = undeclared
    return properties


def _scalar_ref(sub: Mapping[str, Any], root: Any) -> Any:
    """``sub`` with its local ``$ref``'s target merged in where that target is a value, not an object (an
    enum, a string, a number): an object stays a ``$ref``, which ``value_for`` follows depth by depth."""
    if "$ref" not in sub:
        return sub
    resolved = _with_ref(dict(sub), root, frozenset(), True)
    return sub if _schema_type(resolved) in ("object", "array") else resolved


def object_target(schema: Any, root: Any) -> dict[str, Any] | None:
    """The object with properties a property ``schema`` takes (its local ``$ref`` followed, the first
    non-null anyOf/oneOf branch: ``Optional[Location]``), with the ``root``'s ``$defs`` / ``definitions``
    kept so the ``$ref``s inside it still resolve; None when it takes none."""
    if not isinstance(schema, Mapping):
        return None
    shape = _resolve(dict(schema), root)
    if _schema_type(shape) != "object" or not _mapping(shape.get("properties")):
        return None
    kept = {k: root[k] for k in ("$defs", "definitions") if isinstance(root, Mapping) and k in root}
    return {**kept, **shape}


def required_of(schema: Any) -> list[str]:
    """The names an object schema requires, those of a top-level ``allOf`` part or ``$ref`` included (not
    those of one ``anyOf`` / ``oneOf`` branch)."""
    return _names(_object_shape(schema).get("required"))


def _object_shape(schema: Any) -> dict[str, Any]:
    return _resolve(dict(schema), schema, first_branch=False) if isinstance(schema, Mapping) else {}


def _undeclared(schema: Mapping[str, Any], name: str) -> Any:
    patterned = schema.get("patternProperties")
    for pattern, sub in patterned.items() if isinstance(patterned, Mapping) else ():
        if isinstance(pattern, str) and patterns.matches(pattern, name):
            return {} if sub is True else sub if isinstance(sub, Mapping) else None
    extra = schema.get("additionalProperties")
    if extra is False:
        return None
    return extra if isinstance(extra, Mapping) else {"type": "string"}


def _object_value(schema: dict[str, Any], rng: random.Random, hints: Hints, root: Any) -> dict[str, Any]:
    declared = schema.get("properties")
    properties = properties_of(schema)
    if hints.depth >= LEAN_DEPTH:
        required = set(schema.get("required", [])) if isinstance(schema.get("required"), list) else set()
        properties = {name: sub for name, sub in properties.items() if name in required}
    inner = _deeper(hints)
    result = {name: value_for(sub, rng, inner, root) for name, sub in properties.items()}
    extra = schema.get("additionalProperties")
    is_open = isinstance(extra, dict) or (extra in (None, True) and not declared)
    if not is_open or hints.depth >= LEAN_DEPTH:
        return result
    keys = hints.keys
    if not keys and (int(schema.get("minProperties", 0)) > 0 or (isinstance(extra, dict) and not properties)):
        keys = ("value",)
    for key in keys:
        result.setdefault(key, value_for(extra if isinstance(extra, dict) else {}, rng, inner, root))
    return result


def _string_value(schema: dict[str, Any], rng: random.Random, hints: Hints, root: Any) -> str:
    fmt = schema.get("format")
    text = _FORMAT_VALUES[fmt] if fmt in _FORMAT_VALUES else (hints.text or rng.choice(_PHRASES))
    min_length = int(schema.get("minLength", 0))
    max_length = schema.get("maxLength")
    if len(text) < min_length:
        text = (text + " ") * (min_length // max(len(text), 1) + 1)
        text = text[:min_length] if text[:min_length].strip() else "x" * min_length
    if isinstance(max_length, int) and len(text) > max_length:
        text = text[:max_length]
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not patterns.matches(pattern, text):
        limit = max_length if isinstance(max_length, int) else None
        text = patterns.generated(pattern, rng, min_length, limit) or text
    return text


def _number_value(schema: dict[str, Any], rng: random.Random, hints: Hints, root: Any) -> float | int:
    is_integer = schema.get("type") == "integer" or (
        isinstance(schema.get("type"), list) and "integer" in schema["type"]
    )
    low, high = _bounds(schema, is_integer)
    value = min(max(hints.number, low), high) if hints.number is not None else rng.uniform(*_span(low, high))
    step = schema.get("multipleOf")
    if isinstance(step, int | float) and step > 0:
        value = _snap(value, float(step), low, high)
    if is_integer:
        whole = round(value)
        whole = max(whole, math.ceil(low)) if math.isfinite(low) else whole
        return min(whole, math.floor(high)) if math.isfinite(high) else whole
    return round(value, 2) if not (isinstance(step, int | float) and step > 0) else value


def neutral_number(schema: Any) -> float | int:
    """The number a field nobody spoke of gets: 0, or the bound nearest it (``minimum: 1`` → 1), on a
    ``multipleOf`` step; an integer for ``type: integer``. Unlike a drawn number it reads as unset."""
    schema = dict(schema) if isinstance(schema, Mapping) else {}
    return _number_value(schema, random.Random(0), Hints(number=0.0), schema)


def _bounds(schema: dict[str, Any], is_integer: bool) -> tuple[float, float]:
    nudge = 1.0 if is_integer else 0.01
    low = float(schema.get("minimum", -math.inf))
    high = float(schema.get("maximum", math.inf))
    if isinstance(schema.get("exclusiveMinimum"), int | float):
        low = max(low, float(schema["exclusiveMinimum"]) + nudge)
    if isinstance(schema.get("exclusiveMaximum"), int | float):
        high = min(high, float(schema["exclusiveMaximum"]) - nudge)
    return low, high


def _span(low: float, high: float) -> tuple[float, float]:
    """Where to draw an unhinted number: the whole range when bounded, else 10 units from the bound."""
    if math.isfinite(low) and math.isfinite(high):
        return low, high
    if math.isfinite(low):
        return low, low + 10.0
    if math.isfinite(high):
        return high - 10.0, high
    return 0.0, 10.0


def _snap(value: float, step: float, low: float, high: float) -> float:
    snapped = round(value / step) * step
    if snapped < low:
        snapped += step
    if snapped > high:
        snapped -= step
    return int(snapped) if float(snapped).is_integer() else snapped


def _boolean_value(schema: dict[str, Any], rng: random.Random, hints: Hints, root: Any) -> bool:
    return rng.random() < 0.5


def _null_value(schema: dict[str, Any], rng: random.Random, hints: Hints, root: Any) -> None:
    return None


def _array_value(schema: dict[str, Any], rng: random.Random, hints: Hints, root: Any) -> list[Any]:
    items = _resolve(schema["items"] if isinstance(schema.get("items"), dict) else {}, root)
    min_items = int(schema.get("minItems", 0))
    max_items = int(schema.get("maxItems", max(min_items, 3)))
    options = items.get("enum") if isinstance(items.get("enum"), list) else None
    if options:
        count = min(max(min_items, 1), max_items)
        if schema.get("uniqueItems"):
            count = min(count, len(options))
        if count > len(options):
            return [rng.choice(options) for _ in range(count)]
        preferred = [_pick_enum(options, rng, hints)] if hints.text is not None else []
        rest = [option for option in rng.sample(options, len(options)) if option not in preferred]
        return (preferred + rest)[:count]
    count = min(max(min_items, 0 if hints.depth >= LEAN_DEPTH else 1), max_items)
    values = [value_for(items, rng, _deeper(hints), root) for _ in range(count)]
    if schema.get("uniqueItems") and len({repr(v) for v in values}) < len(values):
        values = [_distinct(value, index) for index, value in enumerate(values)]
    return values


def _distinct(value: Any, index: int) -> Any:
    if isinstance(value, str):
        return f"{value} {index + 1}" if index else value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value + index
    return value


_BUILDERS = {
    "object": _object_value,
    "string": _string_value,
    "number": _number_value,
    "integer": _number_value,
    "boolean": _boolean_value,
    "null": _null_value,
    "array": _array_value,
}


def admits_null(schema: Any) -> bool:
    """``schema`` accepts JSON null: ``type: "null"`` or a type list with it, an anyOf/oneOf branch of it,
    or null among its ``enum`` (how strict-mode function schemas write an optional parameter)."""
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if isinstance(schema.get("enum"), list) and None in schema["enum"]:
        return True
    branches = [*(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]
    return any(admits_null(branch) for branch in branches)


def searches(parameters: Mapping[str, Any] | None) -> bool:
    """A tool with these ``parameters`` takes free text to look for (a string with no enum): a search."""
    properties = (parameters or {}).get("properties") or {}
    return any(
        isinstance(p, Mapping) and p.get("type") == "string" and "enum" not in p for p in properties.values()
    )
