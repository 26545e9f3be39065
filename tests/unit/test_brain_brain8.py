"""Misses of the scripted brain when apps declare their own tools (brain8): a take-back opening a sentence
("Paris? Not in fahrenheit, celsius") unseen by the slots. Each test failed on the code before its fix;
the near misses beside each pin what must not change."""

from __future__ import annotations

import pytest

from mockengine.brain import utterance
from tests.brain_calls import calls, tool

STRING = {"type": "string"}
WEATHER = tool("get_weather", "Get the weather", {"city": STRING})
WEATHER_UNIT = tool(
    "get_weather",
    "Get the weather",
    {"city": STRING, "unit": {"type": "string", "description": "celsius or fahrenheit"}},
)

# -- 1. a take-back opening a sentence is taken back for every slot, not only a unit


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("What's the weather in Paris? Not in fahrenheit, celsius", "What's the weather in Paris? celsius"),
        ("Weather in Paris. Not Paris, Berlin", "Weather in Paris. Berlin"),
        ("Weather in Paris? Not fahrenheit. Celsius", "Weather in Paris? Celsius"),
    ],
)
def test_a_take_back_opening_a_sentence_is_corrected(said: str, kept: str) -> None:
    assert utterance.corrected(said) == kept


@pytest.mark.parametrize(
    "said",
    [
        "Is it open? Not sure, I'll check",
        "Cancel my order. Not today. Tomorrow",
        "Thanks. Not now, maybe later",
        "Weather in Paris, no fahrenheit",
    ],
)
def test_a_sentence_opening_with_a_standalone_not_is_kept(said: str) -> None:
    assert utterance.corrected(said) == said


def test_a_city_taken_back_in_a_second_sentence_is_the_other_one() -> None:
    assert calls([WEATHER], "What's the weather? Not in Paris, in Berlin") == [
        ("get_weather", {"city": "Berlin"})
    ]


@pytest.mark.parametrize(
    ("said", "unit"),
    [
        ("What's the weather in Paris? Not in fahrenheit, celsius", "celsius"),
        ("Weather in Paris? Not fahrenheit. Celsius", "celsius"),
        ("Weather in Paris in celsius rather than fahrenheit", "celsius"),
    ],
)
def test_a_unit_taken_back_in_its_own_sentence_is_the_other_one(said: str, unit: str) -> None:
    assert calls([WEATHER_UNIT], said) == [("get_weather", {"city": "Paris", "unit": unit})]


def test_a_unit_only_refused_is_still_asked_for() -> None:
    assert calls([WEATHER_UNIT], "Weather in Paris, no fahrenheit") == "Which unit do you mean?"
