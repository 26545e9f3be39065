"""A response's own instructions that set a task about the conversation (``brain.tasks``): classify,
title, summarise; and those that set none."""

from __future__ import annotations

import pytest

from mockengine.brain import tasks
from mockengine.brain.model import ReplyRequest, TurnView

STORY = "Tell me a long story about a dragon."
STORY_REPLY = "Here is a story about a dragon. Every evening a light was lit at dusk."


def _answer(own: str, *said: str) -> str | None:
    """The task's answer for a conversation alternating user and assistant turns (user first)."""
    history = tuple(
        TurnView(f"item_{n}", "user_text" if n % 2 == 0 else "assistant", text) for n, text in enumerate(said)
    )
    request = ReplyRequest(
        instructions="You are a storyteller.",
        tools=(),
        tool_choice="auto",
        output_modalities=("text",),
        history=history,
        response_index=0,
        response_instructions=own,
    )
    reply = tasks.answered(request)
    return None if reply is None else reply.text


@pytest.mark.parametrize(
    ("own", "said", "label"),
    [
        ("Classify the user's request as story or question.", (STORY, STORY_REPLY), "story"),
        ("Classify the user's request as story or question.", ("What time is it?",), "question"),
        ("Categorize the message into billing, technical, or other.", ("Hi there",), "other"),
        ('Classify the sentiment as "positive", "negative" or "neutral".', ("This is terrible",), "negative"),
        ("Respond with one of: yes, no.", ("Sure",), "yes"),
        ("Label the message as Stories or Questions only.", ("Tell me stories",), "Stories"),
    ],
)
def test_a_classification_is_one_named_label(own, said, label) -> None:
    assert _answer(own, *said) == label


def test_a_title_is_a_short_phrase_from_the_first_user_words() -> None:
    assert _answer("Give this conversation a title.", STORY, STORY_REPLY) == "Long Story about a Dragon"
    assert (
        _answer("Generate a short title for this chat.", "What's the weather in Paris?") == "Weather in Paris"
    )
    assert _answer("Give this conversation a title.") == "New Conversation"


def test_a_summary_restates_the_turns() -> None:
    assert _answer("Summarize the conversation so far.", STORY, STORY_REPLY) == (
        "The user said: “Tell me a long story about a dragon.” "
        "The assistant replied: “Here is a story about a dragon.”"
    )
    assert _answer("Your task is to summarize the call.", "Is it open?") == "The user asked: “Is it open?”"
    assert _answer("Summarize the conversation so far.") == "Nothing has been said yet."


@pytest.mark.parametrize(
    "own",
    [
        "",
        "Greet the user.",
        "Tell the user you will summarize their order.",
        "Don't summarize; just answer.",
        "Mention that the title of the book is on the cover.",
        "Classify nothing.",
    ],
)
def test_instructions_that_set_no_task(own) -> None:
    assert _answer(own, STORY) is None


SENTIMENT = 'Classify the sentiment as "positive", "negative" or "neutral".'


@pytest.mark.parametrize(
    ("said", "label"),
    [
        # a feeling said is a sentiment (``wordlists.POSITIVE_FEELINGS`` / ``NEGATIVE_FEELINGS``): these
        # were "neutral", as nothing in the words was read
        ("I'm so frustrated with this.", "negative"),
        ("I'm furious, nobody called me back.", "negative"),
        ("Honestly I'm really disappointed.", "negative"),
        ("I'm worried about my order.", "negative"),
        ("I'm so grateful for your help.", "positive"),
        # praise and complaint said of a thing, as before
        ("The new update is wonderful.", "positive"),
        ("This is the worst service.", "negative"),
    ],
)
def test_a_sentiment_is_read_from_the_feeling_said(said, label) -> None:
    assert _answer(SENTIMENT, said) == label


def test_a_feeling_with_no_sentiment_of_its_own_picks_none() -> None:
    # "afraid" is politeness here, "fine" a noun: no sentiment is read from them
    assert _answer(SENTIMENT, "I got a fine.") == "neutral"
    assert _answer(SENTIMENT, "I'm afraid so.") == "neutral"


@pytest.mark.parametrize(
    ("own", "said", "label"),
    [
        # a topic's words (``wordlists.SUPPORT_TOPICS``) route a support request as they pick a ticket's
        # category: "shipment" and "password" went to "other"
        ("Categorize the message into billing, shipping, or other.", "Where is my shipment?", "shipping"),
        ("Categorize the message into billing, account, or other.", "I forgot my password.", "account"),
        # an account's money still routes to it
        ("Categorize the message into account, technical, or other.", "I was overcharged.", "account"),
        # with no account label, a login problem is technical
        ("Categorize the message into billing, technical, or other.", "I can't log in.", "technical"),
        # offered both, a password is the account's
        ("Categorize the message into technical, account, or other.", "I forgot my password.", "account"),
    ],
)
def test_a_support_request_is_routed_by_its_topic_words(own, said, label) -> None:
    assert _answer(own, said) == label
