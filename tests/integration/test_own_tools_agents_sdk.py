"""Two apps' own tools through the OpenAI Agents SDK (``RealtimeAgent`` + ``RealtimeRunner``, typed
turns), as a developer tries them: a support desk (``create_ticket`` with enum priority and category, a
summary and an email; ``lookup_order`` with an ID pattern) and a smart home (``control_device`` with enum
room, device and state, and an optional level). The SDK runs the tools with the arguments the engine
sends; the question for a missing room is answered and the call goes out."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from agents import function_tool
from agents.realtime import RealtimeAgent
from agents.realtime.items import AssistantMessageItem
from pydantic import Field

from tests.agents_sdk import agents_session

TIMEOUT_S = 30
CALLS: list[tuple[str, dict[str, Any]]] = []


@function_tool
def create_ticket(
    priority: Literal["low", "medium", "high", "urgent"],
    category: Literal["billing", "technical", "account", "shipping", "other"],
    summary: str,
    email: str,
) -> str:
    """Create a support ticket."""
    CALLS.append(
        ("create_ticket", {"priority": priority, "category": category, "summary": summary, "email": email})
    )
    return "Ticket T-1 created."


@function_tool
def lookup_order(order_id: Annotated[str, Field(pattern=r"^ORD-[0-9]{5}$")]) -> str:
    """Look up an order by its ID."""
    CALLS.append(("lookup_order", {"order_id": order_id}))
    return "It shipped yesterday."


@function_tool
def control_device(
    room: Literal["living_room", "kitchen", "bedroom", "office"],
    device: Literal["lights", "fan", "tv"],
    state: Literal["on", "off"],
    level: int | None = None,
) -> str:
    """Control a smart home device."""
    CALLS.append(("control_device", {"room": room, "device": device, "state": state, "level": level}))
    return "Done."


async def _turn(session: Any, events: list[Any], words: str, *, runs_a_tool: bool = True) -> None:
    """Send ``words`` and wait until the agent's turn for them ends: after the tool it runs, when
    ``runs_a_tool`` (the response that made the call ends before the tool runs), else after its reply."""
    start = len(events)
    await session.send_message(words)
    async with asyncio.timeout(TIMEOUT_S):
        while True:
            kinds = [e.type for e in events[start:]]
            ended = [i for i, kind in enumerate(kinds) if kind == "agent_end"]
            ran = [i for i, kind in enumerate(kinds) if kind == "tool_end"]
            if ended and (ended[-1] > ran[-1] if ran else not runs_a_tool):
                return
            await asyncio.sleep(0.02)


def _said(events: list[Any]) -> str:
    history = [e for e in events if e.type == "history_updated"][-1].history
    said = [
        getattr(part, "transcript", None) or getattr(part, "text", None) or ""
        for item in history
        if isinstance(item, AssistantMessageItem)
        for part in item.content
    ]
    return said[-1] if said else ""


async def test_a_support_desk_and_a_smart_home_through_the_agents_sdk(engine) -> None:
    CALLS.clear()
    eng = await engine(audio_pace=0.0)
    agent = RealtimeAgent(
        name="Assistant", instructions="Help.", tools=[create_ticket, lookup_order, control_device]
    )
    async with agents_session(eng, agent) as (session, events):
        await _turn(
            session,
            events,
            "open a ticket: I can't log in to my account, email bob@example.com, high priority",
        )
        await _turn(
            session, events, "my package never arrived, please open a ticket, not urgent, sam@example.org"
        )
        await _turn(session, events, "can you check order ORD 12345")
        await _turn(session, events, "turn the lights off", runs_a_tool=False)
        asked = _said(events)
        await _turn(session, events, "the living room")
        await _turn(session, events, "put the office fan on full")
    assert [e for e in events if e.type == "error"] == []
    assert asked == "Which room would you like: living room, kitchen, bedroom or office?"
    assert CALLS == [
        (
            "create_ticket",
            {
                "priority": "high",
                "category": "account",
                "summary": "I can't log in to my account",
                "email": "bob@example.com",
            },
        ),
        (
            "create_ticket",
            {
                "priority": "low",
                "category": "shipping",
                "summary": "my package never arrived",
                "email": "sam@example.org",
            },
        ),
        ("lookup_order", {"order_id": "ORD-12345"}),
        ("control_device", {"room": "living_room", "device": "lights", "state": "off", "level": None}),
        ("control_device", {"room": "office", "device": "fan", "state": "on", "level": 100}),
    ]
