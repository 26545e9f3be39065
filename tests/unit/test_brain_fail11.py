"""fail11: a tool's output read back as a model reads it. Each failed before its fix: ``{"ok": false}`` after
book_table was "I've booked the table.", ``{"status": "error", "detail": "city not found"}`` was "The status
in Paris is error and the detail is city not found.", "HTTP 500 Internal Server Error" was read out word for
word; a nested ``{"value": 18, "unit": "C"}`` temperature was "the value is 18", a humidity of 0.82 was
"0.82", a balance was "1234.5" with "the as of is …", a booking's table number and bare ``id`` went unsaid, a
list of flights was only counted; and "1 seconds left"."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from mockengine.brain import phrases
from mockengine.brain.context import ContextEvent
from mockengine.brain.narration import grounding

BOOKING = {"name": "Smith", "time": "8pm"}
PARIS = {"city": "Paris"}


def said(name: str, arguments: dict[str, Any], output: Any) -> str:
    text = output if isinstance(output, str) else json.dumps(output)
    return grounding(text, name, json.dumps(arguments))


@pytest.mark.parametrize(
    ("name", "arguments", "output", "expected"),
    [
        ("book_table", BOOKING, {"ok": False}, "Sorry, I couldn't book the table for Smith."),
        (
            "book_table",
            BOOKING,
            {"ok": False, "reason": "no tables free at 8"},
            "I couldn't book the table for Smith: no tables free at 8.",
        ),
        ("get_weather", PARIS, {"success": False}, "Sorry, I couldn't get the weather in Paris."),
        (
            "get_weather",
            PARIS,
            {"status": "error", "detail": "city not found"},
            "I couldn't get the weather in Paris: city not found.",
        ),
        (
            "get_weather",
            PARIS,
            {"status": "failed", "message": "Upstream timeout."},
            "I couldn't get the weather in Paris: upstream timeout.",
        ),
        (
            "get_weather",
            PARIS,
            {"errors": [{"message": "Rate limit exceeded"}]},
            "I couldn't get the weather in Paris: rate limit exceeded.",
        ),
        (
            "get_weather",
            PARIS,
            {"status_code": 404, "message": "City not found"},
            "I couldn't get the weather in Paris: city not found.",
        ),
        (
            "get_weather",
            PARIS,
            "HTTP 500 Internal Server Error",
            "I couldn't get the weather in Paris: "
            "the service returned an error (HTTP 500 Internal Server Error).",
        ),
        (
            "get_weather",
            PARIS,
            "404 Not Found",
            "I couldn't get the weather in Paris: the service returned an error (HTTP 404 Not Found).",
        ),
        (
            "get_weather",
            PARIS,
            "ValueError: city not found",
            "I couldn't get the weather in Paris: city not found.",
        ),
        (
            "get_weather",
            PARIS,
            "Traceback (most recent call last):\n  File \"w.py\", line 3, in get\nKeyError: 'Paris'",
            "Sorry, I couldn't get the weather in Paris.",
        ),
        (
            "get_weather",
            PARIS,
            "Error: city not found",
            "I couldn't get the weather in Paris: city not found.",
        ),
    ],
)
def test_a_failure_is_said_as_one_with_its_reason(
    name: str, arguments: dict[str, Any], output: Any, expected: str
) -> None:
    assert said(name, arguments, output) == expected


@pytest.mark.parametrize(
    ("name", "arguments", "output", "expected"),
    [
        ("book_table", BOOKING, {"ok": True}, "I've booked the table for Smith."),
        (
            "book_table",
            BOOKING,
            {"success": True, "status": "confirmed"},
            "I've booked the table for Smith. It's confirmed.",
        ),
        (
            "get_weather",
            PARIS,
            {"error": None, "temp": 21, "conditions": "sunny"},
            "It's 21 degrees and sunny in Paris.",
        ),
        ("get_weather", PARIS, "No errors: sunny and 21 degrees.", "No errors: sunny and 21 degrees."),
        ("get_address", {"name": "Ann"}, "404 Main Street, Springfield", "404 Main Street, Springfield."),
        # a failed status asked for, or beside the thing's other facts, is the thing's state
        ("get_payment_status", {"payment_id": "P-1"}, {"status": "failed"}, "The status for P-1 is failed."),
        (
            "get_job",
            {"job": "build"},
            {"state": "failed", "exit_code": 2},
            "The state for build is failed and the exit code is 2.",
        ),
        # a decision is the app's answer, no failure of the tool
        ("check_application", {"name": "Ann"}, {"status": "rejected"}, "The status for Ann is rejected."),
    ],
)
def test_a_success_is_no_failure(name: str, arguments: dict[str, Any], output: Any, expected: str) -> None:
    assert said(name, arguments, output) == expected


def test_a_temperature_given_as_value_and_unit_and_a_humidity_fraction() -> None:
    output = {"temperature": {"value": 18, "unit": "C"}, "conditions": "light rain", "humidity": 0.82}
    assert (
        said("get_weather", PARIS, output)
        == "It's 18 degrees Celsius with light rain in Paris and the humidity is 82 percent."
    )


def test_a_measure_given_as_value_and_unit_is_said_with_its_unit() -> None:
    output = {"distance": {"value": 5.2, "unit": "km"}, "duration": {"value": 14, "unit": "min"}}
    assert (
        said("get_route", {"destination": "Airport"}, output)
        == "The distance to Airport is 5.2 kilometers and the duration is 14 minutes."
    )


def test_an_amount_with_its_currency_and_an_as_of_date() -> None:
    output = {"balance": 1234.5, "currency": "USD", "as_of": "2026-12-05"}
    assert (
        said("get_balance", {"account": "checking"}, output)
        == "The balance for checking is 1,234.50 US dollars as of December 5, 2026."
    )


def test_a_price_in_euros() -> None:
    output = {"total": 42, "currency": "EUR"}
    assert said("get_cart_total", {}, output) == "The total is 42.00 euros."
    priced = {"price": {"amount": 249, "currency": "USD"}, "seats": 3}
    assert said("get_fare", {}, priced) == "The price is 249.00 US dollars and the seats are 3."


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ({"id": "B-771", "table": 12}, "I've booked table 12 for Smith. The reference is B-771."),
        ({"booking_id": "B-771", "table": 12}, "I've booked table 12 for Smith. The booking ID is B-771."),
        (
            {"booking": {"id": "B-771", "table": 12, "status": "confirmed"}},
            "I've booked table 12 for Smith. It's confirmed, and the booking ID is B-771.",
        ),
    ],
)
def test_a_booking_says_its_reference_and_table(output: dict[str, Any], expected: str) -> None:
    assert said("book_table", BOOKING, output) == expected


def test_a_field_named_as_the_thing_is_its_number_only_when_it_is_one() -> None:
    assert said("book_room", {"guest": "Ann"}, {"room": "4B"}) == "I've booked room 4B for Ann."
    assert said("send_message", {"to": "Dario"}, {"message": "ok123"}) == "I've sent the message to Dario."


def test_a_list_of_flights_names_the_first_ones_facts() -> None:
    output = {
        "flights": [
            {"flight": "UA 123", "airline": "United", "departure": "08:15", "arrival": "11:05", "price": 249},
            {"flight": "DL 45", "airline": "Delta", "departure": "13:40", "arrival": "16:30", "price": 199},
        ]
    }
    text = said("search_flights", {"origin": "Boston", "destination": "Denver"}, output)
    assert text == (
        "There are 2 flights from Boston; "
        "the first is UA 123 (airline United, departure 08:15, arrival 11:05)."
    )


@pytest.mark.parametrize(
    ("seconds", "expected"), [(1, "Okay, 1 second left."), (30, "Okay, 30 seconds left.")]
)
def test_a_timer_says_second_or_seconds(seconds: int, expected: str) -> None:
    data = {"event": "timer", "secondsLeft": seconds}
    event = ContextEvent("timer", data, json.dumps(data))
    assert phrases.context_reaction(event, "Sam", random.Random(1)) == expected
