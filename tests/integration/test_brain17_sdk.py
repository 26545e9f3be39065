"""Over the wire, with the official ``openai`` SDK (Chat Completions, on a real engine on loopback):
brain17's five cases a skeptic found read as no model would, each failed on its base (267f230c)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.own_tools import INTEGER, STRING, Chat, chat_client, chat_tool, closed_object, json_schema_answer

HOBBIES = {"type": "array", "items": STRING}
MAKE_RESERVATION = chat_tool(
    "make_reservation", "Reserve a table at a restaurant", {"party_size": INTEGER, "time": STRING}
)
BOOK_RESTAURANT = chat_tool("book_restaurant", "Book a restaurant", {"party_size": INTEGER, "time": STRING})
SAVE_HOBBIES = chat_tool("save_hobbies", "Save the user's hobbies", {"hobbies": HOBBIES})
REMINDER = chat_tool("create_reminder", "Create a reminder", {"text": STRING, "time": STRING}, ["text"])
TIMED_REMINDER = chat_tool("create_reminder", "Create a reminder", {"text": STRING, "time": STRING})


@pytest.mark.parametrize(
    ("tool", "words", "arguments"),
    [
        # no call: "table" was a plain word of the description, and "get" asked for no reservation
        (MAKE_RESERVATION, "Can I get a table for four tonight at 8?", {"party_size": 4, "time": "20:00"}),
        # no call: no word of the tool's was said
        (BOOK_RESTAURANT, "Can I get a table for four tonight at 8?", {"party_size": 4, "time": "20:00"}),
        # asked "What hobbies would you like?"
        (SAVE_HOBBIES, "Save my hobbies: I like chess and hiking", {"hobbies": ["chess", "hiking"]}),
        # asked "What should it say?"
        (REMINDER, "Remind me to make a booking", {"text": "make a booking"}),
    ],
)
async def test_a_call_as_a_model_makes_it(engine, tool: Any, words: str, arguments: Any) -> None:
    calls, _ = await Chat(chat_client(await engine()), [tool]).say(words)
    assert calls == [(tool["function"]["name"], arguments)]


@pytest.mark.parametrize(
    "choice",
    [{"type": "function", "function": {"name": "save_hobbies"}}, "required"],
    ids=["named", "required"],
)
@pytest.mark.parametrize(
    "words", ["My hobbies are chess and hiking", "Save my hobbies: I like chess and hiking"]
)
async def test_a_forced_hobbies_tool_takes_the_hobbies(engine, choice: Any, words: str) -> None:
    # was ["Hobbies"]
    calls, _ = await Chat(chat_client(await engine()), [SAVE_HOBBIES], tool_choice=choice).say(words)
    assert calls == [("save_hobbies", {"hobbies": ["chess", "hiking"]})]


async def test_a_required_time_unsaid_is_asked_for(engine) -> None:
    # asked "What should it say?", what it was told
    chat = Chat(chat_client(await engine()), [TIMED_REMINDER])
    calls, text = await chat.say("Remind me to make a booking")
    assert calls == [] and text is not None and "time" in text.lower(), text
    calls, _ = await chat.say("at 5pm")
    assert calls == [("create_reminder", {"text": "make a booking", "time": "17:00"})]


@pytest.mark.parametrize(
    ("age", "written"),
    [
        (INTEGER, 0),  # was a drawn number (1, 6): it read as said
        ({"type": ["integer", "null"]}, None),  # the schema admits null: nobody said it
        ({"type": "integer", "minimum": 18}, 18),  # the bound nearest 0
    ],
)
async def test_an_age_nobody_said(engine, age: Any, written: Any) -> None:
    schema = closed_object({"name": STRING, "age": age})
    content = await json_schema_answer(chat_client(await engine()), "I'm Ana, I like chess", schema)
    assert json.loads(content) == {"name": "Ana", "age": written}
