"""Names in bookings, as a new user's restaurant app met them: a person parameter takes no proper name
that a preposition places in another parameter's role ("at Sakura" is the restaurant's, not the guest's),
and "for" + a person's name is who the booking is for (``name``, ``guest_name``, ``guest.name``), as
"under Ada" was."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import jsonschema
import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario, names, slots
from mockengine.brain.referents import Referent


def _schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


BOOK_FLAT = _schema(
    {
        "restaurant": {"type": "string"},
        "guest": {"type": "string"},
        "party_size": {"type": "integer"},
        "time": {"type": "string"},
    }
)


def _reply(tool: ToolSpec, said: list[str]) -> list[tuple[str, Any]] | str:
    """What the brain does after the user turns ``said``, each question it asks kept in the history."""
    items: list[TurnView] = []
    got: list[tuple[str, Any]] | str = ""
    for index, words in enumerate(said):
        items.append(TurnView(f"u{index}", "user_text", words))
        reply = ScriptedBrain(load_scenario(None), 3, today=date(2026, 12, 1)).reply(
            ReplyRequest("", (tool,), "auto", ("text",), tuple(items), len(items) - 1)
        )
        for call in reply.tool_calls:
            jsonschema.validate(json.loads(call.arguments), tool.parameters)
        got = [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] or (reply.text or "")
        items.append(TurnView(f"a{index}", "assistant", got if isinstance(got, str) else "Done."))
    return got


def _fill(schema: dict[str, Any], words: str, tool: str = "book_table") -> dict[str, Any]:
    return slots.fill(tool, schema, words, Referent(), date(2026, 12, 1), description="").arguments


# -- a person parameter and the other parameters' prepositions


@pytest.mark.parametrize(
    "words",
    [
        "Book a table for 2 at Sakura at 7pm for John Smith",
        "Book a table at Sakura for 2 at 7pm for John Smith",
        "Book a table for John Smith at Sakura for 2 people at 7pm",
    ],
)
def test_at_a_name_is_the_restaurant_and_for_a_name_the_guest(words: str) -> None:
    assert _reply(ToolSpec("book_table", "Book a table at a restaurant.", BOOK_FLAT), [words]) == [
        ("book_table", {"restaurant": "Sakura", "guest": "John Smith", "party_size": 2, "time": "19:00"})
    ]


@pytest.mark.parametrize(
    ("schema", "words", "expected"),
    [
        (
            _schema({"room": {"type": "string"}, "attendee": {"type": "string"}}),
            "Schedule a meeting in Everest with Bob",
            {"room": "Everest", "attendee": "Bob"},
        ),
        (
            _schema({"store": {"type": "string"}, "recipient": {"type": "string"}}),
            "Send flowers from the shop at Bloom to Alice",
            {"store": "Bloom", "recipient": "Alice"},
        ),
        (
            _schema({"clinic": {"type": "string"}, "patient": {"type": "string"}}),
            "Book an appointment at Riverside Clinic for Maria",
            {"clinic": "Riverside Clinic", "patient": "Maria"},
        ),
    ],
)
def test_a_person_takes_no_name_another_parameters_preposition_places(
    schema: dict[str, Any], words: str, expected: dict[str, Any]
) -> None:
    assert _fill(schema, words) == expected


def test_a_name_after_at_is_no_guest_when_a_restaurant_is_asked_for() -> None:
    """Only "at Nobu" said: the restaurant is Nobu and the guest is asked for (it was the other way)."""
    tool = ToolSpec("book_table", "Book a table at a restaurant.", BOOK_FLAT)
    assert "guest" in str(_reply(tool, ["Book a table at Nobu for 3 at 8pm"])).lower()


def test_a_person_alone_still_takes_a_name_after_any_preposition() -> None:
    """No other parameter has the role of "at": the name after it is the person's, as before."""
    schema = _schema({"guest": {"type": "string"}, "party_size": {"type": "integer"}})
    assert _fill(schema, "Book a table for 2 at Sakura") == {"guest": "Sakura", "party_size": 2}


def test_the_language_parameter_is_found_as_before() -> None:
    schema = _schema({"text": {"type": "string"}, "target_language": {"type": "string"}})
    assert _fill(schema, "translate good morning into Spanish", "translate")["target_language"] == "Spanish"


# -- "for" + a name


@pytest.mark.parametrize(
    ("words", "name"),
    [
        ("a table for John Smith", "John Smith"),
        ("a table for 2 at Sakura for Bob.", "Bob"),
        ("an appointment for Dr. Who please", "Dr. Who"),
    ],
)
def test_booked_for_finds_the_person(words: str, name: str) -> None:
    found = names.booked_for(words)
    assert found is not None and found.value == name
    assert words[found.start : found.end] == name


@pytest.mark.parametrize(
    "words",
    [
        "a table for two",
        "a table for Friday",
        "a flight for Paris",
        "a table for Mom's birthday",
        "a table for Christmas",
        "a lesson for Spanish",
        "For example, book it",
    ],
)
def test_booked_for_is_none_without_a_persons_name(words: str) -> None:
    assert names.booked_for(words) is None


@pytest.mark.parametrize(
    ("parameter", "schema", "value"),
    [
        ("name", {"type": "string"}, "Bob"),
        ("guest_name", {"type": "string"}, "Bob"),
        ("passenger_name", {"type": "string"}, "Bob"),
        (
            "guest",
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            {"name": "Bob"},
        ),
    ],
)
def test_for_a_name_is_the_bookings_name(parameter: str, schema: dict[str, Any], value: Any) -> None:
    properties = {"restaurant": {"type": "string"}, "party_size": {"type": "integer"}, parameter: schema}
    tool = ToolSpec("book_table", "Book a table at a restaurant.", _schema(properties))
    assert _reply(tool, ["Book a table at Luigi's for 4 for Bob"]) == [
        ("book_table", {"restaurant": "Luigi's", "party_size": 4, parameter: value})
    ]


@pytest.mark.parametrize("answer", ["for John Smith", "It's for John Smith"])
def test_for_a_name_answers_the_question_for_it(answer: str) -> None:
    properties = {
        "restaurant": {"type": "string"},
        "party_size": {"type": "integer"},
        "name": {"type": "string"},
    }
    tool = ToolSpec("book_table", "Book a table at a restaurant.", _schema(properties))
    assert _reply(tool, ["Book a table at Nobu for 3", answer]) == [
        ("book_table", {"restaurant": "Nobu", "party_size": 3, "name": "John Smith"})
    ]


def test_for_a_day_still_asks_for_the_name() -> None:
    properties = {"restaurant": {"type": "string"}, "name": {"type": "string"}}
    tool = ToolSpec("book_table", "Book a table at a restaurant.", _schema(properties))
    assert _reply(tool, ["Book a table for Friday at Luigi's"]) == "What name should I put the booking under?"


# -- the answer to the question for what a call still lacks


@pytest.mark.parametrize("answer", ["Nobu", "at Nobu", "Nobu please"])
def test_the_answer_fills_what_the_call_lacks_not_the_person_it_has(answer: str) -> None:
    """The guest was known ("for Bob") and the restaurant asked for: "Nobu", read whole, went to the
    person parameter ``guest`` again and the answer was taken as small talk ("I heard you say Nobu")."""
    tool = ToolSpec("book_table", "Book a table at a restaurant.", BOOK_FLAT)
    assert _reply(tool, ["Book a table for 3 at 8pm for Bob", answer]) == [
        ("book_table", {"restaurant": "Nobu", "guest": "Bob", "party_size": 3, "time": "20:00"})
    ]
