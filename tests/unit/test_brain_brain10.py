"""Misses of the scripted brain when apps declare their own tools (brain10). Each test failed before its
fix; the near misses beside each pin what must not change."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.brain import slots
from mockengine.brain.referents import Referent
from tests.brain_calls import TODAY, calls, tool

STRING = {"type": "string"}

# -- 1. a service or an extra asked for ("a box for leftovers", "a warranty") is no thing an ordering
#       tool orders

DRINK = tool("order_drink", "Order a drink", {"drink": STRING})
FOOD = tool("order_food", "Order food", {"item": STRING})


@pytest.mark.parametrize(
    "said",
    [
        "Can I get a box for leftovers?",
        "Could I get a to-go box please?",
        "Can I get a bag for this?",
        "Can I get a warranty?",
        "Can I get an extended warranty?",
        "Can I get gift wrap?",
        "Can I get some gift wrap?",
        "Could I have a gift wrap please?",
        "Can I get gift wrapping for this?",
        "Can I get a refill?",
    ],
)
def test_a_service_or_an_extra_orders_nothing(said: str) -> None:
    assert isinstance(calls([DRINK], said), str)


@pytest.mark.parametrize(
    ("said", "thing"),
    [
        ("Can I get a latte?", "latte"),
        ("Can I get a box of donuts?", "box of donuts"),
        ("Can I get a chicken wrap?", "chicken wrap"),
    ],
)
def test_a_thing_sold_is_still_ordered(said: str, thing: str) -> None:
    made = calls([FOOD], said)
    assert made == [("order_food", {"item": thing})]


def test_a_latte_is_still_ordered_as_a_drink() -> None:
    assert calls([DRINK], "Can I get a latte?") == [("order_drink", {"drink": "latte"})]


# -- 2. "I'd like a …", "A large mocha please": a thing asked for in other words is ordered


@pytest.mark.parametrize(
    ("said", "drink"),
    [
        ("I'd like a flat white", "flat white"),
        ("I would like a flat white please", "flat white"),
        ("I'll have a cappuccino", "cappuccino"),
        ("A large mocha please", "large mocha"),
        ("An iced tea, please.", "iced tea"),
    ],
)
def test_a_drink_asked_for_in_other_words_is_ordered(said: str, drink: str) -> None:
    assert calls([DRINK], said) == [("order_drink", {"drink": drink})]


@pytest.mark.parametrize(
    "said", ["I'd like a refund", "A menu please", "I'd like a word with the manager", "One more please"]
)
def test_other_words_asking_a_service_still_order_nothing(said: str) -> None:
    assert isinstance(calls([DRINK], said), str)


# -- 3. "send order 12345 to 40 Elm Rd" changes where it goes; "send my order to …" names no order "40"

CANCEL_ORDER = tool("cancel_order", "Cancel an order", {"order_id": STRING})
SHIPPING = tool(
    "update_shipping_address",
    "Update the shipping address of an order",
    {"order_id": STRING, "street": STRING, "city": STRING},
    ["order_id", "street"],
)


def test_an_order_sent_to_an_address_updates_its_shipping_address() -> None:
    made = calls([CANCEL_ORDER, SHIPPING], "Send order 12345 to 40 Elm Rd")
    assert made == [("update_shipping_address", {"order_id": "12345", "street": "40 Elm Rd"})]


def test_an_order_sent_to_an_address_in_a_town_keeps_the_town() -> None:
    made = calls([CANCEL_ORDER, SHIPPING], "Send order 12345 to 40 Elm Rd, Leeds")
    assert made == [
        ("update_shipping_address", {"order_id": "12345", "street": "40 Elm Rd", "city": "Leeds"})
    ]


def test_my_order_sent_to_an_address_names_no_order_by_its_house_number() -> None:
    made = calls([CANCEL_ORDER, SHIPPING], "Please send my order to 40 Elm Rd")
    assert made == "What's the order ID?"


def test_a_cancel_beside_the_shipping_tool_still_cancels() -> None:
    assert calls([CANCEL_ORDER, SHIPPING], "Cancel order 12345") == [("cancel_order", {"order_id": "12345"})]


# -- 4. a time said of a reservation is no reservation's id

RESERVATION = tool("lookup_reservation", "Look up a reservation", {"reservation_id": STRING})


@pytest.mark.parametrize(
    "said",
    [
        "I have a reservation for 4 people at 7",
        "I have a reservation at 7",
        "I have a reservation for 2 at 7:30",
        "I have a reservation at 7pm tonight",
    ],
)
def test_a_time_is_no_reservation_id(said: str) -> None:
    assert calls([RESERVATION], said) == "What's the reservation ID?"


@pytest.mark.parametrize(
    ("said", "code"),
    [("Look up reservation 7", "7"), ("I have a reservation, number 4821, at 7", "4821")],
)
def test_an_id_is_still_looked_up(said: str, code: str) -> None:
    assert calls([RESERVATION], said) == [("lookup_reservation", {"reservation_id": code})]


# -- 5. "I have to …" after the request's own words is the task's frame, not a "todo" in it

TASK = tool("create_task", "Create a task", {"task": STRING})


@pytest.mark.parametrize(
    "said",
    [
        "Create a task: I have to renew my passport",
        "Create a task: I need to renew my passport",
        "Add a task: I must renew my passport",
        "New task: we need to renew my passport",
        "I have to renew my passport",
    ],
)
def test_a_task_said_as_a_need_is_its_doing(said: str) -> None:
    assert calls([TASK], said) == [("create_task", {"task": "renew my passport"})]


# -- 6. "from A to B": the new address is B, its town with it

ADDRESS = tool(
    "update_shipping_address",
    "Update the shipping address",
    {"street": STRING, "city": STRING},
    ["street", "city"],
)


@pytest.mark.parametrize(
    "said",
    [
        "Change it from 40 Elm Rd to 42 Oak Ave, Leeds",
        "Change my address from 40 Elm Rd to 42 Oak Ave, Leeds",
        "Update the address from 40 Elm Rd, York to 42 Oak Ave, Leeds",
    ],
)
def test_an_address_changed_from_one_to_another_is_the_new_one(said: str) -> None:
    assert calls([ADDRESS], said) == [("update_shipping_address", {"street": "42 Oak Ave", "city": "Leeds"})]


# -- 7 and 8. a unit enum: a US town's weather in fahrenheit; a refused unit never filled


def weather(unit: dict[str, Any], required: list[str] | None = None) -> Any:
    return tool("get_weather", "Get the current weather", {"location": STRING, "unit": unit}, required)


UNIT_ENUM = {"type": "string", "enum": ["celsius", "fahrenheit"]}


@pytest.mark.parametrize(
    "said",
    [
        "weather in Denver",
        "What's the weather in Chicago?",
        "How hot is it in Austin, Texas?",
        "Weather in Springfield, IL",
        "What's the weather like in New York City?",
    ],
)
def test_a_us_towns_weather_is_in_fahrenheit(said: str) -> None:
    made = calls([weather(UNIT_ENUM)], said)
    assert isinstance(made, list) and made[0][1]["unit"] == "fahrenheit"


@pytest.mark.parametrize("said", ["weather in Paris", "What's the weather in London?", "weather in Sydney"])
def test_elsewhere_the_unit_is_the_first(said: str) -> None:
    made = calls([weather(UNIT_ENUM)], said)
    assert isinstance(made, list) and made[0][1]["unit"] == "celsius"


def test_elsewhere_the_unit_is_the_schemas_default() -> None:
    unit = {"type": "string", "enum": ["fahrenheit", "celsius"], "default": "celsius"}
    made = calls([weather(unit)], "weather in Paris")
    assert isinstance(made, list) and made[0][1]["unit"] == "celsius"


@pytest.mark.parametrize(
    ("said", "unit"),
    [("weather in Denver in celsius", "celsius"), ("weather in Paris in fahrenheit", "fahrenheit")],
)
def test_a_unit_said_wins_over_the_town(said: str, unit: str) -> None:
    made = calls([weather(UNIT_ENUM)], said)
    assert isinstance(made, list) and made[0][1]["unit"] == unit


@pytest.mark.parametrize(
    "said",
    [
        "Weather in Paris. Not fahrenheit",
        "Weather in Paris, not in fahrenheit",
        "Weather in Paris. No fahrenheit",
    ],
)
def test_a_refused_unit_of_an_enum_is_not_filled(said: str) -> None:
    made = calls([weather(UNIT_ENUM)], said)
    assert not (isinstance(made, list) and made[0][1].get("unit") == "fahrenheit")


def test_a_unit_named_after_a_refused_one_of_an_enum_is_filled() -> None:
    made = calls([weather(UNIT_ENUM)], "Weather in Paris. Not fahrenheit, celsius")
    assert made == [("get_weather", {"location": "Paris", "unit": "celsius"})]


def test_each_place_of_parallel_calls_has_its_own_unit() -> None:
    assert calls([weather(UNIT_ENUM)], "weather in Paris and in Denver") == [
        ("get_weather", {"location": "Paris", "unit": "celsius"}),
        ("get_weather", {"location": "Denver", "unit": "fahrenheit"}),
    ]


def test_a_system_enum_is_imperial_in_the_us() -> None:
    # brain11 decided a US place gets the US's units of any kind, not only Fahrenheit (this pinned
    # "metric", the first option: brain10's choice, which its notes said a model would likely not make)
    units = {"type": "string", "enum": ["metric", "imperial"]}
    made = calls([weather(units)], "weather in Seattle")
    assert isinstance(made, list) and made[0][1]["unit"] == "imperial"


# -- 9. a town said in its country ("Lyon in France") is the town, the country beside it

CITY = {
    "type": "object",
    "properties": {
        "city": {"title": "City", "type": "string"},
        "country": {"title": "Country", "type": "string"},
    },
    "required": ["city", "country"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "said", ["Lyon in France", "Lyon is in France", "Tell me about Lyon in France", "Lyon, France"]
)
def test_a_town_in_its_country_is_the_town(said: str) -> None:
    filled = slots.fill("response", CITY, said, Referent(), TODAY)
    assert filled.arguments == {"city": "Lyon", "country": "France"}


def test_a_town_in_its_country_to_a_weather_tool_is_the_town() -> None:
    made = calls([tool("get_weather", "Get the weather", {"city": STRING})], "Weather for Lyon in France")
    assert made == [("get_weather", {"city": "Lyon"})]
