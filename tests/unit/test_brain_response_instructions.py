"""A response's own instructions that say what to say are followed when nothing new was said since the
last reply (LiveKit's ``generate_reply(instructions="Greet the user.")`` mid-session, an app's
``response.create`` with ``instructions``): it re-answered the last words instead."""

from __future__ import annotations

import random

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.phrases import greeting, instructed
from mockengine.protocol.session_config import SessionConfig
from mockengine.realtime.replies import response_params

SESSION = "You are a helpful assistant."


def item(text: str, index: int, kind: str) -> TurnView:
    return TurnView(f"item_{index}", kind, text)  # type: ignore[arg-type]


ANSWERED = [
    item("What is the capital of France?", 0, "user_text"),
    item("Paris is the capital of France.", 1, "assistant"),
]


def reply_text(history: list[TurnView], own: str) -> str | None:
    request = ReplyRequest(SESSION, (), "auto", ("text",), tuple(history), 2, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 7).reply(request).text


@pytest.mark.parametrize(
    ("own", "said"),
    [
        ("Tell the user the call will end in one minute.", "The call will end in one minute."),
        ("Let the user know that their order has shipped.", "Your order has shipped."),
        ("Tell the user: welcome to Acme support.", "Welcome to Acme support."),
        ("Remind the user to bring their ID.", "Remember to bring your ID."),
        ("Ask the user if they are still there.", "Are you still there?"),
        ("Ask the user whether they want a receipt.", "Do you want a receipt?"),
        ("Ask the user for their email address.", "Could you tell me your email address?"),
        # "you" in instructions is the assistant: what it tells the user of itself is said as "I"
        ("Tell the user you are looking that up now.", "I'm looking that up now."),
        (
            "Let the user know that you'll transfer them to your colleague.",
            "I'll transfer you to my colleague.",
        ),
        ("Tell the user that you have found their booking.", "I have found your booking."),
        ("Remind the user to call you back tomorrow.", "Remember to call me back tomorrow."),
        ("Ask the user how their day is going.", "Could you tell me how your day is going?"),
        ("Ask the user what they would like to order.", "Could you tell me what you would like to order?"),
        ("Apologize to the user for the delay.", "Sorry for the delay."),
        ("Apologise for keeping the user waiting.", "Sorry for keeping you waiting."),
        ("Politely tell the user the call will end soon.", "The call will end soon."),
    ],
)
def test_what_the_instructions_say_is_said_after_an_answered_turn(own: str, said: str) -> None:
    assert reply_text(ANSWERED, own) == said


def test_a_thanks_asked_for_with_an_adverb_is_a_farewell() -> None:
    said = reply_text(ANSWERED, "Briefly thank the user for calling and end the conversation.") or ""
    assert "Paris" not in said and said.endswith("oodbye!"), said


def test_a_greeting_or_a_farewell_asked_for_is_said() -> None:
    greeting = reply_text(ANSWERED, "Greet the user warmly.") or ""
    assert greeting.startswith(("Hi, I'm", "Hello! I'm")) and greeting.endswith("?")
    assert (reply_text(ANSWERED, "Say goodbye to the user.") or "").endswith("oodbye!")
    # before anything was said too (LiveKit's on_enter greeting)
    assert reply_text([], "Tell the user: welcome to Acme support.") == "Welcome to Acme support."


def test_a_function_output_already_read_out_is_not_read_out_again() -> None:
    """LiveKit's ``generate_reply(instructions=…)`` after a tool's result was answered: every such
    response was "sunny, 20 C." again, whatever the instructions said."""
    history = [
        item("What is the weather in Oslo?", 0, "user_text"),
        TurnView("item_1", "function_call", '{"city": "Oslo"}', name="get_weather", call_id="call_1"),
        TurnView("item_2", "function_call_output", "sunny, 20 C", call_id="call_1"),
        item("It's sunny and 20 C in Oslo.", 3, "assistant"),
    ]
    assert reply_text(history, "Tell the user the call will end in one minute.") == (
        "The call will end in one minute."
    )
    assert (reply_text(history, "Say goodbye to the user.") or "").endswith("oodbye!")
    # an output not yet answered is still answered first
    unanswered = reply_text(history[:3], "Tell the user the call will end in one minute.") or ""
    assert "sunny" in unanswered and "minute" not in unanswered


def test_new_words_are_answered_first() -> None:
    history = [*ANSWERED, item("What is the capital of Italy?", 2, "user_text")]
    assert "Rome" in (reply_text(history, "Tell the user the call will end in one minute.") or "")


def test_instructions_that_only_shape_the_reply_say_nothing_of_their_own() -> None:
    assert instructed("Be brief. Speak like a pirate.", random.Random(0), "Sam") is None
    assert "Paris" in (reply_text(ANSWERED, "Be brief.") or "")


@pytest.mark.parametrize(
    ("given", "own"),
    [
        (None, ""),
        (SESSION, ""),
        (f"{SESSION}\nGreet the user warmly.", "Greet the user warmly."),  # LiveKit's generate_reply
        ("Greet the user warmly.", "Greet the user warmly."),
    ],
)
def test_a_responses_own_instructions_are_what_it_adds_to_the_sessions(given: str | None, own: str) -> None:
    session = SessionConfig("gpt-realtime", instructions=SESSION)
    overrides = {} if given is None else {"instructions": given}
    assert response_params(session, overrides).own_instructions == own


def test_a_story_or_a_joke_the_instructions_ask_to_tell_is_told() -> None:
    """LiveKit's ``generate_reply(instructions="Tell the user a long story about …")`` (a barge-in test's
    usual long reply): the story, not the request said back ("A long story about a lighthouse keeper.")."""
    story = reply_text(ANSWERED, "Tell the user a long story about a lighthouse keeper.") or ""
    assert story.startswith("Here is a story about a lighthouse keeper.") and len(story.split()) > 40
    assert (reply_text(ANSWERED, "Tell the user a joke.") or "").startswith("Here's one:")


@pytest.mark.parametrize(
    "own",
    [
        "Greet the user with 'Welcome to Acme.'",
        'Greet the caller with "Welcome to Acme."',
        "Please welcome the user by saying: 'Welcome to Acme.' Then ask for their order number.",
        "Greet the user with 'Welcome to Acme.', then wait.",
    ],
)
def test_a_quoted_greeting_in_a_responses_instructions_is_said_as_given(own: str) -> None:
    # The user-message path said it ("Greet the user with '…'", the Twilio samples); this one said a
    # greeting of its own.
    assert reply_text([], own) == "Welcome to Acme."
    assert reply_text(ANSWERED, own) == "Welcome to Acme."


def test_a_quoted_greeting_keeps_its_own_sentences_and_apostrophes() -> None:
    own = "Be brief. Greet the user with 'Hi! I'm Sam from Acme. What's up?' Then listen."
    assert reply_text([], own) == "Hi! I'm Sam from Acme. What's up?"


def session_reply(session: str, history: list[TurnView]) -> tuple[str | None, str]:
    request = ReplyRequest(session, (), "auto", ("text",), tuple(history), 0)
    reply = ScriptedBrain(load_scenario(None), 7).reply(request)
    return reply.text, reply.rule


def test_a_quoted_greeting_in_the_sessions_instructions_opens_the_conversation() -> None:
    # An app's first response.create with nothing said: "Hi, I'm Sam." whatever the session asked for.
    session = "You are the Acme concierge.\nGreet the user with 'Welcome to Acme. How may I help?' Be brief."
    assert session_reply(session, []) == ("Welcome to Acme. How may I help?", "instructions.greeting")
    own = session_reply("You are the Acme concierge. Greet the caller warmly.", [])
    assert own[1] == "instructions.greeting" and (own[0] or "").startswith(("Hi, I'm", "Hello! I'm"))
    # New words are answered, not greeted again; a session that asks for no greeting greets as before.
    assert "Paris" in (session_reply(session, ANSWERED[:1])[0] or "")
    assert session_reply(SESSION, []) == ("Hi, I'm Sam.", "builtin.greeting")


@pytest.mark.parametrize(
    ("words", "in_instructions", "said"),
    [
        ("Greet the user with 'Welcome to Acme.'", False, "Welcome to Acme."),
        ("Greet the user with 'Welcome to Acme.'", True, "Welcome to Acme."),
        ("Greet the user with 'Welcome.' Then tell a joke.", True, "Welcome."),
        ("Introduce yourself.", False, None),  # a user's words: answered as words
        ("I want to greet my neighbour.", True, None),
    ],
)
def test_one_greeting_function_reads_both_paths(words: str, in_instructions: bool, said: str | None) -> None:
    assert greeting(words, random.Random(0), "Sam", in_instructions=in_instructions) == said
