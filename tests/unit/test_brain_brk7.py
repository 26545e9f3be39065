"""brain9's new rules where they did what a real model would not (brk7). Each test failed on brain9's
head; the near misses beside each pin what brain9 fixed and must stay fixed."""

from __future__ import annotations

import pytest

from tests.brain_calls import calls, tool

STRING = {"type": "string"}

# -- 1. a number before a word ending in "s" is a count only after "for" / "of" / "with", and short

ORDER_STATUS = tool("get_order_status", "Get the status of an order", {"order_id": STRING})
TRACK = tool("track_package", "Track a package", {"tracking_number": STRING})
FLIGHT = tool("get_flight_status", "Get a flight's status", {"flight_number": STRING})
PRESCRIPTION = tool("get_prescription", "Look up a prescription", {"prescription_number": STRING})
RESERVATION = tool("get_reservation", "Look up a reservation", {"reservation_id": STRING})
SHIPPING = tool(
    "update_shipping_address",
    "Update the shipping address",
    {"street": STRING, "city": STRING, "postal_code": STRING},
    ["street", "city"],
)


@pytest.mark.parametrize(
    ("tools", "said", "expected"),
    [
        ([TRACK], "track 784512 details", ("track_package", {"tracking_number": "784512"})),
        ([FLIGHT], "flight 1234 updates please", ("get_flight_status", {"flight_number": "1234"})),
        (
            [PRESCRIPTION],
            "Check prescription 55102 refills",
            ("get_prescription", {"prescription_number": "55102"}),
        ),
        (
            [SHIPPING, ORDER_STATUS],
            "My order 12345 was sent to 40 Elm Rd, Leeds by mistake",
            ("get_order_status", {"order_id": "12345"}),
        ),
    ],
)
def test_an_id_before_a_word_ending_in_s_is_no_count(
    tools: list[object], said: str, expected: object
) -> None:
    assert calls(tools, said) == [expected]  # type: ignore[arg-type]


def test_the_last_few_of_a_records_entries_are_a_count() -> None:
    account = tool("get_account", "Look up a customer account", {"account_number": STRING})
    assert calls([account], "Show me the last 5 transactions on account 887766") == [
        ("get_account", {"account_number": "887766"})
    ]


@pytest.mark.parametrize(
    "said", ["Look up reservation for 4 people", "Look up my reservation for 2 guests tonight"]
)
def test_a_count_of_people_is_still_no_id(said: str) -> None:
    assert calls([RESERVATION], said) == "What's the reservation ID?"


# -- 2. a lookup asked in words, or news asked ("update me on"), is no change out of reach

ACCOUNT = tool("get_account", "Look up a customer account", {"account_number": STRING})


@pytest.mark.parametrize(
    ("tools", "said", "expected"),
    [
        ([ORDER_STATUS], "Can you update me on order 12345?", ("get_order_status", {"order_id": "12345"})),
        (
            [ORDER_STATUS],
            "Could you update me on my order 55123",
            ("get_order_status", {"order_id": "55123"}),
        ),
        (
            [ORDER_STATUS],
            "I need to change my address, but first where is order 12345?",
            ("get_order_status", {"order_id": "12345"}),
        ),
        (
            [ORDER_STATUS],
            "Where's order 12345? I may need to cancel it",
            ("get_order_status", {"order_id": "12345"}),
        ),
        (
            [RESERVATION],
            "Check my reservation ABC123, I might need to change it later",
            ("get_reservation", {"reservation_id": "ABC123"}),
        ),
        (
            [RESERVATION],
            "Look up reservation ABC123, I want to change it",
            ("get_reservation", {"reservation_id": "ABC123"}),
        ),
    ],
)
def test_a_lookup_asked_beside_a_change_is_made(tools: list[object], said: str, expected: object) -> None:
    assert calls(tools, said) == [expected]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tools", "said", "verb"),
    [
        ([RESERVATION], "my confirmation number is kq7rt and I want to cancel it", "cancel"),
        ([ORDER_STATUS], "I want to cancel order 12345", "cancel"),
        ([ACCOUNT], "I want to update my account 887766", "update"),
    ],
)
def test_a_change_alone_is_still_out_of_reach(tools: list[object], said: str, verb: str) -> None:
    assert calls(tools, said) == f"Sorry, I can't {verb} that here."  # type: ignore[arg-type]


# -- 3. what a shop or a restaurant gives that is no thing it sells, or "do you have", orders nothing

DRINK = tool("order_drink", "Order a drink", {"drink": STRING})
FOOD = tool("order_food", "Order food from the menu", {"item": STRING})
PRODUCT = tool("purchase_product", "Purchase a product", {"product_name": STRING})
TICKET = tool("buy_ticket", "Buy a ticket for an event", {"event": STRING})


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        ([DRINK], "Can I get a menu?"),
        ([DRINK], "Can I get a recommendation?"),
        ([DRINK], "I need a new card"),
        ([DRINK], "I want a different one"),
        ([FOOD], "Could I have a high chair for my kid?"),
        ([FOOD], "Can I get a waiter over here"),
        ([FOOD], "I want a vegetarian option, what do you have?"),
        ([PRODUCT], "Do you have a charger for this?"),
        ([PRODUCT], "Can I get a cheaper one?"),
        ([PRODUCT], "I need a bigger size"),
        ([PRODUCT], "Can I get a price match?"),
        ([TICKET], "I want a better seat"),
    ],
)
def test_no_thing_sold_is_ordered(tools: list[object], said: str) -> None:
    assert isinstance(calls(tools, said), str)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tools", "said", "expected"),
    [
        ([DRINK], "Can I get a large oat latte please", ("order_drink", {"drink": "large oat latte"})),
        ([DRINK], "Can I get a glass of water?", ("order_drink", {"drink": "glass of water"})),
        ([FOOD], "I want a pizza", ("order_food", {"item": "pizza"})),
        ([PRODUCT], "I want a new phone", ("purchase_product", {"product_name": "new phone"})),
    ],
)
def test_a_thing_sold_is_still_ordered(tools: list[object], said: str, expected: object) -> None:
    assert calls(tools, said) == [expected]  # type: ignore[arg-type]


# -- 4. an address said is sent to only when a thing is asked to be sent there

RIDE = tool("book_ride", "Book a ride", {"pickup": STRING, "dropoff": STRING})
DIRECTIONS = tool("get_directions", "Get driving directions", {"destination": STRING})


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        ([SHIPPING], "Why did it go to 40 Elm Rd, Leeds?"),
        ([SHIPPING], "Does it go to 12 Main St, Springfield"),
        ([SHIPPING], "My package went to 40 Elm Rd by mistake"),
        ([SHIPPING], "The driver went to 40 Elm Rd but I live at 42 Elm Rd"),
        ([SHIPPING, RIDE], "Take me to 40 Elm Rd, Leeds"),
        ([SHIPPING, DIRECTIONS], "How do I get to 40 Elm Rd, Leeds?"),
        ([SHIPPING, DIRECTIONS], "Navigate to 40 Elm Rd, Leeds"),
    ],
)
def test_an_address_not_sent_to_updates_nothing(tools: list[object], said: str) -> None:
    made = calls(tools, said)  # type: ignore[arg-type]
    assert not isinstance(made, list) or made[0][0] != "update_shipping_address"
    assert made != "Which city do you mean?"


@pytest.mark.parametrize(
    "said",
    [
        "Send it to 40 Elm Rd., Leeds",
        "Please deliver it to 40 Elm Rd, Leeds",
        "Ship them to 40 Elm Rd, Leeds",
    ],
)
def test_an_address_sent_to_is_still_shipped_to(said: str) -> None:
    assert calls([SHIPPING], said) == [("update_shipping_address", {"street": "40 Elm Rd", "city": "Leeds"})]


# -- 5. a required "unit" is picked only when its options are units, and no number said is in it


def _enum(*options: str) -> dict[str, object]:
    return {"type": "string", "enum": list(options)}


@pytest.mark.parametrize(
    ("tool_", "said"),
    [
        (
            tool("page_nurse", "Page a nurse to a hospital unit", {"unit": _enum("ICU", "ER", "Pediatrics")}),
            "Page a nurse please",
        ),
        (
            tool(
                "create_maintenance_request",
                "Create a maintenance request",
                {"unit": _enum("1A", "1B", "2A"), "issue": STRING},
            ),
            "Create a maintenance request, the sink is leaking",
        ),
        (
            tool(
                "rent_storage_unit", "Rent a storage unit", {"unit_size": _enum("small", "medium", "large")}
            ),
            "I want to rent a storage unit",
        ),
        (
            tool(
                "set_thermostat",
                "Set the thermostat",
                {"temperature": {"type": "number"}, "unit": _enum("celsius", "fahrenheit")},
            ),
            "Set the thermostat to 72",
        ),
        (
            tool("log_weight", "Log body weight", {"weight": {"type": "number"}, "unit": _enum("kg", "lb")}),
            "Log my weight as 180",
        ),
    ],
)
def test_a_unit_that_is_no_measure_or_measures_a_number_said_is_asked(tool_: object, said: str) -> None:
    made = calls([tool_], said)  # type: ignore[list-item]
    assert isinstance(made, str) and made.startswith("Which unit")


@pytest.mark.parametrize(
    ("tool_", "said", "expected"),
    [
        (
            tool(
                "get_distance",
                "Distance between two cities",
                {"origin": STRING, "destination": STRING, "unit": _enum("km", "miles")},
            ),
            "Distance from Boston to New York",
            # brain11: a US place gets the US's units, as it gets Fahrenheit (this pinned "km", the first)
            {"origin": "Boston", "destination": "New York", "unit": "miles"},
        ),
        (
            tool(
                "get_weather",
                "Get the weather",
                {"city": STRING, "units": _enum("standard", "metric", "imperial")},
            ),
            "What's the weather in Chicago?",
            {"city": "Chicago", "units": "imperial"},  # brain11: the US's system (this pinned "standard")
        ),
    ],
)
def test_a_unit_of_a_report_is_still_picked(tool_: object, said: str, expected: object) -> None:
    # the places are in the US: their units are the US's (brain11, ``verbatim.us_unit``); elsewhere the
    # first option stays (``test_brain_brain11``)
    assert calls([tool_], said) == [(tool_.name, expected)]  # type: ignore[attr-defined, list-item]


# -- 6. a forced call takes what the words give unforced: no placeholder where brain9 reads a value


def _forced(tool_: object, said: str) -> list[tuple[str, object]]:
    import json

    from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
    from mockengine.brain.model import ForcedTool
    from tests.brain_calls import TODAY

    request = ReplyRequest(
        "", (tool_,), ForcedTool(tool_.name), ("text",), (TurnView("u", "user_text", said),), 0
    )  # type: ignore[arg-type, attr-defined]
    reply = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request)
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


@pytest.mark.parametrize(
    ("tool_", "said", "expected"),
    [
        (DRINK, "Can I get a latte?", {"drink": "latte"}),
        (SHIPPING, "Send it to 40 Elm Rd., Leeds", {"street": "40 Elm Rd", "city": "Leeds"}),
    ],
)
def test_a_forced_call_takes_the_words_unforced_reading(tool_: object, said: str, expected: object) -> None:
    assert _forced(tool_, said) == [(tool_.name, expected)]  # type: ignore[attr-defined]


# -- 7. "I have to …" opening a request to a tool that keeps no to-dos frames it: no part of a value


@pytest.mark.parametrize(
    ("tools", "said", "expected"),
    [
        (
            [tool("create_event", "Create a calendar event", {"title": STRING, "start_time": STRING})],
            "I have to add a dentist appointment at 3pm",
            [("create_event", {"title": "dentist appointment", "start_time": "15:00"})],
        ),
        (
            [tool("send_message", "Send a text message", {"recipient": STRING, "message": STRING})],
            "Text John that I need to leave early",
            [("send_message", {"recipient": "John", "message": "I need to leave early"})],
        ),
    ],
)
def test_i_have_to_opening_a_request_is_no_value(tools: list[object], said: str, expected: object) -> None:
    assert calls(tools, said) == expected  # type: ignore[arg-type]
