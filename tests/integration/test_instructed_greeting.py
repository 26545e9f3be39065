"""A quoted greeting asked for in a response's or the session's instructions ("Greet the user with
'Welcome to Acme.'") is said as given, over a real socket through the official SDK (fake engines): the
user-message path said it (the Twilio samples' item), these said a greeting of their own."""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI


async def said(conn: Any, **response: Any) -> str:
    await conn.response.create(response={"output_modalities": ["text"], **response})
    while True:
        event = await conn.recv()
        assert event.type != "error", event
        if event.type == "response.output_text.done":
            return str(event.text)


async def test_a_quoted_greeting_in_the_instructions_is_said(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-test", base_url=eng.http_url + "/v1", websocket_base_url=eng.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        assert (await conn.recv()).type == "session.created"
        session = (
            "You are the Acme concierge. Greet the user with 'Welcome to Acme. How may I help?' Be brief."
        )
        await conn.session.update(session={"type": "realtime", "instructions": session})
        assert (await conn.recv()).type == "session.updated"
        assert await said(conn) == "Welcome to Acme. How may I help?"
        own = 'Greet the caller with "Hi, I\'m Sam from Acme!" Then wait for them.'
        assert await said(conn, instructions=own) == "Hi, I'm Sam from Acme!"
