"""Tools acted on as a model would (brain12): a tool forced among several takes the words that ask for it,
and an optional option with a default that was not said is left out. Each failed before its fix."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import ForcedTool
from tests.brain_calls import TODAY, calls, conversation_calls, tool

STRING = {"type": "string"}
TIME = tool("get_time", "Get the current time in a city", {"city": STRING})
WEATHER = tool("get_weather", "Get the weather for a city", {"city": STRING})


def test_a_tool_forced_among_several_takes_the_words_that_ask_for_it() -> None:
    # was get_weather(Tokyo): the first city said, though the time was asked of Tokyo
    items = (TurnView("u", "user_text", "What's the time in Tokyo and the weather in Paris?"),)
    reply = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest("", (TIME, WEATHER), ForcedTool("get_weather"), ("text",), items, 0)
    )
    assert reply.text is None
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]


THERMOSTAT = tool(
    "set_thermostat",
    "Set a thermostat",
    {
        "room": STRING,
        "temperature": {"type": "number"},
        "mode": {"type": "string", "enum": ["heat", "cool", "auto"], "default": "auto"},
    },
    ["room", "temperature"],
)


def test_an_optional_mode_not_said_is_left_out() -> None:
    # was mode "heat": "thermostat" and "degrees" are of heat's synonym group, and of cool's too
    made = calls([THERMOSTAT], "Set the basement thermostat to 18 degrees.")
    assert made == [("set_thermostat", {"room": "basement", "temperature": 18})]


def test_a_mode_said_is_still_taken() -> None:
    made = calls([THERMOSTAT], "Cool the bedroom to 19 degrees")
    assert made == [("set_thermostat", {"room": "bedroom", "temperature": 19, "mode": "cool"})]


CURRENCY_CODES = {"type": "string", "enum": ["GBP", "JPY", "USD", "EUR"]}
CONVERT = tool(
    "convert_currency",
    "Convert an amount between currencies",
    {"amount": {"type": "number"}, "from": CURRENCY_CODES, "to": CURRENCY_CODES},
)


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        # was no call: "how much is" asked no conversion, and "from"/"to" named no currency
        ("How much is 20 pounds in yen?", {"amount": 20, "from": "GBP", "to": "JPY"}),
        ("What's 100 dollars in euros?", {"amount": 100, "from": "USD", "to": "EUR"}),
        ("Convert 20 pounds to yen", {"amount": 20, "from": "GBP", "to": "JPY"}),
    ],
)
def test_currencies_named_in_words_are_their_codes(said: str, arguments: dict[str, object]) -> None:
    assert calls([CONVERT], said) == [("convert_currency", arguments)]


def test_a_price_asked_is_still_a_price() -> None:
    price = tool("get_price", "Get the price of a product", {"product": STRING})
    assert calls([price], "How much is a large latte?") == [("get_price", {"product": "large latte"})]


DRINK = tool("order_drink", "Order a drink", {"drink": STRING})
TIMER = tool("set_timer", "Set a timer", {"minutes": {"type": "integer"}})


@pytest.mark.parametrize(
    "said",
    [
        # was no call: the repair did not reach over the "please" and the full stop
        "A latte please. No, sorry, a mocha.",
        "Can I get a latte please? No, sorry, a mocha.",
    ],
)
def test_a_drink_taken_back_in_the_next_sentence_orders_the_other(said: str) -> None:
    assert calls([DRINK], said) == [("order_drink", {"drink": "mocha"})]


@pytest.mark.parametrize(
    "said",
    [
        # was 10 minutes: a number taken back for a number, the unit not said again
        "Set a timer for 10 minutes, no wait, 15",
        "Set a timer for 10 minutes. No, 15.",
    ],
)
def test_a_number_taken_back_for_another_takes_the_other(said: str) -> None:
    assert calls([TIMER], said) == [("set_timer", {"minutes": 15})]


LOOKUP = tool("slow_lookup", "Look up an order", {"order_id": STRING})


@pytest.mark.parametrize("asked", ["And what is 3 plus 4?", "And what's the capital of France?"])
def test_a_question_of_its_own_after_a_lookup_is_no_follow_up(asked: str) -> None:
    # was slow_lookup(order_id="3"): "and …" read as the lookup again with a new value
    made = conversation_calls([LOOKUP], ["Where is my order 12345?", asked])
    assert made == [[("slow_lookup", {"order_id": "12345"})], []]


def test_a_value_after_a_lookup_is_still_a_follow_up() -> None:
    made = conversation_calls([LOOKUP], ["Where is my order 12345?", "And order 67890?"])
    assert made == [[("slow_lookup", {"order_id": "12345"})], [("slow_lookup", {"order_id": "67890"})]]


INVENTORY = tool(
    "update_inventory",
    "Update stock counts",
    {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
)


@pytest.mark.parametrize(
    "said",
    [
        # was no call (and, beside an alarm tool, the alarm's question): a number for each thing named
        "Set the stock of apples to 12 and pears to 5.",
        "Update stock counts: apples to 12, pears to 5",
    ],
)
def test_a_map_of_names_to_numbers_takes_each_thing_named(said: str) -> None:
    assert calls([INVENTORY], said) == [("update_inventory", {"counts": {"apples": 12, "pears": 5}})]
