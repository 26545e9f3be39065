"""LiveKit's ``openai.realtime.RealtimeSession`` used directly, as an app that keeps its own loop does
(LiveKit's tests/test_realtime drive it so): a restored chat context (a system message, the user's
introduction, the assistant's answer), ``update_instructions`` and ``update_tools``, then
``generate_reply(instructions=…)`` and a question the app answers by running the function itself and
putting its output into the chat context. Only the URL differs from the real service."""

from __future__ import annotations

import asyncio
import json

import pytest
from livekit.agents import function_tool, llm
from livekit.agents.llm import ChatContext, FunctionCallOutput

from tests.integration.compat.test_livekit import TIMEOUT_S, base_url, http_context, model, record_errors

pytestmark = pytest.mark.models
__all__ = ["http_context"]  # the fixture, used by name


@function_tool
async def get_weather(city: str) -> str:
    """Get the weather for a city.

    Args:
        city: The city name
    """
    return f"The weather in {city} is sunny."


async def _reply(generation: llm.GenerationCreatedEvent) -> tuple[str, list[llm.FunctionCall]]:
    """The text of a generation's messages and the function calls it made."""
    calls: list[llm.FunctionCall] = []

    async def functions() -> None:
        async for call in generation.function_stream:
            calls.append(call)

    async def messages() -> str:
        texts = []
        async for message in generation.message_stream:
            texts.append("".join([chunk async for chunk in message.text_stream]))
        return " ".join(texts)

    _, text = await asyncio.gather(functions(), messages())
    return text, calls


async def test_a_restored_context_then_a_greeting_by_name_and_a_function_the_app_runs(
    framework_engine, http_context
) -> None:
    """``generate_reply(instructions="Greet the user by name.")`` after a restored context in which the
    user said their name greets them by it (it was "Hi, I'm Sam. How can I help you today?", the name
    ignored); the tool question that follows is called with its city, and the output the app puts into
    the chat context is answered."""
    url = await base_url(framework_engine)
    async with model(url) as realtime_model:
        session = realtime_model.session()
        errors = record_errors(session)
        await session.update_instructions("You are a terse assistant.")
        restored = ChatContext.empty()
        restored.add_message(role="system", content="The caller is a regular customer.")
        restored.add_message(role="user", content="Hi, my name is Ana.")
        restored.add_message(role="assistant", content="Nice to meet you.")
        await session.update_chat_ctx(restored)
        await session.update_tools([get_weather])
        greeting, _ = await _reply(
            await asyncio.wait_for(session.generate_reply(instructions="Greet the user by name."), TIMEOUT_S)
        )
        asked = session.chat_ctx.copy()
        asked.add_message(role="user", content="What is the weather like in Paris?")
        await session.update_chat_ctx(asked)
        _, calls = await _reply(await asyncio.wait_for(session.generate_reply(), TIMEOUT_S))
        answered = session.chat_ctx.copy()
        for call in calls:
            output = await get_weather(**json.loads(call.arguments))
            answered.items.append(
                FunctionCallOutput(call_id=call.call_id, name=call.name, output=output, is_error=False)
            )
        await session.update_chat_ctx(answered)
        answer, _ = await _reply(await asyncio.wait_for(session.generate_reply(), TIMEOUT_S))
        await session.aclose()
    assert "Ana" in greeting, greeting
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert answer == "The weather in Paris is sunny."
    assert not errors, errors
