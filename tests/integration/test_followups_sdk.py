"""Words that lean on the conversation, over a real loopback engine with the ``openai`` SDK on both
channels (the same brain serves both): "And in Berlin?" after a Paris weather call calls get_weather
again for Berlin, "no, cancel that, I don't want a table" books nothing, "Name's Tom" answers the
question for the booking's name and the booking goes out, and "weather and time in Paris and Tokyo"
makes four calls (in one response, or one a response with ``parallel_tool_calls`` false). On the old
code the follow-up was a words-only answer, the refusal asked for a party size, the name was echoed
back and the last request made two get_weather calls only."""

from __future__ import annotations

import json
from typing import Any

from openai import AsyncOpenAI

from tests.speech import validate_server_event
from tests.tool_schemas import BOOK_TABLE, realtime_tool

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Get the current weather in a city",
        "parameters": CITY,
    },
    {
        "type": "function",
        "name": "get_time",
        "description": "Get the current local time in a city",
        "parameters": CITY,
    },
    realtime_tool(BOOK_TABLE),
]
OUTPUTS = {
    "get_weather": {"temperature_c": 18, "conditions": "cloudy"},
    "get_time": {"time": "09:30"},
    "book_table": {"ok": True, "booking_ref": "BK-12"},
}
FOUR = [
    ("get_weather", {"city": "Paris"}),
    ("get_weather", {"city": "Tokyo"}),
    ("get_time", {"city": "Paris"}),
    ("get_time", {"city": "Tokyo"}),
]
TOM = ("book_table", {"name": "Tom", "party_size": 2, "time": "19:00"})
Calls = list[tuple[str, Any]]


class Voice:
    """One Realtime connection through the SDK: say words, answer calls, read each response."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    async def _response(self) -> dict[str, Any]:
        await self.connection.response.create()
        while True:
            event = json.loads(await self.connection.recv_bytes())
            validate_server_event(event)
            assert event["type"] != "error", event
            if event["type"] == "response.done":
                return dict(event["response"])

    async def say(self, text: str) -> tuple[Calls, str]:
        content = [{"type": "input_text", "text": text}]
        await self.connection.conversation.item.create(
            item={"type": "message", "role": "user", "content": content}
        )
        return await self.read(await self._response())

    async def answer(self, response_calls: list[dict[str, Any]]) -> tuple[Calls, str]:
        for call in response_calls:
            output = json.dumps(OUTPUTS[call["name"]])
            item = {"type": "function_call_output", "call_id": call["call_id"], "output": output}
            await self.connection.conversation.item.create(item=item)
        return await self.read(await self._response())

    async def read(self, response: dict[str, Any]) -> tuple[Calls, str]:
        self.last = [o for o in response["output"] if o["type"] == "function_call"]
        text = " ".join(
            part.get("text") or part.get("transcript") or ""
            for item in response["output"]
            if item["type"] == "message"
            for part in item["content"]
        )
        return [(o["name"], json.loads(o["arguments"])) for o in self.last], text


async def test_realtime_follow_ups_refusal_name_and_tools_side_by_side(engine) -> None:
    eng = await engine(audio_pace=0.0)
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime", extra_query={"seed": "5"}) as connection,
    ):
        session = {"type": "realtime", "output_modalities": ["text"], "tools": TOOLS, "tool_choice": "auto"}
        await connection.session.update(session=session)  # type: ignore[arg-type]
        while json.loads(await connection.recv_bytes())["type"] != "session.updated":
            pass
        voice = Voice(connection)
        assert (await voice.say("What's the weather in Paris?"))[0] == [("get_weather", {"city": "Paris"})]
        assert (await voice.answer(voice.last))[0] == []
        assert (await voice.say("And in Berlin?"))[0] == [("get_weather", {"city": "Berlin"})]
        calls, grounded = await voice.answer(voice.last)
        assert calls == [] and "Berlin" in grounded
        assert await voice.say("no, cancel that, I don't want a table") == ([], "Okay, I'll leave it.")
        assert await voice.say("book a table for two at 7pm") == (
            [],
            "What name should I put the booking under?",
        )
        assert (await voice.say("Name's Tom"))[0] == [TOM]
        assert (await voice.answer(voice.last))[0] == []
        assert (await voice.say("weather and time in Paris and Tokyo"))[0] == FOUR  # one response
        calls, spoken = await voice.answer(voice.last)
        assert calls == [] and spoken.count("Paris") == 2 and spoken.count("Tokyo") == 2


async def test_chat_follow_ups_refusal_name_and_tools_one_call_a_response(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)
    tools: Any = [
        {"type": "function", "function": {k: v for k, v in t.items() if k != "type"}} for t in TOOLS
    ]
    messages: list[Any] = []

    async def turn(parallel: bool = True) -> tuple[Calls, str | None]:
        completion = await client.chat.completions.create(
            model="gpt-4o", messages=messages, tools=tools, parallel_tool_calls=parallel, seed=5
        )
        message = completion.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        calls = message.tool_calls or []
        for call in calls:
            output = json.dumps(OUTPUTS[call.function.name])  # type: ignore[union-attr]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        made = [(c.function.name, json.loads(c.function.arguments)) for c in calls]  # type: ignore[union-attr]
        return made, message.content

    async def say(text: str, parallel: bool = True) -> tuple[Calls, str | None]:
        messages.append({"role": "user", "content": text})
        return await turn(parallel)

    assert (await say("What's the weather in Paris?"))[0] == [("get_weather", {"city": "Paris"})]
    assert (await turn())[0] == []
    assert (await say("What about Tokyo?"))[0] == [("get_weather", {"city": "Tokyo"})]
    assert (await turn())[0] == []
    assert await say("I don't want a table") == ([], "Okay, I'll leave it.")
    assert await say("book a table for two at 7pm") == ([], "What name should I put the booking under?")
    assert (await say("call me Tom"))[0] == [TOM]
    assert (await turn())[0] == []
    made = [await say("weather and time in Paris and Tokyo", parallel=False)]
    while made[-1][0]:
        made.append(await turn(parallel=False))
    assert [calls for calls, _ in made[:-1]] == [[call] for call in FOUR]  # one call a response
    spoken = made[-1][1] or ""
    assert spoken.count("Paris") == 2 and spoken.count("Tokyo") == 2
    await client.close()
