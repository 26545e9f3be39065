"""A booking whose details arrive across turns, as a voice app's caller gives them (docs/tools.md, "The
answer to a question"): "a table for four" → "What name…?" → "tomorrow at seven in the evening" gives
no name but the date and time, which a model keeps (and asks for the name again) → "the name's Dana,
my number is 555 0134" books with all of them. The date and time were dropped (an echo), and the
booking asked for the date again."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from mockengine.brain.model import ReplyRequest, ToolSpec, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario

# The schema the OpenAI Agents SDK's function_tool sends for
# ``book_table(name: str, date: str, time: str, party_size: int, phone: str)``
BOOK = ToolSpec(
    "book_table",
    "Book a table for a guest. Needs the guest's name, date, time, party size and phone number.",
    {
        "type": "object",
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "date": {"title": "Date", "type": "string"},
            "time": {"title": "Time", "type": "string"},
            "party_size": {"title": "Party Size", "type": "integer"},
            "phone": {"title": "Phone", "type": "string"},
        },
        "required": ["name", "date", "time", "party_size", "phone"],
        "additionalProperties": False,
    },
)
TODAY = date(2026, 3, 2)


def reply(history: list[TurnView]) -> tuple[str | None, list[tuple[str, dict[str, Any]]]]:
    brain = ScriptedBrain(Scenario("across-turns"), seed=1, today=TODAY)
    request = ReplyRequest("", (BOOK,), "auto", ("text",), tuple(history), len(history))
    made = brain.reply(request)
    return made.text, [(call.name, json.loads(call.arguments)) for call in made.tool_calls]


def test_details_given_across_turns_accumulate_into_one_booking() -> None:
    history = [TurnView("u1", "user_text", "Hi, I'd like a table for four please.")]
    asked, calls = reply(history)
    assert calls == [] and asked == "What name should I put the booking under?"
    history += [
        TurnView("a1", "assistant", asked),
        TurnView("u2", "user_text", "Tomorrow at seven in the evening."),
    ]
    again, calls = reply(history)
    assert calls == [] and again == "What name should I put the booking under?"
    history += [
        TurnView("a2", "assistant", again),
        TurnView("u3", "user_text", "Great, book it. The name's Dana, my number is 555 0134."),
    ]
    assert reply(history)[1] == [
        (
            "book_table",
            {"name": "Dana", "date": "2026-03-03", "time": "19:00", "party_size": 4, "phone": "555 0134"},
        )
    ]
