"""Apps' own tools as a real model acts on them (brain3): the order a model asks for several missing
arguments in, what a problem tool's ``description`` holds, a hotel by its name "starting" on a date, a
doctor seen, moves said in other words mapped to the options a schema offers, and a switch-only app told
to move a thing (asked on or off)."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.brain import asking, scales
from tests.unit.made_up_apps import STRING, tool
from tests.unit.test_brain_own_tools_r2 import reply

PRIORITY = {"type": "string", "enum": ["low", "medium", "high"]}
DATE = {"type": "string", "format": "date"}


@pytest.mark.parametrize(
    ("properties", "required", "first"),
    [
        ({"priority": PRIORITY, "description": STRING}, ("priority", "description"), "description"),
        ({"priority": PRIORITY, "problem": STRING}, ("priority", "problem"), "problem"),
        ({"urgent": {"type": "boolean"}, "subject": STRING}, ("urgent", "subject"), "subject"),
        # open values keep the order ``required`` lists them in; options after them
        ({"date": DATE, "doctor": STRING, "kind": PRIORITY}, ("kind", "date", "doctor"), "date"),
        ({"priority": PRIORITY, "level": PRIORITY}, ("level", "priority"), "level"),
    ],
)
def test_what_the_call_is_about_is_asked_first_and_options_last(
    properties: dict[str, Any], required: tuple[str, ...], first: str
) -> None:
    made = tool("create_ticket", "Open a support ticket", properties, required)
    assert asking.first_to_ask(list(required), made) == first


@pytest.mark.parametrize(
    ("name", "description", "asked"),
    [
        ("create_ticket", "Open a support ticket", "Could you briefly describe the problem?"),
        ("report_bug", "File a report", "Could you briefly describe the problem?"),
        # an expense's description is the thing bought
        ("log_expense", "Record an expense", "What should the description be?"),
    ],
)
def test_a_problem_tools_description_is_asked_as_the_problem(name: str, description: str, asked: str) -> None:
    made = tool(name, description, {"description": STRING}, ("description",))
    assert asking.ask_for("description", made) == asked


@pytest.mark.parametrize(
    ("words", "options", "option"),
    [
        ("lower the blinds", ["open", "close"], "close"),
        ("raise the shades", ["open", "close"], "open"),
        ("turn the volume down, lower it", ["up", "down"], "down"),
        ("make it a bit brighter", ["dim", "brighten"], "brighten"),
        ("a little darker please", ["dim", "brighten"], "dim"),
        ("lower the blinds", ["up", "down"], "down"),
    ],
)
def test_a_move_said_in_other_words_names_the_option_offered(
    words: str, options: list[str], option: str
) -> None:
    found = scales.move_for(words, options)
    assert found is not None and found.value == option


def test_a_move_names_no_option_that_is_not_offered() -> None:
    assert scales.move_for("lower the blinds", ["dim", "brighten", "on"]) is not None  # dim: "lower"
    assert scales.move_for("lower the blinds", ["on", "off"]) is None


SWITCH = tool(
    "set_device",
    "Control a device",
    {"device": STRING, "state": {"type": "string", "enum": ["on", "off"]}},
    ("device", "state"),
)


@pytest.mark.parametrize(
    ("said", "calls", "words"),
    [
        (("close the blinds",), [], "Should I turn it on or off?"),
        (
            ("please open the bedroom curtains", "on"),
            [("set_device", {"device": "bedroom curtains", "state": "on"})],
            None,
        ),
        (("shut the garage door", "off"), [("set_device", {"device": "garage door", "state": "off"})], None),
        (("turn off the fan",), [("set_device", {"device": "fan", "state": "off"})], None),
        (("switch the heater on",), [("set_device", {"device": "heater", "state": "on"})], None),
        # a move told, not asked for
        (("I closed the blinds earlier",), [], None),
    ],
)
def test_a_switch_only_app_asks_on_or_off_for_a_thing_moved(
    said: tuple[str, ...], calls: list[Any], words: str | None
) -> None:
    got, text = reply((SWITCH,), *said)
    assert got == calls
    if words is not None:
        assert text == words
    if said == ("I closed the blinds earlier",):
        assert "on or off" not in text


def test_seeing_a_doctor_is_an_appointment_with_them() -> None:
    clinic = tool(
        "book_appointment",
        "Book an appointment at the clinic",
        {"doctor": STRING, "date": DATE, "time": STRING},
        ("doctor", "date", "time"),
    )
    assert reply((clinic,), "I need to see Dr. Patel") == ([], "What date would you like?")
    assert reply((clinic,), "I need to see Dr. Patel", "tomorrow at 10am")[0] == [
        ("book_appointment", {"doctor": "Dr. Patel", "date": "2026-03-03", "time": "10:00"})
    ]
    # a show, not a doctor: nothing to book
    assert reply((clinic,), "I want to see Doctor Who tonight")[0] == []


def test_starting_on_a_date_is_when_not_an_action() -> None:
    hotel = tool(
        "book_hotel",
        "Book a hotel room",
        {"hotel_name": STRING, "check_in": DATE, "nights": {"type": "integer"}},
        ("hotel_name", "check_in", "nights"),
    )
    assert reply((hotel,), "Can you get me the Hilton for three nights starting Friday?")[0] == [
        ("book_hotel", {"hotel_name": "Hilton", "check_in": "2026-03-06", "nights": 3})
    ]
    assert reply((hotel,), "I want the Ritz for two nights beginning on the 10th")[0] == [
        ("book_hotel", {"hotel_name": "Ritz", "check_in": "2026-03-10", "nights": 2})
    ]


def test_a_stay_said_in_weeks_and_this_weekend() -> None:
    hotel = tool(
        "book_hotel",
        "Book a hotel room",
        {"hotel_name": STRING, "check_in": DATE, "nights": {"type": "integer"}},
        ("hotel_name", "check_in", "nights"),
    )
    assert reply((hotel,), "reserve the Savoy for me, staying a week starting Monday")[0] == [
        ("book_hotel", {"hotel_name": "Savoy", "check_in": "2026-03-09", "nights": 7})
    ]
    assert reply((hotel,), "book the Savoy for a fortnight from this weekend")[0] == [
        ("book_hotel", {"hotel_name": "Savoy", "check_in": "2026-03-07", "nights": 14})
    ]
    # "a week on Thursday" is a date, not seven nights
    assert reply((hotel,), "book the Savoy a week on Thursday")[1] == "How many nights?"


def test_the_room_a_thing_is_in_said_before_it() -> None:
    blinds = tool(
        "control_blinds",
        "Move the window blinds",
        {"room": STRING, "action": {"type": "string", "enum": ["open", "close"]}},
        ("action",),
    )
    assert reply((blinds,), "raise the living room blinds")[0] == [
        ("control_blinds", {"room": "living room", "action": "open"})
    ]
    assert reply((blinds,), "close the blinds")[0] == [("control_blinds", {"action": "close"})]


@pytest.mark.parametrize(
    ("tools", "words"),
    [
        ((SWITCH,), "I turned off the TV earlier"),
        ((SWITCH,), "I already switched the heater off myself"),
        ((SWITCH,), "don't close the blinds"),
        (
            (
                tool(
                    "book_appointment",
                    "Book an appointment",
                    {"doctor": STRING, "date": DATE},
                    ("doctor", "date"),
                ),
            ),
            "you should see the dentist's new office",
        ),
        (
            (
                tool(
                    "book_hotel",
                    "Book a hotel room",
                    {"hotel_name": STRING, "check_in": DATE, "nights": {"type": "integer"}},
                    ("hotel_name", "check_in", "nights"),
                ),
            ),
            "the Hilton was full for three nights starting Friday",
        ),
    ],
)
def test_told_not_asked_calls_nothing_and_asks_nothing(tools: tuple[Any, ...], words: str) -> None:
    """Each a remark or a thing told: the new rules (a switch thrown, a doctor seen, "starting" a date, a
    thing moved) take none of them for a request."""
    calls, text = reply(tools, words)
    assert calls == [] and not text.endswith("?"), text
