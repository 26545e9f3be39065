"""A later part that is only a question ("… and what time is it in Tokyo?") is a call of its own only on
strong evidence from its own words: a tool word said in it, not a question of when something happens put
to a clock, and required arguments said there as values (never taken from what "it" names)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from mockengine.brain.model import ForcedTool, ReplyRequest, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = ToolSpec("get_weather", "Get the current weather for a city", CITY)
TIME = ToolSpec("get_time", "Get the current local time in a city", CITY)
ITEM = {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}
ADD = ToolSpec("add_to_list", "Add an item to the shopping list", ITEM)
MINUTES = {"type": "object", "properties": {"minutes": {"type": "integer"}}, "required": ["minutes"]}
TIMER = ToolSpec("set_timer", "Set a timer", MINUTES)
QUERY = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
MUSIC = ToolSpec("play_music", "Play music", QUERY)
TWO = (WEATHER, TIME)
FIVE = (ADD, TIMER, MUSIC, WEATHER, TIME)


def calls(text: str, tools: tuple[ToolSpec, ...]) -> list[tuple[str, dict]]:
    brain = ScriptedBrain(Scenario("question-of-its-own"), seed=1, today=date(2026, 3, 2))
    history = (TurnView("u1", "user_text", text),)
    reply = brain.reply(ReplyRequest("", tools, "auto", ("text",), history, 0))
    return [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]


@pytest.mark.parametrize(
    ("text", "tools", "first"),
    [
        (
            "What's the weather in Paris and what time does the Louvre open?",
            TWO,
            ("get_weather", {"city": "Paris"}),
        ),
        (
            "What's the weather in Paris and what's the time difference with Tokyo?",
            TWO,
            ("get_weather", {"city": "Paris"}),
        ),
        (
            "What's the weather in Paris and what time is sunset there?",
            TWO,
            ("get_weather", {"city": "Paris"}),
        ),
        ("Set a timer for 10 minutes and what time will it ring?", FIVE, ("set_timer", {"minutes": 10})),
        ("Add milk to my list and what's on it now?", FIVE, ("add_to_list", {"item": "milk"})),
    ],
)
def test_a_question_with_no_strong_words_of_its_own_makes_no_second_call(
    text: str, tools: tuple[ToolSpec, ...], first: tuple[str, dict]
) -> None:
    assert calls(text, tools) == [first]


@pytest.mark.parametrize(
    ("text", "tools", "made"),
    [
        (
            "What's the weather in Paris and what time is it in Tokyo?",
            TWO,
            [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Tokyo"})],
        ),
        (
            "what's the weather in paris and what time is it in tokyo?",
            TWO,
            [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Tokyo"})],  # written as names
        ),
        (
            "Set a timer for 10 minutes and how's the weather in Rome?",
            FIVE,
            [("set_timer", {"minutes": 10}), ("get_weather", {"city": "Rome"})],
        ),
        (
            "Set a timer for 10 minutes and what time is it in Tokyo?",
            FIVE,
            [("set_timer", {"minutes": 10}), ("get_time", {"city": "Tokyo"})],
        ),
        (
            "Add milk to my list and what's the weather in Rome?",
            FIVE,
            [("add_to_list", {"item": "milk"}), ("get_weather", {"city": "Rome"})],
        ),
        (
            "What time is it in Tokyo and is it raining in Osaka?",
            TWO,
            [("get_time", {"city": "Tokyo"}), ("get_weather", {"city": "Osaka"})],
        ),
        (
            "Set a timer for 10 minutes and is it sunny in Rome?",
            FIVE,
            [("set_timer", {"minutes": 10}), ("get_weather", {"city": "Rome"})],
        ),
    ],
)
def test_a_question_naming_its_tool_and_value_is_a_call_of_its_own(
    text: str, tools: tuple[ToolSpec, ...], made: list
) -> None:
    assert calls(text, tools) == made


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What's the weather in München?", [("get_weather", {"city": "München"})]),
        ("What's the weather in São Paulo?", [("get_weather", {"city": "São Paulo"})]),
        (
            "What's the weather in Zürich and what time is it in Kraków?",
            [("get_weather", {"city": "Zürich"}), ("get_time", {"city": "Kraków"})],
        ),
        (
            "What's the weather in Malmö and in Göteborg?",
            [("get_weather", {"city": "Malmö"}), ("get_weather", {"city": "Göteborg"})],
        ),
    ],
)
def test_a_name_with_letters_beyond_ascii_is_one_word(text, expected) -> None:
    """Words are letters of any script ("München" was "M nchen", "Malmö" "Malm" and Göteborg lost)."""
    assert calls(text, TWO) == expected


@pytest.mark.parametrize(
    ("forced", "city"),
    [("get_time", "Tokyo"), ("get_weather", "Paris")],
)
def test_a_forced_tool_reads_the_part_that_asks_for_it(forced, city) -> None:
    """tool_choice forcing one of two tools a sentence asks for takes that request's words (a forced
    get_time took Paris, the weather's city)."""
    brain = ScriptedBrain(Scenario("question-of-its-own"), seed=1, today=date(2026, 3, 2))
    text = "What's the weather in Paris and what time is it in Tokyo?"
    history = (TurnView("u1", "user_text", text),)
    reply = brain.reply(ReplyRequest("", TWO, ForcedTool(forced), ("text",), history, 0))
    made = [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]
    assert made == [(forced, {"city": city})]


def test_a_later_part_the_call_already_made_covers_asks_nothing() -> None:
    """A later "… and should I bring an umbrella?" needs the weather call already made, not "Which city do you
    mean?" beside a call that names the city."""
    brain = ScriptedBrain(Scenario("question-of-its-own"), seed=1, today=date(2026, 3, 2))
    text = "What's the weather like in Paris and should I bring an umbrella?"
    reply = brain.reply(ReplyRequest("", TWO, "auto", ("text",), (TurnView("u1", "user_text", text),), 0))
    assert [(call.name, json.loads(call.arguments)) for call in reply.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert "which" not in (reply.text or "").lower()
