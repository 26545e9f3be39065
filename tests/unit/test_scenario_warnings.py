"""A rule that says ``{role}`` and may fire in a session with no role renders it as an empty string
("I am ." in a transcript) with no word at start-up; now the server names each such rule when it loads."""

from __future__ import annotations

from mockengine.brain.scenario import parse_scenario
from mockengine.brain.selection import packaged_scenarios
from mockengine.server.scenario_warnings import scenario_warnings

SCENARIO = """
name: roles
rules:
  - id: greet
    say: Hello, I am participant {role}.
  - id: greet-a
    when: {role: A}
    say: I am {role}, the one who asks.
  - id: note
    call: {tool: note, arguments: {who: "{role}"}}
  - id: plain
    say: Hello.
"""


def test_a_rule_using_role_that_may_fire_without_one_is_named() -> None:
    warnings = scenario_warnings([parse_scenario(SCENARIO, "roles.yaml")])
    assert [w.split(" uses ")[0] for w in warnings] == ["roles.yaml: rule 'greet'", "roles.yaml: rule 'note'"]
    assert all("?role=B" in w and "when: {role: …}" in w for w in warnings)


def test_the_shipped_scenarios_warn_of_nothing() -> None:
    assert scenario_warnings(packaged_scenarios()) == []
