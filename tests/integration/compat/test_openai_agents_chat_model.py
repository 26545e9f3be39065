"""The OpenAI Agents SDK's text ``Runner`` on ``OpenAIChatCompletionsModel`` (Chat Completions; the
default Responses model is covered by test_openai_agents.py): a tool, streamed runs with usage, a
handoff, ``output_type`` (alone and after a tool), and ``tool_choice="required"`` with
``stop_on_first_tool``; plus ``output_type`` after a tool on the default Responses model."""

from __future__ import annotations

import pytest
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI
from pydantic import BaseModel


@pytest.fixture
async def client(engine):
    eng = await engine()
    set_tracing_disabled(True)  # traces would go to api.openai.com
    return AsyncOpenAI(base_url=f"{eng.http_url}/v1", api_key="sk-test", max_retries=0)


CALLS: list[str] = []


@function_tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    CALLS.append(city)
    return f"It is sunny and 21 degrees in {city}."


@function_tool
def refund(order_id: str) -> str:
    """Refund an order."""
    return f"Refund issued for order {order_id}."


class CityWeather(BaseModel):
    city: str
    temperature_c: int
    summary: str


async def test_chat_model_tool_then_answer_streamed_with_usage(client) -> None:
    """Streamed, the SDK asks for ``stream_options.include_usage`` only from api.openai.com
    (``ChatCmplHelpers.get_stream_options_param``); ``ModelSettings(include_usage=True)`` asks anywhere,
    and the usage chunk fills the run's usage."""
    CALLS.clear()
    model = OpenAIChatCompletionsModel("gpt-4o-mini", openai_client=client)
    agent = Agent(
        name="Assistant",
        instructions="You are a helpful assistant.",
        tools=[get_weather],
        model=model,
        model_settings=ModelSettings(include_usage=True),
    )
    result = await Runner.run(agent, "What is the weather in Paris?", max_turns=4)
    assert CALLS == ["Paris"] and "sunny" in str(result.final_output).lower()
    streamed = Runner.run_streamed(agent, "What is the weather in Paris?", max_turns=4)
    events = [event async for event in streamed.stream_events()]
    items = [e.item.type for e in events if e.type == "run_item_stream_event"]
    assert items == ["tool_call_item", "tool_call_output_item", "message_output_item"]
    assert streamed.final_output == result.final_output and CALLS == ["Paris", "Paris"]
    usage = streamed.context_wrapper.usage
    assert usage.requests == 2 and usage.input_tokens > 0 and usage.output_tokens > 0


async def test_chat_model_handoff(client) -> None:
    model = OpenAIChatCompletionsModel("gpt-4o-mini", openai_client=client)
    billing = Agent(
        name="Billing",
        instructions="Handle refunds.",
        handoff_description="Refunds and billing questions.",
        tools=[refund],
        model=model,
    )
    triage = Agent(name="Triage", instructions="Route the user.", handoffs=[billing], model=model)
    result = await Runner.run(triage, "I want a refund for order 4471.", max_turns=6)
    assert result.last_agent.name == "Billing" and "4471" in str(result.final_output)


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_output_type_after_a_tool_reports_what_the_tool_found(client, api) -> None:
    """The structured answer takes the tool's result (21 degrees) as well as the user's words; it took
    the user's last message only, and made the temperature up."""
    CALLS.clear()
    model_class = OpenAIChatCompletionsModel if api == "chat" else OpenAIResponsesModel
    agent = Agent(
        name="Reporter",
        instructions="Report the weather.",
        tools=[get_weather],
        output_type=CityWeather,
        model=model_class("gpt-4o-mini", openai_client=client),
    )
    result = await Runner.run(agent, "What is the weather in Paris?", max_turns=4)
    assert CALLS == ["Paris"] and isinstance(result.final_output, CityWeather)
    assert (result.final_output.city, result.final_output.temperature_c) == ("Paris", 21)
    streamed = Runner.run_streamed(agent, "What is the weather in Paris?", max_turns=4)
    [event async for event in streamed.stream_events()]
    assert streamed.final_output == result.final_output


async def test_chat_model_output_type_alone(client) -> None:
    model = OpenAIChatCompletionsModel("gpt-4o-mini", openai_client=client)
    agent = Agent(name="Reporter", instructions="Report the weather.", output_type=CityWeather, model=model)
    result = await Runner.run(agent, "It is 21 degrees and sunny in Paris.")
    assert isinstance(result.final_output, CityWeather)
    assert (result.final_output.city, result.final_output.temperature_c) == ("Paris", 21)


async def test_required_tool_choice_stops_on_the_first_tool(client) -> None:
    CALLS.clear()
    agent = Agent(
        name="Assistant",
        instructions="Use your tool.",
        tools=[get_weather],
        model=OpenAIChatCompletionsModel("gpt-4o-mini", openai_client=client),
        model_settings=ModelSettings(tool_choice="required"),
        tool_use_behavior="stop_on_first_tool",
    )
    result = await Runner.run(agent, "What is the weather in Paris?")
    assert CALLS == ["Paris"] and result.final_output == "It is sunny and 21 degrees in Paris."
