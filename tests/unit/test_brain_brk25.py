"""Found by a new user (stop brk25) driving the agent frameworks with the app's own tools.

The answer to the assistant's question "Which city would you like the weather for?" (its last item, put
by per-response instructions or on its own) is "Paris.": a model calls ``get_weather {city: Paris}``. The
question asks the user what *they* want ("would you like", "do you want"), a framing the matcher read as a
question for the participant or as another action ("like"), and the answer was echoed ("You said Paris.
Tell me more.")."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import Reply, ToolSpec

WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
TIME = ToolSpec(
    "get_time",
    "Get the current time in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def _reply(
    history: tuple[TurnView, ...],
    instructions: str = "",
    tool_choice: str = "auto",
    tools: tuple[ToolSpec, ...] = (WEATHER,),
) -> Reply:
    request = ReplyRequest(instructions, tools, tool_choice, ("text",), history, 0)
    return ScriptedBrain(load_scenario(None), 3).reply(request)


def _calls(reply: Reply) -> list[tuple[str | None, dict[str, object]]]:
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


@pytest.mark.parametrize(
    "question",
    [
        "Which city would you like the weather for?",
        "Which city do you want the weather for?",
        "Sure, which city do you need the weather for?",
        "What city would you like me to check the weather in?",
        "For which city would you like the weather?",
    ],
)
@pytest.mark.parametrize("answer", ["Paris.", "Paris", "Paris, please."])
def test_the_answer_to_which_city_would_you_like_calls_the_tool(question: str, answer: str) -> None:
    history = (TurnView("a0", "assistant", question), TurnView("u1", "user_text", answer))
    assert _calls(_reply(history, tools=(WEATHER, TIME))) == [("get_weather", {"city": "Paris"})]


def test_the_question_after_the_users_greeting_too() -> None:
    history = (
        TurnView("u0", "user_text", "Hi there."),
        TurnView("a0", "assistant", "Hello! Which city would you like the weather for?"),
        TurnView("u1", "user_text", "Paris."),
    )
    assert _calls(_reply(history)) == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    "question",
    ["Which city would you like to visit?", "Which city are you in?", "Where would you like to go?"],
)
def test_a_question_that_names_only_the_parameter_calls_nothing(question: str) -> None:
    history = (TurnView("a0", "assistant", question), TurnView("u1", "user_text", "Paris."))
    assert _reply(history).tool_calls == ()


@pytest.mark.parametrize(
    ("instructions", "question"),
    [
        (
            'Ask the user: "Which city would you like the weather for?"',
            "Which city would you like the weather for?",
        ),
        ('Ask "Which city would you like the weather for?"', "Which city would you like the weather for?"),
    ],
)
def test_a_question_the_instructions_ask_is_put_as_written(instructions: str, question: str) -> None:
    request = ReplyRequest(
        f"You are a helpful assistant.\n{instructions}",
        (WEATHER,),
        "auto",
        ("text",),
        (),
        0,
        response_instructions=instructions,
    )
    assert ScriptedBrain(load_scenario(None), 3).reply(request).text == question
