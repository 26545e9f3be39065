"""A function output as LiveKit sends a tool's dict (``str(output)``, a Python literal) is read as that
dict: grounded by its fields and refused by its ``error``, as its JSON is; nothing in it is run."""

from __future__ import annotations

import json

import pytest

from mockengine.brain.narration import grounding
from mockengine.brain.output_data import output_data
from mockengine.brain.situation import output_error

FORECAST = {"city": "Oslo", "conditions": "light rain", "high_c": 14}


def test_a_python_literal_is_read_as_its_json_is() -> None:
    assert output_data(str(FORECAST)) == FORECAST
    assert output_data(str([FORECAST, {"ok": True, "none": None}])) == [FORECAST, {"ok": True, "none": None}]
    arguments = '{"city": "Oslo"}'
    assert grounding(str(FORECAST), "get_forecast", arguments) == grounding(
        '{"city": "Oslo", "conditions": "light rain", "high_c": 14}', "get_forecast", arguments
    )
    assert "light rain" in grounding(str(FORECAST), "get_forecast", arguments)


def test_an_error_in_a_python_literal_is_a_refusal() -> None:
    assert output_error(str({"error": "No tables left"})) == "No tables left"
    assert output_error(str({"accepted": False})) == ""
    assert output_error(str({"confirmed": True})) is None


@pytest.mark.parametrize(
    "text",
    [
        "{__import__('os').system('true')}",  # an expression, not a literal: never run
        "{'a': 1",  # cut short
        "'just a string'",
        "The weather in Oslo is light rain.",
        "{" + "'x': 1, " * 40_000 + "}",  # longer than an output is read
        "[" * 5_000 + "]" * 5_000,  # nested deeper than the parser goes
    ],
)
def test_anything_else_is_no_data(text: str) -> None:
    assert output_data(text) is None


def test_an_output_nested_past_the_parsers_depth_is_still_grounded() -> None:
    """It failed the response (``reply_failed``, a RecursionError from ``json.loads``)."""
    deep = "[" * 5_000 + "]" * 5_000
    assert grounding(deep, "get_weather", '{"city": "Paris"}').startswith("The weather in Paris is ")
    assert output_error(deep) is None


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"destination": "New York"}, "There are 2 flights to New York"),
        ({"to_city": "New York"}, "There are 2 flights to New York"),
        ({"origin": "New York"}, "There are 2 flights from New York"),
        ({"city": "New York"}, "There are 2 flights in New York"),
    ],
)
def test_a_place_is_said_with_the_preposition_its_parameter_means(
    arguments: dict[str, str], said: str
) -> None:
    """An Agents SDK ``search_flights(destination)`` whose JSON output lists two flights was grounded as
    "There are 2 flights in New York."."""
    output = json.dumps(
        {"flights": [{"number": "BA283", "price_gbp": 420}, {"number": "VS19", "price_gbp": 385}]}
    )
    assert grounding(output, "search_flights", json.dumps(arguments)).startswith(said)


SDK_TOOL_ERROR = "An error occurred while running the tool. Please try again."  # both Agents SDKs' default


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("get_weather", {"city": "Paris"}, "Sorry, I couldn't get the weather in Paris just now."),
        ("search_flights", {"destination": "Rome"}, "Sorry, I couldn't search for flights to Rome just now."),
        ("book_table", {"restaurant": "Chez Tom"}, "Sorry, I couldn't book the table at Chez Tom just now."),
        ("ping", {}, "Sorry, that didn't work just now."),
    ],
)
def test_a_tool_that_raised_gets_an_apology(name: str, arguments: dict[str, str], said: str) -> None:
    """The Agents SDK's output for a tool that raised was read out: "An error occurred while running the
    tool."."""
    assert grounding(SDK_TOOL_ERROR, name, json.dumps(arguments)) == said


@pytest.mark.parametrize(
    ("output", "said"),
    [
        # Pipecat's examples return the sentence as a field's value: it was "The weather in Tokyo is The
        # weather in Tokyo is sunny.." (a sentence framed as a value, and two full stops)
        ({"weather": "The weather in Tokyo is sunny."}, "The weather in Tokyo is sunny."),
        ({"result": "The weather in Tokyo is sunny."}, "The weather in Tokyo is sunny."),
        ({"forecast": "It will rain in Tokyo."}, "It will rain in Tokyo."),
        ({"weather": "Partly cloudy."}, "The weather in Tokyo is Partly cloudy."),
        ({"weather": "sunny"}, "The weather in Tokyo is sunny."),
        # said whole, not only its first sentence: "Booked!" lost the time, "… at 3 p.m." the day
        ({"message": "Booked! Your table is at 8 p.m."}, "Booked! Your table is at 8 p.m."),
        (
            {"summary": "Dr. Smith will see you at 3 p.m. on Friday."},
            "Dr. Smith will see you at 3 p.m. on Friday.",
        ),
    ],
)
def test_a_field_that_is_a_sentence_is_said_as_written(output: dict[str, str], said: str) -> None:
    assert grounding(json.dumps(output), "get_weather", '{"city": "Tokyo"}') == said
