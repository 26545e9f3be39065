"""The user asking for their own words ("What did I just say?", "what did I tell you first?", "can you
repeat what I said?"), as a model answers from its context: their words quoted (test_brk24_sdk over the
wire). They were echoed as content ("So you're asking what did I just say. I'm not sure, to be honest.");
a question about a fact the user gave ("what did I say my name was?") is not this.

The answer to a question an app's per-response instructions had the assistant put ("Could you tell me
which city you want the weather for?" → "Berlin, please.") calls the tool the question is about, with
what it asked for; it was echoed."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import Reply, ToolSpec
from tests.brain_calls import conversation_replies


@pytest.mark.parametrize(
    "asked",
    [
        "What did I just say?",
        "what did I say",
        "Sorry, what did I just tell you?",
        "What was the last thing I said?",
        "Can you repeat what I just said?",
        "Do you remember what I said?",
        "What did I just say?!",
    ],
)
def test_the_users_newest_words_are_quoted(asked: str) -> None:
    replies = conversation_replies([], ["My sister lives in Chicago.", asked])
    assert replies[-1].text == "You said “My sister lives in Chicago.”"


def test_a_question_is_quoted_as_asked_and_first_picks_the_oldest() -> None:
    turns = ["What is the capital of France?", "My sister lives in Chicago.", "What did I say first?"]
    assert conversation_replies([], turns)[-1].text == "First you asked “What is the capital of France?”"


def test_nothing_said_yet() -> None:
    assert conversation_replies([], ["What did I just say?"])[-1].text == "You haven't said anything yet."


def test_a_fact_asked_about_is_not_a_quote() -> None:
    replies = conversation_replies([], ["My name is Ada.", "What did I say my name was?"])
    assert "“" not in (replies[-1].text or "")


WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def _after_question(question: str, answer: str, before: tuple[TurnView, ...] = ()) -> Reply:
    history = (*before, TurnView("a0", "assistant", question), TurnView("u1", "user_text", answer))
    request = ReplyRequest("", (WEATHER,), "auto", ("text",), history, 0)
    return ScriptedBrain(load_scenario(None), 3).reply(request)


@pytest.mark.parametrize(
    "question",
    [
        "Could you tell me which city you want the weather for?",
        "Sure! Which city should I check the weather in?",
    ],
)
@pytest.mark.parametrize("before", [(), (TurnView("u0", "user_text", "Hello there!"),)])
def test_the_answer_to_a_question_put_by_the_apps_instructions_calls_its_tool(
    question: str, before: tuple[TurnView, ...]
) -> None:
    reply = _after_question(question, "Berlin, please.", before)
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("get_weather", {"city": "Berlin"})
    ]


@pytest.mark.parametrize("question", ["Which city are you in?", "How are you today?"])
def test_a_question_of_no_tools_topic_calls_nothing(question: str) -> None:
    assert _after_question(question, "Berlin, please.").tool_calls == ()
