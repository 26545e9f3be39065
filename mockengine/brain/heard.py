"""Values of a parameter's kind heard anywhere in the words, whatever phrase they sit in: a span its
``pattern`` accepts, an email or web address, quoted text, a number, an object whose required properties
were all heard ("share this with bob@example.com" → ``target: {"email": "bob@example.com"}``). Used for a
forced call's required parameters the phrases did not fill (``forced``), and for a required object
parameter of any call (``slots``, typed values only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mockengine.brain import addresses, patterns, schema_values, verbatim
from mockengine.brain.values import numbers


def heard_value(text: str, name: str, schema: Any, loose: bool = True) -> Any:
    """A value of the kind ``schema`` takes found anywhere in ``text``, else None. Not ``loose``: only
    values whose form says what they are (a ``pattern`` span, an address), not any number or quote."""
    if not isinstance(schema, Mapping):
        return None
    for branch in [*(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]:
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        value = heard_value(text, name, {**rest, **branch}, loose)
        if value is not None:
            return value
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "object" or (kind is None and "properties" in schema):
        return _heard_object(text, schema, loose)
    if kind in ("number", "integer") and loose:
        said = [s.value for s in numbers(text) if isinstance(s.value, int | float)]
        found = [v for v in said if kind == "number" or float(v).is_integer()]
        return (int(found[0]) if kind == "integer" else found[0]) if found else None
    if kind not in (None, "string") or "enum" in schema or "const" in schema:
        return None
    if isinstance(schema.get("pattern"), str):
        return patterns.heard(text, schema["pattern"])
    address = addresses.kind_of(name, schema)
    if address is not None:
        span = addresses.address_for(text, address)
        return span.value if span is not None else None
    quoted = verbatim.QUOTED.search(text) if loose else None
    return quoted.group("text") if quoted is not None else None


def _heard_object(text: str, schema: Mapping[str, Any], loose: bool) -> dict[str, Any] | None:
    """An object whose required properties were all heard ("share this with bob@example.com" →
    ``{"email": "bob@example.com"}``), else None."""
    required = schema_values.required_of(schema)
    properties = schema_values.properties_of(schema)
    found = {name: heard_value(text, name, properties.get(name), loose) for name in required}
    return found if found and all(value is not None for value in found.values()) else None


def takes_object(schema: Any) -> bool:
    """``schema`` is an object, or offers one among its anyOf/oneOf branches."""
    if not isinstance(schema, Mapping):
        return False
    if schema.get("type") == "object" or (
        isinstance(schema.get("type"), list) and "object" in schema["type"]
    ):
        return True
    return any(takes_object(b) for b in [*(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())])
