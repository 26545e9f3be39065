"""A system message added after the assistant's last reply is what the participant reacts to (Pipecat's
``LLMMessagesAppendFrame`` arrives as a ``system`` item, then a response is asked for): an instruction is
followed, other words are answered. It re-answered the user's earlier words instead."""

from __future__ import annotations

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario

SESSION = "You are a helpful assistant."


def item(text: str, index: int, kind: str) -> TurnView:
    return TurnView(f"item_{index}", kind, text)  # type: ignore[arg-type]


ANSWERED = [
    item("What is the capital of France?", 0, "user_text"),
    item("You asked what is the capital of France. Paris is the capital of France.", 1, "assistant"),
]


def reply_text(history: list[TurnView], channel: str = "realtime") -> str | None:
    request = ReplyRequest(SESSION, (), "auto", ("text",), tuple(history), 2, channel=channel)  # type: ignore[arg-type]
    return ScriptedBrain(load_scenario(None), 7).reply(request).text


def test_a_question_appended_as_a_system_message_is_answered() -> None:
    said = reply_text([*ANSWERED, item("What is the capital of Italy?", 2, "system")]) or ""
    assert "Rome" in said and "France" not in said


def test_an_instruction_appended_as_a_system_message_is_followed() -> None:
    history = [*ANSWERED, item("Tell the user the call will end in one minute.", 2, "system")]
    assert reply_text(history) == "The call will end in one minute."


def test_after_a_cancelled_call_the_appended_words_are_answered() -> None:
    """Pipecat's ``cancel_on_interruption``: the call answered ``CANCELLED``, then the user's next words
    as a system message (it said "The weather in Paris is CANCELLED.")."""
    history = [
        item("What is the weather like in Paris?", 0, "user_text"),
        item("Checking weather —", 1, "assistant"),
        TurnView("item_2", "function_call", '{"city": "Paris"}', name="get_weather", call_id="call_1"),
        TurnView("item_3", "function_call_output", "CANCELLED", call_id="call_1"),
        item("What is the capital of France?", 4, "system"),
    ]
    said = reply_text(history) or ""
    assert "Paris is the capital of France" in said and "CANCELLED" not in said


def test_a_system_message_is_still_a_standing_order_elsewhere() -> None:
    # before any reply: the prompt seeded as an item, not a turn
    assert "Rome" not in (reply_text([item("Only talk about Rome.", 0, "system")]) or "")
    # a JSON payload (Pipecat's async-tool envelope) and a context item are not words to answer
    envelope = item('{"type": "async_tool", "status": "running"}', 2, "system")
    assert "async_tool" not in (reply_text([*ANSWERED, envelope]) or "")
    # Chat Completions: the system messages are the app's prompt
    italy = item("What is the capital of Italy?", 2, "system")
    assert "Rome" not in (reply_text([*ANSWERED, italy], "chat") or "")


def test_words_appended_before_the_newest_were_the_users_turns() -> None:
    """brk24: "What did I just say?" after an appended question quotes it (it quoted the question typed
    before it); an instruction appended earlier stays an order, and a Chat Completions request's system
    messages stay the app's prompt."""
    history = [
        *ANSWERED,
        item("Tell the user the call will end soon.", 2, "system"),
        item("The call will end soon.", 3, "assistant"),
        item("And what about Italy?", 4, "system"),
        item("Rome is the capital of Italy.", 5, "assistant"),
        item("What did I just say?", 6, "system"),
    ]
    assert reply_text(history) == "You asked “And what about Italy?”"
    typed_last = [*history[:-1], item("What did I just say?", 6, "user_text")]
    assert reply_text(typed_last, channel="chat") == "You asked “What is the capital of France?”"
