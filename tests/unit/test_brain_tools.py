"""The participant on an app's own tools: the labelled set's floors, the voice-client flow at the brain
level, tool_choice, scenario rules first, the chat side, determinism."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import jsonschema
import pytest

from mockengine.bench.tools import evaluate, load, split_of
from mockengine.brain import (
    ForcedTool,
    ReplyRequest,
    ScriptedBrain,
    ToolChoice,
    ToolSpec,
    TurnView,
    load_scenario,
    parse_scenario,
)
from mockengine.brain.arguments import ArgumentsError
from mockengine.brain.values import dates, numbers, times

APPS, CASES, TODAY = load()
VOICE = APPS["voice_client"]
DEFAULT = load_scenario(None)
SNAPSHOT = {
    "mode": "detail",
    "focusedCardId": "gesture-nav",
    "visibleCardIds": ["gesture-nav"],
    "mediaPlaying": False,
}
OUTPUT = {"ok": True, "card": {"id": "gesture-nav", "title": "Gesture Navigation"}, "state": SNAPSHOT}


def ask(
    history: list[TurnView],
    tools: tuple[ToolSpec, ...] = VOICE,
    choice: ToolChoice = "auto",
    seed: int = 3,
    scenario: Any = DEFAULT,
    channel: str = "realtime",
) -> Any:
    request = ReplyRequest("", tools, choice, ("audio",), tuple(history), len(history), channel)  # type: ignore[arg-type]
    return ScriptedBrain(scenario, seed, today=TODAY).reply(request)


def said(text: str) -> TurnView:
    return TurnView("u", "user_audio", text)


def called(name: str, arguments: dict[str, Any], output: dict[str, Any]) -> list[TurnView]:
    return [
        TurnView("fc", "function_call", json.dumps(arguments), name=name, call_id="c1"),
        TurnView("out", "function_call_output", json.dumps(output), call_id="c1"),
    ]


def calls(reply: Any) -> list[tuple[str, Any]]:
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


# -- the labelled set --------------------------------------------------------------------------------


def test_the_set_is_large_enough_and_split_before_tuning() -> None:
    assert len(CASES) >= 150 and len({c.app for c in CASES}) >= 4
    held = [c for c in CASES if c.split == "heldout_r4"]
    assert len(held) >= 80 and all(c.held_out for c in held)
    assert split_of("vc-01") == "burned-r1" and split_of("vc-02") == "tune"
    assert split_of("r2-vc-01", "heldout_r2") == "heldout_r2"
    assert {c.split for c in CASES if not c.held_out} >= {"tune", "burned-r1", "user_r1", "dev_r5"}


def test_regression_floors_and_no_invalid_call() -> None:
    """Floors at the figures of the splits tuned on (docs/tools.md, round 10); no schema-invalid call
    anywhere. The held-out splits are reported by the bench, not asserted on."""
    tallies = evaluate()
    for (split, app), tally in tallies.items():
        assert tally.invalid == 0, (app, split)
        if split == "tune":
            assert tally.exact == tally.cases, (app, tally.misses)
    for name, floor in FLOORS.items():
        tuned = [t for (split, _), t in tallies.items() if split == name]
        assert sum(t.exact for t in tuned) / sum(t.cases for t in tuned) >= floor, name
    tuned = [t for (split, _), t in tallies.items() if split in FLOORS]
    assert sum(t.false_calls for t in tuned) <= 0.03 * sum(t.no_call_cases for t in tuned)


FLOORS = {
    "burned-r1": 0.93,
    "heldout_r2": 0.94,
    "heldout_r3": 0.94,
    "user_r1": 0.95,
    "dev_r5": 0.95,
    "aside_r5": 0.96,
    "aside_r5b": 0.89,
    "heldout_r5": 0.92,
    "dev_r6": 0.83,
    "aside_r6": 0.79,
    "heldout_r6": 0.72,  # round 7 tuned on it (39.8 % when sealed)
    "aside_r7": 0.96,  # round 7's own aside set (73.3 % when first scored)
    "heldout_r7": 0.82,  # round 8 tuned on it (50.9 % when sealed)
    "dev_r8": 0.94,  # round 8's own set (70.6 % when first scored, before any round-8 change)
    "heldout_r8": 0.66,  # round 9 tuned on it (47.7 % when sealed)
    "followups": 1.0,  # follow-ups, answers, refusals, names, tools side by side (28.0 % on the old code)
    "heldout_r9": 0.72,  # round 10 tuned on it (58.5 % when sealed)
    "skeptic": 1.0,  # cases a skeptic found, written with their fixes (brain17: 10.0 % on 267f230c)
    "dev_r19": 0.9,  # brain19's four apps (72.7 % on b55d1906; 90.9 % with its fixes)
}


# -- words → values ----------------------------------------------------------------------------------


def test_numbers_dates_and_times_written_or_spoken() -> None:
    assert [s.value for s in numbers("add twenty five mugs and 3 plates, a dozen eggs")] == [25, 3, 12]
    assert [s.value for s in dates("tomorrow, friday, march 10th, the 1st of april", TODAY)] == [
        "2026-03-03",
        "2026-03-06",
        "2026-03-10",
        "2026-04-01",
    ]
    assert [s.value for s in times("at 3 pm, 10:30, noon, seven thirty in the evening")] == [
        "15:00",
        "10:30",
        "12:00",
        "19:30",
    ]


def test_quoted_text_is_taken_verbatim() -> None:
    note = ToolSpec(
        "add_note",
        "Add a note.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )
    reply = ask([said('add a note saying "Call Ana, then email Bo"')], tools=(note,))
    assert calls(reply) == [("add_note", {"text": "Call Ana, then email Bo"})]


# -- the voice-client flow at the brain level ----------------------------------------------------------


def test_narrate_while_acting_then_ground_then_resolve_it() -> None:
    first = ask([said("show me the gesture project")])
    assert calls(first) == [("open_card", {"card": "gesture project"})]
    assert first.text and first.text.startswith("Opening gesture project")
    assert "open_card" in first.why and "card ← 'gesture project'" in first.why
    history = [said("show me the gesture project"), *called("open_card", {"card": "gesture project"}, OUTPUT)]
    grounded = ask(history)
    assert not grounded.tool_calls and "Gesture Navigation" in (grounded.text or "")
    then = ask([*history, said("play it")])
    assert calls(then) == [("launch", {"card": "gesture-nav"})]


def test_an_error_output_is_said_plainly_and_not_retried() -> None:
    history = [
        said("play it"),
        *called("launch", {"card": "gesture-nav"}, {"error": "no video for this card"}),
    ]
    reply = ask(history)
    assert reply.tool_calls == () and reply.text == "I couldn't launch gesture-nav: no video for this card."


def test_two_actions_are_two_calls_in_one_reply() -> None:
    reply = ask([said("open the gesture project and play it")])
    assert calls(reply) == [
        ("open_card", {"card": "gesture project"}),
        ("launch", {"card": "gesture project"}),
    ]


def test_parallel_calls_answered_together_are_each_spoken_of() -> None:
    """Two calls in one response, both outputs sent before response.create: one sentence for each (the
    failure said plainly), not only for the last output."""
    opened = {"card": {"id": "gesture-nav", "title": "Gesture Navigation"}}
    history = [
        said("open the gesture project and play it"),
        TurnView("a", "assistant", "Opening gesture project —"),
        TurnView("fc1", "function_call", '{"card": "gesture project"}', name="open_card", call_id="c1"),
        TurnView("fc2", "function_call", '{"card": "gesture project"}', name="launch", call_id="c2"),
        TurnView("o1", "function_call_output", json.dumps(opened), call_id="c1"),
        TurnView("o2", "function_call_output", '{"error": "no video for this card"}', call_id="c2"),
    ]
    reply = ask(history)
    assert reply.tool_calls == ()
    assert (
        reply.text == "Gesture Navigation is open. I couldn't launch gesture project: no video for this card."
    )
    launched = [
        *history[:5],
        TurnView("o2", "function_call_output", '{"title": "Gesture demo"}', call_id="c2"),
    ]
    assert ask(launched).text == "Gesture Navigation is open. Gesture demo is playing."
    later = [*launched, TurnView("a2", "assistant", "Done."), said("thanks"), *called("favorite", {}, {})]
    assert "Gesture" not in (ask(later).text or "")  # an earlier turn's outputs are not spoken again


def test_an_output_is_grounded_with_the_arguments_of_the_call_it_answers() -> None:
    weather = {"temperature_c": 21, "conditions": "sunny"}
    history = [
        said("what's the weather in Paris and in Rome?"),
        TurnView("fc1", "function_call", '{"city": "Paris"}', name="get_weather", call_id="c1"),
        TurnView("fc2", "function_call", '{"city": "Rome"}', name="get_weather", call_id="c2"),
        TurnView("o1", "function_call_output", json.dumps(weather), call_id="c1"),
    ]
    text = ask(history, tools=(WEATHER,)).text or ""
    assert text == "It's 21 degrees Celsius and sunny in Paris."


def test_a_missing_required_argument_is_asked_for() -> None:
    reply = ask([said("open a card")])
    assert reply.tool_calls == () and reply.text == "Which card do you mean?" and reply.rule == "intent.ask"


def test_small_talk_calls_nothing() -> None:
    assert ask([said("thanks, that's really cool")]).tool_calls == ()


# -- tool_choice, scenario rules, chat side, determinism ------------------------------------------------


def test_tool_choice_is_obeyed() -> None:
    assert ask([said("show me the gesture project")], choice="none").tool_calls == ()
    forced = ask([said("show me the gesture project")], choice=ForcedTool("show_details"))
    assert calls(forced) == [("show_details", {"card": "gesture project"})]
    required = ask([said("hello there")], choice="required")
    assert len(required.tool_calls) == 1
    name, arguments = calls(required)[0]
    schema = next(tool.parameters for tool in VOICE if tool.name == name)
    jsonschema.validate(arguments, schema)


def test_scenario_rules_win_over_the_matcher() -> None:
    scenario = parse_scenario(
        "name: t\nrules:\n  - id: gallery\n    when: {heard_contains: [gesture]}\n"
        "    call: {tool: navigate, arguments: {direction: first}}\n",
        "<t>",
    )
    reply = ask([said("show me the gesture project")], scenario=scenario)
    assert calls(reply) == [("navigate", {"direction": "first"})] and reply.rule == "scenario:gallery"


def test_the_chat_side_uses_the_same_matcher_without_a_clause() -> None:
    reply = ask([TurnView("u", "user_text", "show me the gesture project")], channel="chat")
    assert calls(reply) == [("open_card", {"card": "gesture project"})] and reply.text is None


@pytest.mark.parametrize("text", ["show me the gesture project", "open the gesture project and play it"])
def test_same_seed_same_calls_and_words(text: str) -> None:
    assert ask([said(text)], seed=5) == ask([said(text)], seed=5)


def test_relative_dates_count_from_the_brains_today() -> None:
    tools = APPS["calendar"]
    request = ReplyRequest("", tools, "auto", ("text",), (said("remind me to stretch tomorrow"),), 0)
    later = ScriptedBrain(DEFAULT, 1, today=date(2026, 12, 31)).reply(request)
    assert calls(later) == [("set_reminder", {"text": "stretch", "date": "2027-01-01"})]


WEATHER = ToolSpec(
    "get_weather",
    "Get the current weather for a city.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
)
TRANSLATE = ToolSpec(
    "translate",
    "Translate text into another language.",
    {
        "type": "object",
        "properties": {"text": {"type": "string"}, "target_language": {"type": "string"}},
        "required": ["text", "target_language"],
    },
)


@pytest.mark.parametrize(
    ("text", "expected", "clause"),
    [
        ("what's the weather like in Paris?", [("get_weather", {"city": "Paris"})], "Checking weather"),
        ("yes, please", [], None),  # the report: no more "yes, please" as a city
        (
            "translate 'good morning' into Spanish",
            [("translate", {"text": "good morning", "target_language": "Spanish"})],
            "Translating good morning",
        ),
    ],
)
def test_tools_outside_the_labelled_apps(text: str, expected: list[Any], clause: str | None) -> None:
    reply = ask([said(text)], tools=(WEATHER, TRANSLATE))
    assert calls(reply) == expected
    assert clause is None or (reply.text or "").startswith(clause)


def test_weather_without_a_city_asks_for_it() -> None:
    reply = ask([said("what's the weather")], tools=(WEATHER,))
    assert reply.tool_calls == () and reply.text == "Which city do you mean?"


ODD_SCHEMAS: list[dict[str, Any]] = [
    {},
    {"type": "object", "properties": []},
    {"type": "object", "properties": {"x": {"enum": [1, None, "a b", {"k": 1}]}}, "required": ["x"]},
    {"type": "object", "properties": {"s": {"type": "string", "maxLength": 2}}, "required": ["s"]},
    {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "string"}}},
        "required": ["a"],
    },
    {
        "type": "object",
        "properties": {"o": {"$ref": "#/definitions/x"}},
        "definitions": {"x": {"type": "string"}},
        "required": ["o"],
    },
    {
        "type": "object",
        "properties": {"card": {"type": "string", "pattern": "^[a-z]+$"}},
        "required": ["card"],
    },
    {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "dependentRequired": {"a": ["b"]},
    },
    {
        "type": "object",
        "properties": {"when": {"type": "string", "format": "date-time"}},
        "required": ["when"],
    },
]
ODD_WORDS = [
    "",
    "?!?!",
    "open the 'card",
    "play it and and and then",
    "二十",
    "set to 99999999999999999999 percent",
    "remind me on the 31st of february at 25:99",
    "open it, play it, flip it then rate it thumbs up and favorite it",
    "set a when tomorrow at 3pm",
]


@pytest.mark.parametrize("choice", ["auto", "required"])
def test_odd_schemas_and_words_never_crash_and_calls_validate(choice: ToolChoice) -> None:
    for index, (schema, words) in enumerate((s, w) for s in ODD_SCHEMAS for w in ODD_WORDS):
        tools = (ToolSpec(f"open_card{index}", "Open a card. Use for 'open'.", schema),)
        try:
            reply = ask([said(words)], tools=tools, choice=choice)
        except ArgumentsError:  # the session fails this response (reply_failed) and goes on
            assert schema.get("properties") == [] or "pattern" in json.dumps(schema), schema
            continue
        for call in reply.tool_calls:
            jsonschema.validate(json.loads(call.arguments), schema)


def test_a_ref_to_nowhere_is_an_arguments_error_not_a_crash() -> None:
    tools = (
        ToolSpec("a", "", {"type": "object", "properties": {"o": {"$ref": "#/nowhere"}}, "required": ["o"]}),
    )
    with pytest.raises(ArgumentsError, match="resolves to nothing"):
        ask([said("hi")], tools=tools, choice="required")
