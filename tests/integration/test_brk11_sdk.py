"""Over the wire, with the official ``openai`` SDK (Chat Completions, and Realtime for an out-of-band
response, on a real engine on loopback): near misses of brain15's rules it read wrong, each passing on
brain15's base (e3d9fd76) or failing in the same class, before brk11's fixes."""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI

from tests.own_tools import STRING, Chat, chat_client, chat_tool, response_done, said

TRACK_ORDER = chat_tool("track_order", "Track an order", {"order_id": STRING})
SHIP_ORDER = chat_tool(
    "ship_order", "Ship an order to an address", {"order_id": STRING, "destination": STRING}
)
SET_ALARM = chat_tool("set_alarm", "Set an alarm", {"time": STRING})
SCHEDULE_MEETING = chat_tool("schedule_meeting", "Schedule a meeting", {"title": STRING, "time": STRING})
CHANGE_BOOKING = chat_tool("change_booking", "Move a booking", {"date": STRING, "time": STRING})


async def test_has_it_shipped_asks_after_the_order(engine) -> None:
    # brain15 asked ship_order's destination: "shipped" counted as ship_order's own word
    calls, _ = await Chat(chat_client(await engine()), [TRACK_ORDER, SHIP_ORDER]).say(
        "Has order 12345 shipped?"
    )
    assert calls == [("track_order", {"order_id": "12345"})]


@pytest.mark.parametrize(
    ("tool", "words", "time"),
    [
        (SCHEDULE_MEETING, "Schedule a meeting about the alarm at 3", "15:00"),  # brain15 03:00
        (CHANGE_BOOKING, "Move my dentist booking to Saturday at 9", "09:00"),  # brain15 21:00
        (SET_ALARM, "Set an alarm for 7, no, 8", "08:00"),  # brain15 07:00
    ],
)
async def test_an_hours_half_of_the_day(engine, tool: Any, words: str, time: str) -> None:
    calls, _ = await Chat(chat_client(await engine()), [tool]).say(words)
    assert [call[1]["time"] for call in calls] == [time]


async def test_an_out_of_band_summary_of_greetings(engine) -> None:
    # brain15 said "Nothing said yet." though the user had greeted
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        content = [{"type": "input_text", "text": "Hi, thanks!"}]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        await conn.response.create(
            response={
                "conversation": "none",
                "instructions": "Summarize in 3 words.",
                "output_modalities": ["text"],
            }
        )
        summary = said(await response_done(conn))
    assert summary == "Greetings exchanged only.", summary
