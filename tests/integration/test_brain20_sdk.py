"""Over the wire, with the official ``openai`` SDK (Chat Completions and Realtime, on a real engine on
loopback): brain20's cases, each failed on its base (066d2f4b)."""

from __future__ import annotations

import json

from tests.own_tools import STRING, Chat, chat_client, chat_tool, realtime_turn

WEATHER = chat_tool("get_weather", "Get the weather forecast for a city", {"city": STRING})
REFUND = {
    "type": "function",
    "function": {
        "name": "request_refund",
        "description": "Start a refund for an order.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": STRING, "reason": STRING},
            "required": ["order_id"],
        },
    },
}


async def test_a_coat_question_asks_the_weather_tool(engine) -> None:
    server = await engine()
    said = "I'm flying to Oslo on Friday, will I need a coat?"
    calls, _ = await Chat(chat_client(server), [WEATHER]).say(said)
    assert calls == [("get_weather", {"city": "Oslo"})]
    made, _ = await realtime_turn(server, [WEATHER], said)
    assert made == [("get_weather", {"city": "Oslo"})]


async def test_a_refund_takes_the_reason_told(engine) -> None:
    chat = Chat(chat_client(await engine()), [REFUND])
    calls, _ = await chat.say("My order A12345 arrived broken, I want a refund")
    assert calls == [("request_refund", {"order_id": "A12345", "reason": "arrived broken"})]


async def test_say_hello_is_said(engine) -> None:
    server = await engine()
    _, text = await Chat(chat_client(server), [WEATHER]).say("Say hello.")
    assert text == "Hello!"
    _, said = await realtime_turn(server, [WEATHER], "Say hello.")
    assert said == "Hello!"


async def test_json_object_greeting_is_no_name_and_hobbies_a_list(engine) -> None:
    client = chat_client(await engine())
    for content, value in [
        ("Return JSON with keys name and age. Hello!", {"name": None, "age": None}),
        ("Return JSON with keys name and hobbies. Hello!", {"name": None, "hobbies": []}),
    ]:
        completion = await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": content}],
            response_format={"type": "json_object"},
        )
        assert json.loads(completion.choices[0].message.content or "") == value
