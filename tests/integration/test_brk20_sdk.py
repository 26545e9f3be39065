"""Over the wire, with the OpenAI Agents SDK (``RealtimeAgent`` handoffs, typed turns) and the ``openai``
SDK's Chat Completions on a real engine on loopback: a user put through between two agents and back.
The handoff's tool (``transfer_to_<agent>``) was called for "transfer me to travel" but not for "take me
back to the weather agent" or "put me through to weather": their verbs counted as another action."""

from __future__ import annotations

import pytest
from agents.realtime import RealtimeAgent
from openai import AsyncOpenAI

from tests.agents_sdk import WEATHER_CALLS, agents_session, book_flight, get_weather, until_event
from tests.own_tools import STRING, Chat, chat_client, chat_tool, response_done, said

BOOK_FLIGHT = chat_tool("book_flight", "Book a flight to a destination on a date.", {"destination": STRING})
TO_WEATHER = chat_tool("transfer_to_weather", "Handoff to the Weather agent to handle the request. ", {})


@pytest.mark.parametrize(
    "words",
    ["Take me back to the weather agent", "Send me back to the weather agent", "Put me through to weather"],
)
async def test_asked_to_be_put_through_the_handoff_is_called(engine, words: str) -> None:
    calls, _ = await Chat(chat_client(await engine()), [BOOK_FLIGHT, TO_WEATHER]).say(words)
    assert calls == [("transfer_to_weather", {})]


async def test_two_agents_hand_the_user_there_and_back(engine) -> None:
    eng = await engine(audio_pace=0.0)
    weather = RealtimeAgent(name="Weather", instructions="You answer weather questions.", tools=[get_weather])
    travel = RealtimeAgent(name="Travel", instructions="You book flights.", tools=[book_flight])
    weather.handoffs, travel.handoffs = [travel], [weather]
    async with agents_session(eng, weather) as (session, events):
        for words in ("Transfer me to the travel agent", "Take me back to the weather agent"):
            seen = len(events)
            await session.send_message(words)
            await until_event(events, "handoff", seen)
    handoffs = [(e.from_agent.name, e.to_agent.name) for e in events if e.type == "handoff"]
    assert handoffs == [("Weather", "Travel"), ("Travel", "Weather")]
    assert [e for e in events if e.type == "error"] == []


async def test_a_question_for_the_other_agent_is_handed_to_it(engine) -> None:
    WEATHER_CALLS.clear()
    eng = await engine(audio_pace=0.0)
    weather = RealtimeAgent(name="Weather", instructions="You answer weather questions.", tools=[get_weather])
    travel = RealtimeAgent(name="Travel", instructions="You book flights.", tools=[book_flight])
    travel.handoffs = [weather]
    async with agents_session(eng, travel) as (session, events):
        await session.send_message("What's the weather in Rome?")
        await until_event(events, "tool_end")
    handoffs = [(e.from_agent.name, e.to_agent.name) for e in events if e.type == "handoff"]
    assert handoffs == [("Travel", "Weather")]
    assert WEATHER_CALLS == ["Rome"]
    assert [e for e in events if e.type == "error"] == []


@pytest.mark.parametrize(
    ("instructions", "reply"),
    [
        ("Reply with exactly: PONG", "PONG"),
        ('Respond with "OK"', "OK"),
        ("Answer with exactly: Ready.", "Ready."),
    ],
)
@pytest.mark.parametrize("conversation", ["auto", "none"])
async def test_a_reply_the_responses_instructions_dictate(
    engine, instructions: str, reply: str, conversation: str
) -> None:
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=(await engine()).url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        content = [{"type": "input_text", "text": "Hello again"}]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        await conn.response.create(response={"conversation": conversation, "instructions": instructions})
        assert said(await response_done(conn)) == reply
