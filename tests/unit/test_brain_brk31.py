"""Leftovers of brk30 and a framework user's next own tools (stop brk31).

"Turn off notifications" alone to ``update_preferences(preferences: {language, notifications})`` made no
call (a switch said of a boolean the tool declares was read only for an on/off enum)."""

from __future__ import annotations

from functools import partial

import pytest

from tests.brain_calls import MONDAY, calls_made, said, tool

_tool, _calls = tool, calls_made
_said = partial(said, today=MONDAY)

STRING = {"type": "string"}
BOOLEAN = {"type": "boolean"}


# 1. A switch said of a boolean the tool declares (nested or flat) sets it, alone as in a two-part request.
LANGUAGE = {"type": "string", "enum": ["English", "Spanish", "French", "German"]}
PREFERENCES = {"type": "object", "properties": {"language": LANGUAGE, "notifications": BOOLEAN}}
UPDATE_PREFERENCES = _tool(
    "update_preferences", "Update the user's preferences.", {"preferences": PREFERENCES}, ["preferences"]
)
FLAT_PREFERENCES = _tool(
    "update_preferences",
    "Update the user's preferences.",
    {"language": LANGUAGE, "notifications": BOOLEAN},
    [],
)
SET_NOTIFICATIONS = _tool("set_notifications", "Turn notifications on or off.", {"enabled": BOOLEAN})


@pytest.mark.parametrize(
    ("words", "on"),
    [
        ("Turn off notifications", False),
        ("Turn off my notifications", False),
        ("Turn notifications off", False),
        ("Please turn on notifications", True),
        ("Disable notifications", False),
        ("Enable notifications", True),
    ],
)
def test_a_switch_of_a_declared_boolean_sets_it(words: str, on: bool) -> None:
    assert _calls(_said(words, (UPDATE_PREFERENCES,))) == [
        ("update_preferences", {"preferences": {"notifications": on}})
    ]
    assert _calls(_said(words, (FLAT_PREFERENCES,))) == [("update_preferences", {"notifications": on})]
    assert _calls(_said(words, (SET_NOTIFICATIONS,))) == [("set_notifications", {"enabled": on})]


def test_a_switch_of_something_else_is_no_preference() -> None:
    # neighbouring behaviour: the lights are no notifications; nothing else is asked of the tool
    assert _said("Turn off the lights", (UPDATE_PREFERENCES,)).tool_calls == ()
    assert _said("Turn off the lights", (FLAT_PREFERENCES,)).tool_calls == ()
    assert _said("What are notifications?", (FLAT_PREFERENCES,)).tool_calls == ()
