"""A ``json_schema`` answer's properties take the weather and the things listed that the user said
(``shaping.structured_text``): not the reply's sentence ("conditions": "You said …"), not an empty list."""

from __future__ import annotations

import pytest

from tests.own_tools import structured_answer

REPLY = "You said it. Tell me more."
WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature": {"type": "number"},
        "conditions": {"type": "string"},
    },
    "required": ["city", "temperature", "conditions"],
}
HOBBIES = {
    "type": "object",
    "properties": {"hobbies": {"type": "array", "items": {"type": "string"}}},
    "required": ["hobbies"],
}


@pytest.mark.parametrize(
    ("said", "conditions"),
    [
        ("It is 21 degrees and sunny in Paris", "sunny"),
        ("It's cloudy and 12 degrees in London.", "cloudy"),
        ("Berlin: 5 degrees, light rain", "light rain"),
        ("Partly cloudy and 18 degrees in Rome", "partly cloudy"),
    ],
)
def test_the_conditions_said_fill_a_conditions_property(said: str, conditions: str) -> None:
    assert structured_answer(said, WEATHER)["conditions"] == conditions


def test_no_weather_said_keeps_the_built_conditions() -> None:
    assert structured_answer("It is 21 degrees in Paris", WEATHER)["conditions"] == REPLY


@pytest.mark.parametrize(
    ("said", "hobbies"),
    [
        ("My friend likes chess", ["chess"]),
        ("I like chess and reading", ["chess", "reading"]),
        ("My hobbies are chess and tennis", ["chess", "tennis"]),
    ],
)
def test_the_things_said_fill_a_list_of_strings(said: str, hobbies: list[str]) -> None:
    assert structured_answer(said, HOBBIES)["hobbies"] == hobbies
