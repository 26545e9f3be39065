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


# A response's own instructions that ask for a call by the tool's name and give its value ("Call
# get_weather for Rome.", LiveKit's generate_reply(instructions=…), a response.create's instructions): a
# model follows them over the user's words; the user's city was taken ("Paris").
ASKED_PARIS = (TurnView("u1", "user_text", "What's the weather in Paris?"),)
UNITS = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
)


def _instructed(
    instructions: str,
    history: tuple[TurnView, ...] = ASKED_PARIS,
    tool_choice: object = "auto",
    tools: tuple[ToolSpec, ...] = (WEATHER, TIME),
) -> Reply:
    request = ReplyRequest(
        f"You are a helpful assistant.\n{instructions}",
        tools,
        tool_choice,  # type: ignore[arg-type]
        ("text",),
        history,
        len(history),
        response_instructions=instructions,
    )
    return ScriptedBrain(load_scenario(None), 3).reply(request)


@pytest.mark.parametrize(
    "instructions",
    [
        "Call get_weather for Rome.",
        "Call get_weather with city Rome.",
        "Use the get_weather tool for Rome.",
        "Call the get_weather function with city set to Rome.",
        'Call get_weather with {"city": "Rome"}.',
        "The user changed their mind. Call get_weather for Rome.",
    ],
)
@pytest.mark.parametrize("tool_choice", ["auto", "required"])
def test_the_instructions_named_value_wins_over_the_users(instructions: str, tool_choice: str) -> None:
    reply = _instructed(instructions, tool_choice=tool_choice)
    assert _calls(reply) == [("get_weather", {"city": "Rome"})]


def test_a_forced_tool_takes_the_instructions_value() -> None:
    from mockengine.brain import ForcedTool

    assert _calls(_instructed("Call get_weather for Rome.", tool_choice=ForcedTool("get_weather"))) == [
        ("get_weather", {"city": "Rome"})
    ]


def test_the_users_words_fill_what_the_instructions_leave_and_the_instructions_keep_theirs() -> None:
    history = (TurnView("u1", "user_text", "What's the weather in Paris in fahrenheit?"),)
    assert _calls(_instructed("Call get_weather for Rome.", history, tools=(UNITS,))) == [
        ("get_weather", {"city": "Rome", "unit": "fahrenheit"})
    ]
    assert _calls(_instructed("Call get_weather.", history, tools=(UNITS,))) == [
        ("get_weather", {"city": "Paris", "unit": "fahrenheit"})
    ]


def test_before_the_user_said_anything() -> None:
    assert _calls(_instructed("Call get_weather for Rome.", history=())) == [
        ("get_weather", {"city": "Rome"})
    ]


@pytest.mark.parametrize(
    "instructions",
    ["Do not call get_weather for Rome.", "Never use get_weather.", "Check the weather in Rome."],
)
def test_instructions_that_ask_for_no_call_by_name_keep_the_users_value(instructions: str) -> None:
    assert _calls(_instructed(instructions)) == [("get_weather", {"city": "Paris"})]


def test_tools_disallowed_make_no_call() -> None:
    assert _instructed("Call get_weather for Rome.", tool_choice="none").tool_calls == ()


def test_its_output_is_answered_not_called_again() -> None:
    history = (
        *ASKED_PARIS,
        TurnView("c1", "function_call", '{"city": "Rome"}', call_id="call_1", name="get_weather"),
        TurnView("o1", "function_call_output", '{"weather": "sunny"}', call_id="call_1"),
    )
    reply = _instructed("Call get_weather for Rome.", history)
    assert reply.tool_calls == () and "Rome" in (reply.text or "")


# tool_choice "none" with the app's tools declared: a model cannot call them and says so in words; the
# participant answered "You asked what's the weather in Paris. I don't know that one, sorry." (a booking
# was echoed: "You said Book a table for two under Smith. Tell me more.").
BOOK = ToolSpec(
    "book_table",
    "Book a table at the restaurant.",
    {
        "type": "object",
        "properties": {"name": {"type": "string"}, "party_size": {"type": "integer"}},
        "required": ["name", "party_size"],
    },
)


@pytest.mark.parametrize("channel", ["realtime", "chat"])
@pytest.mark.parametrize(
    ("words", "said"),
    [
        ("What's the weather in Paris?", "Sorry, I can't check the weather in Paris right now."),
        ("Is it raining in London?", "Sorry, I can't check the weather in London right now."),
        ("What's the weather like?", "Sorry, I can't check the weather right now."),
        ("Book a table for two under Smith.", "Sorry, I can't book the table for Smith right now."),
    ],
)
def test_tools_disallowed_the_request_is_declined_in_words(words: str, said: str, channel: str) -> None:
    history = (TurnView("u1", "user_text", words),)
    request = ReplyRequest("", (WEATHER, BOOK), "none", ("text",), history, 0, channel=channel)  # type: ignore[arg-type]
    reply = ScriptedBrain(load_scenario(None), 3).reply(request)
    assert (reply.text, reply.tool_calls) == (said, ())


@pytest.mark.parametrize(
    ("words", "said"),
    [("What's the capital of France?", "Paris"), ("Hello!", "Hi"), ("Thanks, bye!", "")],
)
def test_tools_disallowed_other_words_are_answered_as_before(words: str, said: str) -> None:
    history = (TurnView("u1", "user_text", words),)
    request = ReplyRequest("", (WEATHER, BOOK), "none", ("text",), history, 0)
    text = ScriptedBrain(load_scenario(None), 3).reply(request).text or ""
    assert said in text and "can't" not in text


# A list of objects with a count ("items": [{name, quantity}], a Pydantic ``list[Item]``): a thing named
# by its article is one of it. "Order two pizzas and a coke" dropped the coke; "Order a pizza and a coke"
# asked "What items would you like?".
ORDER = ToolSpec(
    "create_order",
    "Create a food order.",
    {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "quantity": {"type": "integer"}},
                    "required": ["name", "quantity"],
                },
            }
        },
        "required": ["items"],
    },
)


@pytest.mark.parametrize(
    ("words", "items"),
    [
        ("Order two pizzas and a coke", [("pizzas", 2), ("coke", 1)]),
        ("Order a pizza and a coke", [("pizza", 1), ("coke", 1)]),
        ("Order two pizzas, a salad and a coke", [("pizzas", 2), ("salad", 1), ("coke", 1)]),
        ("Order two pizzas and three cokes", [("pizzas", 2), ("cokes", 3)]),
    ],
)
def test_a_thing_said_by_its_article_is_one_of_it(words: str, items: list[tuple[str, int]]) -> None:
    reply = _reply((TurnView("u1", "user_text", words),), tools=(ORDER,))
    assert _calls(reply) == [("create_order", {"items": [{"name": n, "quantity": q} for n, q in items]})]


# "and tomorrow?" after get_weather {city: Paris} with no declared tool that takes a day: a model says its
# tool reports only the present; the words were echoed ("So you're asking and tomorrow. I'm not sure, to
# be honest.").
@pytest.mark.parametrize(
    ("words", "when"),
    [("And tomorrow?", "tomorrow"), ("What about on Friday?", "Friday"), ("and tonight?", "tonight")],
)
def test_a_day_asked_of_a_lookup_that_takes_none(words: str, when: str) -> None:
    history = (
        TurnView("u0", "user_text", "What's the weather in Paris?"),
        TurnView("c0", "function_call", '{"city": "Paris"}', name="get_weather", call_id="c0"),
        TurnView("o0", "function_call_output", "Sunny, 21 degrees", call_id="c0"),
        TurnView("a0", "assistant", "Sunny, 21 degrees."),
        TurnView("u1", "user_text", words),
    )
    reply = _reply(history)
    assert (reply.text, reply.tool_calls) == (
        f"Sorry, I can only check the weather in Paris as it is now, not for {when}.",
        (),
    )


def test_a_day_goes_to_a_tool_that_takes_one() -> None:
    forecast = ToolSpec(
        "get_forecast",
        "Get the weather forecast for a city on a date.",
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "date": {"type": "string", "format": "date"}},
            "required": ["city", "date"],
        },
    )
    history = (
        TurnView("u0", "user_text", "What's the weather in Paris?"),
        TurnView("c0", "function_call", '{"city": "Paris"}', name="get_weather", call_id="c0"),
        TurnView("o0", "function_call_output", "Sunny, 21 degrees", call_id="c0"),
        TurnView("u1", "user_text", "And tomorrow?"),
    )
    assert [name for name, _ in _calls(_reply(history, tools=(WEATHER, forecast)))] == ["get_forecast"]


# A lookup's output that is one wrapper key around its text ({"result": "sunny"}, Pipecat's
# result_callback) is that text: it was said as a field ("The result in Paris is sunny."); nothing back
# (None, {}) was "Done: Paris.".
@pytest.mark.parametrize(
    ("output", "said"),
    [
        ('{"result": "sunny"}', "The weather in Paris is sunny."),
        ('{"output": "sunny"}', "The weather in Paris is sunny."),
        ('{"result": "ok"}', "I checked the weather in Paris, but no details came back."),
        ("null", "I checked the weather in Paris, but no details came back."),
        ("{}", "I checked the weather in Paris, but no details came back."),
    ],
)
def test_a_lookups_wrapped_or_empty_output(output: str, said: str) -> None:
    history = (
        TurnView("u0", "user_text", "What's the weather in Paris?"),
        TurnView("c0", "function_call", '{"city": "Paris"}', name="get_weather", call_id="c0"),
        TurnView("o0", "function_call_output", output, call_id="c0"),
    )
    assert _reply(history).text == said
