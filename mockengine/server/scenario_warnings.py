"""Start-up warnings about scenario files: what loads but will not do what its author meant.

A rule's ``say`` or explicit call arguments may use ``{role}``; a session that has no role (none in a
``[mockengine role=…]`` marker, on ``?role=``, or in the ``participants`` item) fills it with an empty
string. That is easy to miss ("Hello, I am ." in a transcript), so a rule that may fire without a role
(it has no ``when: {role: …}``) is named once when the server loads it (docs/scenarios.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from mockengine.brain.scenario import Rule, Scenario

ROLE_PLACEHOLDER = "{role}"


def scenario_warnings(scenarios: Iterable[Scenario]) -> list[str]:
    """One line per rule that renders ``{role}`` and may fire with no role: the file, the rule, why."""
    lines = []
    for scenario in scenarios:
        for rule in scenario.rules:
            if rule.when.roles or not _uses_role(rule):
                continue
            lines.append(
                f"{scenario.source}: rule {rule.id!r} uses {ROLE_PLACEHOLDER}, which is empty in a session "
                "with no role: give sessions one ([mockengine role=B] in the instructions, ?role=B, or the "
                "participants item) or add `when: {role: …}` to the rule"
            )
    return lines


def _uses_role(rule: Rule) -> bool:
    arguments = json.dumps(rule.call.arguments) if rule.call and rule.call.arguments else ""
    return ROLE_PLACEHOLDER in (rule.say or "") or ROLE_PLACEHOLDER in arguments
