"""Reply logic a new user's pass found wrong, each through the official ``openai`` SDK against a real
engine on loopback: an out-of-band Realtime response that classifies, titles or summarises the
conversation (its own ``instructions`` are the task, not the user's last words); Chat Completions'
legacy ``functions`` / ``function_call``; a string array in a ``json_schema`` answer; the requested
``service_tier`` echoed."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI

from tests.own_tools import closed_object, json_schema_answer
from tests.speech import sdk_connection

STORY = "Tell me a long story about a dragon."
CLASSIFY = "Classify the user's request as story or question."
TITLE = "Give this conversation a title."
SUMMARY = "Summarize the conversation so far."
WEATHER_FUNCTION = {
    "name": "get_weather",
    "description": "Get the current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city"}},
        "required": ["city"],
    },
}
WEATHER_QUESTION = [{"role": "user", "content": "What's the weather in Paris?"}]


async def _until(conn: Any, *kinds: str) -> Any:
    async for event in conn:
        if event.type in kinds:
            return event
    raise AssertionError(f"connection closed before {kinds}")


async def _out_of_band(base: str, instructions: str, **response: Any) -> tuple[str, Any]:
    """After the user's story request and its reply, the text of one out-of-band ``response.create``
    with ``instructions`` (and ``response``'s other fields), and that response."""
    async with sdk_connection(base, base_url=base.replace("ws://", "http://")) as conn:
        await _until(conn, "session.created")
        await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})  # type: ignore[typeddict-item]
        await _until(conn, "session.updated")
        user_item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": STORY}]}
        await conn.conversation.item.create(item=user_item)  # type: ignore[arg-type]
        added = await _until(conn, "conversation.item.added")
        await conn.response.create()
        await _until(conn, "response.done")
        if response.get("input") == "reference":
            response["input"] = [{"type": "item_reference", "id": added.item.id}]
        await conn.response.create(
            response={
                "conversation": "none",
                "instructions": instructions,
                "metadata": {"purpose": "task"},
                **response,
            }  # type: ignore[typeddict-item]
        )
        done = await _until(conn, "response.done")
        [item] = done.response.output
        return item.content[0].text, done.response


@pytest.mark.parametrize("given", [{}, {"input": "reference"}])
async def test_out_of_band_classification_answers_with_one_label(engine_url, given) -> None:
    base = await engine_url(audio_pace=0.0)
    text, response = await _out_of_band(base, CLASSIFY, **given)
    assert text == "story", text
    assert response.metadata == {"purpose": "task"}


async def test_out_of_band_classification_of_inline_input(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    question = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "What time is it?"}],
    }
    text, _ = await _out_of_band(base, CLASSIFY, input=[question])
    assert text == "question", text


async def test_out_of_band_title_is_a_short_phrase_from_the_conversation(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    text, _ = await _out_of_band(base, TITLE)
    assert "dragon" in text.lower() and len(text.split()) <= 8 and "once upon" not in text.lower(), text
    assert text == (await _out_of_band(await engine_url(audio_pace=0.0), TITLE))[0]  # deterministic


async def test_out_of_band_summary_restates_what_was_said(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    text, _ = await _out_of_band(base, SUMMARY, input="reference")
    assert "dragon" in text.lower() and "story" in text.lower(), text
    assert "once upon" not in text.lower(), text


@pytest.fixture
def chat_client(engine_url):
    async def start(**overrides: Any) -> AsyncOpenAI:
        base = (await engine_url(**overrides)).replace("ws://", "http://")
        return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)

    return start


@pytest.mark.parametrize("function_call", [None, "auto", {"name": "get_weather"}])
async def test_legacy_functions_are_called(chat_client, function_call) -> None:
    client = await chat_client()
    extra = {} if function_call is None else {"function_call": function_call}
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=WEATHER_QUESTION, functions=[WEATHER_FUNCTION], **extra
    )
    [choice] = completion.choices
    assert choice.finish_reason == "function_call", choice
    call = choice.message.function_call
    assert call is not None and call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert choice.message.tool_calls is None and choice.message.content is None


async def test_legacy_function_call_none_answers_in_words(chat_client) -> None:
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=WEATHER_QUESTION, functions=[WEATHER_FUNCTION], function_call="none"
    )
    [choice] = completion.choices
    assert choice.finish_reason == "stop" and choice.message.function_call is None and choice.message.content


async def test_legacy_function_call_streams_and_its_result_is_read(chat_client) -> None:
    client = await chat_client()
    stream = await client.chat.completions.create(
        model="gpt-4o-mini", messages=WEATHER_QUESTION, functions=[WEATHER_FUNCTION], stream=True
    )
    name, arguments, finish = "", "", None
    async for chunk in stream:
        for choice in chunk.choices:
            if choice.delta.function_call is not None:
                name += choice.delta.function_call.name or ""
                arguments += choice.delta.function_call.arguments or ""
            assert choice.delta.tool_calls is None
            finish = choice.finish_reason or finish
    assert (name, json.loads(arguments), finish) == ("get_weather", {"city": "Paris"}, "function_call")
    messages = [
        *WEATHER_QUESTION,
        {"role": "assistant", "content": None, "function_call": {"name": name, "arguments": arguments}},
        {"role": "function", "name": "get_weather", "content": '{"temperature_c": 21, "sky": "sunny"}'},
    ]
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=messages,
        functions=[WEATHER_FUNCTION],  # type: ignore[arg-type]
    )
    [choice] = completion.choices
    assert choice.finish_reason == "stop" and choice.message.function_call is None
    assert "21" in (choice.message.content or ""), choice.message.content


async def test_string_array_is_filled_from_the_listed_things(chat_client) -> None:
    client = await chat_client()
    schema = closed_object(
        {
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "hobbies": {"type": "array", "items": {"type": "string"}},
        }
    )
    words = "Extract: Alice is 30 and likes chess and hiking."
    person = json.loads(await json_schema_answer(client, words, schema, name="Person"))
    assert person == {"name": "Alice", "age": 30, "hobbies": ["chess", "hiking"]}, person


@pytest.mark.parametrize(
    ("asked", "echoed"), [("flex", "flex"), ("priority", "priority"), ("auto", "default")]
)
async def test_service_tier_is_echoed(chat_client, asked, echoed) -> None:
    client = await chat_client()
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=WEATHER_QUESTION, service_tier=asked
    )
    assert completion.service_tier == echoed
    stream = await client.chat.completions.create(
        model="gpt-4o-mini", messages=WEATHER_QUESTION, service_tier=asked, stream=True
    )
    assert {chunk.service_tier async for chunk in stream} == {echoed}
    response = await client.responses.create(model="gpt-4o-mini", input="Hello there.", service_tier=asked)
    assert response.service_tier == echoed


async def test_legacy_functions_beside_tools_are_refused(chat_client) -> None:
    client = await chat_client()
    tool = {"type": "function", "function": WEATHER_FUNCTION}
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="gpt-4o-mini", messages=WEATHER_QUESTION, functions=[WEATHER_FUNCTION], tools=[tool]
        )
    assert refused.value.param == "functions"
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="gpt-4o-mini", messages=WEATHER_QUESTION, function_call="auto"
        )
    assert refused.value.param == "function_call"
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="gpt-4o-mini",
            messages=WEATHER_QUESTION,
            functions=[WEATHER_FUNCTION],
            function_call={"name": "get_time"},
        )
    assert refused.value.param == "function_call" and "get_time" in refused.value.message
