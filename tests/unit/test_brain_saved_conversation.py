"""Pipecat's packed history ("This is a previously saved conversation. …", the messages as JSON, "This is
the end of the previously saved conversation. …", as pipecat 1.14's OpenAIRealtimeLLMAdapter writes it) is
read as the conversation it holds, not echoed."""

from __future__ import annotations

import json
from typing import Any

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.saved_conversation import READY, unpacked

INTRO = """
        This is a previously saved conversation. Please treat this conversation history as a
        starting point for the current conversation."""
TRAILING = """
        This is the end of the previously saved conversation. Please continue the conversation
        from here. If the last message is a user instruction or question, act on that instruction
        or answer the question. If the last message is an assistant response, simple say that you
        are ready to continue the conversation."""
WEATHER = ToolSpec(
    "get_weather",
    "Get the weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def packed(messages: list[dict[str, Any]]) -> TurnView:
    """The one item Pipecat sends for ``messages`` (its adapter's exact joining)."""
    text = "\n\n".join([INTRO, json.dumps(messages, indent=2, ensure_ascii=False), TRAILING])
    return TurnView("item_saved", "user_text", text)


def reply(history: list[TurnView], tools: tuple[ToolSpec, ...] = ()) -> Any:
    request = ReplyRequest("You are a helpful assistant.", tools, "auto", ("text",), tuple(history), 0)
    return ScriptedBrain(load_scenario(None), 7).reply(request)


def test_the_last_question_is_answered_from_the_conversation() -> None:
    item = packed(
        [
            {"role": "user", "content": "My name is Ada."},
            {"role": "assistant", "content": "Nice to meet you, Ada."},
            {"role": "user", "content": [{"type": "text", "text": "What is the capital of France?"}]},
        ]
    )
    assert "Paris is the capital of France." in reply([item]).text
    assert "[" not in reply([item]).text
    item = packed([{"role": "user", "content": "My name is Ada."}, {"role": "user", "content": "Who am I?"}])
    assert reply([item]).text == "Your name is Ada."


def test_a_request_in_it_calls_the_apps_tool() -> None:
    item = packed(
        [{"role": "assistant", "content": "Hi!"}, {"role": "user", "content": "What's the weather in Oslo?"}]
    )
    assert [(c.name, json.loads(c.arguments)) for c in reply([item], (WEATHER,)).tool_calls] == [
        ("get_weather", {"city": "Oslo"})
    ]


def test_ending_with_the_assistants_reply_it_says_it_is_ready() -> None:
    item = packed([{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi there!"}])
    assert reply([item]).text == READY


def test_tool_calls_and_results_are_read_as_items() -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    item = packed(
        [
            {"role": "user", "content": "Weather in Oslo?"},
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": '{"conditions": "snow"}'},
        ]
    )
    views = unpacked((TurnView("item_0", "system", "Be brief."), item))
    assert [(v.kind, v.text, v.name, v.call_id) for v in views] == [
        ("system", "Be brief.", None, None),
        ("user_text", "Weather in Oslo?", None, None),
        ("function_call", '{"city": "Oslo"}', "get_weather", "call_1"),
        ("function_call_output", '{"conditions": "snow"}', None, "call_1"),
    ]
    assert "snow" in reply(list(views), (WEATHER,)).text


def test_other_text_is_left_as_it_is() -> None:
    history = (
        TurnView(
            "item_0", "user_text", "This is a previously saved conversation. [not json] This is the end"
        ),
        TurnView("item_1", "user_text", "This is a previously saved conversation. [1, 2"),
    )
    assert unpacked(history) is history
