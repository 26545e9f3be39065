"""A tool output's field named with a unit suffix is said with the unit after its number ("temperature 21
degrees Celsius"), not the suffix as a word ("temperature c 21", as before). Several fields are one
sentence ("It's 70 degrees Fahrenheit in Paris and the wind is 12 kilometers per hour.", since
brain-followups; "Paris: temperature 70 degrees Fahrenheit, wind 12 …" before)."""

from __future__ import annotations

import json

import pytest

from mockengine.brain.acting import grounding


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"temperature_c": 21}, "It's 21 degrees Celsius in Paris."),  # one field: said as a model says it
        (
            {"temperatureF": 70, "wind_kmh": 12},
            "It's 70 degrees Fahrenheit in Paris and the wind is 12 kilometers per hour.",
        ),
        (
            {"latency_ms": 250, "distance_km": 1},
            "The latency in Paris is 250 milliseconds and the distance is 1 kilometer.",
        ),
        (
            {"humidity_pct": 40, "price_usd": 12.5},
            "The humidity in Paris is 40 percent and the price is 12.5 dollars.",
        ),
        (
            {"size_bytes": 1, "duration_s": 2.5},
            "The size in Paris is 1 byte and the duration is 2.5 seconds.",
        ),
        # not a unit, or not a number: as before
        (
            {"plan_c": "backup", "grade_c": True, "c": 3},
            "The plan c in Paris is backup, it's grade c and the c is 3.",
        ),
        ({"distance_m": 5}, "The distance m in Paris is 5."),  # metres or minutes: left as said
    ],
)
def test_a_unit_suffix_is_said_as_the_unit(fields: dict[str, object], said: str) -> None:
    assert grounding(json.dumps(fields), "get_weather", '{"city": "Paris"}') == said


def test_openweathermaps_min_max_and_wind_speed_are_not_times() -> None:
    """min/max are minimum/maximum and wind_speed_ms is metres per second (said "minutes"/"milliseconds")."""
    fields = {"city": "Oslo", "temp_min": -3, "temp_max": 2, "wind_speed_ms": 5}
    said = grounding(json.dumps(fields), "get_weather", '{"city": "Oslo"}')
    assert said == "The low in Oslo is -3 degrees, the high is 2 degrees and the wind speed ms is 5."


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        # after "per" or another unit the suffix is part of a rate
        (
            {"calls_per_min": 5, "requests_per_s": 100},
            "The calls per min in Paris is 5 and the requests per s is 100.",
        ),
        ({"wind_km_h": 12, "wind_m_s": 3}, "The wind km h in Paris is 12 and the wind m s is 3."),
        # short suffixes that are ordinary abbreviations away from a temperature or a time
        (
            {"image_h": 480, "top_k": 3, "count_s": 2},
            "The image h in Paris is 480, the top k is 3 and the count s is 2.",
        ),
        (
            {"vitamin_c": 90, "total_c": 4, "grade_f": 1},
            "The vitamin c in Paris is 90, the total c is 4 and the grade f is 1.",
        ),
        ({"option_c": 7}, "The option c in Paris is 7."),
    ],
)
def test_an_ambiguous_suffix_stays_a_word(fields: dict[str, object], said: str) -> None:
    assert grounding(json.dumps(fields), "get_weather", '{"city": "Paris"}') == said


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (
            {"feels_like_c": -1, "dew_point_f": 30, "high_c": 4},
            "It feels like -1 degrees Celsius in Paris, the dew point is 30 degrees Fahrenheit and the high"
            " is 4 degrees Celsius.",
        ),
        (
            {"timeout_min": 5, "delay_ms": 1, "temp_min_c": -3},
            "The timeout in Paris is 5 minutes, the delay is 1 millisecond and the low is -3 degrees"
            " Celsius.",
        ),
        # singular for the integer 1 only; kelvins
        (
            {"temperature_c": 1.0, "temperature_k": 1, "core_temp_k": 300},
            "It's 1.0 degrees Celsius in Paris, the temperature is 1 kelvin and the core temp is 300"
            " kelvins.",
        ),
        # a number sent as a string is a number; a word is not
        (
            {"temp_c": "21", "duration_s": "1", "high_f": "-2.5", "temp_f": "n/a"},
            "It's 21 degrees Celsius in Paris, the duration is 1 second, the high is -2.5 degrees"
            " Fahrenheit and the temp f is n/a.",
        ),
    ],
)
def test_an_unambiguous_unit_is_said(fields: dict[str, object], said: str) -> None:
    assert grounding(json.dumps(fields), "get_weather", '{"city": "Paris"}') == said
