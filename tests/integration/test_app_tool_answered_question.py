"""The answer to the participant's question for a missing argument completes the call it waited on, and
changes only what it answers: over the Realtime WebSocket with the openai SDK, a restaurant app's own
``book_table`` (nested ``guest`` object, enums, a tool never asked for beside it)."""

from __future__ import annotations

import json

import jsonschema
from openai import AsyncOpenAI

from tests.integration.test_scenario_app_tools import BOOK_TABLE, CANCEL


async def _turn(conn, words: str):
    content = [{"type": "input_text", "text": words}]
    await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
    await conn.response.create()
    async for event in conn:
        assert event.type != "error", event
        if event.type == "response.done":
            return event.response


def _said(response) -> str:
    return " ".join(
        part.text or ""
        for item in response.output
        if item.type == "message"
        for part in item.content
        if part.type == "output_text"
    )


async def test_a_name_given_as_the_answer_keeps_the_restaurant(engine) -> None:
    """ "Ada Lovelace" answering "Which guest do you mean?" also filled the free-string ``restaurant``:
    the table booked at Luigi's went to a restaurant called "Ada Lovelace"."""
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        session = {"type": "realtime", "output_modalities": ["text"], "tools": [CANCEL, BOOK_TABLE]}
        await conn.session.update(session=session)
        asked = await _turn(conn, "Book a table at Luigi's for 4 on 2026-12-20 at 19:00")
        assert [item.type for item in asked.output] == ["message"]
        assert "guest" in _said(asked).lower()
        done = await _turn(conn, "Ada Lovelace")
    calls = [item for item in done.output if item.type == "function_call"]
    assert [call.name for call in calls] == ["book_table"]
    arguments = json.loads(calls[0].arguments)
    jsonschema.validate(arguments, BOOK_TABLE["parameters"])
    assert arguments == {
        "restaurant": "Luigi's",
        "party_size": 4,
        "date": "2026-12-20",
        "time": "19:00",
        "guest": {"name": "Ada Lovelace"},
    }
