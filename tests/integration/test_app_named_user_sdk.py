"""The user's name as the app gives it to the model, over the wire with the openai SDK: in the session's
instructions ("The user's name is Ana.") or a system item (a restored LiveKit context, Pipecat's initial
messages). "What is my name?" is answered from it, as a model answers from its context; it was "You
haven't told me your name yet." The speech engines are the fakes."""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI

from tests.speech import events_until


def message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


async def reply(ws_base: str, instructions: str, items: list[dict[str, Any]]) -> str:
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=ws_base) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        await connection.session.update(
            session={"type": "realtime", "instructions": instructions, "output_modalities": ["text"]}
        )
        await events_until(connection, "session.updated")
        for item in items:
            await connection.conversation.item.create(item=item)
        await connection.response.create()
        events = await events_until(connection, "response.done")
    assert not [event for event in events if event["type"] == "error"], events
    return " ".join(event["text"] for event in events if event["type"] == "response.output_text.done")


async def test_the_name_in_the_sessions_instructions(engine_url) -> None:
    ws_base = await engine_url()
    instructions = "You are a friendly receptionist. The caller's name is Ana and she has called before."
    assert await reply(ws_base, instructions, [message("user", "What is my name?")]) == "Your name is Ana."


async def test_the_name_in_a_system_item_of_a_restored_context(engine_url) -> None:
    ws_base = await engine_url()
    restored = [
        message("system", "User profile: name: Ana; plan: premium."),
        message("assistant", "Welcome back!"),
        message("user", "Do you remember my name?"),
    ]
    assert await reply(ws_base, "You are a helpful assistant.", restored) == "Your name is Ana."
