"""Pipecat's order of events over the openai SDK: a user message, ``response.create``; the reply calls
``get_weather``; a ``response.create`` held while that response ran is sent at its ``response.done``,
before the tool's output. That response must not call ``get_weather`` again (the tool would run twice):
it says it is waiting; once the output is sent, the next response answers from it (docs/tools.md, "A
response while a call is pending")."""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city name"}},
        "required": ["city"],
    },
}


async def _done(conn) -> Any:
    async for event in conn:
        if event.type in ("response.done", "error"):
            return event
    raise AssertionError("the socket closed before response.done")


async def test_a_response_before_the_output_does_not_repeat_the_call(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    client = AsyncOpenAI(
        api_key="sk-test", base_url=base.replace("ws://", "http://"), websocket_base_url=base
    )
    async with client, client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(
            session={"type": "realtime", "tools": [WEATHER], "output_modalities": ["text"]}
        )
        await conn.conversation.item.create(
            item={
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "What is the weather like in Paris?"}],
            }
        )
        await conn.response.create()
        first = await _done(conn)
        calls = [o for o in first.response.output if o.type == "function_call"]
        assert [(c.name, c.arguments.replace(" ", "")) for c in calls] == [
            ("get_weather", '{"city":"Paris"}')
        ]

        await conn.response.create()  # held by the client for response.done; the output is not sent yet
        held = await _done(conn)
        assert held.type == "response.done" and held.response.status == "completed", held
        assert not [o for o in held.response.output if o.type == "function_call"], held.response.output
        said = [p.text for o in held.response.output if o.type == "message" for p in o.content or []]
        assert said == ["One moment, I'm still waiting for that result."]

        output = {
            "type": "function_call_output",
            "call_id": calls[0].call_id,
            "output": '{"weather": "sunny"}',
        }
        await conn.conversation.item.create(item=output)  # type: ignore[arg-type]
        await conn.response.create()
        answered = await _done(conn)
        texts = [
            p.text or "" for o in answered.response.output if o.type == "message" for p in o.content or []
        ]
        assert not [o for o in answered.response.output if o.type == "function_call"]
        assert "sunny" in " ".join(texts).lower(), texts
