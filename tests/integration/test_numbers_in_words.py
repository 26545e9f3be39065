"""Numbers joined by "-" in what a user says are no sum unless they stand alone: a date or a phone number
in a booking's details was answered as arithmetic ("2026 - 12 is 2014."). Over Chat Completions with the
openai SDK, and the Realtime WebSocket, against an engine on loopback."""

from __future__ import annotations

import re

import pytest
from openai import AsyncOpenAI


@pytest.mark.parametrize(
    "words",
    [
        "For 4 people on 2026-12-20 at 19:00, name Ada Lovelace",
        "My number is 555-123-4567.",
        "We arrive 20-12-2026.",
    ],
)
async def test_a_date_or_phone_number_is_no_sum(engine, words: str) -> None:
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", base_url=f"{server.http_url}/v1")
    reply = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": words}]
    )
    said = reply.choices[0].message.content or ""
    assert said and not re.search(r"\d+ - \d+ is -?\d+", said), said


async def test_a_sum_said_alone_is_still_worked_out(engine) -> None:
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        content = [{"type": "input_text", "text": "What is 12-4?"}]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        await conn.response.create()
        async for event in conn:
            if event.type == "response.output_text.done":
                said = event.text
            if event.type == "response.done":
                break
    assert "12 - 4 is 8." in said
