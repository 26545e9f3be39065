"""A user message that tells the assistant to greet the user is followed, as a model follows it: the
Twilio samples' "AI speaks first" item (twilio-samples/speech-assistant-openai-realtime-api-python
``send_initial_conversation_item``, and its Node twin) is a user ``input_text`` "Greet the user with 'Hello
there! I am an AI voice assistant …'" followed by ``response.create``. It was echoed ("You said Greet the
user with 'Hello there. Tell me more.")."""

from __future__ import annotations

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario

PYTHON_SAMPLE = (
    "Greet the user with 'Hello there! I am an AI voice assistant powered by Twilio and the OpenAI Realtime "
    "API. You can ask me for facts, jokes, or anything you can imagine. How can I help you?'"
)
NODE_SAMPLE = PYTHON_SAMPLE.replace("'", '"')
QUOTED = PYTHON_SAMPLE.split("'")[1]


def reply_to(text: str, instructions: str = "You are a helpful and bubbly AI assistant.") -> str:
    history = (TurnView("item_0", "user_text", text),)
    request = ReplyRequest(instructions, (), "auto", ("audio",), history, 0)
    return ScriptedBrain(load_scenario(None), 7).reply(request).text or ""


@pytest.mark.parametrize("text", [PYTHON_SAMPLE, NODE_SAMPLE])
def test_the_samples_greeting_is_said_as_quoted(text: str) -> None:
    assert reply_to(text) == QUOTED


def test_a_quoted_greeting_keeps_its_apostrophes() -> None:
    said = reply_to("Please greet the caller with \"Hi, I'm Sam from Acme. What's up?\"")
    assert said == "Hi, I'm Sam from Acme. What's up?"


def test_a_greeting_without_words_is_a_greeting() -> None:
    said = reply_to("Greet the user and ask how you can help.")
    assert said.startswith(("Hi, I'm", "Hello! I'm")) and said.endswith("?")


@pytest.mark.parametrize(
    "text", ["Greetings from Paris!", "I want to greet my neighbour.", "What is the capital of France?"]
)
def test_other_words_are_answered_as_before(text: str) -> None:
    said = reply_to(text)
    assert not said.startswith(("Hi, I'm", "Hello! I'm")) and said


def _instructed_reply(history: tuple[TurnView, ...], own: str) -> str:
    request = ReplyRequest("You are terse.", (), "auto", ("audio",), history, 1, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 7).reply(request).text or ""


@pytest.mark.parametrize("own", ["Greet the user by name.", "Welcome the caller using their first name."])
def test_a_greeting_by_name_names_the_user_who_gave_it(own: str) -> None:
    """A response's own instructions to greet the user by name (LiveKit's ``generate_reply`` after a
    restored context) use the name the user gave: it was the plain greeting, the name ignored."""
    history = (
        TurnView("item_0", "user_text", "Hi, my name is Ana."),
        TurnView("item_1", "assistant", "Nice to meet you."),
    )
    said = _instructed_reply(history, own)
    assert said.startswith(("Hi Ana, I'm", "Hello Ana! I'm")), said


def test_a_greeting_by_name_without_one_given_is_the_plain_greeting() -> None:
    history = (TurnView("item_0", "user_text", "Hello."), TurnView("item_1", "assistant", "Hi there."))
    said = _instructed_reply(history, "Greet the user by name.")
    assert said.startswith(("Hi, I'm", "Hello! I'm")), said
