"""``mockengine journal`` on a recording of Responses requests (``mockengine record`` in front of an
engine, the openai SDK's ``client.responses.create``): each exchange's line gave only ``body``, where a
chat completion's line gives the user's words, so a recording of an Agents SDK text agent read as a list
of blank requests. It now gives the newest words of the request's ``input`` too (a string, or the last
input item: a message's text, a tool's output)."""

from __future__ import annotations

import io

from openai import AsyncOpenAI

from mockengine.journal import print_timeline
from tests.eventually import eventually


async def test_a_recorded_responses_exchange_reads_with_its_words(engine, recording):
    rec = await recording()
    client = AsyncOpenAI(api_key="sk-client", base_url=f"{rec.http_url}/v1")
    await client.responses.create(model="gpt-4o-mini", input="What is the capital of Spain?")
    await client.responses.create(
        model="gpt-4o-mini",
        input=[{"role": "user", "content": [{"type": "input_text", "text": "And of Italy?"}]}],
    )
    await client.responses.create(
        model="gpt-4o-mini",
        input=[
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "Sunny, 21 degrees."},
        ],
        tools=[
            {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}
        ],
    )
    third = rec.out / "http" / "0003.json"
    await eventually(third.is_file, timeout_s=5, message="the third exchange was not written")

    out = io.StringIO()
    assert print_timeline(str(rec.out / "http"), out=out) == 0
    lines = out.getvalue().splitlines()[1:]
    assert [line.split("200  body  ", 1)[-1] for line in lines] == [
        "'What is the capital of Spain?'",
        "'And of Italy?'",
        "'Sunny, 21 degrees.'",
    ]
