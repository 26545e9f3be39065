"""Cases a fresh tester found (question wordings, forced retries, placeholders, scenario loading); each
failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mockengine.brain.context import parse_choices, parse_range
from mockengine.brain.hrp import HRP_TOOLS
from mockengine.brain.model import ForcedTool, Reply, ReplyRequest, ToolChoice, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import ScenarioError, parse_scenario
from mockengine.brain.selection import load_library

LIBRARY = load_library()


def ask(
    question: str,
    tool: str,
    scenario: str = "default",
    seed: int = 1,
    history: tuple[TurnView, ...] = (),
    tool_choice: ToolChoice | None = None,
) -> Any:
    item = TurnView(
        "q", "context", "[context] " + json.dumps({"event": "question", "tool": tool, "question": question})
    )
    request = ReplyRequest(
        "", HRP_TOOLS, tool_choice or ForcedTool(tool), ("text",), (item, *history), len(history)
    )
    reply = ScriptedBrain(LIBRARY.get(scenario), seed=seed).reply(request)
    return json.loads(reply.tool_calls[0].arguments)


@pytest.mark.parametrize(
    ("text", "choices"),
    [
        ('Question: Rank these. "Reading" or "Hiking" or "Cooking"?', ("Reading", "Hiking", "Cooking")),
        ("Question: Which drink, coffee or tea?", ("coffee", "tea")),
        (
            "Question: Which?\nOptions: Salt and pepper; Yes, definitely; Tea",
            ("Salt and pepper", "Yes, definitely", "Tea"),
        ),
        ("Question: Rank these.\n- Salt and pepper\n- Really?\n- Tea", ("Salt and pepper", "Really?", "Tea")),
        ("Question: How do you feel right now?\nRate each from 0 to 100: Calm", ("Calm",)),
        ("Question: Which colours?\nChoices: Red, Green and Blue", ("Red", "Green", "Blue")),
        ("Question: How old are you?", ()),
        ('Question: Rank these. "Milk" or "Really?" or "A: first"?', ("Milk", "Really?", "A: first")),
        ("Question: How do you feel?\nDimensions:\n- Warm\nScore each between 0 and 100.", ("Warm",)),
        ("Question: Which?\nChoices: Neutral, Really?", ("Neutral", "Really?")),
        ("Question: Which?\nChoices: Coffee, Tea.", ("Coffee", "Tea")),
    ],
)
def test_choices_in_question_texts(text: str, choices: tuple[str, ...]) -> None:
    assert parse_choices(text) == choices


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("Question: I enjoyed it.\nRate from 1 (strongly disagree) to 5 (strongly agree).", 1, 5),
        ("Respond with a number between -10 and +10.", -10, 10),
        ("How warm was your partner in the 5-10 second clip?\nOn a scale of 0 to 100.", 0, 100),
        ("How did the 2-3 minute chat go? 0 to 1", 0, 1),
    ],
)
def test_ranges_in_question_texts(text: str, low: float, high: float) -> None:
    stated = parse_range(text)
    assert stated is not None and (stated.low, stated.high) == (low, high)


def test_a_one_to_two_scale_takes_whole_numbers() -> None:
    values = {ask("Use the scale from 1 to 2.", "answer_scale", seed=s)["value"] for s in range(8)}
    assert values <= {1, 2}


def test_a_zero_to_one_scale_takes_decimals() -> None:
    values = {
        ask("Respond with a number between 0 and 1.", "answer_scale", seed=s)["value"] for s in range(5)
    }
    assert all(0 <= v <= 1 for v in values) and len(values) > 1


def test_a_likert_screen_without_a_stated_scale_answers_one_to_seven() -> None:
    screen = TurnView(
        "s", "context", '[context] {"event":"screen","type":"likertscale","text":"I liked it."}'
    )
    request = ReplyRequest("", HRP_TOOLS, ForcedTool("answer_scale"), ("text",), (screen,), 0)
    value = json.loads(ScriptedBrain(LIBRARY.get("default"), 1).reply(request).tool_calls[0].arguments)[
        "value"
    ]
    assert 1 <= value <= 7


def test_a_forced_request_after_a_refusal_follows_the_error() -> None:
    refused = (
        TurnView("fc", "function_call", '{"value": 71}', name="answer_scale", call_id="c1"),
        TurnView("out", "function_call_output", '{"error": "Value must be between 20 and 30"}', call_id="c1"),
    )
    for seed in range(5):
        value = ask("How warm? 0 to 100.", "answer_scale", seed=seed, history=refused)["value"]
        assert 20 <= value <= 30


def test_required_does_not_answer_an_answered_question_again() -> None:
    answered = (
        TurnView("fc", "function_call", '{"value": 71}', name="answer_scale", call_id="c1"),
        TurnView("out", "function_call_output", '{"accepted": true}', call_id="c1"),
        TurnView("t", "context", '[context] {"event":"timer","secondsLeft":5}'),
    )
    item = TurnView(
        "q", "context", '[context] {"event":"question","tool":"answer_scale","question":"0 to 100"}'
    )
    request = ReplyRequest("", HRP_TOOLS, "required", ("text",), (item, *answered), 1)
    reply = ScriptedBrain(LIBRARY.get("default"), 1).reply(request)
    assert reply.rule != "required.question"


def test_textinput_on_the_chat_side_is_free_text() -> None:
    parameters = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}
    submit = ToolSpec("submit_response", "Submit.", parameters)
    screen = TurnView(
        "s",
        "context",
        "[context] "
        + json.dumps(
            {"event": "screen", "type": "textinput", "text": "Describe your partner: looks, voice, manner"}
        ),
    )
    request = ReplyRequest("", (submit,), "auto", ("text",), (screen,), 0, "chat")
    value = json.loads(ScriptedBrain(LIBRARY.get("default"), 1).reply(request).tool_calls[0].arguments)[
        "value"
    ]
    assert value not in ("looks", "voice", "manner") and len(value.split()) > 2


def scripted(yaml_text: str) -> ScriptedBrain:
    return ScriptedBrain(parse_scenario(yaml_text), seed=1)


def reply(brain: ScriptedBrain, history: list[TurnView], **kwargs: Any) -> Reply:
    request = ReplyRequest(
        kwargs.get("instructions", ""),
        kwargs.get("tools", HRP_TOOLS),
        "auto",
        ("text",),
        tuple(history),
        0,
        kwargs.get("channel", "realtime"),
    )
    return brain.reply(request)


def test_answer_with_an_empty_mapping_still_answers() -> None:
    brain = scripted("name: x\nrules:\n  - id: a\n    answer: {}\n")
    item = TurnView(
        "q", "context", '[context] {"event":"question","tool":"answer_scale","question":"0 to 100"}'
    )
    result = reply(brain, [item])
    assert result.tool_calls and result.tool_calls[0].name == "answer_scale"


def test_placeholders_survive_other_braces() -> None:
    brain = scripted(
        "name: x\npersona: Sam\nrules:\n  - id: a\n"
        "    say: 'Hi {persona} :-{ {persona.upper} {0} {unknown}'\n"
    )
    assert (
        reply(brain, [TurnView("u", "user_text", "hello")]).text == "Hi Sam :-{ {persona.upper} {0} {unknown}"
    )


def test_a_turn_range_that_can_never_match_is_refused() -> None:
    with pytest.raises(ScenarioError, match=r"rules\[0\]\.when\.turn: min \(5\) is above max \(2\)"):
        parse_scenario("name: x\nrules:\n  - id: a\n    when: {turn: {min: 5, max: 2}}\n    say: hi\n")


def test_scenario_loading_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="not a directory of scenario files"):
        load_library(directories=[str(tmp_path / "missing")])
    with pytest.raises(
        ScenarioError, match="no loaded scenario of that name \\(loaded: conformance, default"
    ):
        load_library(default="nonexistent_name")


def test_the_role_marker_outranks_the_fixed_role() -> None:
    brain = ScriptedBrain(LIBRARY.get("intro_chat"), seed=1, role="A")
    participants = TurnView("p", "context", '[context] {"event":"participants","others":[{"name":"Kim"}]}')
    assert reply(brain, [participants]).text == "Hi Kim, I'm Alex."
    assert reply(brain, [participants], instructions="[mockengine role=B]").text == "Hi Kim, I'm Blair."


def test_a_say_rule_on_the_chat_side_goes_into_the_chat() -> None:
    send_chat = next(tool for tool in HRP_TOOLS if tool.name == "send_chat")
    brain = ScriptedBrain(LIBRARY.get("intro_chat"), seed=1, role="B")
    participants = TurnView("p", "context", '[context] {"event":"participants","others":[{"name":"Kim"}]}')
    result = reply(brain, [participants], tools=(send_chat,), channel="chat")
    assert result.text is None
    assert [(c.name, json.loads(c.arguments)) for c in result.tool_calls] == [
        ("send_chat", {"message": "Hi Kim, I'm Blair."})
    ]


def test_a_role_persona_inherits_what_it_does_not_say() -> None:
    scenario = parse_scenario(
        "name: x\npersona: {name: Base, voice: sage, rating: {tendency: 0.9}}\n"
        "personas:\n  A: {name: Ann, style: chatty}\nrules: []\n"
    )
    ann = scenario.persona_for("A")
    assert (ann.name, ann.voice, ann.style, ann.rating_tendency) == ("Ann", "sage", "chatty", 0.9)


def test_a_recursive_schema_gets_a_finite_valid_value() -> None:
    import random

    from jsonschema import Draft202012Validator

    from mockengine.brain.schema_values import value_for

    for schema in (
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}},
            "required": ["name"],
        },
        {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}},
    ):
        value = value_for(schema, random.Random(1))
        assert Draft202012Validator(schema).is_valid(value)


def test_an_echo_keeps_the_capital_of_a_name() -> None:
    from mockengine.brain.phrases import echo_of

    assert echo_of("Alex, do you like tea?") == "Alex, do you like tea"
    assert echo_of("What is the capital of France?") == "what is the capital of France"


@pytest.mark.parametrize(
    ("said", "echo"),
    [
        ("What's the weather in Paris?", "what's the weather in Paris"),  # was "You asked What's the …"
        ("How’s it going?", "how’s it going"),
        ("I'm tired.", "I'm tired"),
        ("I'd like tea.", "I'd like tea"),
    ],
)
def test_an_echo_lowers_a_contracted_question_word_not_i(said: str, echo: str) -> None:
    from mockengine.brain.phrases import echo_of

    assert echo_of(said) == echo
