"""Near misses of brain7's rules that misfired (brk5): a unit the user refuses ("not in fahrenheit") taken
as the one wanted. Each test failed on brain7 before its fix."""

from __future__ import annotations

import pytest

from tests.unit.test_brain_brain7 import STRING, WEATHER, WEATHER_CF, calls, tool

WEATHER_ANY = tool("get_weather", "Get the weather", {"city": STRING, "unit": STRING})


@pytest.mark.parametrize(
    ("weather", "said", "unit"),
    [
        (WEATHER, "What's the weather in Paris? Not in fahrenheit, celsius", "celsius"),
        (WEATHER, "Weather in Paris, in celsius not fahrenheit", "celsius"),
        (WEATHER_CF, "Weather in Paris, not fahrenheit but celsius", "C"),
        (WEATHER, "Weather in Paris in celsius rather than fahrenheit", "celsius"),
        (WEATHER_ANY, "Weather in Paris, not in kelvin, in celsius", "celsius"),
    ],
)
def test_a_refused_unit_is_not_the_one_filled(weather: object, said: str, unit: str) -> None:
    assert calls([weather], said) == [("get_weather", {"city": "Paris", "unit": unit})]  # type: ignore[list-item]


@pytest.mark.parametrize(
    "said", ["Weather in Paris, but not in fahrenheit please", "Weather in Paris, no fahrenheit"]
)
def test_only_a_refused_unit_is_asked_for(said: str) -> None:
    assert calls([WEATHER], said) == "Which unit do you mean?"
