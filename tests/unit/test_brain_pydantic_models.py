"""Parameters that are Pydantic models, as the OpenAI Agents SDK's ``@function_tool`` sends them: an object
through ``$ref`` (``location: Location``) and an array of them (``items: list[Item]``), strict mode (every
property required, optional ones nullable).

Before: the object was read as a free string (its name, "location", is a place word), filled with "Paris"
and then dropped as invalid, so "What's the forecast for Paris for the next 3 days?" got "Which location
do you mean?"; the list got "Which items do you mean?" and its words went into the optional ``note``.
Also the Agents SDK's plain ``get_time`` tool beside them: "get" alone called it."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import jsonschema
import pytest

from mockengine.brain.model import ForcedTool, ReplyRequest, ToolChoice, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

NULLABLE_STRING = {"anyOf": [{"type": "string"}, {"type": "null"}]}
NULLABLE_INTEGER = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
# get_forecast(location: Location, days: int, unit: Unit = Unit.celsius), Location(city, country=None)
FORECAST = {
    "$defs": {
        "Location": {
            "properties": {"city": {"title": "City", "type": "string"}, "country": NULLABLE_STRING},
            "required": ["city", "country"],
            "title": "Location",
            "type": "object",
            "additionalProperties": False,
        },
        "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"},
    },
    "properties": {
        "location": {"$ref": "#/$defs/Location"},
        "days": {"title": "Days", "type": "integer"},
        "unit": {"default": "celsius", "enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"},
    },
    "required": ["location", "days", "unit"],
    "title": "get_forecast_args",
    "type": "object",
    "additionalProperties": False,
}
# place_order(items: list[Item], delivery: Literal["standard", "express"], note: str | None = None)
ORDER = {
    "$defs": {
        "Item": {
            "properties": {
                "name": {"title": "Name", "type": "string"},
                "quantity": {"minimum": 1, "title": "Quantity", "type": "integer"},
            },
            "required": ["name", "quantity"],
            "title": "Item",
            "type": "object",
            "additionalProperties": False,
        }
    },
    "properties": {
        "items": {"items": {"$ref": "#/$defs/Item"}, "title": "Items", "type": "array"},
        "delivery": {"enum": ["standard", "express"], "title": "Delivery", "type": "string"},
        "note": NULLABLE_STRING,
    },
    "required": ["items", "delivery", "note"],
    "title": "place_order_args",
    "type": "object",
    "additionalProperties": False,
}
TOOLS = {
    "get_forecast": ToolSpec(
        "get_forecast", "Get the weather forecast for a location for a number of days.", FORECAST
    ),
    "place_order": ToolSpec("place_order", "Place an order for grocery items with a delivery speed.", ORDER),
}


def reply_to(text: str, choice: ToolChoice = "auto") -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
    request = ReplyRequest(
        "", tuple(TOOLS.values()), choice, ("text",), (TurnView("u1", "user_text", text),), 0
    )
    reply = ScriptedBrain(Scenario("pydantic"), seed=4, today=date(2026, 3, 2)).reply(request)
    made = [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]
    for name, arguments in made:
        jsonschema.validate(arguments, TOOLS[name].parameters)
    return made, reply.text


@pytest.mark.parametrize(
    ("text", "location", "country", "days", "unit"),
    [
        (
            "What's the forecast for Paris for the next 3 days in fahrenheit?",
            "Paris",
            "France",
            3,
            "fahrenheit",
        ),
        ("What's the weather forecast in New York for two days?", "New York", "United States", 2, "celsius"),
        ("What's the weather forecast in Tromsø for two days?", "Tromsø", None, 2, "celsius"),
    ],
)
def test_an_object_parameter_is_filled_from_its_parts(
    text: str, location: str, country: str | None, days: int, unit: str
) -> None:
    """The country is the one the city implies (``implied``), null for a place the tables do not know."""
    made, _ = reply_to(text)
    assert made == [
        ("get_forecast", {"location": {"city": location, "country": country}, "days": days, "unit": unit})
    ]


def test_every_part_of_the_object_heard_is_given() -> None:
    made, _ = reply_to("Forecast for Lyon in France for 5 days please")
    assert made == [
        ("get_forecast", {"location": {"city": "Lyon", "country": "France"}, "days": 5, "unit": "celsius"})
    ]


def test_an_object_whose_required_part_is_not_heard_is_asked_for() -> None:
    made, text = reply_to("What's the forecast for the next 3 days?")
    assert made == [] and text is not None and "location" in text.lower()


@pytest.mark.parametrize("choice", ["required", ForcedTool("get_forecast")], ids=str)
def test_a_forced_call_takes_the_object_heard(choice: ToolChoice) -> None:
    made, _ = reply_to("What's the forecast for Paris for the next 3 days?", choice)
    assert made[0][1]["location"] == {"city": "Paris", "country": "France"}


def test_an_array_of_objects_is_filled_from_a_list() -> None:
    made, _ = reply_to("Order two apples and three bananas with express delivery.")
    items = [{"name": "apples", "quantity": 2}, {"name": "bananas", "quantity": 3}]
    assert made == [("place_order", {"items": items, "delivery": "express", "note": None})]


def test_a_list_with_commas_keeps_its_order() -> None:
    made, _ = reply_to("Please order 6 eggs, 2 lemons and 1 melon, standard delivery")
    [(_, arguments)] = made
    assert [(i["name"], i["quantity"]) for i in arguments["items"]] == [
        ("eggs", 6),
        ("lemons", 2),
        ("melon", 1),
    ]
    assert arguments["delivery"] == "standard" and arguments["note"] is None


GET_TIME = ToolSpec(
    "get_time",
    "Get the local time in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Can I get my money back for order 4471?", []),  # was get_time {"city": "order 4471"}
        ("I need to get some groceries", []),  # was get_time {"city": "todo get some groceries"}
        ("get me a coffee", []),  # was get_time {"city": "coffee"}
        ("Can you get the time for Paris?", [("get_time", {"city": "Paris"})]),
        ("What time is it in Paris?", [("get_time", {"city": "Paris"})]),
    ],
)
def test_get_alone_asks_for_no_get_tool(text: str, expected: list[Any]) -> None:
    """The name's verb "get" alone is no request for what the tool gets (the Agents SDK's
    ``get_time`` beside a handoff)."""
    request = ReplyRequest("", (GET_TIME,), "auto", ("text",), (TurnView("u1", "user_text", text),), 0)
    reply = ScriptedBrain(Scenario("get"), seed=4, today=date(2026, 3, 2)).reply(request)
    assert [(call.name, json.loads(call.arguments)) for call in reply.tool_calls] == expected


def test_a_city_then_its_country_after_a_comma() -> None:
    """A city then its country ("Paris, France") gave ``country: null``: "France" was no phrase."""
    made, _ = reply_to("What's the forecast for Paris, France for the next 3 days?")
    assert made[0][1]["location"] == {"city": "Paris", "country": "France"}


# book_flight(origin: str, destination: str, cabin: Literal[...], passengers: list[Passenger]),
# Passenger(name: str, age: int | None = None), as the Agents SDK's @function_tool sends it
FLIGHT = {
    "$defs": {
        "Passenger": {
            "properties": {"name": {"title": "Name", "type": "string"}, "age": NULLABLE_INTEGER},
            "required": ["name", "age"],
            "title": "Passenger",
            "type": "object",
            "additionalProperties": False,
        }
    },
    "properties": {
        "origin": {"title": "Origin", "type": "string"},
        "destination": {"title": "Destination", "type": "string"},
        "cabin": {"enum": ["economy", "business", "first"], "title": "Cabin", "type": "string"},
        "passengers": {"items": {"$ref": "#/$defs/Passenger"}, "title": "Passengers", "type": "array"},
    },
    "required": ["origin", "destination", "cabin", "passengers"],
    "title": "book_flight_args",
    "type": "object",
    "additionalProperties": False,
}


def flight_call(text: str) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
    spec = ToolSpec("book_flight", "Book a flight for passengers.", FLIGHT)
    request = ReplyRequest("", (spec,), "auto", ("text",), (TurnView("u1", "user_text", text),), 0)
    reply = ScriptedBrain(Scenario("pydantic"), seed=4, today=date(2026, 3, 2)).reply(request)
    made = [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]
    for _, arguments in made:
        jsonschema.validate(arguments, FLIGHT)
    return made, reply.text


@pytest.mark.parametrize(
    ("text", "route", "cabin", "passengers"),
    [
        (
            "Book a business class flight from Boston to Denver for Ada aged 30 and Bob.",
            ("Boston", "Denver"),
            "business",
            [{"name": "Ada", "age": 30}, {"name": "Bob", "age": None}],
        ),
        (
            "Book a first class flight from London to Rome for two passengers, Ada and Bob.",
            ("London", "Rome"),
            "first",
            [{"name": "Ada", "age": None}, {"name": "Bob", "age": None}],
        ),
        (
            "Book an economy flight from Paris to Oslo for three passengers: Ada, Bob and Cy.",
            ("Paris", "Oslo"),
            "economy",
            [{"name": n, "age": None} for n in ("Ada", "Bob", "Cy")],
        ),
    ],
)
def test_a_list_of_objects_leaves_the_other_parameters_their_words(
    text: str, route: tuple[str, str], cabin: str, passengers: list[dict[str, Any]]
) -> None:
    """Before: the list took every word of the part it was read from ("Book a business class flight
    from Boston to Denver for Ada aged 30"), so the route was lost and the turn was answered "Where
    should I pick you up?"; "two passengers" was read as a passenger named "class" aged 2."""
    made, _ = flight_call(text)
    assert made == [
        (
            "book_flight",
            {"origin": route[0], "destination": route[1], "cabin": cabin, "passengers": passengers},
        )
    ]


# book_trip(traveller: Traveller, destination: str), Traveller(name, age): an object beside a string
TRIP = {
    "type": "object",
    "properties": {
        "traveller": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
        },
        "destination": {"type": "string", "description": "The city to travel to"},
    },
    "required": ["traveller", "destination"],
}


@pytest.mark.parametrize(
    ("said", "traveller"),
    [
        # whisper writes some short names in capitals: the traveller was the destination's "Lisbon"
        ("Book a trip to Lisbon for ADA, who was 36 years old.", {"name": "ADA", "age": 36}),
        ("Book a trip to Lisbon for Ada, who is 36 years old.", {"name": "Ada", "age": 36}),
    ],
)
def test_an_object_does_not_take_the_words_another_parameter_took(
    said: str, traveller: dict[str, Any]
) -> None:
    from mockengine.brain import slots
    from mockengine.brain.referents import Referent

    filled = slots.fill("book_trip", TRIP, said, Referent(), date(2026, 1, 1))
    assert filled.arguments == {"traveller": traveller, "destination": "Lisbon"}
