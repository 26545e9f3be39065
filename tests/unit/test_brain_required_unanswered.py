"""``tool_choice: "required"`` with a turn-ending tool (smolagents' ``final_answer``) beside a search tool:
words the participant cannot answer itself go to the search tool, as a model with a search tool does;
only words it can answer (a greeting, a fact it knows) end the turn. Since the turn-ending rule, a
ToolCallingAgent with a web search tool answered "Look up the latest news about SpaceX" with
``final_answer("… Tell me more.")`` and "Who won the 2018 world cup?" with "I don't know that one"."""

from __future__ import annotations

import json
from datetime import date

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario

FINAL = ToolSpec(
    "final_answer",
    "Provides a final answer to the given problem.",
    {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
)
SEARCH = ToolSpec(
    "web_search",
    "Performs a web search for a query and returns the top results.",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def required_calls(tools: tuple[ToolSpec, ...], text: str) -> list[tuple[str, dict]]:
    request = ReplyRequest("", tools, "required", ("text",), (TurnView("u", "user_text", text),), 0)
    reply = ScriptedBrain(load_scenario(None), 3, today=date(2026, 12, 4)).reply(request)
    return [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]


@pytest.mark.parametrize("tools", [(SEARCH, FINAL), (FINAL, SEARCH)])
@pytest.mark.parametrize("text", ["Look up the latest news about SpaceX", "Who won the 2018 world cup?"])
def test_words_not_answered_go_to_the_search_tool(tools, text):
    [(name, arguments)] = required_calls(tools, text)
    assert name == "web_search" and arguments["query"]


@pytest.mark.parametrize("text", ["Hello, how are you?", "What's the capital of France?"])
def test_words_answered_end_the_turn(text):
    [(name, arguments)] = required_calls((SEARCH, FINAL), text)
    assert name == "final_answer" and "know that one" not in arguments["answer"]


def test_a_tool_that_takes_no_query_is_not_given_the_question():
    """Without a search tool the turn ends: the weather of a made-up city is no answer to it."""
    [(name, _)] = required_calls((WEATHER, FINAL), "Who won the 2018 world cup?")
    assert name == "final_answer"
