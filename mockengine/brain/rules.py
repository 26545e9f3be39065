"""Scenario rules against a request: whether a rule's ``when`` conditions hold, and the ``{placeholders}``
its ``say`` and explicit arguments may use (docs/scenarios.md)."""

from __future__ import annotations

import re
from typing import Any

from mockengine.brain.scenario import Rule
from mockengine.brain.situation import Situation, function_name_for, output_error
from mockengine.brain.turn import Turn


def rule_matches(rule: Rule, turn: Turn) -> bool:
    """All of the rule's conditions hold; heard_* only look at a current user turn or chat line."""
    when, situation = rule.when, turn.situation
    if rule.call is not None and (rule.call.tool not in turn.tools or turn.request.tool_choice == "none"):
        return False
    heard = situation.trigger.text if situation.heard_is_current else None
    lowered = heard.lower() if heard is not None else ""
    if when.heard_contains and (heard is None or not any(p.lower() in lowered for p in when.heard_contains)):
        return False
    if when.heard_regex is not None and (heard is None or not when.heard_regex.search(heard)):
        return False
    context = situation.trigger.context
    if when.context_events and (context is None or context.event not in when.context_events):
        return False
    if when.context_fields and (context is None or not _fields_match(when.context_fields, context.data)):
        return False
    if when.tool_available is not None and when.tool_available not in turn.tools:
        return False
    if when.tool_result is not None and not _output_matches(when.tool_result, situation):
        return False
    if when.tool_result_of is not None and not _output_of(when.tool_result_of, turn):
        return False
    if when.image_colours and (
        situation.image is None or situation.image.dominant_colour not in when.image_colours
    ):
        return False
    if when.turn_min is not None and turn.number < when.turn_min:
        return False
    if when.turn_max is not None and turn.number > when.turn_max:
        return False
    if when.roles and (turn.role is None or turn.role.lower() not in {r.lower() for r in when.roles}):
        return False
    if when.paused is not None and situation.paused != when.paused:
        return False
    return when.question_open is None or situation.question_open == when.question_open


def _fields_match(expected: tuple[tuple[str, tuple[Any, ...]], ...], data: dict[str, Any]) -> bool:
    for key, allowed in expected:
        value = data.get(key)
        if value is None or not any(_same_scalar(value, option) for option in allowed):
            return False
    return True


def _same_scalar(value: Any, option: Any) -> bool:
    if isinstance(value, str) and isinstance(option, str):
        return value.strip().lower() == option.strip().lower()
    if isinstance(value, bool) or isinstance(option, bool):
        return value is option
    if isinstance(value, int | float) and isinstance(option, int | float):
        return float(value) == float(option)
    return str(value).strip().lower() == str(option).strip().lower()


def _output_matches(expected: str, situation: Situation) -> bool:
    if situation.trigger.kind != "function_output":
        return False
    refused = output_error(situation.trigger.text) is not None
    return expected == "any" or (expected == "refused") == refused


def _output_of(name: str, turn: Turn) -> bool:
    item = turn.situation.trigger.item
    if turn.situation.trigger.kind != "function_output" or item is None:
        return False
    return function_name_for(turn.request.history, item.call_id) == name


def regex_groups(rule: Rule, situation: Situation) -> dict[str, str]:
    if rule.when.heard_regex is None or not situation.heard_is_current:
        return {}
    match = rule.when.heard_regex.search(situation.trigger.text)
    return {k: v for k, v in match.groupdict().items() if v is not None} if match else {}


def fields(turn: Turn, rule: Rule) -> dict[str, str]:
    """The ``{placeholders}`` a rule's ``say`` and explicit arguments may use."""
    situation = turn.situation
    typed = situation.typed
    question = situation.question
    error = output_error(situation.trigger.text) if situation.trigger.kind == "function_output" else None
    fields = {
        "persona": turn.persona.name,
        "name": turn.persona.name,
        "role": turn.role or "",
        "heard": situation.heard,
        "speaker": typed.speaker if typed else "",
        "said": typed.said if typed else "",
        "question": question.headline if question else "",
        "screen": situation.screen_text,
        "colour": situation.image.dominant_colour if situation.image else "",
        "others": " and ".join(other.name for other in situation.others),
        "turn": str(turn.number),
        "seconds_left": f"{situation.timer_seconds_left:g}"
        if situation.timer_seconds_left is not None
        else "",
        "error": error or "",
    }
    fields.update(regex_groups(rule, situation))
    return fields


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(template: str, fields: dict[str, str]) -> str:
    """``template`` with ``{name}`` placeholders filled; unknown names and other braces stay as written."""
    return _PLACEHOLDER.sub(lambda match: fields.get(match.group(1), match.group(0)), template)


def fill_object(value: Any, fields: dict[str, str]) -> Any:
    if isinstance(value, str):
        return fill(value, fields)
    if isinstance(value, dict):
        return {key: fill_object(item, fields) for key, item in value.items()}
    if isinstance(value, list):
        return [fill_object(item, fields) for item in value]
    return value
