"""A message of several sentences with one question in it is answered, and echoed, as that question: a
style note or thanks beside it ("Answer briefly.", "Thanks!") no longer hides the answer a lone question
gets (found by a new user sending two content parts; failed on b55d1906)."""

from __future__ import annotations

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from tests.brain_calls import TODAY


def reply_text(said: str) -> str:
    items = (TurnView("u", "user_text", said),)
    return (
        ScriptedBrain(load_scenario(None), 3, today=TODAY)
        .reply(ReplyRequest("", (), "auto", ("text",), items, 1))
        .text
    )


PARIS = "So you're asking what is the capital of France. Paris is the capital of France."


@pytest.mark.parametrize(
    "said",
    [
        "What is the capital of France? Answer briefly.",
        "What is the capital of France?\nAnswer briefly.",  # two content parts, joined
        "Answer briefly. What is the capital of France?",  # was echoed as "So you're asking Answer briefly."
        "What is the capital of France? Please keep it short.",
        "Thanks. What is the capital of France?",
    ],
)
def test_the_one_question_is_answered_and_echoed(said: str) -> None:
    assert reply_text(said) == PARIS


def test_the_lone_question_is_unchanged() -> None:
    assert reply_text("What is the capital of France?") == PARIS


@pytest.mark.parametrize(
    "said",
    [
        "What is the capital of France? And what is the capital of Spain?",  # two questions: both kept
        "I like France. It is nice.",  # no question
    ],
)
def test_two_questions_or_none_keep_every_sentence(said: str) -> None:
    text = reply_text(said)
    first = said.split(".")[0].split("?")[0]
    assert first.lower()[1:] in text.lower(), text  # echoed from the first sentence, as before
