"""A restaurant app's own tools over the Realtime WebSocket with the openai SDK, as a team adopting the
engine tries them first (``book_table`` with a nested ``guest`` object, ``search_restaurants`` with enums
and a neighbourhood, ``cancel_booking`` never asked for): the answer to the participant's question for a
missing argument completes the call it waited on and changes only what it answers; a neighbourhood said
after "in" / "near" fills a ``neighborhood`` parameter."""

from __future__ import annotations

import json

import jsonschema
import pytest
from openai import AsyncOpenAI

from tests.integration.test_scenario_app_tools import BOOK_TABLE, CANCEL
from tests.own_tools import said, turn

SEARCH = {
    "type": "function",
    "name": "search_restaurants",
    "description": "Find restaurants by cuisine, neighbourhood and price range.",
    "parameters": {
        "type": "object",
        "properties": {
            "cuisine": {"type": "string", "enum": ["italian", "japanese", "mexican", "indian", "french"]},
            "neighborhood": {"type": "string", "description": "Area of the city"},
            "price": {"type": "string", "enum": ["$", "$$", "$$$"]},
        },
        "required": ["cuisine"],
        "additionalProperties": False,
    },
}


async def test_a_name_given_as_the_answer_keeps_the_restaurant(engine) -> None:
    """ "Ada Lovelace" answering "Which guest do you mean?" also filled the free-string ``restaurant``:
    the table booked at Luigi's went to a restaurant called "Ada Lovelace"."""
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        session = {"type": "realtime", "output_modalities": ["text"], "tools": [CANCEL, BOOK_TABLE]}
        await conn.session.update(session=session)
        asked = await turn(conn, "Book a table at Luigi's for 4 on 2026-12-20 at 19:00")
        assert [item.type for item in asked.output] == ["message"]
        assert "guest" in said(asked).lower()
        done = await turn(conn, "Ada Lovelace")
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


@pytest.mark.parametrize(
    ("words", "neighborhood"),
    [
        ("Find me a Japanese place in Soho.", "Soho"),
        ("Find me a cheap Japanese place in Soho.", "Soho"),
        ("Any japanese restaurants near Soho?", "Soho"),
        ("Search for japanese restaurants in the Mission district", "Mission district"),
    ],
)
async def test_a_neighbourhood_fills_its_parameter(engine, words: str, neighborhood: str) -> None:
    """``neighborhood`` was no place to the slot filler: the word before the cuisine's noun filled it
    ("place", "cheap", "food") and the place said was dropped."""
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        tools = [CANCEL, BOOK_TABLE, SEARCH]
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"], "tools": tools})
        response = await turn(conn, words)
    calls = [item for item in response.output if item.type == "function_call"]
    assert [call.name for call in calls] == ["search_restaurants"]
    arguments = json.loads(calls[0].arguments)
    jsonschema.validate(arguments, SEARCH["parameters"])
    assert arguments["cuisine"] == "japanese"
    assert arguments.get("neighborhood") == neighborhood
