"""What broke in brain4's changes under inputs their tests did not send: a "then …" cut out of words
asked for as they are, or asked of someone else; ``tool_choice: "required"`` picking a destructive tool
or passing over ``respond``; a ticket filed about a screen going to an order lookup; a card's expiry
in two fields; a price of a service sent to a menu lookup. Each test failed on the code before it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from tests.brain_calls import TODAY, calls

STRING = {"type": "string"}


def tool(name: str, description: str, properties: dict[str, Any]) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return ToolSpec(name, description, schema)


def spoken(own: str) -> str | None:
    request = ReplyRequest("You are a receptionist.", (), "auto", ("text",), (), 0, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request).text


@pytest.mark.parametrize(
    ("own", "said"),
    [
        # asked for as they are: the "then …" is part of the words
        (
            "Say exactly: welcome to Acme, then ask for their name",
            "welcome to Acme, then ask for their name",
        ),
        ("Say: 'Welcome to Acme, then ask for their name'", "Welcome to Acme, then ask for their name"),
        # asked of someone else: words the user is told
        (
            "Say: sign here, then ask the front desk for a key.",
            "sign here, then ask the front desk for a key.",
        ),
        ("Say: call us, then ask for Bob.", "call us, then ask for Bob."),
        # a further instruction it cannot word: the line is said whole, not cut to "Hi."
        ("Say: Hi. Then ask how their day was.", "Hi. Then ask how their day was."),
        ("Say: welcome, then offer a discount.", "welcome, then offer a discount."),
    ],
)
def test_a_then_that_is_no_question_to_the_user_is_said_with_the_line(own: str, said: str) -> None:
    """brain4 cut these: "Say exactly: …" lost its words after "then", "ask the front desk for a key" and
    "ask for Bob" became "Sign here." and "Call us. Could you tell me Bob?", and "Hi. Then ask how their
    day was." became "Hi."."""
    assert spoken(own) == said
