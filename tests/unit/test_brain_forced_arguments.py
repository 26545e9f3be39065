"""Arguments a new user's tools get (issue 17 follow-up): forced calls on a `pattern` string, strict-mode
optional parameters (required + nullable) passed as null, a free string said next to its name, and
forced calls that prefer what was heard to invented values."""

from __future__ import annotations

import json
import random
import re
from datetime import date
from typing import Any

import jsonschema
import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.arguments import ArgumentsError
from mockengine.brain.model import ForcedTool, ToolChoice
from mockengine.brain.patterns import generated, heard
from mockengine.brain.schema_values import value_for
from tests.tool_schemas import SET_ALARM as ALARM
from tests.tool_schemas import TIME_PATTERN

TODAY = date(2026, 12, 2)
# What openai-agents sends for `def play_music(genre: str, artist: str | None = None)` (strict mode).
PLAY_MUSIC = ToolSpec(
    "play_music",
    "Play music of a genre, optionally by an artist.",
    {
        "type": "object",
        "properties": {
            "genre": {"title": "Genre", "type": "string"},
            "artist": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Artist"},
        },
        "required": ["genre", "artist"],
        "additionalProperties": False,
    },
)
ADD_ITEM = ToolSpec(
    "add_item",
    "Add an item to the to-do list.",
    {
        "type": "object",
        "properties": {"text": {"type": "string"}, "priority": {"type": "string"}},
        "required": ["text", "priority"],
        "additionalProperties": False,
    },
)
SEND_EMAIL = ToolSpec(
    "send_email",
    "Send an email.",
    {
        "type": "object",
        "properties": {"to": {"type": "string", "format": "email"}, "subject": {"type": "string"}},
        "required": ["to", "subject"],
    },
)
GET_WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def reply(tools: tuple[ToolSpec, ...], text: str, choice: ToolChoice = "auto", seed: int = 3) -> Any:
    request = ReplyRequest("", tools, choice, ("text",), (TurnView("u", "user_text", text),), 0)
    answer = ScriptedBrain(load_scenario(None), seed, today=TODAY).reply(request)
    schemas = {tool.name: tool.parameters for tool in tools}
    for call in answer.tool_calls:
        jsonschema.validate(json.loads(call.arguments), schemas[call.name])
    return answer


def arguments(tools: tuple[ToolSpec, ...], text: str, choice: ToolChoice = "auto", seed: int = 3) -> Any:
    [call] = reply(tools, text, choice, seed).tool_calls
    return json.loads(call.arguments)


@pytest.mark.parametrize("text", ["Wake me up at seven thirty on weekdays", "Set an alarm", "hello"])
def test_a_forced_call_fills_a_pattern_string_with_a_value_it_accepts(text: str) -> None:
    found = arguments((ALARM,), text, ForcedTool("set_alarm"))
    assert re.search(TIME_PATTERN, found["time"]) and 1 <= found["volume"] <= 10
    assert found == arguments((ALARM,), text, ForcedTool("set_alarm"))  # same seed, same call


def test_a_forced_pattern_value_comes_from_the_words_first() -> None:
    assert arguments((ALARM,), "Wake me up at seven thirty", ForcedTool("set_alarm"))["time"] == "07:30"
    booking = ToolSpec(
        "find_booking",
        "Find a booking.",
        {
            "type": "object",
            "properties": {"ref": {"type": "string", "pattern": "^[A-Z]{2}-\\d{4}$"}},
            "required": ["ref"],
        },
    )
    said = "hmm, it's the one with reference QX-4410 I think"
    assert arguments((booking,), said, ForcedTool("find_booking")) == {"ref": "QX-4410"}
    assert arguments((booking,), said, "required") == {"ref": "QX-4410"}


def test_required_tool_choice_on_a_pattern_string_calls_with_a_valid_value() -> None:
    found = arguments((ALARM,), "hello", "required")
    assert re.search(TIME_PATTERN, found["time"])


def test_generated_pattern_strings_are_seeded_short_and_respect_lengths() -> None:
    assert generated("^[A-Z]{3}-\\d+$", random.Random(5)) == generated("^[A-Z]{3}-\\d+$", random.Random(5))
    values = {generated("^[A-Z]{3}-\\d+$", random.Random(seed)) for seed in range(20)}
    assert len(values) > 10 and all(v is not None and len(v) <= 8 for v in values)
    schema = {"type": "string", "pattern": "^[a-z]+$", "minLength": 4, "maxLength": 6}
    for seed in range(10):
        jsonschema.validate(value_for(schema, random.Random(seed)), schema)
    assert generated("^(a$", random.Random(1)) is None  # not a regular expression: no value
    assert heard("my code is AB1234, thanks", "^[A-Z]{2}\\d{4}$") == "AB1234"


def test_a_pattern_no_value_satisfies_still_fails_plainly() -> None:
    impossible = ToolSpec(
        "f",
        "",
        {
            "type": "object",
            "properties": {"x": {"type": "string", "pattern": "^a$", "minLength": 3}},
            "required": ["x"],
        },
    )
    with pytest.raises(ArgumentsError):
        reply((impossible,), "hello", ForcedTool("f"))


@pytest.mark.parametrize(
    "artist",
    [
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"type": ["string", "null"]},
        {"oneOf": [{"type": "null"}, {"type": "string"}]},
    ],
)
def test_a_strict_mode_optional_parameter_not_heard_is_null(artist: dict[str, Any]) -> None:
    properties = {**PLAY_MUSIC.parameters["properties"], "artist": artist}
    tool = ToolSpec(
        PLAY_MUSIC.name, PLAY_MUSIC.description, {**PLAY_MUSIC.parameters, "properties": properties}
    )
    assert arguments((tool,), "Play some jazz") == {"genre": "jazz", "artist": None}
    said = arguments((tool,), "Play some jazz by Miles Davis")
    assert said == {"genre": "jazz", "artist": "Miles Davis"}


def test_a_required_parameter_that_takes_no_null_is_still_asked_for() -> None:
    answer = reply((ADD_ITEM,), "Add buy milk")
    assert not answer.tool_calls and answer.text == "Which priority do you mean?"


@pytest.mark.parametrize(
    "text",
    [
        "Add buy milk with high priority",
        "Add buy milk, priority high",
        "Add a high priority item: buy milk",
        "Add buy milk with a priority of high",
        "Add buy milk. The priority is high.",
    ],
)
def test_a_free_string_said_next_to_its_name_fills_it(text: str) -> None:
    assert arguments((ADD_ITEM,), text) == {"text": "buy milk", "priority": "high"}


def test_an_email_address_is_taken_as_written_or_spoken() -> None:
    assert arguments((SEND_EMAIL,), "send an email to bob@example.com about lunch") == {
        "to": "bob@example.com",
        "subject": "lunch",
    }
    forced = arguments((SEND_EMAIL,), "write to bob at example dot com please", ForcedTool("send_email"))
    assert forced["to"] == "bob@example.com"


def test_a_forced_call_prefers_values_heard_to_invented_ones() -> None:
    assert arguments((SEND_EMAIL,), "write to bob@example.com please", ForcedTool("send_email")) == {
        "to": "bob@example.com",
        "subject": "Hello",  # a plausible value of its kind, never "" (docs/tools.md, Forced calls)
    }
    track = ToolSpec(
        "play_track",
        "Play a track.",
        {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    )
    assert arguments((track,), "yes", ForcedTool("play_track")) == {"title": "Untitled"}
    assert arguments((track,), 'the one called "Blue Train"', ForcedTool("play_track")) == {
        "title": "Blue Train"
    }
    counter = ToolSpec(
        "set_count",
        "Set the counter.",
        {"type": "object", "properties": {"count": {"type": "integer", "minimum": 0}}, "required": ["count"]},
    )
    assert arguments((counter,), "hmm, twelve I guess", ForcedTool("set_count")) == {"count": 12}


def test_a_forced_call_takes_no_city_from_words_about_something_else() -> None:
    todo = ToolSpec(
        "add_todo",
        "Add a to-do item.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )
    said = "Add buy milk to my list"
    assert arguments((GET_WEATHER, todo), said, ForcedTool("get_weather")) == {"city": "London"}
    described = ToolSpec(
        "get_weather",
        "Get the weather.",
        {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "A city, e.g. 'Paris'"}},
            "required": ["city"],
        },
    )
    assert arguments((described, todo), said, ForcedTool("get_weather")) == {"city": "Paris"}
    assert arguments((GET_WEATHER,), "what's the weather in Lisbon", ForcedTool("get_weather")) == {
        "city": "Lisbon"
    }


def test_a_forced_call_finds_a_heard_address_inside_an_object_parameter() -> None:
    email = {
        "type": "object",
        "properties": {"email": {"type": "string", "format": "email"}},
        "required": ["email"],
    }
    phone = {"type": "object", "properties": {"phone": {"type": "string", "pattern": "^\\+[0-9]{8,15}$"}}}
    phone["required"] = ["phone"]
    share = ToolSpec(
        "share",
        "Share with a contact.",
        {
            "type": "object",
            "properties": {"target": {"anyOf": [email, phone]}, "mode": {"const": "link"}},
            "required": ["target", "mode"],
        },
    )
    found = arguments((share,), "Share this with bob@example.com", ForcedTool("share"))
    assert found == {"target": {"email": "bob@example.com"}, "mode": "link"}


def test_a_pronoun_fills_no_strict_mode_optional_with_the_last_call() -> None:
    rate = ToolSpec(
        "rate_song",
        "Rate the current song.",
        {
            "type": "object",
            "properties": {
                "stars": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
                "comment": {"type": ["string", "null"]},
            },
            "required": ["stars", "comment"],
        },
    )
    history = (
        TurnView("u0", "user_text", "Wake me up at seven thirty"),
        TurnView("fc", "function_call", '{"time": "07:30"}', name="set_alarm", call_id="c1"),
        TurnView("out", "function_call_output", "ok", call_id="c1"),
        TurnView("u1", "user_text", "Give this song four stars"),
    )
    request = ReplyRequest("", (ALARM, rate), "auto", ("text",), history, 1)
    answer = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request)
    assert [(c.name, json.loads(c.arguments)) for c in answer.tool_calls] == [
        ("rate_song", {"stars": 4, "comment": None})
    ]


def test_a_forced_call_invents_no_phrase_inside_nested_values() -> None:
    playlist = ToolSpec(
        "create_playlist",
        "Create a playlist.",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 20},
                "owner": {
                    "type": "object",
                    "properties": {
                        "user_id": {"type": "string", "format": "uuid"},
                        "display": {"type": "string"},
                    },
                    "required": ["user_id", "display"],
                },
                "tracks": {"type": "array", "items": {"$ref": "#/$defs/track"}, "maxItems": 3},
            },
            "required": ["name", "owner", "tracks"],
            "$defs": {
                "track": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string"},
                        "seconds": {"type": "number", "exclusiveMinimum": 0},
                    },
                    "required": ["title", "seconds"],
                }
            },
        },
    )
    found = arguments((playlist,), "Make a playlist called road trip", ForcedTool("create_playlist"))
    assert found["name"] == "road trip" and found["owner"]["display"] == "User"
    assert all(track["title"] == "Untitled" for track in found["tracks"])


@pytest.mark.parametrize(
    ("said", "days"),
    [
        ("Wake me up at seven thirty on weekdays", ["mon", "tue", "wed", "thu", "fri"]),
        ("an alarm at 6:45 on monday and wednesday", ["mon", "wed"]),
        ("wake me at nine at the weekend", ["sat", "sun"]),
        ("an alarm for 7am every day", ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]),
    ],
)
def test_days_of_the_week_fill_an_array_of_day_options(said: str, days: list[str]) -> None:
    assert arguments((ALARM,), said, ForcedTool("set_alarm"))["days"] == days


def test_a_required_object_of_typed_parts_is_filled_from_the_words_without_forcing() -> None:
    email = {
        "type": "object",
        "properties": {"email": {"type": "string", "format": "email"}},
        "required": ["email"],
    }
    share = ToolSpec(
        "share",
        "Share with a contact.",
        {"type": "object", "properties": {"target": {"anyOf": [email]}}, "required": ["target"]},
    )
    assert arguments((share,), "Share this with bob@example.com") == {"target": {"email": "bob@example.com"}}
    assert reply((share,), "Share this with Bob").text == "Which target do you mean?"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "required": ["z"]},
        {"type": "object", "properties": {"y": {"type": "integer"}}, "required": ["y", "z"]},
        {"type": "object", "required": ["z"], "additionalProperties": {"type": "integer"}},
        {"type": "array", "items": {"type": "object", "required": ["z"]}, "minItems": 1},
    ],
)
def test_a_required_name_properties_do_not_list_gets_a_value(schema: dict[str, Any]) -> None:
    for seed in range(5):
        jsonschema.validate(value_for(schema, random.Random(seed)), schema)


def test_a_required_name_additional_properties_false_forbids_is_left_out() -> None:
    schema = {"type": "object", "required": ["z"], "additionalProperties": False}
    assert value_for(schema, random.Random(1)) == {}  # no value satisfies it: checked and refused later


CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def test_a_required_call_after_every_tools_output_takes_the_words_asked() -> None:
    """``tool_choice: "required"`` kept on in the session (the Agents SDK sends its outputs and asks for a
    response each time): once every tool was called, the next call was ``get_weather`` with a built
    ``{"city": "not sure yet"}``, then "maybe later", "sounds good", …"""
    tools = (
        ToolSpec("get_weather", "Get the weather for a city.", CITY),
        ToolSpec("get_time", "Get the current time in a city.", CITY),
    )
    history = (
        TurnView("u1", "user_text", "What is the weather in Paris?"),
        TurnView("c1", "function_call", '{"city": "Paris"}', name="get_weather", call_id="call_1"),
        TurnView("o1", "function_call_output", "sunny in Paris", call_id="call_1"),
        TurnView("c2", "function_call", '{"city": "Paris"}', name="get_time", call_id="call_2"),
        TurnView("o2", "function_call_output", "3 pm in Paris", call_id="call_2"),
    )
    request = ReplyRequest("", tools, "required", ("text",), history, 2)
    reply = ScriptedBrain(load_scenario(None), 7, today=TODAY).reply(request)
    assert [(call.name, json.loads(call.arguments)) for call in reply.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
