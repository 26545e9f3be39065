"""A postal address said in one go, as a caller reads it out: "change the address for order B55510 to
12 Oak Street, Springfield, 62704" fills ``street``, ``city`` and ``postal_code`` (docs/tools.md, "Which
arguments"). The city after the street's comma and the zip code after the city were left empty (the
first number, the house number, was refused as a zip code and no other was looked for), and the caller
was asked "Which city do you mean?"."""

from __future__ import annotations

import json
from datetime import date

import pytest

from mockengine.brain.model import ReplyRequest, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

_S = {"type": "string"}
ADDRESS = ToolSpec(
    "update_shipping_address",
    "Change the shipping address of an order that has not shipped yet.",
    {
        "type": "object",
        "properties": {"order_number": _S, "street": _S, "city": _S, "postal_code": _S},
        "required": ["order_number", "street", "city", "postal_code"],
        "additionalProperties": False,
    },
)
ORDER = ToolSpec(
    "get_order_status",
    "Look up the status of a customer order by its order number.",
    {"type": "object", "properties": {"order_number": _S}, "required": ["order_number"]},
)


def calls(words: str) -> list[tuple[str, dict[str, str]]]:
    brain = ScriptedBrain(Scenario("postal"), seed=1, today=date(2026, 3, 2))
    made = brain.reply(
        ReplyRequest("", (ORDER, ADDRESS), "auto", ("text",), (TurnView("u1", "user_text", words),), 1)
    )
    return [(call.name, json.loads(call.arguments)) for call in made.tool_calls]


@pytest.mark.parametrize(
    "words",
    [
        "Change the address for order B55510 to 12 Oak Street, Springfield, 62704.",
        "Can you change the address for order B55510 to 12 Oak Street, Springfield 62704?",
        "please update the shipping address on order B55510 to 12 Oak Street in Springfield, 62704",
    ],
)
def test_a_postal_address_said_in_one_go_fills_street_city_and_zip(words: str) -> None:
    assert calls(words) == [
        (
            "update_shipping_address",
            {
                "order_number": "B55510",
                "street": "12 Oak Street",
                "city": "Springfield",
                "postal_code": "62704",
            },
        )
    ]
