"""A ``json_schema`` answer's properties take the weather and the things listed that the user said
(``shaping.structured_text``): not the reply's sentence ("conditions": "You said …"), not an empty list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.chat.request import ChatRequest
from mockengine.chat.shaping import structured_text

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


def _answer(said: str, schema: dict[str, Any]) -> Any:
    request = ChatRequest(
        model="gpt-4o-mini",
        messages=({"role": "user", "content": said},),
        tools=(),
        custom_tools=frozenset(),
        tool_choice=None,  # type: ignore[arg-type]
        max_tokens=None,
        n=1,
        stream=False,
        include_usage=False,
        include_obfuscation=False,
        stop=(),
        seed=None,
        parallel_tool_calls=True,
        body={},
        response_format="json_schema",
        response_schema=schema,
    )
    return json.loads(structured_text(REPLY, request, 0, said=said))


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
    assert _answer(said, WEATHER)["conditions"] == conditions


def test_no_weather_said_keeps_the_built_conditions() -> None:
    assert _answer("It is 21 degrees in Paris", WEATHER)["conditions"] == REPLY


@pytest.mark.parametrize(
    ("said", "hobbies"),
    [
        ("My friend likes chess", ["chess"]),
        ("I like chess and reading", ["chess", "reading"]),
        ("My hobbies are chess and tennis", ["chess", "tennis"]),
    ],
)
def test_the_things_said_fill_a_list_of_strings(said: str, hobbies: list[str]) -> None:
    assert _answer(said, HOBBIES)["hobbies"] == hobbies
