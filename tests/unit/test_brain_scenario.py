"""Scenario files: default and examples load; a mistake names the file, the place and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from mockengine.brain.scenario import (
    CallPlan,
    ScenarioError,
    load_scenario,
    parse_scenario,
    scenario_schema,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "scenarios").glob("*.yaml"))


def test_packaged_default_loads() -> None:
    scenario = load_scenario(None)
    assert scenario.name == "default"
    assert scenario.persona.name == "Sam"
    assert scenario.seed == 7
    assert scenario.source.endswith("default.yaml")
    assert [rule.id for rule in scenario.rules][:1] == ["chat-on-request"]


def test_top_level_default_is_the_packaged_default() -> None:
    assert (REPO / "scenarios" / "default.yaml").read_text() == (
        REPO / "mockengine" / "brain" / "scenarios" / "default.yaml"
    ).read_text()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_scenarios_validate(path: Path) -> None:
    scenario = load_scenario(str(path))
    assert scenario.rules
    assert scenario.source == str(path)


def test_examples_exist() -> None:
    assert {p.name for p in EXAMPLES} >= {"default.yaml", "hyperstudy_rating.yaml", "conformance.yaml"}


def test_full_rule_is_built() -> None:
    scenario = parse_scenario(
        """
name: full
description: every field
seed: 5
persona: Robin
rules:
  - id: rate
    when:
      heard_contains: rate
      heard_regex: '(?P<value>\\d+)'
      context_event: question
      tool_available: answer_scale
      after_function_output: any
    say: Okay.
    call: {tool: answer_scale, arguments: {value: 3}}
  - id: auto-call
    call: {tool: send_chat}
""",
        source="full.yaml",
    )
    rate, auto = scenario.rules
    assert (scenario.seed, scenario.persona.name, scenario.description) == (5, "Robin", "every field")
    assert rate.when.heard_contains == ("rate",)
    assert rate.when.heard_regex is not None and rate.when.heard_regex.search("RATE 12")
    assert rate.when.context_events == ("question",)
    assert rate.when.tool_result == "any"
    assert rate.call == CallPlan(tool="answer_scale", arguments={"value": 3})
    assert auto.call == CallPlan(tool="send_chat", arguments=None)
    assert auto.say is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("name: x\nrules: [{id: a}]", "at $.rules[0]: "),
        (
            "name: x\nrules:\n  - id: a\n    sya: hi",
            "at $.rules[0]: Additional properties are not allowed ('sya'",
        ),
        (
            "name: x\nrules:\n  - id: a\n    say: hi\n    when: {context_event: qestion}",
            "at $.rules[0].when.context_event: 'qestion' is not one of",
        ),
        ("rules: []", "at $: 'name' is a required property"),
        (
            "name: x\nrules:\n  - id: a\n    say: hi\n    when: {heard_regex: '('}",
            "at $.rules[0].when.heard_regex: expected a valid regular expression",
        ),
        (
            "name: x\nrules:\n  - {id: a, say: hi}\n  - {id: a, say: ho}",
            "at $.rules[1].id: duplicate rule id 'a'",
        ),
        (
            "name: x\nrules:\n  - id: a\n    call: {tool: t, arguments: autoo}",
            "at $.rules[0].call.arguments:",
        ),
        (
            "name: x\nrules:\n  - id: a\n    say: hi\n    when: {after_function_output: maybe}",
            "at $.rules[0].when.after_function_output: 'maybe' is not one of",
        ),
        ("name: x\nseed: seven\nrules: []", "at $.seed: 'seven' is not of type 'integer'"),
        ("", "the file is empty"),
        ("name: x\nrules:\n - id: a\n   say: [", "invalid YAML (line"),
    ],
)
def test_invalid_scenarios_name_file_path_and_expectation(text: str, fragment: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="study.yaml")
    message = str(caught.value)
    assert message.startswith("study.yaml: ")
    assert fragment in message


def test_schema_descriptions_say_what_was_expected() -> None:
    with pytest.raises(ScenarioError, match=r"expected: .*an action: 'say', 'call'"):
        parse_scenario("name: x\nrules: [{id: a}]", source="s.yaml")


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ScenarioError, match="nope.yaml: cannot read scenario file"):
        load_scenario(str(missing))


def test_schema_is_package_data_and_a_valid_json_schema() -> None:
    from jsonschema import Draft202012Validator

    schema = scenario_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["name", "rules"]


def test_schema_context_events_are_the_parsers_known_events() -> None:
    from mockengine.brain.context import KNOWN_EVENTS

    assert tuple(scenario_schema()["$defs"]["context_event"]["enum"]) == KNOWN_EVENTS


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (  # the line of the unknown key, its near miss and the keys allowed there
            "name: x\nrules:\n  - id: a\n    say: hi\n    when:\n      turn: 2\n      heard_contain: hello\n",
            "study.yaml: line 7: at $.rules[0].when: Additional properties are not allowed ('heard_contain' "
            "was unexpected) (did you mean 'heard_contains'?). Allowed here: after_function_output, context, "
            "context_event, heard_contains, heard_regex, image_colour, paused, question_open, role, "
            "tool_available, tool_result, tool_result_of, turn (expected: All conditions given must hold; "
            "an empty or missing 'when' always matches.)",
        ),
        (  # was "{'id': 'a', 'when': {...}} is not valid under any of the given schemas"
            "name: x\nrules:\n  - id: ok\n    say: hi\n  - id: a\n    when: {heard_contains: hi}\n",
            "study.yaml: line 5: at $.rules[1]: rule 'a' has no action: give it one of say, call, answer, "
            "silent, fault (expected: A rule: an id",
        ),
        (  # was "... should not be valid under {'required': ['silent'], 'anyOf': [...]}"
            "name: x\nrules:\n  - id: a\n    silent: true\n    say: hi\n",
            "study.yaml: line 3: at $.rules[0]: 'silent' cannot be combined with 'say': keep one of them",
        ),
        (  # `call: order_pizza`: what a call looks like
            "name: x\nrules:\n  - id: a\n    call: order_pizza\n",
            "study.yaml: line 4: at $.rules[0].call: 'order_pizza' is not of type 'object' (expected: A tool "
            "call: {tool: NAME, arguments: auto}",
        ),
        (
            "name: x\nrules:\n  - {id: a, say: hi}\n  - {id: a, say: ho}",
            "study.yaml: line 4: at $.rules[1].id:",
        ),
        (
            "name: x\nrules:\n  - id: a\n    say: hi\n    when: {heard_regex: '('}",
            "study.yaml: line 5: at $.rules[0].when.heard_regex: expected a valid regular expression",
        ),
        (
            "name: x\nrules:\n  - id: a\n    say: hi\n    when:\n      turn: {min: 5, max: 2}\n",
            "study.yaml: line 6: at $.rules[0].when.turn: min (5) is above max (2)",
        ),
        (  # the problem is found at the end of the file; the quote was opened on line 4
            'name: x\nrules:\n  - id: a\n    say: "unclosed\n  - id: b\n',
            "while scanning a quoted scalar that starts on line 4",
        ),
    ],
)
def test_a_mistake_is_placed_by_line_and_says_what_is_allowed(text: str, said: str) -> None:
    """A scenario author reads the line to fix and what may go there, not jsonschema's own wording."""
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(text, source="study.yaml")
    assert str(caught.value).startswith(said) or said in str(caught.value), str(caught.value)


def test_a_faults_line_and_a_recordings_line_are_kept_for_the_start_up_checks() -> None:
    scenario = parse_scenario(
        "name: x\nkind: recording\nrecording: rec/\nrules:\n  - id: a\n    say: hi\n    fault: nope\n",
        source="study.yaml",
    )
    assert (scenario.recording_line, scenario.rules[0].fault_line) == ("line 3: ", "line 7: ")
