"""Grounding sentences after the voice-client spec's tools (shared/seeds/voice-client-spec.md §2), whose
outputs are its ``{ok, state: ViewStateSnapshot}``: a spec-literal page heard "I've gone it back. It's
grid." after ``go_back``."""

from __future__ import annotations

import json

import pytest

VIEW = {"mode": "grid", "focusedCardId": None, "visibleCardIds": ["a"], "stack": []}
SNAPSHOT = {"ok": True, "state": VIEW}


@pytest.mark.parametrize(
    ("call", "arguments", "output", "said"),
    [
        ("go_back", "{}", json.dumps(SNAPSHOT), "I've gone back. It's in grid view."),
        ("go_back", "{}", '{"ok": true}', "I've gone back."),
        ("turn_on", '{"room": "kitchen"}', "done", "I've turned it on in the kitchen."),  # transitive: "it"
        (
            "book_table",
            '{"name": "Smith"}',
            '{"status": "confirmed", "confirmation": "AB12"}',
            "I've booked the table for Smith. It's confirmed, and the confirmation is AB12.",
        ),
    ],
)
def test_an_action_without_an_object_and_a_view_mode_are_said_in_english(
    call: str, arguments: str, output: str, said: str
) -> None:
    from mockengine.brain.acting import grounding

    assert grounding(output, call, arguments) == said
