"""The OpenAI Agents SDK's realtime session on a real engine, as the tests of apps' own tools drive it
(test_brk20_sdk, test_brain21_sdk, test_own_tools_agents_sdk, test_ownapp_booking_sdk): a
``RealtimeRunner`` on the engine's URL, every session event collected in order while the test types its
turns; and the travel and weather agents' tools of the handoff tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from agents import function_tool
from agents.realtime import RealtimeAgent, RealtimeRunner, RealtimeSession

WEATHER_CALLS: list[str] = []  # the cities get_weather was asked about (a test clears it first)


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    WEATHER_CALLS.append(city)
    return f"The weather in {city} is sunny."


@function_tool
def book_flight(destination: str) -> str:
    """Book a flight to a destination."""
    return f"Booked a flight to {destination}."


@contextlib.asynccontextmanager
async def agents_session(
    engine: Any, agent: RealtimeAgent, *, modalities: tuple[str, ...] = ("text",)
) -> AsyncIterator[tuple[RealtimeSession, list[Any]]]:
    """``(session, events)``: the SDK's session on ``engine`` (a started test engine, its ``url``) with
    ``agent`` starting, model ``gpt-realtime``, the reply ``modalities``; ``events`` grows with every
    session event (``async for event in session``) until the block ends."""
    config = {"model_settings": {"model_name": "gpt-realtime", "modalities": list(modalities)}}
    runner = RealtimeRunner(starting_agent=agent, config=config)  # type: ignore[arg-type]
    url = f"{engine.url}/realtime?model=gpt-realtime"
    events: list[Any] = []
    async with await runner.run(model_config={"url": url, "api_key": "sk-test"}) as session:

        async def collect() -> None:
            async for event in session:
                events.append(event)

        task = asyncio.create_task(collect())
        try:
            yield session, events
        finally:
            task.cancel()


async def until_event(events: list[Any], kind: str, since: int = 0, timeout_s: float = 30) -> None:
    """Return once an event of type ``kind`` (``"handoff"``, ``"tool_end"``…) is in ``events[since:]``;
    ``TimeoutError`` after ``timeout_s``."""
    async with asyncio.timeout(timeout_s):
        while not any(e.type == kind for e in events[since:]):
            await asyncio.sleep(0.02)
