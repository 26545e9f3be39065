"""A new user's own apps, driven through the Agents SDKs and Chat Completions (a travel agent, a smart home):
requests a real model acts on that the participant asked about again, or answered with nothing of the
tool's output."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.brain import ToolSpec
from mockengine.brain.acting import grounding
from tests.brain_calls import calls

ROOM = {"type": "string", "enum": ["kitchen", "bedroom", "living room"]}


def lights(flag: str) -> list[ToolSpec]:
    schema = {
        "type": "object",
        "properties": {"room": ROOM, flag: {"type": "boolean"}},
        "required": ["room", flag],
    }
    return [ToolSpec("set_lights", "Control smart lights.", schema)]


@pytest.mark.parametrize(
    ("flag", "text", "value"),
    [
        ("on", "Turn off the bedroom lights.", False),
        ("on", "Switch off the kitchen lights please.", False),
        ("power", "Turn on the bedroom lights.", True),
        ("power", "Turn off the bedroom lights.", False),
        ("enabled", "Switch on the living room lights.", True),
    ],
)
def test_a_switch_verb_before_the_thing_sets_the_flag(flag: str, text: str, value: bool) -> None:
    """ "Turn off the bedroom lights." to ``set_lights {room, on: boolean}`` got "Should it be on or off?":
    an on/off followed by "the" was taken for a preposition ("on the table"), also after turn/switch."""
    room = "bedroom" if "bedroom" in text else "kitchen" if "kitchen" in text else "living room"
    assert calls(lights(flag), text) == [("set_lights", {"room": room, flag: value})]


def hotel(check_in: dict[str, Any], check_out: dict[str, Any]) -> list[ToolSpec]:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "check_in": check_in, "check_out": check_out},
        "required": ["city", "check_in", "check_out"],
    }
    return [ToolSpec("book_hotel", "Book a hotel room.", schema)]


@pytest.mark.parametrize(
    ("check_in", "check_out"),
    [
        (
            {"type": "string", "description": "Check-in date, YYYY-MM-DD"},
            {"type": "string", "description": "Check-out date, YYYY-MM-DD"},
        ),
        (
            {"type": "string", "description": "ISO 8601 date"},
            {"type": "string", "description": "ISO 8601 date"},
        ),
        ({"type": "string"}, {"type": "string"}),  # check_in / check_out alone are days (a hotel's words)
    ],
)
@pytest.mark.parametrize(
    "text",
    [
        "Book a room in Tokyo from March 14 to March 20.",
        "Book a room in Tokyo, check in March 14, check out March 20.",
    ],
)
def test_a_date_parameter_is_known_by_its_description_or_name(
    check_in: dict[str, Any], check_out: dict[str, Any], text: str
) -> None:
    """``check_in`` described as "Check-in date, YYYY-MM-DD" was a free string (only the name and
    ``format`` were read): "Book a room in Tokyo from March 14 to March 20." got "Which check-in do you
    mean?"."""
    expected = {"city": "Tokyo", "check_in": "2027-03-14", "check_out": "2027-03-20"}
    assert calls(hotel(check_in, check_out), text) == [("book_hotel", expected)]


@pytest.mark.parametrize(
    ("output", "said"),
    [
        # brk30: the amount in both currencies, as a model says a conversion (was "The result is 270.")
        ('{"result": 270.0}', "250 EUR is 270 USD."),
        ("270.00 USD", "The result is 270.00 USD."),
        ('{"converted_amount": 270.5}', "250 EUR is 270.5 USD."),
    ],
)
def test_a_calculation_says_its_result(output: str, said: str) -> None:
    """convert_currency {amount: 250, from_currency: EUR, to_currency: USD} answered {"result": 270.0}
    was grounded "Done: EUR." (neither a lookup nor an action: the first argument said as the thing
    done), the result never said."""
    arguments = '{"amount": 250, "from_currency": "EUR", "to_currency": "USD"}'
    assert grounding(output, "convert_currency", arguments) == said


def cart(size: dict[str, Any], required: list[str]) -> list[ToolSpec]:
    schema = {
        "type": "object",
        "properties": {"product": {"type": "string"}, "quantity": {"type": "integer"}, "size": size},
        "required": required,
    }
    return [ToolSpec("add_to_cart", "Add a product to the shopping cart.", schema)]


SIZES = {"type": "string", "enum": ["S", "M", "L", "XL"]}


@pytest.mark.parametrize(
    ("size", "required"),
    [
        # LiveKit's ``size: Optional[Literal[...]] = None`` (optional, nullable)
        ({"anyOf": [SIZES, {"type": "null"}], "default": None}, ["product", "quantity"]),
        # the Agents SDK's strict form of the same: required, nullable
        ({"anyOf": [SIZES, {"type": "null"}]}, ["product", "quantity", "size"]),
    ],
)
def test_an_optional_enum_is_filled_without_failing_the_response(
    size: dict[str, Any], required: list[str]
) -> None:
    """``Optional[Literal["S", "M", "L", "XL"]]`` (``anyOf`` an enum and null) raised ``KeyError: 'enum'`` in
    the slot filler: the Realtime session failed and closed (LiveKit reconnected and replayed the turn
    into the same failure, four times)."""
    [(name, arguments)] = calls(cart(size, required), "Add two t-shirts in size L to my cart.")
    assert (name, arguments["quantity"], arguments["size"]) == ("add_to_cart", 2, "L")
    [(name, arguments)] = calls(cart(size, required), "Add two t-shirts to my cart.")
    assert arguments.get("size") is None


@pytest.mark.parametrize(
    ("call", "arguments", "output", "said"),
    [
        (
            "add_to_cart",
            '{"product": "t-shirts", "quantity": 2}',
            '{"cart_items": 3, "status": "added"}',
            "I've added t-shirts to the cart.",
        ),
        (
            "remove_from_playlist",
            '{"song": "Hey Jude"}',
            '{"ok": true}',
            "I've removed Hey Jude from the playlist.",
        ),
        ("move_to_folder", '{"folder": "Archive"}', "{}", "I've moved it to Archive."),
    ],
)
def test_an_action_named_with_a_preposition_says_where(
    call: str, arguments: str, output: str, said: str
) -> None:
    """LiveKit's ``add_to_cart`` answered {"status": "added"} was grounded "I've added the to cart:
    t-shirts. It's added.": the tool name's preposition read as the thing acted on, the state said again."""
    assert grounding(output, call, arguments) == said


@pytest.mark.parametrize(
    ("name", "items"),
    [("attendees", {"type": "string", "format": "email"}), ("emails", {"type": "string"})],
)
def test_a_list_of_email_addresses_takes_the_addresses(name: str, items: dict[str, Any]) -> None:
    """``attendees: {"type": "array", "items": {"format": "email"}}`` got ``["ana example", "raj
    example"]``: the list was cut from the words as phrases, the addresses' punctuation lost."""
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string"}, name: {"type": "array", "items": items}},
        "required": ["title"],
    }
    tools = [ToolSpec("create_event", "Create a calendar event.", schema)]
    said = "Create an event called team sync with ana@example.com and raj@example.com."
    assert calls(tools, said) == [
        ("create_event", {"title": "team sync", name: ["ana@example.com", "raj@example.com"]})
    ]


@pytest.mark.parametrize(
    "when", ["on 2027-03-14", "on March 14", "on Friday", "on the 14th of March", "on 14 March"]
)
def test_on_before_a_day_is_no_switch(when: str) -> None:
    """The Agents SDK's ``flexible_dates: Optional[bool] = None`` (strict: required, nullable) was
    ``true`` for "… from Paris to Tokyo on 2027-03-14": the "on" of a day read as a switch turned on."""
    flexible = {"anyOf": [{"type": "boolean"}, {"type": "null"}]}
    schema = {
        "type": "object",
        "properties": {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string"},
            "flexible_dates": flexible,
        },
        "required": ["origin", "destination", "date", "flexible_dates"],
        "additionalProperties": False,
    }
    tools = [ToolSpec("search_flights", "Search flights between two cities on a date.", schema)]
    [(name, arguments)] = calls(tools, f"Find me a flight from Paris to Tokyo {when}.")
    assert (name, arguments["flexible_dates"]) == ("search_flights", None)
    assert arguments["date"] and arguments["date"] != "on"


def test_a_house_number_is_no_zip_code() -> None:
    """``address: {street, city, zip}`` from "deliver to 12 Baker Street in London" was ``{"street":
    "Baker", "city": "London", "zip": "12"}``: the house number taken for the zip code (a street without
    ``zip`` beside it got "12 Baker Street")."""
    text = {"type": "string"}
    address = {
        "type": "object",
        "properties": {"street": text, "city": text, "zip": text},
        "required": ["street", "city"],
    }
    size = {"type": "string", "enum": ["small", "medium", "large"]}
    properties = {"size": size, "address": address}
    schema = {"type": "object", "properties": properties, "required": ["size", "address"]}
    tools = [ToolSpec("order_pizza", "Order a pizza.", schema)]
    said = "Order a large pizza, deliver to 12 Baker Street in London."
    expected = {"size": "large", "address": {"street": "12 Baker Street", "city": "London"}}
    assert calls(tools, said) == [("order_pizza", expected)]


@pytest.mark.parametrize(
    ("said", "tags"),
    [
        ("tag it groceries", ["groceries"]),
        ("tagged groceries", ["groceries"]),
        ("with the tags groceries and home", ["groceries", "home"]),
        ("tags: groceries, home", ["groceries", "home"]),
    ],
)
def test_a_list_said_after_its_name_is_filled(said: str, tags: list[str]) -> None:
    """The JS Agents SDK's ``tags: z.array(z.string())`` (required) after "…, tag it groceries." got
    "What tags would you like?": a list was never read beside its own name, as a free string is."""
    text = {"type": "string"}
    schema = {
        "type": "object",
        "properties": {"title": text, "tags": {"type": "array", "items": text}},
        "required": ["title", "tags"],
    }
    tools = [ToolSpec("add_todo", "Add an item to the todo list.", schema)]
    assert calls(tools, f"Add buy milk to my todo list, {said}.") == [
        ("add_todo", {"title": "buy milk", "tags": tags})
    ]


@pytest.mark.parametrize("message", ["see you tomorrow", "the meeting moved to noon"])
def test_what_a_message_says_after_a_colon_asks_for_nothing(message: str) -> None:
    """ "Email bob@example.com: see you tomorrow." got "Goodbye, talk to you soon.": the message's own
    verbs ("see", "moved") were taken for other actions, so no tool matched, and the words were then
    answered as a farewell."""
    text = {"type": "string"}
    schema = {
        "type": "object",
        "properties": {"to": {"type": "string", "format": "email"}, "body": text},
        "required": ["to", "body"],
    }
    tools = [ToolSpec("send_email", "Send an email.", schema)]
    assert calls(tools, f"Email bob@example.com: {message}.") == [
        ("send_email", {"to": "bob@example.com", "body": message})
    ]


@pytest.mark.parametrize(
    ("said", "source", "target"),
    [
        ("Move 200 dollars from savings to checking.", "savings", "checking"),
        ("Move 200 dollars to savings from checking.", "checking", "savings"),
        ("Transfer 50 from my checking account into savings.", "checking", "savings"),
    ],
)
def test_from_and_to_options_go_where_they_were_said(said: str, source: str, target: str) -> None:
    """``transfer_money {from_account, to_account}`` (both the enum checking/savings) from "Move 200
    dollars from savings to checking." was the transfer reversed: each took the first option it found."""
    accounts = {"type": "string", "enum": ["checking", "savings"]}
    schema = {
        "type": "object",
        "properties": {"amount": {"type": "number"}, "from_account": accounts, "to_account": accounts},
        "required": ["amount", "from_account", "to_account"],
    }
    tools = [ToolSpec("transfer_money", "Transfer money between accounts.", schema)]
    [(name, arguments)] = calls(tools, said)
    assert (arguments["from_account"], arguments["to_account"]) == (source, target)


@pytest.mark.parametrize("nested", [True, False])
def test_a_whole_name_is_split_into_first_and_last(nested: bool) -> None:
    """``patient: {first_name, last_name}`` from "Book me with Dr. Patel, my name is Jane Doe." was
    ``{"first_name": "Jane Doe", "last_name": "Dr. Patel"}``."""
    text = {"type": "string"}
    person = {"first_name": text, "last_name": text}
    patient = {"type": "object", "properties": person, "required": ["first_name", "last_name"]}
    properties = {"patient": patient} if nested else person
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    tools = [ToolSpec("book_appointment", "Book a doctor's appointment.", schema)]
    [(_, arguments)] = calls(tools, "Book me with Dr. Patel, my name is Jane Doe.")
    got = arguments["patient"] if nested else arguments
    assert (got["first_name"], got["last_name"]) == ("Jane", "Doe")
