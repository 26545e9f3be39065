"""Over the wire, with the official ``openai`` SDK (Chat Completions and Realtime, on a real engine on
loopback): brain18's cases a new user found read as no model would, each failed on its base (b3fd23bf)."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from PIL import Image

from tests.own_tools import (
    STRING,
    Chat,
    chat_client,
    chat_tool,
    closed_object,
    json_schema_answer,
    response_done,
    said,
    turn,
)
from tests.speech import sdk_connection

LIST = {"type": "array", "items": STRING}
SAVE_HOBBIES = chat_tool("save_hobbies", "Save the user's hobbies when they mention them", {"hobbies": LIST})
ADD_TO_LIST = chat_tool("add_to_list", "Add items to a list", {"list_name": STRING, "items": LIST})
WEATHER = chat_tool("get_weather", "Get the current weather for a city", {"city": STRING})


@pytest.mark.parametrize(
    ("tool", "words", "arguments"),
    [
        # no call: "You said my hobbies are chess and hiking. Tell me more."
        (SAVE_HOBBIES, "My hobbies are chess and hiking", {"hobbies": ["chess", "hiking"]}),
        (SAVE_HOBBIES, "I love chess and hiking", {"hobbies": ["chess", "hiking"]}),
        # asked "What hobbies would you like?"
        (SAVE_HOBBIES, "Save my hobbies, I love chess and hiking", {"hobbies": ["chess", "hiking"]}),
        # asked "What items would you like?"
        (
            ADD_TO_LIST,
            "Add eggs and milk to my groceries list",
            {"list_name": "groceries", "items": ["eggs", "milk"]},
        ),
    ],
)
async def test_a_call_as_a_model_makes_it(engine, tool: Any, words: str, arguments: Any) -> None:
    calls, _ = await Chat(chat_client(await engine()), [tool]).say(words)
    assert calls == [(tool["function"]["name"], arguments)]


async def test_a_name_nobody_said_is_no_sentence(engine) -> None:
    # was the reply's sentence, "You said …"
    schema = closed_object({"name": STRING, "hobbies": LIST})
    answer = await json_schema_answer(chat_client(await engine()), "I like chess and hiking", schema)
    content = json.loads(answer)
    assert content == {"name": "unknown", "hobbies": ["chess", "hiking"]}


@pytest.mark.parametrize(
    "choice",
    [{"type": "function", "function": {"name": "get_weather"}}, "required"],
    ids=["named", "required"],
)
@pytest.mark.parametrize(
    ("earlier", "city"), [("I'm Sam", "London"), ("My sister lives in Berlin", "Berlin")]
)
async def test_a_forced_city_after_small_talk(engine, choice: Any, earlier: str, city: str) -> None:
    # "I'm Sam" gave city "Sam"; the city is what the words gave, else the documented plausible one
    chat = Chat(chat_client(await engine()), [WEATHER])
    await chat.say(earlier)
    chat.options["tool_choice"] = choice
    calls, _ = await chat.say("how are you?")
    assert calls == [("get_weather", {"city": city})]


def _red_png() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (220, 20, 20)).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


async def test_an_image_alone_is_seen(engine) -> None:
    # was "Sorry, I didn't catch that. Could you say it again?"
    server = await engine()
    async with sdk_connection(server.url) as conn:
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
        image = {"type": "input_image", "image_url": _red_png()}
        await conn.conversation.item.create(item={"type": "message", "role": "user", "content": [image]})
        await conn.response.create()
        text = said(await response_done(conn))
    assert text == "I can see a dark image, mostly red. What would you like to know about it?", text


async def test_an_image_alone_is_seen_over_chat(engine) -> None:
    completion = await chat_client(await engine()).chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": _red_png()}}]}],
    )
    text = completion.choices[0].message.content or ""
    assert text.startswith("I can see a dark image, mostly red."), text


@pytest.mark.parametrize(
    ("instructions", "expected"),
    [
        ("Say hello to the user in French", "Bonjour"),
        ("Do the thing we discussed", "Sure"),
    ],
)
async def test_own_instructions_after_an_answer_are_no_repeat(
    engine, instructions: str, expected: str
) -> None:
    # both said the last answer again
    server = await engine()
    async with sdk_connection(server.url) as conn:
        await conn.session.update(
            session={
                "type": "realtime",
                "output_modalities": ["text"],
                "instructions": "You are a helpful assistant.",
            }
        )
        first = said(await turn(conn, "What's the capital of France?"))
        await conn.response.create(response={"instructions": instructions})
        text = said(await response_done(conn))
    assert text != first and text.startswith(expected), (first, text)
