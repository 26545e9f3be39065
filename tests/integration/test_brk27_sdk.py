"""Over the wire, with the official ``openai`` SDK (Chat Completions on a real engine on loopback): stop
brk27's weather and food-delivery breaks, each failed on its base (a0724e3a) before its fix. The tool's
output goes back as the app sends it, and the reply to it is what a model would say."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.own_tools import INTEGER, STRING, STRINGS, call_and_answer, chat_tool

WEATHER = chat_tool("get_weather", "Get the current weather for a city.", {"city": STRING})
FORECAST = chat_tool(
    "get_forecast", "Get the weather forecast for a city.", {"city": STRING, "days": INTEGER}
)
CREATE_ORDER = chat_tool(
    "create_order",
    "Create a food delivery order.",
    {"items": STRINGS, "quantity": INTEGER, "address": STRING},
    ["items", "address"],
)


@pytest.mark.parametrize(
    ("words", "days", "said"),
    [
        ("Will it rain in Paris this week?", 7, "The forecast in Paris this week is light rain on Tuesday."),
        (
            "Is it going to be cold in Paris tomorrow?",
            2,
            "The forecast in Paris tomorrow is light rain on Tuesday.",
        ),
    ],
)
async def test_a_time_to_come_asks_the_forecast_and_says_its_day(
    engine, words: str, days: int, said: str
) -> None:
    # was get_weather {city: Paris}, and the forecast's answer was said without the day
    call, text = await call_and_answer(
        engine, [WEATHER, FORECAST], words, json.dumps({"forecast": "light rain on Tuesday"})
    )
    assert (call, text) == (("get_forecast", {"city": "Paris", "days": days}), said)


@pytest.mark.parametrize("output", ["21", '"21"'])
async def test_a_bare_number_from_the_weather_is_its_temperature(engine, output: str) -> None:
    # was "The weather in Paris is 21."
    call, text = await call_and_answer(engine, [WEATHER], "What's the weather in Paris?", output)
    assert (call, text) == (("get_weather", {"city": "Paris"}), "It's 21 degrees in Paris.")


@pytest.mark.parametrize(
    ("words", "arguments", "said"),
    [
        (
            "3 burgers delivered to 12 Main Street",
            {"items": ["burgers"], "quantity": 3, "address": "12 Main Street"},
            "I've placed your order for 3 burgers to 12 Main Street. The order number is A100.",
        ),
        (
            "Send two pizzas to 45 Oak Avenue",
            {"items": ["pizzas"], "quantity": 2, "address": "45 Oak Avenue"},
            "I've placed your order for 2 pizzas to 45 Oak Avenue. The order number is A100.",
        ),
    ],
)
async def test_things_delivered_to_an_address_are_ordered_and_confirmed(
    engine, words: str, arguments: dict[str, Any], said: str
) -> None:
    # was "You said 3 burgers delivered to 12 Main Street. Tell me more." (no call), and an order's
    # text output was read back as it came ("Order A100 placed.")
    call, text = await call_and_answer(engine, [CREATE_ORDER], words, "Order A100 placed")
    assert (call, text) == (("create_order", arguments), said)
