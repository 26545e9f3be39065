"""Misreadings of the scripted brain when apps declare their own tools (brain11). Each test failed before
its fix; the near misses beside each pin what must not change."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ToolSpec, names, narration
from tests.brain_calls import WEATHER_CITY, calls, conversation_replies, tool
from tests.brain_calls import WEATHER_LOCATION_UNIT as WEATHER

STRING = {"type": "string"}
DRINK = tool("order_drink", "Order a drink", {"drink": STRING})

# -- 1. a self-repair orders the thing named last; things asked for together get one call each


@pytest.mark.parametrize(
    ("said", "drink"),
    [
        ("I'd like a latte, no wait, a mocha", "mocha"),
        ("Can I get a latte, sorry, I mean a mocha?", "mocha"),
        ("I'd like a latte, make that a large mocha", "large mocha"),
    ],
)
def test_a_drink_taken_back_orders_the_one_named_instead(said: str, drink: str) -> None:
    assert calls([DRINK], said) == [("order_drink", {"drink": drink})]


@pytest.mark.parametrize("said", ["I'd like a latte and a mocha", "Can I get a latte and a mocha?"])
def test_two_drinks_asked_together_are_one_call_each(said: str) -> None:
    # a model calls a tool that takes one drink once per drink, in the same response
    assert calls([DRINK], said) == [("order_drink", {"drink": "latte"}), ("order_drink", {"drink": "mocha"})]


def test_a_drink_and_a_service_order_nothing_half() -> None:
    assert isinstance(calls([DRINK], "Can I get a latte and a refund?"), str)


def test_a_drink_with_no_sugar_is_no_self_repair() -> None:
    assert calls([DRINK], "I'd like a latte, no sugar") != [("order_drink", {"drink": "sugar"})]


# -- 2. an order sent to a town beside cancel_order updates its shipping address (the city; the street
#       asked when required)

CANCEL_ORDER = tool("cancel_order", "Cancel an order", {"order_id": STRING})


def shipping(required: list[str]) -> ToolSpec:
    return tool(
        "update_shipping_address",
        "Update the shipping address of an order",
        {"order_id": STRING, "street": STRING, "city": STRING},
        required,
    )


def test_an_order_sent_to_a_town_asks_for_the_street_when_required() -> None:
    assert calls([CANCEL_ORDER, shipping(["order_id", "street"])], "Send order 12345 to Leeds") == (
        "Which street do you mean?"
    )


def test_an_order_sent_to_a_town_updates_its_city() -> None:
    made = calls([CANCEL_ORDER, shipping(["order_id", "city"])], "Send order 12345 to Leeds")
    assert made == [("update_shipping_address", {"order_id": "12345", "city": "Leeds"})]


def test_the_street_given_after_the_town_completes_the_call() -> None:
    replies = conversation_replies(
        [CANCEL_ORDER, shipping(["order_id", "street"])], ["Send order 12345 to Leeds", "40 Elm Rd"]
    )
    made = [(c.name, json.loads(c.arguments)) for c in replies[1].tool_calls]
    assert made == [
        ("update_shipping_address", {"order_id": "12345", "street": "40 Elm Rd", "city": "Leeds"})
    ]


def test_an_order_sent_to_a_country_cancels_nothing() -> None:
    made = calls([CANCEL_ORDER, shipping(["order_id", "street"])], "Send order 12345 to France")
    assert made == "Which street do you mean?"


def test_an_order_cancelled_is_still_cancelled() -> None:
    made = calls([CANCEL_ORDER, shipping(["order_id", "street"])], "Cancel order 12345")
    assert made == [("cancel_order", {"order_id": "12345"})]


# -- 3. a move from one street to another gives the new one; when the move is, is no part of it

ADDRESS = tool("update_address", "Update the user's address", {"address": STRING})
STREET = tool("update_address", "Update the user's address", {"street": STRING, "city": STRING}, ["street"])


@pytest.mark.parametrize("declared", [ADDRESS, STREET], ids=["address", "street"])
@pytest.mark.parametrize(
    "said",
    [
        "I moved from 10 High St to 42 Oak Ave last month, update my address",
        "Update my address to 42 Oak Ave starting next week",
        "I'm moving to 42 Oak Ave starting next week, update my address",
        "Change my address from 10 High St to 42 Oak Ave",
    ],
)
def test_the_new_street_is_the_address(declared: ToolSpec, said: str) -> None:
    name = next(iter(declared.parameters["properties"]))
    assert calls([declared], said) == [("update_address", {name: "42 Oak Ave"})]


def test_a_flat_after_the_street_is_kept() -> None:
    made = calls([ADDRESS], "Update my address to 42 Oak Ave apt 4")
    assert made == [("update_address", {"address": "42 Oak Ave apt 4"})]


def test_a_town_after_the_street_is_still_its_city() -> None:
    made = calls([STREET], "Update my address to 42 Oak Ave, Leeds")
    assert made == [("update_address", {"street": "42 Oak Ave", "city": "Leeds"})]


# -- 4. an ordering tool takes only things of the kinds its name and description say; a thing of another
#       declared tool's kind goes to that tool

ROOM_SERVICE = tool("order_room_service", "Order food from room service", {"item": STRING})
HOUSEKEEPING = tool("request_housekeeping", "Request housekeeping items or cleaning", {"request": STRING})
FOOD = tool("order_food", "Order food", {"item": STRING})
ITEM = tool("order_item", "Order an item", {"item": STRING})


def test_an_extra_pillow_is_housekeepings() -> None:
    made = calls([ROOM_SERVICE, HOUSEKEEPING], "Can I get an extra pillow?")
    assert made == [("request_housekeeping", {"request": "extra pillow"})]


def test_an_extra_pillow_is_no_room_service_dish() -> None:
    assert isinstance(calls([ROOM_SERVICE], "Can I get an extra pillow?"), str)


def test_a_sandwich_is_no_drink() -> None:
    assert isinstance(calls([DRINK], "Can I get a club sandwich?"), str)


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        (
            [ROOM_SERVICE, HOUSEKEEPING],
            "Can I get a club sandwich?",
            ("order_room_service", {"item": "club sandwich"}),
        ),
        ([ROOM_SERVICE], "Can I get a latte?", ("order_room_service", {"item": "latte"})),
        ([DRINK, FOOD], "Can I get a latte?", ("order_drink", {"drink": "latte"})),
        ([DRINK, FOOD], "Can I get a burger?", ("order_food", {"item": "burger"})),
        ([ITEM], "Can I get an extra pillow?", ("order_item", {"item": "extra pillow"})),
        ([FOOD], "Can I get a box of donuts?", ("order_food", {"item": "box of donuts"})),
    ],
)
def test_a_thing_of_the_tools_kind_or_none_known_is_ordered(
    declared: list[ToolSpec], said: str, expected: tuple[str, dict[str, str]]
) -> None:
    assert calls(declared, said) == [expected]


# -- 5. a record named, then its words after a comma or dash: the words are the record

TASK = tool("create_task", "Create a task", {"task": STRING})
TODO = tool("add_todo", "Add a to-do item", {"title": STRING})


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        (TASK, "Add a task, renew my passport", ("create_task", {"task": "renew my passport"})),
        (TASK, "Add a task - renew my passport", ("create_task", {"task": "renew my passport"})),
        (TASK, "Create a task, call mom", ("create_task", {"task": "call mom"})),
        (TODO, "Add a task, renew my passport", ("add_todo", {"title": "renew my passport"})),
        (TODO, "Add a to-do, buy milk", ("add_todo", {"title": "buy milk"})),
        (TASK, "Add a task: renew my passport", ("create_task", {"task": "renew my passport"})),
    ],
)
def test_a_records_words_after_a_comma_are_the_record(
    declared: ToolSpec, said: str, expected: tuple[str, dict[str, str]]
) -> None:
    assert calls([declared], said) == [expected]


def test_please_after_the_comma_is_no_task() -> None:
    assert calls([TASK], "Add a task, please") != [("create_task", {"task": "please"})]


# -- 7. a message dictated after its recipient and a colon is sent to them

SEND_TEXT = tool("send_text", "Send a text message", {"recipient": STRING, "message": STRING})
SEND_MESSAGE = tool("send_message", "Send a message", {"to": STRING, "body": STRING})


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        (
            SEND_TEXT,
            "Text John: I need to leave early",
            {"recipient": "John", "message": "I need to leave early"},
        ),
        (SEND_TEXT, "Message Sarah: running late", {"recipient": "Sarah", "message": "running late"}),
        (SEND_MESSAGE, "Text Mary Jones: see you at 5", {"to": "Mary Jones", "body": "see you at 5"}),
        (
            SEND_TEXT,
            "Text John saying I need to leave early",
            {"recipient": "John", "message": "I need to leave early"},
        ),
    ],
)
def test_a_message_after_its_recipient_and_a_colon_is_sent(
    declared: ToolSpec, said: str, expected: dict[str, str]
) -> None:
    assert calls([declared], said) == [(declared.name, expected)]


# -- 6. a country is no city: it fills a country parameter, and a city required is asked

CITY = tool("update_city", "Update the user's city", {"city": STRING})
LOCATION = tool(
    "update_location", "Update where the user lives", {"city": STRING, "country": STRING}, ["country"]
)
STORES = tool("find_stores", "Find stores near the user", {"city": STRING})


def test_a_country_said_for_a_city_asks_the_city() -> None:
    assert calls([CITY], "Update my city, I live in France") == "Which city do you mean?"
    assert calls([STORES], "Find stores in France") == "Which city do you mean?"


def test_a_country_said_fills_the_country() -> None:
    made = calls([LOCATION], "Update my city, I live in France")
    assert made == [("update_location", {"country": "France"})]


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        (STORES, "Find stores in Singapore", {"city": "Singapore"}),
        (STORES, "Find stores in Leeds", {"city": "Leeds"}),
        (CITY, "Update my city, I live in Leeds", {"city": "Leeds"}),
    ],
)
def test_a_city_or_a_city_state_is_still_the_city(
    declared: ToolSpec, said: str, expected: dict[str, str]
) -> None:
    assert calls([declared], said) == [(declared.name, expected)]


# -- 8. a town with its US state keeps the state in a location; "not celsius" of two sends the other


@pytest.mark.parametrize(
    ("said", "location"),
    [("Weather in Paris, Texas", "Paris, TX"), ("Weather in Springfield, IL", "Springfield, IL")],
)
def test_a_town_with_its_us_state_keeps_it(said: str, location: str) -> None:
    assert calls([WEATHER], said) == [("get_weather", {"location": location, "unit": "fahrenheit"})]


def test_a_city_parameter_keeps_the_town_alone() -> None:
    assert calls([WEATHER_CITY], "Weather in Paris, Texas") == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("Weather in Denver, not celsius", {"location": "Denver", "unit": "fahrenheit"}),
        ("Weather in Paris, not celsius", {"location": "Paris", "unit": "fahrenheit"}),
        ("Weather in Denver, not fahrenheit", {"location": "Denver", "unit": "celsius"}),
        ("Weather in Paris. Not fahrenheit", {"location": "Paris", "unit": "celsius"}),
        ("Weather in Paris", {"location": "Paris", "unit": "celsius"}),
    ],
)
def test_a_unit_refused_of_two_sends_the_other(said: str, expected: dict[str, str]) -> None:
    assert calls([WEATHER], said) == [("get_weather", expected)]


# -- 9. a US place gets the US's units of any kind (a system, a distance), as it gets Fahrenheit

FORECAST = tool(
    "get_forecast",
    "Get the forecast",
    {"location": STRING, "units": {"type": "string", "enum": ["standard", "metric", "imperial"]}},
)
DISTANCE = tool(
    "get_distance",
    "Distance between two cities",
    {"origin": STRING, "destination": STRING, "unit": {"type": "string", "enum": ["km", "miles"]}},
)


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        (FORECAST, "Forecast for Denver", {"location": "Denver", "units": "imperial"}),
        (FORECAST, "Forecast for Paris", {"location": "Paris", "units": "standard"}),
        (
            DISTANCE,
            "Distance from Boston to New York",
            {"origin": "Boston", "destination": "New York", "unit": "miles"},
        ),
        (DISTANCE, "Distance from Paris to Lyon", {"origin": "Paris", "destination": "Lyon", "unit": "km"}),
        (FORECAST, "Forecast for Denver in metric", {"location": "Denver", "units": "metric"}),
    ],
)
def test_a_us_place_gets_the_us_units(declared: ToolSpec, said: str, expected: dict[str, str]) -> None:
    assert calls([declared], said) == [(declared.name, expected)]


# -- 10. "p.m. on" ends no sentence; an acknowledgement alone tells no lookup's detail; a trip is "to"
#        its destination


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Dinner is at 7 p.m. on Friday. See you then.", ["Dinner is at 7 p.m. on Friday.", "See you then."]),
        ("Meet at 7 p.m. Then go home.", ["Meet at 7 p.m.", "Then go home."]),
        ("Bring fruit, e.g. apples. Ok.", ["Bring fruit, e.g. apples.", "Ok."]),
        ("I met Dr. Who today. Fine.", ["I met Dr. Who today.", "Fine."]),
    ],
)
def test_a_lower_case_abbreviation_ends_no_sentence(text: str, sentences: list[str]) -> None:
    assert names.SENTENCE_BREAK.split(text) == sentences


@pytest.mark.parametrize(
    ("call", "arguments", "output", "said"),
    [
        (
            "get_weather",
            {"location": "Paris"},
            {"status": "ok"},
            "I checked the weather in Paris, but no details came back.",
        ),
        (
            "lookup_order",
            {"order_id": "12345"},
            {"success": True},
            "I checked the order for 12345, but no details came back.",
        ),
        ("check_status", {}, {"status": "ok"}, "The status is ok."),
        ("book_trip", {"destination": "Lisbon"}, {"status": "ok"}, "I've booked the trip to Lisbon."),
        ("book_hotel", {"city": "Lisbon"}, {"status": "ok"}, "I've booked the hotel in Lisbon."),
        ("get_weather", {"location": "Paris"}, {"status": "ok", "temperature": 21}, None),
    ],
)
def test_an_output_is_read_back_as_a_model_says_it(
    call: str, arguments: dict[str, str], output: dict[str, object], said: str | None
) -> None:
    told = narration.grounding(json.dumps(output), call, json.dumps(arguments))
    if said is None:
        assert "no details" not in told
    else:
        assert told == said


def test_a_plain_text_output_keeps_its_p_m_sentence() -> None:
    told = narration.grounding(
        '"Booked for 7 p.m. on Friday. Enjoy."', "book_trip", '{"destination": "Lisbon"}'
    )
    assert told == "Booked for 7 p.m. on Friday."


def test_a_report_sent_to_a_department_ships_nothing() -> None:
    made = calls([CANCEL_ORDER, shipping(["order_id", "street"])], "Send the report to Finance")
    assert isinstance(made, str) and "street" not in made


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("Weather in Singapore", [("get_weather", {"city": "Singapore"})]),
        ("Weather in France", "Which city do you mean?"),
    ],
)
def test_the_tools_own_word_is_no_town_in_a_country(said: str, expected: object) -> None:
    # "Weather in Singapore" read as the town "Weather" in the country Singapore
    assert calls([WEATHER_CITY], said) == expected


@pytest.mark.parametrize(
    ("declared", "said", "expected"),
    [
        (
            tool("order_snack", "Order snacks from the bar", {"item": STRING}),
            "Can I get a sandwich?",
            "sandwich",
        ),
        (
            tool("order_coffee", "Order from the coffee shop", {"item": STRING}),
            "Can I get a muffin?",
            "muffin",
        ),
    ],
)
def test_a_bar_or_a_cafe_is_no_drinks_only_tool(declared: ToolSpec, said: str, expected: str) -> None:
    assert calls([declared], said) == [(declared.name, {"item": expected})]


def test_a_lookup_of_the_kind_is_asked_nothing() -> None:
    search = tool("search_amenities", "Search hotel amenities and towels", {"query": STRING})
    assert isinstance(calls([search], "Can I get an extra pillow?"), str)
