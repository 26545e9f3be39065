"""A booking app's own tools over Chat Completions with the openai SDK, as a new user tried them: the
phrases after prepositions go to the parameters their roles fit ("at Sakura" to the ``restaurant``, "for
John Smith" to the ``guest``), and a name said after "for" is the booking's ``name`` / ``guest_name`` /
``guest.name``, as "under Ada" and "the name is Ada" already were."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.own_tools import Chat, chat_client, chat_tool

BOOK_FLAT = chat_tool(
    "book_table",
    "Book a table at a restaurant.",
    {
        "restaurant": {"type": "string"},
        "guest": {"type": "string"},
        "party_size": {"type": "integer"},
        "time": {"type": "string"},
    },
)
APPOINTMENT = chat_tool(
    "book_appointment",
    "Book an appointment at a clinic.",
    {"clinic": {"type": "string"}, "patient": {"type": "string"}, "time": {"type": "string"}},
)
MEETING = chat_tool(
    "schedule_meeting",
    "Schedule a meeting in a room.",
    {"room": {"type": "string"}, "attendee": {"type": "string"}},
)


async def _calls(engine, tools: list[dict[str, Any]], words: str) -> list[tuple[str, dict[str, Any]]]:
    calls, content = await Chat(chat_client(await engine()), tools, tool_choice="auto").say(words)
    assert calls, content
    return calls


@pytest.mark.parametrize(
    ("tool", "words", "expected"),
    [
        (
            BOOK_FLAT,
            "Book a table for 2 at Sakura at 7pm for John Smith",
            {"restaurant": "Sakura", "guest": "John Smith", "party_size": 2, "time": "19:00"},
        ),
        (
            BOOK_FLAT,
            "Book a table at Sakura for 2 at 7pm for John Smith",
            {"restaurant": "Sakura", "guest": "John Smith", "party_size": 2, "time": "19:00"},
        ),
        (
            BOOK_FLAT,
            "Book a table for 4 at Luigi's at 19:00 for Bob",
            {"restaurant": "Luigi's", "guest": "Bob", "party_size": 4, "time": "19:00"},
        ),
        (
            APPOINTMENT,
            "Book an appointment at Riverside Clinic at 3pm for Maria Lopez",
            {"clinic": "Riverside Clinic", "patient": "Maria Lopez", "time": "15:00"},
        ),
        (MEETING, "Schedule a meeting in Everest with Bob", {"room": "Everest", "attendee": "Bob"}),
    ],
)
async def test_phrases_fill_the_parameters_their_prepositions_fit(
    engine, tool: dict[str, Any], words: str, expected: dict[str, Any]
) -> None:
    """The person parameter took the first capitalised name said, whatever its preposition: "at Sakura"
    became the guest, and "for John Smith", left over, the restaurant."""
    assert await _calls(engine, [tool], words) == [(tool["function"]["name"], expected)]


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
async def test_a_name_after_for_is_the_bookings(
    engine, parameter: str, schema: dict[str, Any], value: Any
) -> None:
    """ "… for Bob" asked "Which name do you mean?": only "under Bob" and "the name is Bob" gave it."""
    tool = chat_tool(
        "book_table",
        "Book a table at a restaurant.",
        {"restaurant": {"type": "string"}, "party_size": {"type": "integer"}, parameter: schema},
    )
    got = await _calls(engine, [tool], "Book a table at Luigi's for 4 for Bob")
    assert got == [("book_table", {"restaurant": "Luigi's", "party_size": 4, parameter: value})]


async def test_the_answer_to_which_restaurant_keeps_the_guest(engine) -> None:
    """ "Nobu" answering "Which restaurant do you mean?" after "… for Bob" went to the person parameter
    ``guest`` (already Bob) and was answered as small talk; it is the restaurant the call lacked."""
    client = chat_client(await engine())
    messages: list[Any] = [{"role": "user", "content": "Book a table for 3 at 8pm for Bob"}]
    asked = await client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[BOOK_FLAT])
    question = asked.choices[0].message
    assert not question.tool_calls and "restaurant" in (question.content or "").lower()
    messages += [{"role": "assistant", "content": question.content}, {"role": "user", "content": "Nobu"}]
    done = await client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[BOOK_FLAT])
    calls = done.choices[0].message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("book_table", {"restaurant": "Nobu", "guest": "Bob", "party_size": 3, "time": "20:00"})
    ]
