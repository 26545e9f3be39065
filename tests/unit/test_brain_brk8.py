"""brain10's new rules where they did what a real model would not (brk8). Each test failed on brain10's
head; the near misses beside each pin what brain10 fixed and must stay fixed."""

from __future__ import annotations

import pytest

from tests.brain_calls import calls, tool

STRING = {"type": "string"}

DRINK = tool("order_drink", "Order a drink", {"drink": STRING})
FOOD = tool("order_food", "Order food", {"item": STRING})
ITEM = tool("order_item", "Order an item from the store", {"product": STRING})

# -- 1. a thing sold whose name ends in a container's word ("a lunch box", "a sleeping bag") is ordered;
#       the container alone, or one to carry a thing away in, is not


@pytest.mark.parametrize(
    ("tools", "said", "expected"),
    [
        ([FOOD], "Can I get a bento box?", ("order_food", {"item": "bento box"})),
        ([FOOD], "Can I get a lunch box?", ("order_food", {"item": "lunch box"})),
        ([FOOD], "Can I get a poke bowl?", ("order_food", {"item": "poke bowl"})),
        ([ITEM], "Can I get a sleeping bag?", ("order_item", {"product": "sleeping bag"})),
        ([ITEM], "Can I get a laptop bag?", ("order_item", {"product": "laptop bag"})),
        ([ITEM], "Can I get a storage container?", ("order_item", {"product": "storage container"})),
        ([ITEM], "Can I get a tool box?", ("order_item", {"product": "tool box"})),
        ([DRINK], "A glass of water please", ("order_drink", {"drink": "glass of water"})),
    ],
)
def test_a_thing_named_by_its_container_is_ordered(tools: list[object], said: str, expected: object) -> None:
    assert calls(tools, said) == [expected]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        ([FOOD], "Can I get a doggy bag?"),
        ([FOOD], "A to-go box please"),
        ([FOOD], "Can I get a takeout container?"),
        ([DRINK], "Can I get a box?"),
        ([DRINK], "Can I get a paper bag?"),
        ([DRINK], "A glass please"),
        ([DRINK], "Can I get a cup?"),
        ([FOOD], "A clean plate please"),
        ([FOOD], "Can I get an extra bowl?"),
    ],
)
def test_a_container_alone_orders_nothing(tools: list[object], said: str) -> None:
    assert isinstance(calls(tools, said), str)  # type: ignore[arg-type]


# -- 2. "A … please" names no drink when it names cutlery, a favour, a size alone or more of the same


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        ([FOOD], "A fork please"),
        ([FOOD], "A fresh fork please"),
        ([FOOD], "A spoon please"),
        ([FOOD], "Can I get a spoon?"),
        ([FOOD], "Can I get some chopsticks?"),
        ([FOOD], "Can I get some napkins?"),
        ([FOOD], "A wine list please"),
        ([FOOD], "A booster please"),
        ([DRINK], "A booth please"),
        ([DRINK], "One more please"),
        ([DRINK], "A large please"),
        ([DRINK], "A small please"),
        ([DRINK], "A favour please"),
        ([DRINK], "A hint please"),
        ([DRINK], "A summary please"),
        ([DRINK], "A translation please"),
        ([DRINK], "A taxi please"),
        ([DRINK], "A cab please"),
        ([DRINK], "A sample please"),
    ],
)
def test_no_thing_sold_orders_nothing(tools: list[object], said: str) -> None:
    assert isinstance(calls(tools, said), str)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("said", "drink"),
    [
        ("A large mocha please", "large mocha"),
        ("A decaf please", "decaf"),
        ("I'd like a flat white", "flat white"),
    ],
)
def test_a_drink_said_with_its_size_is_still_ordered(said: str, drink: str) -> None:
    assert calls([DRINK], said) == [("order_drink", {"drink": drink})]


# -- 3. the words after the thing ("too", "instead", "as well") are no part of it; "but not now" orders
#       nothing


@pytest.mark.parametrize(
    "said",
    [
        "I'd like a latte too",
        "I'd like a latte instead",
        "I'd like a latte as well",
        "I'd like a latte later",
    ],
)
def test_the_words_after_a_drink_are_no_part_of_it(said: str) -> None:
    assert calls([DRINK], said) == [("order_drink", {"drink": "latte"})]


@pytest.mark.parametrize("said", ["I'd like a latte but not now", "I want a latte but not yet"])
def test_a_drink_not_wanted_now_is_not_ordered(said: str) -> None:
    assert isinstance(calls([DRINK], said), str)


# -- 4. an order sent to an address in other words updates its shipping address, never cancels it

CANCEL_ORDER = tool("cancel_order", "Cancel an order", {"order_id": STRING})
SHIPPING = tool(
    "update_shipping_address",
    "Update the shipping address of an order",
    {"order_id": STRING, "street": STRING, "city": STRING},
    ["order_id", "street"],
)
DELIVERY = tool(
    "change_delivery_address",
    "Change where an order is delivered",
    {"order_number": STRING, "address": STRING},
)


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        ("Send the order 12345 to 40 Elm Rd", {"order_id": "12345", "street": "40 Elm Rd"}),
        ("Send order number 12345 to 40 Elm Rd", {"order_id": "12345", "street": "40 Elm Rd"}),
        (
            "Please send order #12345 to 40 Elm Rd, Leeds",
            {"order_id": "12345", "street": "40 Elm Rd", "city": "Leeds"},
        ),
        ("Send order 98765 to my office at 40 Elm Rd", {"order_id": "98765", "street": "40 Elm Rd"}),
    ],
)
def test_an_order_sent_to_an_address_in_other_words_updates_it(said: str, arguments: dict[str, str]) -> None:
    assert calls([CANCEL_ORDER, SHIPPING], said) == [("update_shipping_address", arguments)]


@pytest.mark.parametrize(
    "said", ["Send my order to 12 Baker Street", "Please send my order to 40 Baker Street, Leeds"]
)
def test_my_order_sent_to_a_street_named_street_asks_for_the_order(said: str) -> None:
    assert calls([CANCEL_ORDER, SHIPPING], said) == "What's the order ID?"


def test_a_cancel_with_an_address_still_cancels() -> None:
    assert calls([CANCEL_ORDER, SHIPPING], "Cancel order 12345 and send it to 40 Elm Rd") == [
        ("cancel_order", {"order_id": "12345"})
    ]


# -- 5. a street a reservation is at is no reservation's id

RESERVATION = tool("lookup_reservation", "Look up a reservation", {"reservation_id": STRING})


def test_a_street_is_no_reservation_id() -> None:
    assert calls([RESERVATION], "I have a reservation at 10 Downing Street") == "What's the reservation ID?"


def test_a_reservation_id_beside_a_street_is_still_looked_up() -> None:
    assert calls([RESERVATION], "Look up reservation 4821 at 10 Downing Street") == [
        ("lookup_reservation", {"reservation_id": "4821"})
    ]


# -- 6. "Okay, I have to …" to a to-do tool: a word that only opens the turn is no request before the task

TASK = tool("create_task", "Create a to-do task", {"title": STRING})


@pytest.mark.parametrize(
    "said",
    [
        "Okay, I have to renew my passport",
        "OK so, I have to renew my passport",
        "Well, I need to renew my passport",
        "Yes, I have to renew my passport",
        "Actually, I have to renew my passport",
    ],
)
def test_a_turn_opened_by_a_filler_keeps_the_whole_task(said: str) -> None:
    assert calls([TASK], said) == [("create_task", {"title": "renew my passport"})]


@pytest.mark.parametrize(
    "said",
    [
        "Create a task: I have to renew my passport",
        "Add a task to my list: I have to renew my passport",
        "Create a new task for me: I have to renew my passport",
    ],
)
def test_a_task_after_a_request_drops_i_have_to(said: str) -> None:
    assert calls([TASK], said) == [("create_task", {"title": "renew my passport"})]


# -- 7. a thing another declared tool names ("items like towels") is no thing the ordering tool sells

ROOM_SERVICE = tool("order_room_service", "Order room service to a hotel room", {"item": STRING})
HOUSEKEEPING = tool("request_housekeeping", "Request housekeeping items like towels", {"request": STRING})


@pytest.mark.parametrize("said", ["A towel please", "Can I get some towels?", "I'd like some towels please"])
def test_a_thing_another_tool_names_is_not_ordered(said: str) -> None:
    made = calls([ROOM_SERVICE, HOUSEKEEPING], said)
    assert isinstance(made, str) or all(name != "order_room_service" for name, _ in made)


def test_a_dish_beside_the_other_tool_is_still_ordered() -> None:
    assert calls([ROOM_SERVICE, HOUSEKEEPING], "I'd like a club sandwich") == [
        ("order_room_service", {"item": "club sandwich"})
    ]


# -- 8. a unit refused of two: the other one, as a model sends it (brain10 asked which, naming both)

WEATHER = tool(
    "get_weather",
    "Get the current weather",
    {"location": STRING, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    ["location", "unit"],
)
WEATHER_THREE = tool(
    "get_weather",
    "Get the current weather",
    {"location": STRING, "unit": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]}},
    ["location", "unit"],
)


@pytest.mark.parametrize("said", ["Weather in Paris. Not fahrenheit", "Weather in Denver. Not fahrenheit"])
def test_a_unit_refused_of_two_sends_the_other(said: str) -> None:
    made = calls([WEATHER], said)
    assert isinstance(made, list) and made[0][1]["unit"] == "celsius"


def test_a_unit_refused_of_three_still_asks() -> None:
    assert isinstance(calls([WEATHER_THREE], "Weather in Paris. Not fahrenheit"), str)
