"""Regressions and near misses of brain11's rules (self-repairs, things asked together, a town sent to,
kinds of thing a tool takes, a record's words after a comma), found by a skeptic (brk9). Each failed on
brain11's tip; the expected results are what main did where main was right, or what a model does."""

from __future__ import annotations

import pytest

from mockengine.brain import ToolSpec
from tests.brain_calls import calls, tool

STRING = {"type": "string"}
DRINK = tool("order_drink", "Order a drink", {"drink": STRING})
RIDE = tool("book_ride", "Book a ride", {"destination": STRING})
ROOM = tool(
    "book_room", "Book a hotel room", {"nights": {"type": "integer"}, "room_type": STRING}, ["nights"]
)

# -- a self-repair takes back the last thing named, not a phrase running over a place or a count


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        # brain11: "Get me the airport" (the ride taken back with its place); main: the station
        (
            RIDE,
            "Get me a ride to the station, actually the airport",
            ("book_ride", {"destination": "airport"}),
        ),
        # brain11: "I need my flight is at 6" and no call; main: the airport
        (
            RIDE,
            "I need a ride to the airport, sorry, my flight is at 6",
            ("book_ride", {"destination": "airport"}),
        ),
        # brain11: "Book a suite", the nights lost and asked; main: two nights
        (ROOM, "Book a room for two nights, no, a suite", ("book_room", {"nights": 2})),
        (ROOM, "Book a room for two nights, actually three nights", ("book_room", {"nights": 3})),
    ],
)
def test_a_repair_takes_back_only_the_thing_named_last(
    declared: ToolSpec, said: str, expected: tuple[str, dict[str, object]]
) -> None:
    assert calls([declared], said) == [expected]


@pytest.mark.parametrize(
    ("said", "drink"),
    [
        # brain11: no call ("a large one" is no drink); main: latte
        ("I'd like a latte, actually a large one", "large latte"),
        # near misses of brain11: repair words said together, or after a filler
        ("I want a latte, no, make it a mocha", "mocha"),
        ("I'll have a latte, um, no, a cappuccino", "cappuccino"),
        ("I'd like a latte. No, wait. A mocha.", "mocha"),
    ],
)
def test_a_drink_taken_back_in_other_words(said: str, drink: str) -> None:
    assert calls([DRINK], said) == [("order_drink", {"drink": drink})]


# -- a record's time, due date or priority after a comma is no record's words

TASK = tool("create_task", "Create a task", {"task": STRING})
REMINDER = tool("create_reminder", "Create a reminder", {"text": STRING, "time": STRING}, ["text"])


def test_a_reminders_time_after_the_comma_is_its_time() -> None:
    # brain11: text "tomorrow at 9 to call mom", no time; main read it right
    made = calls([REMINDER], "Set up a reminder, tomorrow at 9 to call mom")
    assert made == [("create_reminder", {"text": "call mom", "time": "09:00"})]


@pytest.mark.parametrize(
    ("declared", "said", "not_made"),
    [
        # brain11: a reminder saying "at 5pm"; main asked what it should say
        (REMINDER, "Add a reminder, at 5pm", ("create_reminder", {"text": "at 5pm"})),
        # brain11: a task "due Friday"; main asked which task
        (TASK, "Add a new task, due Friday", ("create_task", {"task": "due Friday"})),
        (TASK, "Add a task, can you?", ("create_task", {"task": "can you?"})),
        (TASK, "Add a task, high priority", ("create_task", {"task": "high priority"})),
    ],
)
def test_a_records_attribute_after_the_comma_is_no_record(
    declared: ToolSpec, said: str, not_made: tuple[str, dict[str, str]]
) -> None:
    assert calls([declared], said) != [not_made]


# -- a town sent to: only a thing the shipping tool keeps is sent there, and a question or "please" may end it

CANCEL = tool("cancel_order", "Cancel an order", {"order_id": STRING})
SHIPPING = tool(
    "update_shipping_address",
    "Update the shipping address of an order",
    {"order_id": STRING, "street": STRING, "city": STRING},
    ["order_id", "street"],
)
EMAIL = tool("send_email", "Send an email", {"to": STRING, "subject": STRING, "body": STRING}, ["to", "body"])


def test_an_invoice_forwarded_to_a_team_changes_no_shipping_address() -> None:
    # brain11: "What's the order ID?" for update_shipping_address; main did not ask for an order
    assert calls([EMAIL, SHIPPING], "Forward the invoice to Accounting") != "What's the order ID?"


def test_a_weekday_is_no_town() -> None:
    # brain11: "Which street do you mean?" (Tuesday read as a town)
    assert calls([CANCEL, SHIPPING], "Send order 12345 to Tuesday") != "Which street do you mean?"


@pytest.mark.parametrize(
    "said",
    [
        "Can you send order 12345 to Leeds?",
        "Send order 12345 to Leeds please",
        "Ship order 12345 to Leeds instead",
    ],
)
def test_an_order_sent_to_a_town_asked_or_with_please(said: str) -> None:
    # brain11 cancelled the order: the town said before a "?", "please" or "instead" was not read
    assert calls([CANCEL, SHIPPING], said) == "Which street do you mean?"


# -- a bar or a café serves food too: only a drink's own words make a tool take drinks alone

BAR = tool("order_from_bar", "Order snacks and drinks from the pool bar", {"item": STRING})
POOL_BAR = tool("order_from_bar", "Order from the pool bar", {"item": STRING})
CAFE = tool("order_from_cafe", "Order from the hotel cafe", {"item": STRING})


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        # brain11: "I don't know that one" (a cookie no drink); main ordered it
        (BAR, "Can I get a cookie?", ("order_from_bar", {"item": "cookie"})),
        (BAR, "Can I get some fries?", ("order_from_bar", {"item": "fries"})),
        (POOL_BAR, "Can I get a burger?", ("order_from_bar", {"item": "burger"})),
        (CAFE, "Can I get a croissant?", ("order_from_cafe", {"item": "croissant"})),
        (BAR, "Can I get a beer?", ("order_from_bar", {"item": "beer"})),
    ],
)
def test_a_bar_or_cafe_takes_food(
    declared: ToolSpec, said: str, expected: tuple[str, dict[str, str]]
) -> None:
    assert calls([declared], said) == [expected]


def test_a_coffee_shop_takes_food() -> None:
    # brain11: "I don't know that one" ("coffee" in the tool's words read as drinks only); main ordered it
    shop = tool("order_coffee", "Order from the coffee shop", {"item": STRING})
    assert calls([shop], "Can I get a croissant?") == [("order_coffee", {"item": "croissant"})]
    assert calls([shop], "Can I get a latte?") == [("order_coffee", {"item": "latte"})]


def test_a_size_named_instead_keeps_the_drink() -> None:
    # brain11: no call ("I'd like a large" names no drink); main ordered the latte
    sized = tool(
        "order_drink",
        "Order a drink",
        {"drink": STRING, "size": {"type": "string", "enum": ["small", "medium", "large"]}},
        ["drink"],
    )
    made = calls([sized], "I'd like a latte, make it a large")
    assert made not in ("", []) and not isinstance(made, str)
    assert made[0][1]["drink"] in ("latte", "large latte")
    assert made[0][1].get("size", "large") == "large"


def test_no_rush_after_a_notes_comma_is_no_note() -> None:
    note = tool("create_note", "Create a note", {"content": STRING})
    assert calls([note], "Add a note, no rush") != [("create_note", {"content": "no rush"})]


@pytest.mark.parametrize("town", ["Mexico City"])
def test_a_city_named_after_its_country_is_the_city(town: str) -> None:
    # brain11: "Which city do you mean?" (the country "Mexico" read alone, no city); main: "Mexico"
    city = tool("update_city", "Update the user's city", {"city": STRING})
    assert calls([city], f"Update my city to {town}") == [("update_city", {"city": town})]
