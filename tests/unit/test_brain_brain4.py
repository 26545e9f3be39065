"""Known gaps from the last stop (brain4): a dictated line followed by a further instruction, a question
misheard on a phone line, a name followed by a pronoun, a contact saved with a bare ``phone``, spoken
digits after a colon, a price asked of a menu, a card read out, and ``tool_choice: "required"`` with
nothing asked for. Each test failed on the code before it."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from tests.brain_calls import TODAY, calls

STRING = {"type": "string"}


def tool(
    name: str, description: str, properties: dict[str, Any], required: list[str] | None = None
) -> ToolSpec:
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }
    return ToolSpec(name, description, schema)


def spoken(own: str, history: tuple[TurnView, ...] = ()) -> str | None:
    request = ReplyRequest(
        "You are a receptionist.", (), "auto", ("text",), history, 0, response_instructions=own
    )
    return ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request).text


@pytest.mark.parametrize(
    ("own", "said"),
    [
        ("Say: welcome to Acme, then ask for their name", "Welcome to Acme. Could you tell me your name?"),
        ("Say: welcome to Acme, then ask for their name.", "Welcome to Acme. Could you tell me your name?"),
        (
            "Say: Welcome to Acme. Then ask the caller for their name.",
            "Welcome to Acme. Could you tell me your name?",
        ),
        (
            "Say: thanks for calling; then ask them if they are a member.",
            "Thanks for calling. Are you a member?",
        ),
        (
            "Tell the user: welcome to Acme, and then ask for their order number.",
            "Welcome to Acme. Could you tell me your order number?",
        ),
    ],
)
def test_a_dictated_line_stops_where_a_further_instruction_starts(own: str, said: str) -> None:
    """ "Say: welcome to Acme, then ask for their name" said the whole line, the instruction too."""
    assert spoken(own) == said


@pytest.mark.parametrize(
    ("own", "said"),
    [
        ("Say: we open at nine, then we close at five.", "we open at nine, then we close at five."),
        ("Say: first the good news, then the bad news.", "first the good news, then the bad news."),
    ],
)
def test_a_dictated_then_that_is_part_of_the_words_is_said(own: str, said: str) -> None:
    assert spoken(own) == said
