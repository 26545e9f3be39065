"""Two places for a tool that takes one ("the weather in Paris and in Rome") are two calls of it, as a
model makes parallel calls; a free-text argument that says "and" stays one value."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.places import more_places


def _tool(name: str, description: str, **properties: Any) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": [next(iter(properties))]}
    return ToolSpec(name, description, schema)


WEATHER = _tool("get_weather", "Get the current weather for a city.", city={"type": "string"})
WEATHER_IN = _tool("get_weather", "Get the weather.", city={"type": "string"}, country={"type": "string"})
NOTE = _tool("add_note", "Add a note.", text={"type": "string"})
SEARCH = _tool("search_recipes", "Search recipes.", query={"type": "string"})
LIGHTS = _tool("set_lights", "Turn the lights on in a room.", room={"type": "string"})


def _calls(text: str, tool: ToolSpec) -> list[tuple[str, dict[str, Any]]]:
    request = ReplyRequest("", (tool,), "auto", ("audio",), (TurnView("u", "user_audio", text),), 0)
    reply = ScriptedBrain(load_scenario(None), 3, today=date(2026, 3, 2)).reply(request)
    return [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]


@pytest.mark.parametrize(
    "text",
    [
        "What's the weather in Paris and in Rome?",
        "Weather in Paris and Rome",
        "what's the weather like in Paris and Rome",
    ],
)
def test_two_cities_are_two_calls(text: str) -> None:
    assert _calls(text, WEATHER) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]


def test_a_second_place_is_not_taken_for_another_parameter() -> None:
    """It used to fill ``country`` with "Rome"; each place's country is the one it implies (round 11)."""
    assert _calls("weather in Paris and in Rome", WEATHER_IN) == [
        ("get_weather", {"city": "Paris", "country": "France"}),
        ("get_weather", {"city": "Rome", "country": "Italy"}),
    ]


def test_names_of_several_words_and_three_cities() -> None:
    assert [
        args["city"] for _, args in _calls("weather in Salt Lake City and New York and Rome", WEATHER)
    ] == [
        "Salt Lake City",
        "New York",
        "Rome",
    ]


@pytest.mark.parametrize(
    ("text", "tool", "expected"),
    [
        ("What's the weather in Paris?", WEATHER, [("get_weather", {"city": "Paris"})]),
        ("Add a note saying salt and pepper", NOTE, [("add_note", {"text": "salt and pepper"})]),
        ("search recipes with salt and pepper", SEARCH, [("search_recipes", {"query": "salt and pepper"})]),
        ("turn on the lights in the kitchen and then relax", LIGHTS, [("set_lights", {"room": "kitchen"})]),
    ],
)
def test_one_value_stays_one_call(text: str, tool: ToolSpec, expected: list[Any]) -> None:
    assert _calls(text, tool) == expected


def test_more_places_takes_only_proper_names_joined_by_and() -> None:
    after = [("and", ""), ("in", "Rome"), ("and", "the beach"), ("and", "Oslo")]
    assert more_places(after, "in") == (["Rome"], [("and", ""), ("in", "Rome")])
    assert more_places([("and", "Rome"), ("with", "Ana")], "in") == (["Rome"], [("and", "Rome")])
    assert more_places([("and", ""), ("at", "Rome")], "in") == ([], [])
    assert more_places([("to", "Rome")], "in") == ([], [])


PHRASES = _tool("get_phrases", "Get useful phrases for a travel destination.", city={"type": "string"})


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("Give me some phrases for my trip to Lisbon", PHRASES),
        ("What's the weather for my trip to Lisbon?", WEATHER),
        ("weather for our holiday in Lisbon", WEATHER),
    ],
)
def test_an_owned_thing_before_a_place_is_not_the_place(text: str, tool: ToolSpec) -> None:
    """ "phrases for my trip to Lisbon" filled city 'trip' ("for" fills a city, as in "weather for
    Paris"); the city is the proper name said after it."""
    assert _calls(text, tool) == [(tool.name, {"city": "Lisbon"})]


def test_a_place_said_after_for_is_still_the_place() -> None:
    assert _calls("What's the weather for Paris on my trip to Lisbon?", WEATHER)[0] == (
        "get_weather",
        {"city": "Paris"},
    )
