"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket): brain12's misreadings, each
failed on integrate before its fix. ``get_weather`` forced by name, of "What's the time in Tokyo and the
weather in Paris?", was ``get_weather(Tokyo)``, by the session's ``tool_choice`` or the response's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai import AsyncOpenAI

from tests.own_tools import STRING, chat_tool, response_done

TIME = chat_tool("get_time", "Get the current time in a city", {"city": STRING})
WEATHER = chat_tool("get_weather", "Get the weather for a city", {"city": STRING})
FORCED = {"type": "function", "name": "get_weather"}


@pytest.mark.parametrize("forced_by", ["session", "response"])
async def test_a_tool_forced_among_two_takes_the_words_that_ask_for_it(engine, forced_by: str) -> None:
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    session: dict[str, Any] = {
        "type": "realtime",
        "output_modalities": ["text"],
        "tools": [{"type": "function", **t["function"]} for t in (TIME, WEATHER)],
    }
    if forced_by == "session":
        session["tool_choice"] = FORCED
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(session=session)
        words = "What's the time in Tokyo and the weather in Paris?"
        content = [{"type": "input_text", "text": words}]
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": content})
        await conn.response.create(response={"tool_choice": FORCED} if forced_by == "response" else {})
        response = await response_done(conn)
    made = [(i.name, json.loads(i.arguments)) for i in response.output if i.type == "function_call"]
    assert made == [("get_weather", {"city": "Paris"})]
    assert [i.type for i in response.output] == ["function_call"]
