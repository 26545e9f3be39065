"""A scenario rule whose ``call`` names a tool the client does not declare is skipped (scenarios/README.md,
"How rules meet the built-in behaviour"); the reply's ``why`` (the trace's ``reply`` line) now says so,
naming the tools declared: a misspelt tool name left the rule silently never firing."""

from __future__ import annotations

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, parse_scenario

ORDER_PIZZA = ToolSpec(
    "order_pizza",
    "Order a pizza for delivery.",
    {"type": "object", "properties": {"size": {"type": "string"}}, "required": ["size"]},
)
SCENARIO = parse_scenario(
    "name: s\nrules:\n"
    "  - id: order\n    when: {heard_contains: pizza}\n    call: {tool: orderPizza, arguments: auto}\n"
    "  - id: elsewhere\n    when: {heard_contains: salad}\n    call: {tool: order_salad}\n"
)


def ask(words: str) -> str:
    request = ReplyRequest(
        "", (ORDER_PIZZA,), "auto", ("audio",), (TurnView("item_u", "user_text", words),), 0
    )
    return ScriptedBrain(SCENARIO, 7).reply(request).why  # type: ignore[arg-type]


def test_a_rule_skipped_for_an_undeclared_tool_is_named_in_the_why() -> None:
    why = ask("I would like a large pizza")
    assert (
        "scenario rule 'order' skipped: its tool 'orderPizza' is not declared (declared: order_pizza)" in why
    )
    assert "elsewhere" not in why  # its conditions do not hold: nothing to say about it


def test_nothing_is_noted_when_no_rule_would_have_fired() -> None:
    assert "skipped" not in ask("What is the capital of France?")
