"""Tools acted on as a model would (brain12): a tool forced among several takes the words that ask for it,
and an optional option with a default that was not said is left out. Each failed before its fix."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import ForcedTool
from tests.brain_calls import TODAY, calls, tool

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
