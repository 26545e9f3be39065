"""The user asking for their own words ("What did I just say?", "what did I tell you first?", "can you
repeat what I said?"), as a model answers from its context: their words quoted (test_brk24_sdk over the
wire). They were echoed as content ("So you're asking what did I just say. I'm not sure, to be honest.");
a question about a fact the user gave ("what did I say my name was?") is not this."""

from __future__ import annotations

import pytest

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
