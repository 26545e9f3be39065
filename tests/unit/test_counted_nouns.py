"""Error messages count in the right number: "1 token", "2 tokens" (they said "1 tokens", "1 items")."""

from __future__ import annotations

import pytest

from mockengine.chat import errors as chat_errors
from mockengine.protocol import errors
from mockengine.protocol.errors import counted
from mockengine.realtime.context_window import INPUT_TOKEN_LIMIT, ContextTooLong, fit
from mockengine.realtime.conversation import Item


class Words:
    def count(self, text: str) -> int:
        return len(text.split())

    def token_bytes(self, text: str) -> list[bytes]:
        return [w.encode() for w in text.split()]


def _said(words: int) -> Item:
    return Item(
        f"item_{words}", "message", role="user", content=[{"type": "input_text", "text": "w " * words}]
    )


def test_counted() -> None:
    assert [counted(n, "token") for n in (0, 1, 2)] == ["0 tokens", "1 token", "2 tokens"]
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "entry", "entries") == "3 entries"
    assert counted(-1, "token") == "-1 tokens"
    assert counted(1_048_576, "byte") == "1048576 bytes" and counted(1.5, "second") == "1.5 seconds"


def test_the_realtime_context_window_error() -> None:
    with pytest.raises(ContextTooLong) as too_long:
        fit("disabled", "w " * INPUT_TOKEN_LIMIT, [_said(1)], Words())
    assert str(too_long.value).startswith("The conversation is 1 token, over the 0 tokens ")
    with pytest.raises(ContextTooLong) as too_long:
        fit("disabled", "w " * (INPUT_TOKEN_LIMIT - 1), [_said(2)], Words())
    assert str(too_long.value).startswith("The conversation is 2 tokens, over the 1 token ")


def test_the_chat_context_length_error() -> None:
    assert chat_errors.context_length_exceeded(1, 2, 0).message == (
        "This model's maximum context length is 1 token. However, your messages resulted in 2 tokens. "
        "Please reduce the length of the messages."
    )
    assert "resulted in 1 token." in chat_errors.context_length_exceeded(0, 1, 0).message
    # The live wording for the counts it is seen with: unchanged.
    assert chat_errors.context_length_exceeded(8192, 9000, 12).message == (
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9012 tokens "
        "(9000 in the messages, 12 in the functions). Please reduce the length of the messages or functions."
    )


def test_the_conversation_limit_and_event_size_errors() -> None:
    assert "the maximum of 1 item, " in errors.conversation_full(1).message
    assert "the maximum of 2 items, " in errors.conversation_full(2).message
    assert "(1 byte)" in errors.event_too_large("session.updated", 1, 1).message
    assert "longer than 1 second which" in chat_errors.input_audio_too_long("file", 1).message
