"""A ``formal`` persona speaks without contractions in every built-in reply (scenarios/README.md: "formal
(no contractions)"): the app tools' clauses and groundings ("I've ordered the pizza.") were said as
written. A rule's own ``say`` stays the author's words."""

from __future__ import annotations

import json
import re

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, parse_scenario

ORDER_PIZZA = ToolSpec(
    "order_pizza",
    "Order a pizza for delivery.",
    {
        "type": "object",
        "properties": {
            "size": {"type": "string", "enum": ["small", "medium", "large"]},
            "topping": {"type": "string"},
        },
        "required": ["size", "topping"],
    },
)
CONTRACTION = re.compile(r"\b\w+'(?:ve|ll|m|re|s|t|d)\b")


def scenario(style: str) -> object:
    return parse_scenario(
        f"name: s\npersona: {{name: Sam, style: {style}}}\n"
        "rules:\n  - id: own\n    when: {heard_contains: hello}\n    say: Hi, I'm Sam.\n"
    )


def grounding(style: str) -> str:
    history = (
        TurnView("item_u", "user_text", "A large pizza with mushrooms please."),
        TurnView(
            "item_fc",
            "function_call",
            json.dumps({"size": "large", "topping": "mushrooms"}),
            name="order_pizza",
            call_id="call_1",
        ),
        TurnView("item_out", "function_call_output", '{"order_id": "A1"}', call_id="call_1"),
    )
    request = ReplyRequest("You take pizza orders.", (ORDER_PIZZA,), "auto", ("audio",), history, 1)
    reply = ScriptedBrain(scenario(style), 7).reply(request)  # type: ignore[arg-type]
    assert reply.text is not None and not reply.tool_calls
    return reply.text


def test_a_formal_persona_grounds_a_tool_output_without_contractions() -> None:
    brief = grounding("brief")
    assert CONTRACTION.search(brief), brief  # the built-in phrasing has one ("I've ordered the pizza.")
    formal = grounding("formal")
    assert not CONTRACTION.search(formal), formal
    assert formal == brief.replace("I've", "I have").replace("It's", "It is")


def test_a_rules_own_words_stay_as_written_for_a_formal_persona() -> None:
    history = (TurnView("item_u", "user_text", "hello"),)
    request = ReplyRequest("", (), "auto", ("audio",), history, 0)
    assert ScriptedBrain(scenario("formal"), 7).reply(request).text == "Hi, I'm Sam."  # type: ignore[arg-type]
