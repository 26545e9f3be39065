"""Found by a framework user (stop brk30) declaring their own tools in LiveKit's and Pipecat's shapes.

"Add two bagels and a coffee to my cart" to ``add_to_cart(items: [{name, quantity}])`` dropped the coffee
(its article said one, but the cart's words followed it); "Find a cheap Italian place in Soho" to a search
with an optional ``cuisine`` left the cuisine out once the place filled ``location``; "Switch my language
to Spanish and turn off notifications" to ``update_preferences(preferences: {language, notifications})``
made no call (the tool's words inside its object parameter were never read as its own)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import Reply, ToolSpec

MONDAY = date(2026, 12, 7)
STRING = {"type": "string"}
INTEGER = {"type": "integer"}


def _tool(name: str, description: str, properties: dict[str, object], required: list[str]) -> ToolSpec:
    return ToolSpec(name, description, {"type": "object", "properties": properties, "required": required})


def _reply(history: tuple[TurnView, ...], tools: tuple[ToolSpec, ...]) -> Reply:
    request = ReplyRequest("", tools, "auto", ("text",), history, 0)
    return ScriptedBrain(load_scenario(None), 3, today=MONDAY).reply(request)


def _calls(reply: Reply) -> list[tuple[str | None, dict[str, object]]]:
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


def _said(words: str, tools: tuple[ToolSpec, ...]) -> Reply:
    return _reply((TurnView("u1", "user_text", words),), tools)


# 1. An array of objects: a thing said by its article is one of it, wherever the sentence goes on.
ITEM = {"type": "object", "properties": {"name": STRING, "quantity": INTEGER}, "required": ["name", "quantity"]}
CART = _tool(
    "add_to_cart", "Add items to the shopping cart.", {"items": {"type": "array", "items": ITEM}}, ["items"]
)


@pytest.mark.parametrize(
    ("words", "items"),
    [
        (
            "Add two bagels and a coffee to my cart",
            [{"name": "bagels", "quantity": 2}, {"name": "coffee", "quantity": 1}],
        ),
        (
            "Put a coffee and two bagels in my cart please",
            [{"name": "coffee", "quantity": 1}, {"name": "bagels", "quantity": 2}],
        ),
        (
            "Add three apples, two pears and a large coffee to the cart",
            [
                {"name": "apples", "quantity": 3},
                {"name": "pears", "quantity": 2},
                {"name": "large coffee", "quantity": 1},
            ],
        ),
    ],
)
def test_a_thing_said_by_its_article_is_one_of_the_list(words: str, items: list[dict[str, object]]) -> None:
    assert _calls(_said(words, (CART,))) == [("add_to_cart", {"items": items})]


def test_a_list_ending_with_its_article_is_unchanged() -> None:
    # neighbouring behaviour: the article at the sentence's end was already read
    assert _calls(_said("Add two bagels and a coffee", (CART,))) == [
        ("add_to_cart", {"items": [{"name": "bagels", "quantity": 2}, {"name": "coffee", "quantity": 1}]})
    ]
