"""A tool output's field named with a unit suffix is said with the unit after its number ("temperature 21
degrees Celsius"), not the suffix as a word ("temperature c 21", as before)."""

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
            "Paris: temperature 70 degrees Fahrenheit, wind 12 kilometers per hour.",
        ),
        ({"latency_ms": 250, "distance_km": 1}, "Paris: latency 250 milliseconds, distance 1 kilometer."),
        ({"humidity_pct": 40, "price_usd": 12.5}, "Paris: humidity 40 percent, price 12.5 dollars."),
        ({"size_bytes": 1, "duration_s": 2.5}, "Paris: size 1 byte, duration 2.5 seconds."),
        # not a unit, or not a number: as before
        ({"plan_c": "backup", "grade_c": True, "c": 3}, "Paris: plan c backup, grade c yes, c 3."),
        ({"distance_m": 5}, "The distance m in Paris is 5."),  # metres or minutes: left as said
    ],
)
def test_a_unit_suffix_is_said_as_the_unit(fields: dict[str, object], said: str) -> None:
    assert grounding(json.dumps(fields), "get_weather", '{"city": "Paris"}') == said


def test_openweathermaps_min_max_and_wind_speed_are_not_times() -> None:
    """min/max are minimum/maximum and wind_speed_ms is metres per second (said "minutes"/"milliseconds")."""
    fields = {"city": "Oslo", "temp_min": -3, "temp_max": 2, "wind_speed_ms": 5}
    said = grounding(json.dumps(fields), "get_weather", '{"city": "Oslo"}')
    assert said == "Oslo: temp min -3, temp max 2, wind speed ms 5."


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        # after "per" or another unit the suffix is part of a rate
        ({"calls_per_min": 5, "requests_per_s": 100}, "Paris: calls per min 5, requests per s 100."),
        ({"wind_km_h": 12, "wind_m_s": 3}, "Paris: wind km h 12, wind m s 3."),
        # short suffixes that are ordinary abbreviations away from a temperature or a time
        ({"image_h": 480, "top_k": 3, "count_s": 2}, "Paris: image h 480, top k 3, count s 2."),
        ({"vitamin_c": 90, "total_c": 4, "grade_f": 1}, "Paris: vitamin c 90, total c 4, grade f 1."),
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
            "Paris: feels like -1 degrees Celsius, dew point 30 degrees Fahrenheit, high 4 degrees Celsius.",
        ),
        (
            {"timeout_min": 5, "delay_ms": 1, "temp_min_c": -3},
            "Paris: timeout 5 minutes, delay 1 millisecond, temp min -3 degrees Celsius.",
        ),
        # singular for the integer 1 only; kelvins
        (
            {"temperature_c": 1.0, "temperature_k": 1, "core_temp_k": 300},
            "Paris: temperature 1.0 degrees Celsius, temperature 1 kelvin, core temp 300 kelvins.",
        ),
        # a number sent as a string is a number; a word is not
        (
            {"temp_c": "21", "duration_s": "1", "high_f": "-2.5", "temp_f": "n/a"},
            "Paris: temp 21 degrees Celsius, duration 1 second, high -2.5 degrees Fahrenheit, temp f n/a.",
        ),
    ],
)
def test_an_unambiguous_unit_is_said(fields: dict[str, object], said: str) -> None:
    assert grounding(json.dumps(fields), "get_weather", '{"city": "Paris"}') == said
