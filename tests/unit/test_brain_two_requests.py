"""Two requests under one verb, each with its own place ("what is the weather in Paris and the time in
Tokyo?"): one call for each, as in one response a model makes both. Before: only ``get_weather``, and
the reply to its output ended the turn without the time."""

from __future__ import annotations

import json
from datetime import date

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
TOOLS = (
    ToolSpec("get_weather", "Get the weather for a city.", CITY),
    ToolSpec("get_time", "Get the current time in a city.", CITY),
)


def calls(text: str, tools: tuple[ToolSpec, ...] = TOOLS) -> list[tuple[str, dict[str, str]]]:
    request = ReplyRequest("", tools, "auto", ("text",), (TurnView("u1", "user_text", text),), 0)
    reply = ScriptedBrain(load_scenario(None), 7, today=date(2026, 12, 4)).reply(request)
    return [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]


@pytest.mark.parametrize(
    "text",
    [
        "What is the weather in Paris and the time in Tokyo?",
        "what's the weather in Paris and the time in Tokyo",
        "What is the weather in Paris and what time is it in Tokyo?",
    ],
)
@pytest.mark.parametrize("tools", [TOOLS, TOOLS[::-1]], ids=["weather_first", "time_first"])
def test_each_request_gets_its_own_call(text: str, tools: tuple[ToolSpec, ...]) -> None:
    """Declared time first (as LiveKit sent a ``Traveller`` agent's two tools), the whole words matched
    ``get_time`` for both places."""
    assert calls(text, tools) == [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Tokyo"})]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("weather and time in Paris", [("get_weather", "Paris"), ("get_time", "Paris")]),
        ("What is the weather in Paris and Tokyo?", [("get_weather", "Paris"), ("get_weather", "Tokyo")]),
    ],
)
def test_one_request_with_two_tools_or_two_places_is_unchanged(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert calls(text) == [(name, {"city": city}) for name, city in expected]
