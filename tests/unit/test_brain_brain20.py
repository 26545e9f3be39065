"""brain20: a coat asked of a weather tool, a refund's stated reason, a bare "Say hello.", and
``json_object`` keys named in words filled with a greeting or a list's placeholder (each failed on
066d2f4b)."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.chat.request import parse_body
from mockengine.chat.shaping import structured_text
from tests.brain_calls import TODAY, calls, tool

STRING = {"type": "string"}
WEATHER = tool("get_weather", "Get the weather forecast for a city.", {"city": STRING})
REFUND = tool(
    "request_refund", "Start a refund for an order.", {"order_id": STRING, "reason": STRING}, ["order_id"]
)


@pytest.mark.parametrize(
    ("said", "city"),
    [
        ("I'm flying to Oslo on Friday, will I need a coat?", "Oslo"),  # was no call
        ("Should I pack sunscreen for Rome?", "Rome"),
        ("Heading to Berlin on Monday, do I need a jacket?", "Berlin"),
        ("Will I need gloves in Toronto tomorrow?", "Toronto"),
    ],
)
def test_what_to_wear_is_a_weather_question(said: str, city: str) -> None:
    assert calls([WEATHER], said) == [("get_weather", {"city": city})]


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        (
            "My order A12345 arrived broken, I want a refund",
            {"order_id": "A12345", "reason": "arrived broken"},
        ),
        ("Order 3302 came broken, I want my money back", {"order_id": "3302", "reason": "came broken"}),
        ("Refund order 5120 because it's too small", {"order_id": "5120", "reason": "too small"}),
        ("Refund order 5120 please", {"order_id": "5120"}),  # no reason told: none invented
    ],
)
def test_the_reason_told_fills_an_optional_reason(said: str, arguments: dict[str, str]) -> None:
    assert calls([REFUND], said) == [("request_refund", arguments)]


def said_to(words: str) -> str | None:
    items = (TurnView("u", "user_text", words),)
    return (
        ScriptedBrain(load_scenario(None), 3, today=TODAY)
        .reply(ReplyRequest("", (), "auto", ("text",), items, 1))
        .text
    )


@pytest.mark.parametrize(
    ("said", "text"),
    [("Say hello.", "Hello!"), ("Can you say good morning?", "Good morning!"), ("say hi", "Hi!")],
)
def test_a_bare_say_is_said(said: str, text: str) -> None:
    assert said_to(said) == text  # was "I heard you say say hello. Tell me more."


@pytest.mark.parametrize("said", ["Say something", "say hi to Bob", "Say yes if you agree", "Say it again"])
def test_a_bare_say_of_no_words_is_no_dictation(said: str) -> None:
    assert said_to(said) != said.split(" ", 1)[1].capitalize() + "!"


@pytest.mark.parametrize(
    ("content", "value"),
    [
        ("Return JSON with keys name and age. Hello!", {"name": None, "age": None}),  # was name "Hello"
        ("Return JSON with keys name and hobbies. Hello!", {"name": None, "hobbies": []}),
        ("Return JSON with keys name, age and hobbies. I'm Bob", {"name": "Bob", "age": None, "hobbies": []}),
        (
            "Return JSON with keys name and hobbies. My hobbies are chess and hiking",
            {"name": None, "hobbies": ["chess", "hiking"]},
        ),
    ],
)
def test_json_object_keys_take_no_greeting_and_lists_are_lists(content: str, value: object) -> None:
    messages = [{"role": "user", "content": content}]
    request = parse_body(
        {"model": "gpt-4o-mini", "messages": messages, "response_format": {"type": "json_object"}}
    )
    assert json.loads(structured_text("You said it.", request, 0, said=content)) == value


def test_a_coat_asked_for_is_shopped_for() -> None:
    search = tool("search_products", "Search the catalogue.", {"query": STRING})
    # the coat is weather only when asked whether it is needed: here it is the thing looked for
    assert calls([search, WEATHER], "Find me a warm winter coat") == [
        ("search_products", {"query": "warm winter coat"})
    ]


def test_a_schema_list_holds_no_greeting() -> None:
    person = {
        "type": "object",
        "properties": {"name": STRING, "hobbies": {"type": "array", "items": STRING}},
        "required": ["name", "hobbies"],
        "additionalProperties": False,
    }
    request = parse_body(
        {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "Hello!"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "person", "schema": person}},
        }
    )
    # was {"name": "Hello", "hobbies": ["Hello"]}
    assert json.loads(structured_text("You said it.", request, 0, said="Hello!")) == {
        "name": "unknown",
        "hobbies": [],
    }
