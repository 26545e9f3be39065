"""``parallel_tool_calls: false``: one call a response, the next one the words asked for after the app's
output, each with its own arguments, then a reply about all of them; a question in a later part ("… and
what time is it in Tokyo?") is a request of its own."""

from __future__ import annotations

import dataclasses
import json
from datetime import date

import pytest

from mockengine.brain.model import ReplyRequest, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = ToolSpec("get_weather", "Get the current weather for a city", CITY)
TIME = ToolSpec("get_time", "Get the current local time in a city", CITY)


def turns(
    text: str, parallel: bool, first_output: str = '{"ok": true}', last: list[str] | None = None
) -> list[list[tuple[str, dict[str, str]]]]:
    """The calls of each response until one makes none (its text put in ``last``), every output
    ``{"ok": true}`` but the first, ``first_output``."""
    brain = ScriptedBrain(Scenario("one-call"), seed=1, today=date(2026, 3, 2))
    history = [TurnView("u1", "user_text", text)]
    made = []
    for index in range(5):
        request = ReplyRequest("", (WEATHER, TIME), "auto", ("text",), tuple(history), index)
        reply = brain.reply(dataclasses.replace(request, parallel_tool_calls=parallel))
        if not reply.tool_calls:
            if last is not None:
                last.append(reply.text or "")
            return made
        made.append([(call.name, json.loads(call.arguments)) for call in reply.tool_calls])
        for n, call in enumerate(reply.tool_calls):
            call_id = f"c{index}_{n}"
            history.append(
                TurnView(f"f{call_id}", "function_call", call.arguments, name=call.name, call_id=call_id)
            )
            output = first_output if index == 0 else '{"ok": true}'
            history.append(TurnView(f"o{call_id}", "function_call_output", output, call_id=call_id))
    raise AssertionError(f"still calling after 5 responses: {made}")


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        (
            "What's the weather in Paris and what time is it in Tokyo?",
            [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Tokyo"})],
        ),
        (
            "what time is it in Tokyo and how's the weather in Paris",
            [("get_time", {"city": "Tokyo"}), ("get_weather", {"city": "Paris"})],
        ),
        (
            "What's the weather in Paris and in Rome?",
            [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
        ),
    ],
)
def test_one_call_per_request_together_or_one_a_response(text: str, calls: list) -> None:
    assert turns(text, parallel=True) == [calls]
    assert turns(text, parallel=False) == [[call] for call in calls]


def test_a_single_request_is_one_call_either_way() -> None:
    assert turns("What's the weather in Paris?", parallel=False) == [[("get_weather", {"city": "Paris"})]]


def test_a_failed_first_call_does_not_stop_the_next_one() -> None:
    """One call a response: the first output an error, the second request still goes out, and the reply
    after it speaks of both (the failure too)."""
    said: list[str] = []
    text = "What's the weather in Paris and what time is it in Tokyo?"
    made = turns(text, parallel=False, first_output='{"error": "upstream timeout"}', last=said)
    assert made == [[("get_weather", {"city": "Paris"})], [("get_time", {"city": "Tokyo"})]]
    assert "timeout" in said[0].lower() or "didn't work" in said[0].lower(), said
