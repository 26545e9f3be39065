"""A ``required`` name with no declared property (``{"type": "object", "required": ["city"]}``) is valid,
satisfiable JSON Schema: the brain fills it as a free string from the words, and builds a valid value for
it under a forced or ``required`` tool_choice, at the top level and nested (it raised KeyError / built
``{"o": {}}`` before)."""

from __future__ import annotations

import json
import random
from datetime import date
from typing import Any

import jsonschema
import pytest

from mockengine.brain import schema_values
from mockengine.brain.model import ForcedTool, ReplyRequest, ToolChoice, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

ASKED = "What is the weather in Paris?"
SCHEMAS: dict[str, dict[str, Any]] = {
    "no properties": {"type": "object", "required": ["city"]},
    "empty properties": {"type": "object", "properties": {}, "required": ["city"]},
    "one declared": {
        "type": "object",
        "properties": {"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"],
    },
    "nested object": {
        "type": "object",
        "properties": {"o": {"type": "object", "required": ["z"]}},
        "required": ["o"],
    },
    "objects in items": {
        "type": "object",
        "properties": {"l": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["z"]}}},
        "required": ["l"],
    },
    "additionalProperties schema": {
        "type": "object",
        "required": ["count"],
        "additionalProperties": {"type": "integer", "minimum": 1},
    },
    "patternProperties": {
        "type": "object",
        "required": ["day_1"],
        "patternProperties": {"^day_": {"type": "string", "format": "date"}},
        "additionalProperties": False,
    },
    "boolean property": {"type": "object", "properties": {"city": True}, "required": ["city"]},
    "boolean property, optional": {"type": "object", "properties": {"city": True, "never": False}},
    "allOf carries them": {
        "type": "object",
        "allOf": [{"properties": {"city": {"type": "string"}}}, {"required": ["city"]}],
    },
    "allOf with a boolean property": {"allOf": [{"type": "object", "properties": {"city": True}}]},
    "$ref to the object": {
        "$ref": "#/$defs/place",
        "$defs": {"place": {"type": "object", "properties": {"city": True}, "required": ["city"]}},
    },
}
CHOICES: list[ToolChoice] = ["auto", "required", ForcedTool("get_weather")]


def calls(schema: dict[str, Any], choice: ToolChoice, text: str = ASKED) -> list[dict[str, Any]]:
    tool = ToolSpec("get_weather", "Get the weather for a city", schema)
    request = ReplyRequest("", (tool,), choice, ("text",), (TurnView("u1", "user_text", text),), 0)
    reply = ScriptedBrain(Scenario("undeclared"), seed=4, today=date(2026, 3, 2)).reply(request)
    return [json.loads(call.arguments) for call in reply.tool_calls]


@pytest.mark.parametrize("choice", CHOICES, ids=str)
@pytest.mark.parametrize(
    "name",
    [
        "no properties",
        "empty properties",
        "boolean property",  # `true`: anything goes; its value came from no words before
        "boolean property, optional",
        "allOf carries them",  # required/properties inside allOf were not seen
        "allOf with a boolean property",
        "$ref to the object",
    ],
)
def test_a_required_name_without_a_property_is_filled_from_the_words(name: str, choice: ToolChoice) -> None:
    assert calls(SCHEMAS[name], choice) == [{"city": "Paris"}]


@pytest.mark.parametrize("choice", CHOICES, ids=str)
@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_call_is_valid_and_a_demanded_one_is_made(name: str, choice: ToolChoice) -> None:
    schema = SCHEMAS[name]
    made = calls(schema, choice)
    for arguments in made:
        jsonschema.validate(arguments, schema)
    if choice != "auto":
        assert len(made) == 1


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_built_values_satisfy_the_schema_at_every_depth(name: str) -> None:
    schema = SCHEMAS[name]
    for seed in range(5):
        jsonschema.validate(schema_values.value_for(schema, random.Random(seed)), schema)
    deep = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"$ref": "#"}}}}}
    deep["required"] = ["a", "k"]
    jsonschema.validate(schema_values.value_for(deep, random.Random(0)), deep)


def test_properties_of_adds_only_undeclared_required_names() -> None:
    schema = {"properties": {"a": {"type": "integer"}}, "required": ["a", "b", 3]}
    assert schema_values.properties_of(schema) == {"a": {"type": "integer"}, "b": {"type": "string"}}
    assert schema_values.properties_of({"required": "b"}) == {}
    assert schema_values.properties_of(None) == {}
