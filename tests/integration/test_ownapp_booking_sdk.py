"""A restaurant host a developer writes on the OpenAI Agents SDK (``RealtimeAgent`` + ``RealtimeRunner``,
typed turns), pointed at the engine with only the URL changed: the booking's details arrive across turns
("a table for four" … "tomorrow at seven in the evening" … "the name's Dana, my number is 555 0134")
and go out as one ``book_table`` call, whose new ID is said back. Before, the date and time were dropped
(an echo), the booking asked for the date again, and the ID was never read back."""

from __future__ import annotations

import json
from typing import Any

from agents import function_tool
from agents.realtime import RealtimeAgent

from tests.agents_sdk import agents_session
from tests.eventually import eventually
from tests.integration.test_own_tools_agents_sdk import _said, _turn

CALLS: list[dict[str, Any]] = []


@function_tool
def book_table(name: str, date: str, time: str, party_size: int, phone: str) -> str:
    """Book a table for a guest. Needs the guest's name, date, time, party size and phone number."""
    CALLS.append({"name": name, "date": date, "time": time, "party_size": party_size, "phone": phone})
    return json.dumps({"booking_id": "B-1042", "status": "confirmed"})


async def test_booking_details_given_across_turns_make_one_call(engine) -> None:
    CALLS.clear()
    eng = await engine(audio_pace=0.0)
    agent = RealtimeAgent(name="Host", instructions="You are the host of Luigi's.", tools=[book_table])
    async with agents_session(eng, agent) as (session, events):
        await _turn(session, events, "Hi, I'd like a table for four please.", runs_a_tool=False)
        first = _said(events)
        await _turn(session, events, "Tomorrow at seven in the evening.", runs_a_tool=False)
        again = _said(events)
        await _turn(session, events, "Great, book it. The name's Dana, my number is 555 0134.")
        # The grounding reply after the tool's output reaches the SDK's history: waited for, not slept
        # (0.5 s, which a loaded machine can outlast); if the ID is never read back, this times out.
        await eventually(
            lambda: "the booking ID is B-1042" in _said(events),
            timeout_s=15,
            message=lambda: f"the ID was not read back: {_said(events)!r}",
        )
    assert [e for e in events if e.type == "error"] == []
    assert first == again == "What name should I put the booking under?"
    assert len(CALLS) == 1
    assert {k: v for k, v in CALLS[0].items() if k != "date"} == {
        "name": "Dana",
        "time": "19:00",
        "party_size": 4,
        "phone": "555 0134",
    }
    assert "the booking ID is B-1042" in _said(events)
