"""Found by a new user (stop brk25) driving LiveKit Agents, the OpenAI Agents SDK's realtime agents and
Pipecat with the app's own tools, only the URL changed.

LiveKit's ``AgentSession.generate_reply(instructions='Ask the user: "Which city would you like the
weather for?"')``, then the user's "Paris.": a model puts the question as written and calls the agent's
``get_weather`` for Paris; the participant greeted instead ("Hi, I'm Sam."), and the answer to the
question was echoed ("You said Paris. Tell me more."): "would you like" read as another action."""

from __future__ import annotations

import asyncio
import json

import pytest
from agents import function_tool
from agents.realtime import RealtimeAgent
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.services.llm_service import FunctionCallParams
from pydantic import BaseModel

from tests.integration.compat.conftest import framework_engine, server_events
from tests.integration.compat.test_livekit import (
    TIMEOUT_S,
    Assistant,
    base_url,
    http_context,
    started_session,
)
from tests.integration.compat.test_openai_agents import Observed, run_agent, turn_ended
from tests.integration.compat.test_pipecat import WEATHER, Bot, url_of

pytestmark = pytest.mark.models
__all__ = ["framework_engine", "http_context", "server_events"]  # the fixtures, used by name


async def test_livekit_which_city_would_you_like_then_paris(framework_engine, http_context) -> None:
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        asked = session.generate_reply(
            instructions='Ask the user: "Which city would you like the weather for?"'
        )
        await asyncio.wait_for(asked, TIMEOUT_S)
        question = [item.text_content for item in asked.chat_items if item.type == "message"]
        result = await asyncio.wait_for(session.run(user_input="Paris."), TIMEOUT_S)
        result.expect.skip_next_event_if(type="message", role="assistant")  # "Checking weather —"
        result.expect.next_event().is_function_call(name="get_weather", arguments={"city": "Paris"})
        result.expect.skip_next_event_if(type="message", role="assistant")
        result.expect.next_event().is_function_call_output()
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
    assert question == ["Which city would you like the weather for?"]
    assert agent.weather_calls == ["Paris"]
    assert reply.event().item.text_content == "The weather in Paris is sunny."
    assert not errors


async def test_livekit_the_replys_instructions_name_the_city(framework_engine, http_context) -> None:
    """``generate_reply(user_input="What's the weather in Paris?", instructions="Call get_weather for
    Rome.")``: a model follows the response's instructions; the user's Paris was taken."""
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        handle = session.generate_reply(
            user_input="What's the weather in Paris?", instructions="Call get_weather for Rome."
        )
        await asyncio.wait_for(handle, TIMEOUT_S)
        await asyncio.wait_for(_until(lambda: any("sunny" in said for said in _said(session))), TIMEOUT_S)
        said = _said(session)
    assert agent.weather_calls == ["Rome"]
    assert said[-1] == "The weather in Rome is sunny."
    assert not errors


async def test_livekit_tools_disallowed_the_weather_is_declined_in_words(
    framework_engine, http_context
) -> None:
    """``generate_reply(user_input="What's the weather in Paris?", tool_choice="none")`` with the agent's
    ``get_weather``: a model that may not call it says it can't check; the participant said "You asked
    what's the weather in Paris. I don't know that one, sorry."."""
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        handle = session.generate_reply(user_input="What's the weather in Paris?", tool_choice="none")
        await asyncio.wait_for(handle, TIMEOUT_S)
        said = [item.text_content for item in handle.chat_items if item.type == "message"]
    assert agent.weather_calls == []
    assert said == ["Sorry, I can't check the weather in Paris right now."]
    assert not errors


async def test_livekit_and_tomorrow_of_a_weather_tool_that_takes_no_day(
    framework_engine, http_context
) -> None:
    """``get_weather(city)`` answered, then "And tomorrow?": no declared tool takes a day, so a model says
    it can only check the weather as it is now; the words were echoed ("So you're asking and tomorrow.
    I'm not sure, to be honest.")."""
    url = await base_url(framework_engine)
    agent = Assistant()
    async with started_session(url, agent) as (session, errors):
        await asyncio.wait_for(session.run(user_input="What is the weather like in Paris?"), TIMEOUT_S)
        result = await asyncio.wait_for(session.run(user_input="And tomorrow?"), TIMEOUT_S)
        reply = result.expect.next_event().is_message(role="assistant")
        result.expect.no_more_events()
    assert agent.weather_calls == ["Paris"]
    expected = "Sorry, I can only check the weather in Paris as it is now, not for tomorrow."
    assert reply.event().item.text_content == expected
    assert not errors


async def test_pipecat_a_result_wrapped_in_result(framework_engine, server_events) -> None:
    """Pipecat's ``result_callback({"result": "sunny"})`` for ``get_weather``: the text the tool
    returned, in a wrapper; it was said as a field ("The result in Paris is sunny.")."""

    async def run(params: FunctionCallParams) -> None:
        await params.result_callback({"result": "sunny"})

    async with Bot(await url_of(framework_engine), tools=ToolsSchema(standard_tools=[WEATHER])) as bot:
        bot.llm.register_function("get_weather", run)
        await bot.say("What is the weather like in Paris?")
        await bot.down.until(lambda: bot.replies() >= 2)
        await bot.down.until(lambda: bot.context.get_messages()[-1].get("role") == "assistant")
        assert not bot.errors()
    assert bot.assistant_texts()[-1] == "The weather in Paris is sunny."


class Item(BaseModel):
    name: str
    quantity: int


ORDERS: list[list[tuple[str, int]]] = []


@function_tool
def create_order(items: list[Item]) -> str:
    """Create a food order."""
    ORDERS.append([(item.name, item.quantity) for item in items])
    return json.dumps({"order_id": "A100", "status": "placed"})


async def test_agents_sdk_an_order_of_two_pizzas_and_a_coke(framework_engine) -> None:
    """The Agents SDK's ``RealtimeAgent`` with ``create_order(items: list[Item])`` (``Item`` a Pydantic
    model of name and quantity): "Order two pizzas and a coke" dropped the coke, and "Order a pizza and a
    coke" asked "What items would you like?"."""
    ORDERS.clear()
    agent = RealtimeAgent(name="Assistant", instructions="Take food orders.", tools=[create_order])
    async with await run_agent(framework_engine, agent, audio_pace=0.0) as session:
        observed = Observed(session)
        for words in ("Order two pizzas and a coke", "Order a pizza and a coke"):
            mark = observed.mark()
            await session.send_message(words)
            end = await observed.until(lambda e: e.type == "tool_end", after=mark)
            await observed.until(turn_ended, after=observed.events.index(end))
        observed.close()
    assert ORDERS == [[("pizzas", 2), ("coke", 1)], [("pizza", 1), ("coke", 1)]]
    assert not observed.errors(), observed.errors()


def _said(session) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        item.text_content or ""
        for item in session.history.items
        if item.type == "message" and item.role == "assistant"
    ]


async def _until(condition) -> None:  # type: ignore[no-untyped-def]
    while not condition():
        await asyncio.sleep(0.05)
