"""A tool output's field named with a unit suffix is said with the unit after its number ("temperature 21
degrees Celsius"), not the suffix as a word ("temperature c 21", as before)."""

from __future__ import annotations

import json

import pytest

from mockengine.brain.acting import grounding


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"temperature_c": 21}, "Paris: temperature 21 degrees Celsius."),
        (
            {"temperatureF": 70, "wind_kmh": 12},
            "Paris: temperature 70 degrees Fahrenheit, wind 12 kilometers per hour.",
        ),
        ({"latency_ms": 250, "distance_km": 1}, "Paris: latency 250 milliseconds, distance 1 kilometer."),
        ({"humidity_pct": 40, "price_usd": 12.5}, "Paris: humidity 40 percent, price 12.5 dollars."),
        ({"size_bytes": 1, "duration_s": 2.5}, "Paris: size 1 byte, duration 2.5 seconds."),
        # not a unit, or not a number: as before
        ({"plan_c": "backup", "grade_c": True, "c": 3}, "Paris: plan c backup, grade c yes, c 3."),
        ({"distance_m": 5}, "Paris: distance m 5."),  # metres or minutes: left as said
    ],
)
def test_a_unit_suffix_is_said_as_the_unit(fields: dict[str, object], said: str) -> None:
    assert grounding(json.dumps(fields), "get_weather", '{"city": "Paris"}') == said
