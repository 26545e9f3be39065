"""Found by a new user (stop brk27) driving the brain with a weather app and a food-delivery app.

"Will it rain in Paris this week?" beside ``get_weather(city)`` and a forecast tool called get_weather (a
model picks the forecast for a time to come); the forecast's output was said without the day asked for;
a bare number from get_weather was read as "The weather in Paris is 21."; "3 burgers delivered to 12 Main
Street" to ``create_order(items, quantity?, address)`` was echoed ("You said … Tell me more.")."""

from __future__ import annotations

from functools import partial

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import ToolSpec
from tests.brain_calls import MONDAY, answered, calls_made, reply_to, said, tool

_tool, _calls = tool, calls_made
_reply = partial(reply_to, today=MONDAY)
_said = partial(said, today=MONDAY)
_answered = partial(answered, today=MONDAY)


WEATHER = _tool("get_weather", "Get the weather for a city.", {"city": {"type": "string"}}, ["city"])
WEATHER_UNIT = _tool(
    "get_weather",
    "Get the current weather for a city.",
    {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    ["city"],
)
FORECAST_DAYS = _tool(
    "get_forecast",
    "Get the weather forecast for a city.",
    {"city": {"type": "string"}, "days": {"type": "integer", "description": "Number of days"}},
    ["city", "days"],
)
WEEKLY = _tool(
    "get_weekly_forecast",
    "Get the weekly weather forecast for a city.",
    {"city": {"type": "string"}},
    ["city"],
)
FORECAST_DATE = _tool(
    "get_forecast",
    "Get the weather forecast for a city on a date.",
    {"city": {"type": "string"}, "date": {"type": "string", "format": "date"}},
    ["city", "date"],
)


@pytest.mark.parametrize(
    ("words", "days"),
    [
        ("Will it rain in Paris this week?", 7),
        ("What's the weather in Paris tomorrow?", 2),
        ("Any rain in Paris over the next few days?", 3),
        # phrasings the rule was not written for
        ("Is it going to snow in Paris on Wednesday?", 3),
        ("How hot will it get in Paris the day after tomorrow?", 3),
        ("What's the weather looking like in Paris for the next 5 days?", 5),
    ],
)
@pytest.mark.parametrize("order", ["weather_first", "forecast_first"])
def test_a_time_to_come_goes_to_the_forecast(words: str, days: int, order: str) -> None:
    tools = (WEATHER, FORECAST_DAYS) if order == "weather_first" else (FORECAST_DAYS, WEATHER)
    assert _calls(_said(words, tools)) == [("get_forecast", {"city": "Paris", "days": days})]


@pytest.mark.parametrize(
    ("words", "call"),
    [
        ("Will it rain in London this week?", ("get_weekly_forecast", {"city": "London"})),
        ("Will it be sunny in London tomorrow?", ("get_weekly_forecast", {"city": "London"})),
    ],
)
def test_a_weekly_forecast_tool(words: str, call: tuple[str, dict[str, object]]) -> None:
    assert _calls(_said(words, (WEATHER, WEEKLY))) == [call]


@pytest.mark.parametrize(
    ("words", "day"),
    [
        ("What's the weather in Rome tomorrow?", "2026-12-08"),
        ("Will it rain in Rome this week?", "2026-12-07"),
    ],
)
def test_a_forecast_that_takes_a_date(words: str, day: str) -> None:
    assert _calls(_said(words, (WEATHER, FORECAST_DATE))) == [("get_forecast", {"city": "Rome", "date": day})]


@pytest.mark.parametrize(
    "words",
    ["What's the weather in Paris?", "Is it raining in Paris right now?", "How warm is it in Paris today?"],
)
def test_the_present_stays_with_the_weather(words: str) -> None:
    assert _calls(_said(words, (WEATHER, FORECAST_DAYS))) == [("get_weather", {"city": "Paris"})]


def test_a_dated_lookup_of_another_topic_is_no_forecast() -> None:
    events = _tool(
        "list_events",
        "List the events in a city on a date.",
        {"city": {"type": "string"}, "date": {"type": "string", "format": "date"}},
        ["city", "date"],
    )
    assert [name for name, _ in _calls(_said("Will it rain in Paris tomorrow?", (WEATHER, events)))] == [
        "get_weather"
    ]


# The forecast's answer says the day or range asked for; it was "The forecast in Paris is …".
@pytest.mark.parametrize(
    ("words", "arguments", "output", "said"),
    [
        (
            "What's the weather in Paris tomorrow?",
            {"city": "Paris", "days": 2},
            '{"forecast": "sunny, high of 22"}',
            "The forecast in Paris tomorrow is sunny, high of 22.",
        ),
        (
            "Will it rain in Paris this week?",
            {"city": "Paris", "days": 7},
            "Light rain on Tuesday, sunny after.",
            "This week in Paris: light rain on Tuesday, sunny after.",
        ),
        (
            "Any rain in Lyon over the next few days?",
            {"city": "Lyon", "days": 3},
            '{"forecast": "dry and mild"}',
            "The forecast in Lyon over the next few days is dry and mild.",
        ),
        (
            "How warm will Paris get on Friday?",
            {"city": "Paris", "days": 5},
            "19",
            "It'll be 19 degrees in Paris on Friday.",
        ),
    ],
)
def test_a_forecast_is_said_with_its_day(
    words: str, arguments: dict[str, object], output: str, said: str
) -> None:
    assert _answered(words, "get_forecast", arguments, output, (WEATHER, FORECAST_DAYS)).text == said


def test_a_present_only_lookup_says_no_day_it_did_not_answer() -> None:
    reply = _answered(
        "Will it rain in Paris tomorrow?", "get_weather", {"city": "Paris"}, '"rainy"', (WEATHER,)
    )
    assert reply.text == "The weather in Paris is rainy."


# A bare number from the weather is a temperature; another tool's number keeps its meaning.
@pytest.mark.parametrize(
    ("output", "arguments", "tools", "said"),
    [
        ("21", {"city": "Paris"}, (WEATHER,), "It's 21 degrees in Paris."),
        ('"21"', {"city": "Paris"}, (WEATHER,), "It's 21 degrees in Paris."),
        ("-3.5", {"city": "Oslo"}, (WEATHER,), "It's -3.5 degrees in Oslo."),
        (
            "70",
            {"city": "Austin", "unit": "fahrenheit"},
            (WEATHER_UNIT,),
            "It's 70 degrees Fahrenheit in Austin.",
        ),
        ('"sunny"', {"city": "Paris"}, (WEATHER,), "The weather in Paris is sunny."),
    ],
)
def test_a_bare_number_from_the_weather(
    output: str, arguments: dict[str, object], tools: tuple[ToolSpec, ...], said: str
) -> None:
    city = str(arguments["city"])
    assert _answered(f"What's the weather in {city}?", "get_weather", arguments, output, tools).text == said


def test_a_bare_number_from_a_temperature_tool_and_from_another() -> None:
    temperature = _tool(
        "get_temperature", "Get the temperature in a city.", {"city": {"type": "string"}}, ["city"]
    )
    price = _tool("get_stock_price", "Get a stock's price.", {"symbol": {"type": "string"}}, ["symbol"])
    hot = _answered("How hot is it in Cairo?", "get_temperature", {"city": "Cairo"}, "35", (temperature,))
    stock = _answered("What's AAPL at?", "get_stock_price", {"symbol": "AAPL"}, "21", (price,))
    assert (hot.text, stock.text) == ("It's 35 degrees in Cairo.", "The stock price for AAPL is 21.")


# Things asked to be brought to an address, to create_order(items, quantity?, address): the call, and a
# confirmation of the order, not its output read back.
ORDER = _tool(
    "create_order",
    "Create a food delivery order.",
    {
        "items": {"type": "array", "items": {"type": "string"}},
        "quantity": {"type": "integer"},
        "address": {"type": "string"},
    },
    ["items", "address"],
)
ORDER_ITEM = _tool(
    "place_order",
    "Place an order.",
    {"item": {"type": "string"}, "quantity": {"type": "integer"}, "address": {"type": "string"}},
    ["item", "address"],
)


@pytest.mark.parametrize(
    ("words", "arguments"),
    [
        (
            "3 burgers delivered to 12 Main Street",
            {"items": ["burgers"], "quantity": 3, "address": "12 Main Street"},
        ),
        # phrasings the rule was not written for
        (
            "Send two pizzas to 45 Oak Avenue",
            {"items": ["pizzas"], "quantity": 2, "address": "45 Oak Avenue"},
        ),
        (
            "Can I get a veggie wrap delivered to 7 High Street, please?",
            {"items": ["veggie wrap"], "address": "7 High Street"},
        ),
        (
            "I'd like 4 coffees brought to 9 Elm Road",
            {"items": ["coffees"], "quantity": 4, "address": "9 Elm Road"},
        ),
    ],
)
def test_things_delivered_to_an_address_are_ordered(words: str, arguments: dict[str, object]) -> None:
    assert _calls(_said(words, (ORDER,))) == [("create_order", arguments)]


def test_one_thing_to_a_tool_that_takes_an_item() -> None:
    assert _calls(_said("5 tacos delivered to 3 Pine Lane", (ORDER_ITEM,))) == [
        ("place_order", {"item": "tacos", "quantity": 5, "address": "3 Pine Lane"})
    ]


@pytest.mark.parametrize(
    "words", ["Why were 3 burgers delivered to 12 Main Street?", "I live at 12 Main Street", "3 burgers"]
)
def test_no_order_without_things_sent_to_an_address(words: str) -> None:
    assert _said(words, (ORDER,)).tool_calls == ()


ORDERED = {"items": ["burgers"], "quantity": 3, "address": "12 Main Street"}


@pytest.mark.parametrize(
    ("output", "said"),
    [
        (
            "Order A100 placed",
            "I've placed your order for 3 burgers to 12 Main Street. The order number is A100.",
        ),
        (
            '{"order_id": "A100", "status": "placed"}',
            "I've placed your order for 3 burgers to 12 Main Street. The order ID is A100.",
        ),
        (
            '{"order_id": "A100", "status": "pending"}',
            "I've placed your order for 3 burgers to 12 Main Street. It's pending. The order ID is A100.",
        ),
        ('"ok"', "I've placed your order for 3 burgers to 12 Main Street."),
        ("Sorry, the kitchen is closed.", "Sorry, the kitchen is closed."),
    ],
)
def test_an_order_placed_is_confirmed(output: str, said: str) -> None:
    words = "3 burgers delivered to 12 Main Street"
    assert _answered(words, "create_order", ORDERED, output, (ORDER,)).text == said


def test_the_clause_said_while_ordering() -> None:
    request = ReplyRequest(
        "",
        (ORDER_ITEM,),
        "auto",
        ("audio",),
        (TurnView("u1", "user_audio", "2 salads delivered to 5 Bay Road"),),
        0,
    )
    reply = ScriptedBrain(load_scenario(None), 3, today=MONDAY).reply(request)
    assert (reply.text or "").startswith("Placing your order")


# Other tools' shapes the rules were not written for.
ORDER_FOOD = _tool(
    "order_food",
    "Order food for delivery.",
    {"dish": {"type": "string"}, "quantity": {"type": "integer"}, "delivery_address": {"type": "string"}},
    ["dish", "quantity", "delivery_address"],
)


@pytest.mark.parametrize(
    ("words", "arguments"),
    [
        (
            "2 pad thai delivered to 88 Baker Street",
            {"dish": "pad thai", "quantity": 2, "delivery_address": "88 Baker Street"},
        ),
        (
            "I want a pizza delivered to 1 Elm St",
            {"dish": "pizza", "quantity": 1, "delivery_address": "1 Elm St"},
        ),
    ],
)
def test_an_ordering_tool_of_another_shape(words: str, arguments: dict[str, object]) -> None:
    assert _calls(_said(words, (ORDER_FOOD,))) == [("order_food", arguments)]


def test_its_text_output_is_confirmed() -> None:
    arguments = {"dish": "pad thai", "quantity": 2, "delivery_address": "88 Baker Street"}
    reply = _answered(
        "2 pad thai delivered to 88 Baker Street",
        "order_food",
        arguments,
        "Order #5521 confirmed",
        (ORDER_FOOD,),
    )
    assert reply.text == "I've placed your order for 2 pad thai to 88 Baker Street. The order number is 5521."


CONDITIONS = _tool(
    "current_conditions",
    "Current weather conditions at a location.",
    {"location": {"type": "string"}},
    ["location"],
)
OUTLOOK = _tool(
    "forecast",
    "Weather forecast for the next days at a location.",
    {"location": {"type": "string"}, "days": {"type": "integer", "maximum": 5}},
    ["location"],
)


@pytest.mark.parametrize(
    ("words", "call"),
    [
        ("Do I need an umbrella in Berlin tomorrow?", ("forecast", {"location": "Berlin", "days": 2})),
        ("How's the weather in Berlin next week?", ("forecast", {"location": "Berlin", "days": 5})),
        ("How's the weather in Berlin?", ("current_conditions", {"location": "Berlin"})),
    ],
)
def test_a_forecast_of_another_shape(words: str, call: tuple[str, dict[str, object]]) -> None:
    assert _calls(_said(words, (CONDITIONS, OUTLOOK))) == [call]
