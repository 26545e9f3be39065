"""What a user and an adversary found the brain did unlike a model, over the wire with the official
``openai`` SDK on Chat Completions (and one conversation on Responses), each failing on the old code
(docs/tools.md): "What about lunch?" after the weather in "paris" typed in lower case called
get_weather {city: "lunch"} and "and berlin?" was no follow-up; "what about in Fahrenheit?" to an enum of
["C", "F"] called get_weather {city: "Fahrenheit"}; "under Tom" gave no name and "Dr. Who" was booked as
"Dr"; "I'm planning a trip to Lisbon" filled a language; an output of several fields was read out as
written; "Say that again" was echoed as content; a poem or an explanation asked for echoed the request."""

from __future__ import annotations

import json
from typing import Any

from openai import AsyncOpenAI

from tests.tool_schemas import BOOK_TABLE, chat_tool

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}},
            "required": ["city"],
        },
    },
}
BOOK = chat_tool(BOOK_TABLE)
PHRASES = {
    "type": "function",
    "function": {
        "name": "get_phrases",
        "description": "Get useful phrases for a trip",
        "parameters": {
            "type": "object",
            "properties": {"destination": {"type": "string"}, "language": {"type": "string"}},
            "required": ["destination"],
        },
    },
}
OUTPUT = json.dumps({"temp": 21, "conditions": "sunny"})
Message = dict[str, Any]


class Chat:
    """One conversation on Chat Completions: the messages so far, a call's output answered by the app."""

    def __init__(self, client: AsyncOpenAI, tools: list[dict[str, Any]]) -> None:
        self.client, self.tools = client, tools
        self.messages: list[Message] = []
        self.calls = 0

    async def say(self, text: str) -> Any:
        self.messages.append({"role": "user", "content": text})
        return await self._reply()

    async def answer(self, message: Any, output: str) -> Any:
        self.messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        return await self._reply()

    async def _reply(self) -> Any:
        tools: dict[str, Any] = {"tools": self.tools} if self.tools else {}  # an empty array is a 400
        completion = await self.client.chat.completions.create(
            model="gpt-4o",
            messages=self.messages,  # type: ignore[arg-type]
            seed=7,
            **tools,
        )
        message = completion.choices[0].message
        if not message.tool_calls:
            self.messages.append({"role": "assistant", "content": message.content})
        return message


def calls(message: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


async def test_follow_ups_units_names_and_sentences_over_chat_completions(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)

    weather = Chat(client, [WEATHER])
    asked = await weather.say("what's the weather in paris")
    assert calls(asked) == [("get_weather", {"city": "Paris"})]
    grounded = await weather.answer(asked, OUTPUT)
    assert (
        grounded.content == "It's 21 degrees and sunny in Paris."
    )  # was "Paris: temp 21, conditions sunny."
    assert calls(await weather.say("What about lunch?")) == []
    berlin = await weather.say("and berlin?")
    assert calls(berlin) == [("get_weather", {"city": "Berlin"})]
    await weather.answer(berlin, OUTPUT)
    fahrenheit = await weather.say("what about in Fahrenheit?")
    assert calls(fahrenheit) == [("get_weather", {"city": "Berlin", "unit": "F"})]
    said = (
        await weather.answer(fahrenheit, json.dumps({"temp": 70, "unit": "F", "conditions": "sunny"}))
    ).content
    assert said == "It's 70 degrees Fahrenheit and sunny in Berlin."
    again = await weather.say("Sorry, can you repeat that?")
    assert calls(again) == [] and again.content in (f"Sure. {said}", f"Of course. {said}")

    booking = Chat(client, [BOOK])
    assert calls(await booking.say("book a table for two under Tom")) == [
        ("book_table", {"name": "Tom", "party_size": 2})
    ]
    booking = Chat(client, [BOOK])
    assert (await booking.say("book a table for two")).content == "What name should I put the booking under?"
    assert calls(await booking.say("Dr. Who")) == [("book_table", {"name": "Dr. Who", "party_size": 2})]

    trip = Chat(client, [PHRASES])
    phrases = await trip.say("I'm planning a trip to Lisbon, get me some phrases")
    assert calls(phrases) == [("get_phrases", {"destination": "Lisbon"})]

    poem = (await Chat(client, [WEATHER]).say("Write a poem about the sea")).content or ""
    assert poem.startswith("Here's a short poem about the sea:\n") and "Write a poem" not in poem
    tides = (await Chat(client, []).say("Can you explain how tides work?")).content or ""
    assert "how tides work" in tides and "asking" not in tides


async def test_a_repeat_and_a_poem_over_responses(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)
    first = await client.responses.create(model="gpt-4o", input="Write me a haiku about autumn", store=True)
    assert first.output_text.startswith("Here's a short haiku about autumn:\n")
    again = await client.responses.create(
        model="gpt-4o", input="say that again", previous_response_id=first.id, store=True
    )
    assert again.output_text.endswith(first.output_text.split(":\n", 1)[1])
