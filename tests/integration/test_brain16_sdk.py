"""Over the wire, with the official ``openai`` SDK (Chat Completions, and Realtime for an out-of-band
response, on a real engine on loopback): brain16's cases a skeptic found read as no model would, each
failed on its base (5ad54e8a) before its fix."""

from __future__ import annotations

from typing import Any

import pytest

from tests.own_tools import (
    INTEGER,
    STRING,
    Chat,
    chat_client,
    chat_tool,
    closed_object,
    json_schema_answer,
    response_done,
    said,
)
from tests.speech import sdk_connection

BOOK_TABLE = chat_tool("book_table", "Book a table", {"party_size": INTEGER, "time": STRING})
CURRENT_WEATHER = chat_tool("get_weather", "Get the current weather for a city", {"city": STRING})
REMINDER = chat_tool("create_reminder", "Create a reminder", {"text": STRING, "time": STRING}, ["text"])
SET_ALARM = chat_tool("set_alarm", "Set an alarm", {"time": STRING})
SEND_MESSAGE = chat_tool("send_message", "Send a text message", {"recipient": STRING, "text": STRING})


@pytest.mark.parametrize(
    ("tool", "words", "arguments"),
    [
        # asked "How many people will be in your party?": "four tonight" was read as 16:00
        (BOOK_TABLE, "Can I get a table for four tonight at 8?", {"party_size": 4, "time": "20:00"}),
        # no call: "forecast" was none of the current weather tool's words
        (CURRENT_WEATHER, "What's the forecast for Paris?", {"city": "Paris"}),
        # 20:00 and text "cancel": the booking reminded of set the hour, and was trimmed
        (REMINDER, "Remind me at 8 to cancel my booking", {"text": "cancel my booking", "time": "08:00"}),
        # 02:00
        (SET_ALARM, "Set an alarm for 2", {"time": "14:00"}),
        # "the table is for eight pm"
        (
            SEND_MESSAGE,
            "Text Bob: the table is for 7pm, no, eight",
            {"recipient": "Bob", "text": "the table is for 8pm"},
        ),
    ],
)
async def test_a_call_as_a_model_makes_it(engine, tool: Any, words: str, arguments: Any) -> None:
    calls, _ = await Chat(chat_client(await engine()), [tool]).say(words)
    assert calls == [(tool["function"]["name"], arguments)]


async def test_a_name_introduced_is_no_hobby(engine) -> None:
    # was ["Ana", "chess", "hiking"]
    schema = closed_object({"name": STRING, "hobbies": {"type": "array", "items": STRING}})
    words = "I'm Ana, I like chess and hiking"
    content = await json_schema_answer(chat_client(await engine()), words, schema, strict=None)
    assert content == '{"name": "Ana", "hobbies": ["chess", "hiking"]}'


async def test_an_out_of_band_summary_in_one_sentence(engine) -> None:
    # was the conversation restated turn by turn, a sentence each
    server = await engine()
    async with sdk_connection(server.url) as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        for words in ("I'd like to book a table for two tomorrow at 7pm", "Can you check the weather too?"):
            content = [{"type": "input_text", "text": words}]
            await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
            await conn.response.create()
            await response_done(conn)
        await conn.response.create(
            response={
                "conversation": "none",
                "instructions": "Summarize in one sentence.",
                "output_modalities": ["text"],
            }
        )
        summary = said(await response_done(conn))
    assert summary.startswith("The user said “I'd like to book a table"), summary
    assert summary.count("The ") == 1 and summary.endswith("."), summary
