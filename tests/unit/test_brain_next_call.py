"""``parallel_tool_calls: false``: the follow-up call counts the calls already made by tool and order, not
by their arguments, so what changes the plan's values between responses (the date rolling over for
"tomorrow", a deleted function_call item, a typed HyperStudy line whose item text is its JSON) neither
repeats the first call nor skips the second."""

from __future__ import annotations

import json
from datetime import date

from mockengine.brain.model import ReplyRequest, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
DATED = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "date": {"type": "string", "format": "date"}},
    "required": ["city", "date"],
}
FORECAST = ToolSpec("get_forecast", "Get the weather forecast for a city on a date", DATED)
TIME = ToolSpec("get_time", "Get the current local time in a city", CITY)
ASKED = "What's the forecast for Paris tomorrow and what time is it in Tokyo?"
SAID = TurnView("u1", "user_text", ASKED)
TOKYO = ("get_time", {"city": "Tokyo"})


def calls(history: list[TurnView], today: date = date(2026, 3, 2)) -> list[tuple[str, dict]]:
    brain = ScriptedBrain(Scenario("next-call"), seed=1, today=today)
    tools = (FORECAST, TIME)
    request = ReplyRequest(
        "", tools, "auto", ("text",), tuple(history), len(history), parallel_tool_calls=False
    )
    reply = brain.reply(request)
    return [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]


def made(call_id: str, name: str, arguments: dict, output: str = '{"ok": true}') -> list[TurnView]:
    call = TurnView(f"f{call_id}", "function_call", json.dumps(arguments), name=name, call_id=call_id)
    return [call, TurnView(f"o{call_id}", "function_call_output", output, call_id=call_id)]


PARIS = {"city": "Paris", "date": "2026-03-03"}


def test_the_first_call_goes_out_alone() -> None:
    assert calls([SAID]) == [("get_forecast", PARIS)]


def test_a_date_rolling_over_between_responses_repeats_no_call() -> None:
    history = [SAID, *made("c1", "get_forecast", PARIS)]
    assert calls(history, today=date(2026, 3, 3)) == [TOKYO]


def test_a_deleted_function_call_item_still_counts_its_call() -> None:
    history = [SAID, made("c1", "get_forecast", PARIS)[1]]
    assert calls(history) == [TOKYO]


def test_a_typed_hyperstudy_line_is_planned_from_what_was_typed() -> None:
    typed = TurnView(
        "u1", "user_text", "[context] " + json.dumps({"event": "typed", "speaker": "Alex", "said": ASKED})
    )
    assert calls([typed]) == [("get_forecast", PARIS)]
    assert calls([typed, *made("c1", "get_forecast", PARIS)]) == [TOKYO]


def test_no_call_after_the_last_and_none_guessed_when_the_calls_made_differ() -> None:
    assert calls([SAID, *made("c1", "get_forecast", PARIS), *made("c2", *TOKYO)]) == []
    assert calls([SAID, *made("c1", "get_time", {"city": "Paris"})]) == []
