"""A new user's own tools over a real loopback engine with the ``openai`` SDK's Realtime client (round
b2): a message dictated after its recipient with no colon, a sort order said in words, a phone number for
a nested contact, and a thanks inside a request. On the old code the email asked "Tell me more.", the
sort was left out, the phone was dropped and the request to thank Ana was answered "Goodbye"."""

from __future__ import annotations

import json
from typing import Any

from openai import AsyncOpenAI

from tests.integration.test_new_user_tools_sdk import calls_in, respond, text_of, tool

TEXT = {"type": "string"}
TOOLS = [
    tool("send_email", "Send an email.", {"to": TEXT, "subject": TEXT, "body": TEXT}, ["to", "body"]),
    tool(
        "search_hotels",
        "Search hotels in a city.",
        {"city": TEXT, "sort": {"type": "string", "enum": ["price_asc", "price_desc", "rating", "distance"]}},
        ["city"],
    ),
    tool(
        "add_contact",
        "Add a contact to the address book.",
        {
            "contact": {
                "type": "object",
                "properties": {"name": TEXT, "phone": TEXT, "email": TEXT},
                "required": ["name"],
            }
        },
        ["contact"],
    ),
]


async def test_a_new_users_requests_fill_what_they_said(engine) -> None:
    eng = await engine(audio_pace=0.0)
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        session = {"type": "realtime", "output_modalities": ["text"], "tools": TOOLS}
        await connection.session.update(session=session)  # type: ignore[arg-type]
        while json.loads(await connection.recv_bytes())["type"] != "session.updated":
            pass

        async def say(text: str) -> dict[str, Any]:
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
            await connection.conversation.item.create(item=item)  # type: ignore[arg-type]
            return await respond(connection)

        async def answer(response: dict[str, Any]) -> None:
            for call in [o for o in response["output"] if o["type"] == "function_call"]:
                output = {
                    "type": "function_call_output",
                    "call_id": call["call_id"],
                    "output": '{"ok": true}',
                }
                await connection.conversation.item.create(item=output)  # type: ignore[arg-type]
            await respond(connection)

        email = await say("Email bob@example.com the meeting moved")
        assert calls_in(email) == [("send_email", {"to": "bob@example.com", "body": "the meeting moved"})]
        await answer(email)
        hotels = await say("Find hotels in Lisbon, show me the cheapest first")
        assert calls_in(hotels) == [("search_hotels", {"city": "Lisbon", "sort": "price_asc"})]
        await answer(hotels)
        contact = await say("Add a contact Ana Silva, phone 555-123-4567")
        assert calls_in(contact) == [
            ("add_contact", {"contact": {"name": "Ana Silva", "phone": "555-123-4567"}})
        ]
        await answer(contact)
        asked = text_of(await say("Can you thank Ana for the notes and see you if she replies"))
        assert asked and "Goodbye" not in asked and "welcome" not in asked, asked
        assert text_of(await say("Thanks, see you tomorrow!")) in ("You're welcome.", "No problem at all.")
