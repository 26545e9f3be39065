"""brain19: cases a new app developer found read as no model would (each failed on b55d1906): quoted
words asked to be said, a forced city said after "visiting", "ask the user about their weekend" asked for
as a thing to hand over, a request whose "it" is the order just named, a recursive tree's children, and
``json_object`` keys named only in words."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import ForcedTool, ToolChoice, ToolSpec
from mockengine.chat.errors import ChatError
from mockengine.chat.request import parse_body
from mockengine.chat.shaping import structured_text
from tests.brain_calls import TODAY, calls, tool

STRING = {"type": "string"}
WEATHER = tool("get_weather", "Get the current weather for a city", {"city": STRING})
CHECK_ORDER = tool("check_order", "Check an order", {"order_id": STRING})
NODE = {
    "type": "object",
    "properties": {"name": STRING, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    "required": ["name", "children"],
}
TREE = ToolSpec("create_tree", "Create a tree of nodes", {**NODE, "$defs": {"node": NODE}})


def reply(said: str, tools: tuple[ToolSpec, ...] = (), choice: ToolChoice = "auto", own: str = "") -> Any:
    items = (TurnView("u", "user_text", said),) if said else ()
    return ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest("", tools, choice, ("text",), items, 1, response_instructions=own)
    )


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("Say 'hello world' twice.", "Hello world, hello world."),  # was "I heard you say say …"
        ('Say "hello world" twice.', "Hello world, hello world."),
        ("Say hello world twice.", "Hello world, hello world."),
        ("Say 'I'm here' twice.", "I'm here, I'm here."),  # an apostrophe inside the quotes
        ("Repeat after me: good night", "Good night."),
        ("Repeat 'good night' three times", "Good night, good night, good night."),
    ],
)
def test_words_asked_to_be_said_are_said(said: str, text: str) -> None:
    assert reply(said).text == text


@pytest.mark.parametrize("said", ["Say 'hi' to Bob for me", "Can you say that again?", "I'd say it's fine"])
def test_other_says_are_no_dictation(said: str) -> None:
    assert reply(said).rule != "builtin.said_as_asked"


@pytest.mark.parametrize(
    "said",
    [
        "I'm visiting Tokyo next week",  # was London
        "I'm flying to Tokyo next week",
        "My trip to Tokyo is next week",
        "Tokyo next week",
    ],
)
@pytest.mark.parametrize("choice", [ForcedTool("get_weather"), "required"], ids=["named", "required"])
def test_a_forced_city_is_the_place_said(said: str, choice: ToolChoice) -> None:
    made = reply(said, (WEATHER,), choice).tool_calls
    assert [(c.name, json.loads(c.arguments)) for c in made] == [("get_weather", {"city": "Tokyo"})]


@pytest.mark.parametrize(
    "said", ["What's the weather in Tokyo next week?", "I'm visiting Tokyo, how's the weather?"]
)
def test_a_city_asked_of_is_its_name_alone(said: str) -> None:
    assert calls([WEATHER], said) == [
        ("get_weather", {"city": "Tokyo"})
    ]  # was "Tokyo next", "visiting Tokyo"


def test_small_talk_still_names_no_city() -> None:
    made = reply("I'm Sam", (WEATHER,), ForcedTool("get_weather")).tool_calls
    assert json.loads(made[0].arguments) == {"city": "London"}


@pytest.mark.parametrize(
    ("own", "text"),
    [
        (
            "Ask the user about their weekend",
            "How was your weekend?",
        ),  # was "Could you tell me your weekend?"
        ("Ask the user about their trip.", "How was your trip?"),
        ("Ask the user about their favourite food", "What's your favourite food?"),
        ("Ask the user about their order", "Could you tell me about your order?"),
        ("Ask the user for their name", "Could you tell me your name?"),  # control
    ],
)
def test_asking_about_a_topic_is_a_question_of_it(own: str, text: str) -> None:
    assert reply("", own=own).text == text


@pytest.mark.parametrize(
    "said",
    [
        "My order 4411 never arrived, could you check on it?",  # was talk only
        "My order 4411 hasn't arrived, can you check it?",
        "My order 4411 never arrived, could you look into it?",
    ],
)
def test_a_request_about_the_order_just_named_is_made(said: str) -> None:
    assert calls([CHECK_ORDER], said) == [("check_order", {"order_id": "4411"})]


def test_a_reason_beside_another_request_is_still_a_reason() -> None:
    refund = tool("refund_order", "Refund an order", {"order_id": STRING})
    assert calls([CHECK_ORDER, refund], "My order A12345 arrived broken, I want a refund") == [
        ("refund_order", {"order_id": "A12345"})
    ]


@pytest.mark.parametrize("choice", ["auto", "required"])
def test_a_tree_gets_no_invented_children(choice: ToolChoice) -> None:
    made = reply("Create a tree with root called animals", (TREE,), choice).tool_calls
    assert [json.loads(c.arguments) for c in made] == [{"name": "animals", "children": []}]


def test_a_demanded_tree_holds_no_placeholder_words() -> None:
    made = reply("make a tree", (TREE,), "required").tool_calls
    arguments = json.loads(made[0].arguments)
    assert arguments["children"] == [] and arguments["name"] != "Name"


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"logit_bias": {"50256": 150}}, "logit_bias"),  # was accepted
        ({"logit_bias": {"50256": -100.5}}, "logit_bias"),
        ({"logit_bias": {"hello": 5}}, "logit_bias"),
        ({"top_logprobs": 3}, "top_logprobs"),  # without logprobs: was accepted
        ({"temperature": 2.5}, "temperature"),
        ({"top_p": -0.1}, "top_p"),
        ({"presence_penalty": 2.5}, "presence_penalty"),
        ({"frequency_penalty": -3}, "frequency_penalty"),
        ({"n": 0}, "n"),
        ({"top_logprobs": 21, "logprobs": True}, "top_logprobs"),
    ],
)
def test_chat_parameters_out_of_range_are_refused(extra: dict[str, Any], param: str) -> None:
    with pytest.raises(ChatError) as refused:
        parse_body({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], **extra})
    assert (refused.value.status, refused.value.param, refused.value.type) == (
        400,
        param,
        "invalid_request_error",
    )


def test_chat_parameters_in_range_are_taken() -> None:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
    parse_body({**body, "logit_bias": {"50256": -100, "1": 100}, "logprobs": True, "top_logprobs": 20})


@pytest.mark.parametrize(
    ("messages", "content"),
    [
        (
            [
                {"role": "system", "content": "Return JSON with keys name and age"},
                {"role": "user", "content": "My name is Alice and I'm 30 years old"},
            ],
            {"name": "Alice", "age": 30},
        ),
        (
            [
                {
                    "role": "user",
                    "content": "Return JSON with keys name and age. Tell me about Bob, who is 41.",
                }
            ],
            {"name": "Bob", "age": 41},
        ),
        ([{"role": "user", "content": "Return JSON with keys name and age."}], {"name": None, "age": None}),
    ],
)
def test_json_object_keys_named_in_words(messages: list[dict[str, str]], content: Any) -> None:
    request = parse_body(
        {"model": "gpt-4o-mini", "messages": messages, "response_format": {"type": "json_object"}}
    )
    assert json.loads(structured_text("You said it.", request, 0, said=messages[-1]["content"])) == content


EVENT = tool(
    "create_event",
    "Add an event to the user's calendar.",
    {"title": STRING, "date": {"type": "string", "format": "date"}, "time": STRING},
    ["title", "date"],
)


@pytest.mark.parametrize(
    "said", ["I have a haircut on the 12th, can you add it?", "I've got a haircut on the 12th, add that"]
)
def test_it_is_the_thing_the_words_told_of(said: str) -> None:
    # asked "What should the title be?"
    assert calls([EVENT], said) == [("create_event", {"title": "haircut", "date": "2026-12-12"})]


def test_it_with_nothing_told_is_still_asked_for() -> None:
    assert isinstance(calls([EVENT], "Can you add it on the 12th?"), str)
