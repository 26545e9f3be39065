"""A response whose own instructions dictate the words to say ("Say exactly the following to the user
…, and nothing else: TEXT", "Read the following text aloud: TEXT", 'Say "TEXT"') says TEXT, whatever was
said before: apps use an out-of-band ``response.create`` as an announcer this way (public bridges send
"Say exactly the following to the user in {language}, {tone} tone, and nothing else: {text}"). The
participant answered the last user words instead; only ``Say exactly: TEXT`` was read."""

from __future__ import annotations

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario

SESSION = "You are a helpful booking assistant."
TEXT = "Your appointment is confirmed for Tuesday at 10."
ANSWERED = (
    TurnView("item_0", "user_text", "Can you book me for Tuesday?"),
    TurnView("item_1", "assistant", "Sure, one moment."),
)
UNANSWERED = (*ANSWERED, TurnView("item_2", "user_audio", "Hello? Are you there?"))


def reply_text(history: tuple[TurnView, ...], own: str, session: str = SESSION) -> str | None:
    request = ReplyRequest(session, (), "auto", ("audio",), history, 2, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 7).reply(request).text


@pytest.mark.parametrize(
    "own",
    [
        f"Say exactly the following to the user in English, friendly tone, and nothing else: {TEXT}",
        f"Read the following text aloud: {TEXT}",
        f"Repeat the following text verbatim: {TEXT}",
        f"Say the following to the user: {TEXT}",
        f"Say this to the caller, word for word:\n{TEXT}",
        f'Say "{TEXT}"',
        f"Say exactly this: “{TEXT}”",
        f"Say: {TEXT}",
    ],
)
def test_dictated_words_are_said(own: str) -> None:
    assert reply_text(ANSWERED, own) == TEXT
    assert reply_text((), own) == TEXT
    assert reply_text(UNANSWERED, own) == TEXT  # an announcement is made even over new words


@pytest.mark.parametrize(
    "own",
    [
        "Say goodbye.",
        "Speak slowly: the user is elderly.",
        "Say something friendly.",
        "Keep it short: one sentence.",
        "Ask the user if they are still there.",
    ],
)
def test_other_instructions_dictate_nothing(own: str) -> None:
    assert reply_text(ANSWERED, own) not in (None, "the user is elderly.", "one sentence.")


def test_dictation_in_the_session_instructions_is_a_standing_order_not_a_reply() -> None:
    """'If you are unsure, say "I don't know."' in the session's instructions: not said every reply."""
    session = f'{SESSION} If you are unsure, say "I don\'t know." Say the following when asked: {TEXT}'
    assert reply_text(UNANSWERED, "", session) not in ("I don't know.", TEXT)


@pytest.mark.parametrize(
    "own",
    [
        f'Say "{TEXT}" if the user asks whether the booking went through.',
        'Say "Are you still there?" when the user is silent for a while.',
        'Say "Please hold" only if a tool takes long.',
        'Say "Goodbye" once the user is done, otherwise keep helping.',
    ],
)
def test_dictation_with_a_condition_is_a_standing_order_not_a_reply(own: str) -> None:
    """A response's own instructions are often the session's prompt sent again (LiveKit's generate_reply,
    apps that resend the whole prompt): a quoted line said only if, when or unless something happens is a
    rule for later, not the words of this reply; they were said every turn."""
    said = reply_text(ANSWERED, own)
    assert said not in (TEXT, "Are you still there?", "Please hold", "Goodbye", "Hello!")
