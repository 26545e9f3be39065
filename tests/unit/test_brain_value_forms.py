"""A word only a parameter's description holds as the form of its value ("The city name", "The order
ID") names nothing a lookup reports: "what's my name?" with LiveKit's and Pipecat's weather example tool
declared (``city``: "The city name") called ``get_weather {"city": "name"}``. Questions that name what
the lookup reports still call it, and a parameter description's other words still count ("cheap …
under twenty five dollars" to a search whose ``max_price`` is in dollars)."""

from __future__ import annotations

from datetime import date

import pytest

from mockengine.brain import acting
from mockengine.brain.model import ToolSpec
from mockengine.brain.referents import Referent

TODAY = date(2026, 3, 2)
WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city name"}},
        "required": ["city"],
    },
)
TIME = ToolSpec(
    "get_current_time",
    "Get the current local time.",
    {"type": "object", "properties": {"timezone": {"type": "string", "description": "IANA timezone"}}},
)


def calls(said: str, tools: list[ToolSpec]) -> list[tuple[str, str]]:
    decided = acting.plan(said, tools, Referent(), TODAY)
    return [(a.call.name, a.call.arguments) for a in decided.actions] if decided else []


@pytest.mark.parametrize("said", ["What's my name?", "what is my name?", "Do you remember my name?"])
def test_a_value_form_in_a_parameter_description_asks_no_lookup(said: str) -> None:
    assert calls(said, [WEATHER, TIME]) == []


@pytest.mark.parametrize(
    ("said", "tool"),
    [
        ("What's the weather in Paris?", "get_weather"),
        ("Is it raining in Lisbon?", "get_weather"),
        ("How hot is it in Cairo?", "get_weather"),
        ("What time is it?", "get_current_time"),
    ],
)
def test_questions_naming_what_the_lookup_reports_still_call_it(said: str, tool: str) -> None:
    assert [name for name, _ in calls(said, [WEATHER, TIME])] == [tool]
