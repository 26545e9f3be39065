"""A scenario of an app's own: a rule that calls one of the app's tools with ``arguments: auto`` over the
Realtime WebSocket, as a team writing its first scenario does (scenarios/README.md: "'auto' to build valid
arguments from the conversation"). The openai SDK is the client; the engine runs the fake speech engines
(the turns are typed)."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import jsonschema
import pytest
from openai import AsyncOpenAI

from mockengine.server.app import create_app
from mockengine.settings import Settings
from tests.conftest import make_fake_resources

BOOK_TABLE = {
    "type": "function",
    "name": "book_table",
    "description": "Reserve a table at a restaurant.",
    "parameters": {
        "type": "object",
        "properties": {
            "restaurant": {"type": "string", "description": "Restaurant name"},
            "party_size": {"type": "integer", "minimum": 1, "maximum": 20},
            "date": {"type": "string", "format": "date", "description": "YYYY-MM-DD"},
            "time": {"type": "string", "description": "24h time HH:MM"},
            "guest": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "phone": {"type": "string"}},
                "required": ["name"],
                "additionalProperties": False,
            },
            "seating": {"type": "string", "enum": ["indoor", "outdoor", "bar"]},
        },
        "required": ["restaurant", "party_size", "date", "time", "guest"],
        "additionalProperties": False,
    },
}
CANCEL = {
    "type": "function",
    "name": "cancel_booking",
    "description": "Cancel an existing booking by its id.",
    "parameters": {
        "type": "object",
        "properties": {"booking_id": {"type": "string"}},
        "required": ["booking_id"],
    },
}
SCENARIO = """
name: booking
seed: 5
rules:
  - id: book-it
    when:
      heard_regex: 'table for (?P<n>\\w+)'
      tool_available: book_table
    say: Booking now.
    call: {tool: book_table, arguments: auto}
  - id: book-it-for-a-guest
    when:
      heard_regex: 'under (?P<restaurant>[A-Z]\\w+)'
    call: {tool: book_table, arguments: auto}
"""


@pytest.fixture
async def booking_engine(aiohttp_server, tmp_path: Path) -> str:
    path = tmp_path / "booking.yaml"
    path.write_text(SCENARIO)
    with closing(make_fake_resources(Settings(seed=5, scenario=str(path)))) as resources:
        server = await aiohttp_server(create_app(resources.settings, resources))
        yield f"ws://127.0.0.1:{server.port}/v1"


async def _call_for(url: str, words: str) -> tuple[str, dict]:
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        session = {"type": "realtime", "output_modalities": ["text"], "tools": [CANCEL, BOOK_TABLE]}
        await conn.session.update(session=session)
        content = [{"type": "input_text", "text": words}]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        await conn.response.create()
        async for event in conn:
            assert event.type != "error", event
            if event.type == "response.done":
                break
    calls = [item for item in event.response.output if item.type == "function_call"]
    assert [call.name for call in calls] == ["book_table"]
    said = " ".join(
        part.text or ""
        for item in event.response.output
        if item.type == "message"
        for part in item.content
        if part.type == "output_text"
    )
    arguments = json.loads(calls[0].arguments)
    jsonschema.validate(arguments, BOOK_TABLE["parameters"])
    return said, arguments


async def test_a_rules_auto_arguments_come_from_the_words(booking_engine: str) -> None:
    """``auto`` built the arguments from the schema alone: a table at "maybe later" for 11 at "sounds
    good" on 2024-01-01, booked for "not sure yet", when the words named every value."""
    said, arguments = await _call_for(
        booking_engine, "I need a table for six at Nobu on 2026-12-31 at 20:00, name Grace Hopper"
    )
    assert said == "Booking now."
    assert arguments["restaurant"] == "Nobu"
    assert arguments["party_size"] == 6
    assert arguments["date"] == "2026-12-31"
    assert arguments["time"] == "20:00"
    assert arguments["guest"] == {"name": "Grace Hopper"}


async def test_a_rules_named_groups_still_fill_their_parameters(booking_engine: str) -> None:
    """A named group of the rule's regex names a parameter: its value wins over the words' reading."""
    _, arguments = await _call_for(booking_engine, "Book it under Luigi for 2 on 2026-12-24 at 19:30 for Ada")
    assert arguments["restaurant"] == "Luigi"
    assert (arguments["party_size"], arguments["date"], arguments["time"]) == (2, "2026-12-24", "19:30")
