"""JSON Schema failures as the live service words them: the first error, its code and its message.

Used at every parse boundary (session, items, responses, Chat Completions requests). Unknown keys →
``unknown_parameter``, bad enum values → ``invalid_value``, wrong JSON types → ``invalid_type``, range →
``integer_below_min_value`` / ``decimal_above_max_value`` & co after the parameter's declared type
(reference §8).
"""

from __future__ import annotations

from typing import Any

import jsonschema

from mockengine.protocol import errors
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.plain_schema import verdict


def _is_integer(_checker: Any, instance: Any) -> bool:
    """An integer as the live service reads one: a JSON number without a fraction part or exponent
    as Python's json gives it (``int``). JSON Schema also takes a whole decimal (``50.0``), which was
    then echoed as ``50.0`` where the GA types are integers, or crashed a completion (``range(2.0)``)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


VALIDATOR_CLASS = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)
_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a decimal",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "null": "null",
}
# Which failure the live service reports first when several apply.
_PRIORITY = {"additionalProperties": 0, "required": 1, "type": 2, "const": 3, "enum": 3}


def json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _path(prefix: str, parts: Any) -> str:
    out = prefix
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _is_type_mismatch(error: jsonschema.ValidationError) -> bool:
    """An enum of strings failing on a non-string says only that the branch did not apply."""
    if error.validator != "enum" or isinstance(error.instance, str):
        return False
    return all(isinstance(v, str) for v in error.validator_value)


def _leaf_errors(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    if error.context:
        leaves = [leaf for sub in error.context for leaf in _leaf_errors(sub)]
        # In an anyOf the branch whose JSON type matched says what is wrong; the others only say "type".
        specific = [leaf for leaf in leaves if leaf.validator != "type" and not _is_type_mismatch(leaf)]
        return specific or leaves or [error]
    return [error]


def translate_schema_error(error: jsonschema.ValidationError, prefix: str) -> ProtocolError:
    """One jsonschema failure as the live service words it; ``prefix`` is the JSON path of the instance."""
    path = _path(prefix, error.absolute_path)
    kind = error.validator
    if kind == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        return errors.unknown_parameter(f"{path}.{extra[0]}")
    if kind == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return errors.missing_parameter(f"{path}.{missing[0]}")
    if kind == "pattern":
        return ProtocolError(
            "invalid_value",
            f"Invalid '{path}': '{error.instance}' does not match pattern '{error.validator_value}'.",
            path,
        )
    if kind in ("enum", "const"):
        values = error.validator_value if kind == "enum" else [error.validator_value]
        return errors.invalid_value(error.instance, [str(v) for v in values], path)
    if kind == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        expected = " or ".join(_TYPE_NAMES[w] for w in wanted)
        return errors.invalid_type(path, expected, json_type_name(error.instance))
    if kind in ("minimum", "maximum"):
        kind_word = _range_word(error)
        side = "below_min" if kind == "minimum" else "above_max"
        op = ">=" if kind == "minimum" else "<="
        return ProtocolError(
            f"{kind_word}_{side}_value",
            f"Invalid '{path}': {kind_word} {side.replace('_', ' ')}imum value. "
            f"Expected a value {op} {_bound_text(error.validator_value)}, but got {error.instance} instead.",
            path,
        )
    if (
        kind == "maxItems"
        and path.endswith("output_modalities")
        and all(m in error.instance for m in ("text", "audio"))
    ):
        # Both named: say which to use. A repeated one (["text", "text"]) gets the generic wording below.
        return ProtocolError(
            "invalid_value",
            f"Invalid '{path}': output_modalities cannot contain both 'text' and 'audio'; "
            "use ['audio'] (audio with a transcript) or ['text'].",
            path,
        )
    return ProtocolError("invalid_value", f"Invalid '{path}': {_described_failure(error)}.", path)


def _range_word(error: jsonschema.ValidationError) -> str:
    """ "integer" or "decimal", after the parameter's declared type: the live service says "decimal above
    maximum value" for ``temperature: 200`` (a number given an integer; chat_decimal_range capture) and
    "integer below minimum value" for ``rate: 16000`` (reference §8). A range without a declared type
    (a conditional subschema) goes by the value."""
    declared = error.schema.get("type")
    types = declared if isinstance(declared, list) else [declared]
    if "number" in types:
        return "decimal"
    if "integer" in types:
        return "integer"
    return "integer" if isinstance(error.instance, int) else "decimal"


def _bound_text(bound: float) -> str:
    """A schema bound as the live messages print it: ``2``, ``0.6`` (our schemas write 1.0 for a number)."""
    return str(int(bound)) if isinstance(bound, float) and bound.is_integer() else str(bound)


def _described_failure(error: jsonschema.ValidationError) -> str:
    """What a less common keyword failed on, quoting the client's value as JSON (jsonschema's own
    messages quote Python reprs: ``None``, ``True``, ``{'a': 1}``)."""
    value = errors.json_text(error.instance)
    limit = error.validator_value
    if error.validator in ("anyOf", "oneOf"):
        return f"'{value}' is not one of the accepted forms"
    if error.validator in ("minItems", "minLength", "minProperties"):
        return f"'{value}' is shorter than the minimum of {limit}"
    if error.validator in ("maxItems", "maxLength", "maxProperties"):
        return f"'{value}' is longer than the maximum of {limit}"
    return f"'{value}' does not satisfy '{error.validator}': {errors.json_text(limit)}"


def validate(instance: Any, schema: dict[str, Any], prefix: str) -> None:
    """Raise the live service's error for the most relevant schema failure of ``instance``. A plainly
    valid instance is passed by ``plain_schema.verdict`` without ``jsonschema`` (its cost per content
    part held the event loop); anything else, and every error's wording, is ``jsonschema``'s."""
    if verdict(instance, schema) is True:
        return
    found = list(VALIDATOR_CLASS(schema).iter_errors(instance))
    if not found:
        return
    leaves = [leaf for err in found for leaf in _leaf_errors(err)]
    leaves.sort(key=lambda e: (_PRIORITY.get(str(e.validator), 9), len(e.absolute_path)))
    raise translate_schema_error(leaves[0], prefix)
