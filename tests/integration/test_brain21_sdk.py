"""Over the wire, with the OpenAI Agents SDK (``RealtimeAgent`` handoffs) and the ``openai`` SDK (Chat
Completions and Realtime) on a real engine on loopback: brain21's cases, each failed on its base
(ab64ef3e): "Take me to the weather agent", a reply language the instructions set, ``json_object`` keys
named otherwise than "keys name and age", and an email told by its fields."""

from __future__ import annotations

import json

import pytest
from agents.realtime import RealtimeAgent
from openai import AsyncOpenAI

from tests.agents_sdk import agents_session, book_flight, get_weather, until_event
from tests.own_tools import (
    BOOK_FLIGHT,
    EMAIL_TO_MANY,
    PROFILE_KEYS_OTHERWISE,
    TO_WEATHER_AGENT,
    Chat,
    chat_client,
    realtime_turn,
    response_done,
    said,
    turn,
)


async def test_take_me_to_the_weather_agent_calls_the_handoff(engine) -> None:
    server = await engine()
    calls, _ = await Chat(chat_client(server), [BOOK_FLIGHT, TO_WEATHER_AGENT]).say(
        "Take me to the weather agent"
    )
    assert calls == [("transfer_to_weather_agent", {})]
    made, _ = await realtime_turn(
        server, [BOOK_FLIGHT, TO_WEATHER_AGENT], "Can you take me to the weather agent?"
    )
    assert made == [("transfer_to_weather_agent", {})]


async def test_an_agents_sdk_user_taken_to_the_weather_agent(engine) -> None:
    eng = await engine(audio_pace=0.0)
    weather = RealtimeAgent(
        name="Weather Agent", instructions="You answer weather questions.", tools=[get_weather]
    )
    travel = RealtimeAgent(
        name="Travel", instructions="You book flights.", tools=[book_flight], handoffs=[weather]
    )
    async with agents_session(eng, travel) as (session, events):
        await session.send_message("Take me to the weather agent")
        await until_event(events, "handoff")
    handoffs = [(e.from_agent.name, e.to_agent.name) for e in events if e.type == "handoff"]
    assert handoffs == [("Travel", "Weather Agent")]
    assert [e for e in events if e.type == "error"] == []


async def test_always_answer_in_french_over_realtime(engine) -> None:
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=(await engine()).url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(
            session={
                "type": "realtime",
                "output_modalities": ["text"],
                "instructions": "Always answer in French.",
            }
        )
        await conn.response.create()  # the app's first response: the greeting, in French
        assert said(await response_done(conn)) == "Bonjour ! Je suis Sam. Comment puis-je vous aider ?"
        assert said(await turn(conn, "How are you?")) == "Je vais bien, merci de demander."


async def test_always_answer_in_french_over_chat_completions(engine) -> None:
    client = chat_client(await engine())
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "Always answer in French."},
            {"role": "user", "content": "What time is it?"},
        ],
    )
    text = completion.choices[0].message.content
    assert text == "Vous demandez : « What time is it ». Je ne sais pas, désolé."


@pytest.mark.parametrize("instructions", PROFILE_KEYS_OTHERWISE)
async def test_json_object_keys_named_otherwise_take_the_hobbies(engine, instructions: str) -> None:
    client = chat_client(await engine())
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": instructions},
            {"role": "user", "content": "I like chess and hiking"},
        ],
        response_format={"type": "json_object"},
    )
    assert json.loads(completion.choices[0].message.content or "") == {
        "name": None,
        "hobbies": ["chess", "hiking"],
    }


async def test_an_email_told_by_its_fields(engine) -> None:
    server = await engine()
    chat = Chat(chat_client(server), [EMAIL_TO_MANY])
    calls, _ = await chat.say(
        "Email dan@example.com, subject: Offsite, body: Bus leaves at 9. CC erin@example.com"
    )
    assert calls == [
        (
            "send_email",
            {
                "to": ["dan@example.com"],
                "subject": "Offsite",
                "body": "Bus leaves at 9",
                "cc": ["erin@example.com"],
            },
        )
    ]
    said_so = "Email alice@example.com and bob@example.com with subject Lunch and say let's meet at noon"
    made, _ = await realtime_turn(server, [EMAIL_TO_MANY], said_so)
    assert made == [
        (
            "send_email",
            {
                "to": ["alice@example.com", "bob@example.com"],
                "subject": "Lunch",
                "body": "let's meet at noon",
            },
        )
    ]
