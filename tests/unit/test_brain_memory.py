"""What the user said of themselves is remembered, as a model answers from its context: "what's my name?"
after "my name is Ada" is "Your name is Ada." (it was "You asked what's my name. I don't know that one,
sorry."), also with an app's tools declared and through LiveKit's history items."""

from __future__ import annotations

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.facts import remembered_answer

WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string", "description": "The city name"}}},
)


def said(text: str, index: int, kind: str = "user_text") -> TurnView:
    return TurnView(f"item_{index}", kind, text)  # type: ignore[arg-type]


def reply_text(history: list[TurnView], tools: tuple[ToolSpec, ...] = ()) -> str | None:
    brain = ScriptedBrain(load_scenario(None), 7)
    request = ReplyRequest("You are a helpful assistant.", tools, "auto", ("text",), tuple(history), 1)
    return brain.reply(request).text


@pytest.mark.parametrize("tools", [(), (WEATHER,)], ids=["no tools", "a weather tool"])
def test_the_name_the_user_gave_is_their_answer(tools: tuple[ToolSpec, ...]) -> None:
    history = [
        said("My name is Ada and I live in Lisbon.", 0),
        said("Nice to meet you, Ada.", 1, "assistant"),
        said("What's my name?", 2, "user_audio"),
    ]
    assert reply_text(history, tools) == "Your name is Ada."


def test_no_name_given_is_said_so() -> None:
    assert reply_text([said("Hello there.", 0), said("Hi!", 1, "assistant"), said("Who am I?", 2)]) == (
        "You haven't told me your name yet."
    )


@pytest.mark.parametrize(
    ("earlier", "answer"),
    [
        (["my name is ada lovelace"], "Your name is Ada."),  # transcribed lower case: the first word
        (["Hi, my name is Ada Lovelace."], "Your name is Ada Lovelace."),
        (["I'm tired.", "Call me Bob."], "Your name is Bob."),
        (["I'm Sam.", "Actually, my name is Alex."], "Your name is Alex."),  # the newest
        (["I am fine, thanks.", "I'm not sure."], "You haven't told me your name yet."),
    ],
)
def test_the_newest_name_given_is_remembered(earlier: list[str], answer: str) -> None:
    assert remembered_answer("do you remember my name?", earlier) == answer


@pytest.mark.parametrize("words", ["What's your name?", "What is the name of the city?", "name a colour"])
def test_other_words_are_no_question_about_the_users_name(words: str) -> None:
    assert remembered_answer(words, ["My name is Ada."]) is None


@pytest.mark.parametrize(
    ("words", "answer"),
    [
        ("My name is Ada.", "Nice to meet you, Ada."),  # it was "You said my name is Ada. Tell me more."
        ("Hi, my name is Ada Lovelace.", "Nice to meet you, Ada Lovelace."),
        ("I'm Bob.", "Nice to meet you, Bob."),
    ],
)
def test_an_introduction_is_welcomed(words: str, answer: str) -> None:
    assert reply_text([said(words, 0)]) == answer


@pytest.mark.parametrize(
    ("words", "starts", "made"),
    [
        ("My name is Ada. Tell me a story.", "Nice to meet you, Ada. ", "story"),
        ("Hi, I'm Ada. Tell me a joke.", "Nice to meet you, Ada. ", "Here's one:"),
    ],
)
def test_a_request_after_an_introduction_is_done_too(words: str, starts: str, made: str) -> None:
    # It was the welcome alone ("Nice to meet you, Ada."): the story or joke asked for never came.
    reply = reply_text([said(words, 0)]) or ""
    assert reply.startswith(starts) and made in reply


def test_a_statement_after_an_introduction_stays_a_welcome() -> None:
    assert reply_text([said("My name is Ada. I work at a bank.", 0)]) == "Nice to meet you, Ada."


@pytest.mark.parametrize("words", ["I'm tired.", "I am fine, thanks.", "Is my name Ada?"])
def test_other_words_about_the_user_are_no_introduction(words: str) -> None:
    assert "Nice to meet you" not in (reply_text([said(words, 0)]) or "")


def reply_with(instructions: str, history: list[TurnView]) -> str | None:
    brain = ScriptedBrain(load_scenario(None), 7)
    return brain.reply(ReplyRequest(instructions, (), "auto", ("text",), tuple(history), 1)).text


@pytest.mark.parametrize(
    "told",
    [
        "The user's name is Ana.",
        "The caller is named Ana and has called before.",
        "You are speaking with Ana, a regular customer.",
        "User profile: name: Ana; city: Lisbon.",
    ],
)
def test_a_name_the_app_gives_in_the_instructions_or_a_system_message_is_the_users(told: str) -> None:
    """Apps put what they know of the user into the session's instructions or a system item (a
    restored LiveKit context, Pipecat's initial messages); a model answers "what's my name?" from it."""
    asked = [said("What is my name?", 0)]
    assert reply_with(f"You are a helpful assistant. {told}", asked) == "Your name is Ana."
    system = [said(told, 0, "system"), said("What is my name?", 1)]
    assert reply_with("You are a helpful assistant.", system) == "Your name is Ana."


def test_a_name_the_user_gives_wins_over_the_apps() -> None:
    history = [said("The user's name is Ana.", 0, "system"), said("Actually, call me Bea.", 1)]
    history += [said("Nice to meet you, Bea.", 2, "assistant"), said("What's my name?", 3)]
    assert reply_with("You are a helpful assistant.", history) == "Your name is Bea."


def test_the_assistants_own_name_is_not_the_users() -> None:
    answer = reply_with("Your name is Sam.", [said("What is my name?", 0)])
    assert answer == "You haven't told me your name yet."
