"""What a tool's parameters schema says an object has (``schema_values.properties_of`` / ``required_of``)
when a top-level ``$ref`` or ``anyOf`` sits next to the schema's own keywords, when a ``$ref`` points back at
itself, when a required property's schema is ``false``, and when an ``allOf`` part is malformed.

Before: a ``$ref`` replaced its siblings (the brain made no call), an anyOf branch's ``required`` replaced
the declared one, ``{"allOf": [{"$ref": "#"}]}`` raised RecursionError on every reply, a ``false`` property
came back as a free string, and ``properties: []`` in an allOf part raised TypeError."""

from __future__ import annotations

import random
from typing import Any

import jsonschema
import pytest

from mockengine.brain import schema_values
from mockengine.brain.arguments import ArgumentsError
from tests.unit.test_brain_undeclared_required import CHOICES, ToolChoice, calls

CITY = {"type": "string"}
UNITS = {"enum": ["celsius", "fahrenheit"]}
REF_WITH_SIBLINGS = {
    "type": "object",
    "properties": {"city": CITY},
    "required": ["city"],
    "$ref": "#/$defs/common",
    "$defs": {"common": {"properties": {"units": UNITS}}},
}
ANY_OF_NEXT_TO_REQUIRED = {
    "type": "object",
    "required": ["city"],
    "allOf": [{"properties": {"city": CITY, "units": UNITS}}, {"properties": {"days": {"type": "integer"}}}],
    "anyOf": [{"required": ["units"]}, {"required": ["days"]}],
}
RECURSIVE = {"type": "object", "allOf": [{"$ref": "#"}]}
REF_CYCLE = {
    "type": "object",
    "properties": {"city": CITY},
    "required": ["city"],
    "$ref": "#/$defs/a",
    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
}
FALSE_REQUIRED = {"type": "object", "properties": {"city": False}, "required": ["city"]}
MALFORMED_PART = {
    "type": "object",
    "properties": {"city": CITY},
    "required": ["city"],
    "allOf": [{"properties": [], "required": 5}, {"properties": {"units": 3, "days": True}}],
}


def test_a_ref_applies_alongside_the_schemas_own_keywords() -> None:
    assert schema_values.properties_of(REF_WITH_SIBLINGS) == {"city": CITY, "units": UNITS}
    assert schema_values.required_of(REF_WITH_SIBLINGS) == ["city"]
    assert set(schema_values.resolve(REF_WITH_SIBLINGS, REF_WITH_SIBLINGS)["properties"]) == {"city", "units"}


@pytest.mark.parametrize("choice", CHOICES, ids=str)
def test_the_brain_fills_the_city_next_to_a_ref(choice: ToolChoice) -> None:
    made = calls(REF_WITH_SIBLINGS, choice)
    assert [call["city"] for call in made] == ["Paris"]
    jsonschema.validate(made[0], REF_WITH_SIBLINGS)


def test_an_any_of_branchs_required_is_not_required() -> None:
    assert schema_values.required_of(ANY_OF_NEXT_TO_REQUIRED) == ["city"]
    assert set(schema_values.properties_of(ANY_OF_NEXT_TO_REQUIRED)) == {"city", "units", "days"}
    branches_only = {"type": "object", "oneOf": [{"properties": {"a": CITY}, "required": ["a"]}, {}]}
    assert schema_values.properties_of(branches_only) == {"a": CITY}
    assert schema_values.required_of(branches_only) == []


@pytest.mark.parametrize("schema", [ANY_OF_NEXT_TO_REQUIRED, REF_WITH_SIBLINGS])
def test_a_built_value_satisfies_the_whole_schema(schema: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    for seed in range(5):
        jsonschema.validate(schema_values.value_for(schema, random.Random(seed)), schema)


def test_a_recursive_ref_adds_nothing_instead_of_recursing_forever() -> None:
    assert schema_values.properties_of(RECURSIVE) == {}
    assert schema_values.required_of(RECURSIVE) == []
    assert schema_values.properties_of(REF_CYCLE) == {"city": CITY}
    assert schema_values.value_for(RECURSIVE, random.Random(0)) == {}
    assert set(schema_values.value_for(REF_CYCLE, random.Random(0))) == {"city"}
    jsonschema.Draft202012Validator.check_schema(RECURSIVE)
    # The spoken path reads the schema on every reply (it raised RecursionError). A forced call still fails
    # its response: jsonschema itself cannot finish validating against such a schema.
    assert calls(RECURSIVE, "auto") == []


def test_a_required_property_whose_schema_is_false_is_left_out() -> None:
    """No value satisfies ``false``: the property cannot be filled, so it is not offered as a free string."""
    assert schema_values.properties_of(FALSE_REQUIRED) == {}
    assert schema_values.required_of(FALSE_REQUIRED) == ["city"]
    assert calls(FALSE_REQUIRED, "auto") == []
    with pytest.raises(ArgumentsError, match="do not match"):  # a demanded call: no valid one exists
        calls(FALSE_REQUIRED, "required")


def test_a_malformed_all_of_part_is_ignored() -> None:
    assert schema_values.properties_of(MALFORMED_PART) == {"city": CITY, "days": {}}
    assert schema_values.required_of(MALFORMED_PART) == ["city"]
    schema_values.value_for(MALFORMED_PART, random.Random(0))


PYDANTIC_ENUM = {
    "$defs": {"Units": {"enum": ["celsius", "fahrenheit"], "title": "Units", "type": "string"}},
    "properties": {"city": {"title": "City", "type": "string"}, "units": {"$ref": "#/$defs/Units"}},
    "required": ["city", "units"],
    "title": "get_weather_args",
    "type": "object",
    "additionalProperties": False,
}


@pytest.mark.parametrize("choice", CHOICES, ids=str)
def test_a_property_that_is_a_ref_is_filled_from_its_target(choice: ToolChoice) -> None:
    """An enum through ``$ref`` (what Pydantic and the Agents SDK send) is chosen from the words: the
    brain asked "Which units do you mean?" for "… in fahrenheit"."""
    made = calls(PYDANTIC_ENUM, choice, "What's the weather in Paris in fahrenheit?")
    assert made == [{"city": "Paris", "units": "fahrenheit"}]
    jsonschema.validate(made[0], PYDANTIC_ENUM)
