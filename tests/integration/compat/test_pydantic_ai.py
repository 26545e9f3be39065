"""pydantic-ai (``pydantic-ai-slim[openai]``, pinned in pyproject's ``test`` extra) against a real engine
on loopback, with an ``OpenAIProvider(base_url=…)``: an ``Agent`` with a tool and each structured output
mode (tool output, the default; native ``json_schema``; prompted ``json_object``), run and streamed, on
``OpenAIChatModel`` (Chat Completions) and ``OpenAIResponsesModel`` (the Responses API)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, ModelHTTPError
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.output import NativeOutput, PromptedOutput, ToolOutput
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

MODELS = pytest.mark.parametrize(
    "model_class", [OpenAIChatModel, OpenAIResponsesModel], ids=["chat", "responses"]
)


@pytest.fixture
async def model_for(engine):
    eng = await engine()
    provider = OpenAIProvider(base_url=f"{eng.http_url}/v1", api_key="sk-test")
    return lambda model_class: model_class("gpt-4o-mini", provider=provider)


class CityWeather(BaseModel):
    city: str
    temperature_c: int
    summary: str


CALLS: list[str] = []


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    CALLS.append(city)
    return f"It is sunny and 21 degrees in {city}."


@MODELS
async def test_agent_runs_its_tool_and_answers(model_for, model_class) -> None:
    CALLS.clear()
    agent = Agent(model_for(model_class), instructions="You are a helpful assistant.", tools=[get_weather])
    result = await agent.run("What is the weather in Paris?")
    assert CALLS == ["Paris"] and "sunny" in result.output.lower()
    usage = result.usage
    assert (
        usage.requests == 2 and usage.tool_calls == 1 and usage.input_tokens > 0 and usage.output_tokens > 0
    )
    async with agent.run_stream("What is the weather in Paris?") as streamed:
        pieces = [piece async for piece in streamed.stream_text(delta=True)]
    assert "".join(pieces) == result.output and CALLS == ["Paris", "Paris"]


@MODELS
@pytest.mark.parametrize(
    "output_type",
    [CityWeather, ToolOutput(CityWeather), NativeOutput(CityWeather), PromptedOutput(CityWeather)],
    ids=["default", "tool", "native", "prompted"],
)
async def test_structured_output_of_each_mode(model_for, model_class, output_type) -> None:
    """Tool output forces a ``final_result`` call on words that ask for none (the city said was dropped
    for London); prompted output puts the schema in the instructions and asks for ``json_object`` (the
    reply was ``{"response": …}``, which fails validation)."""
    agent = Agent(model_for(model_class), output_type=output_type)
    said = "It is 21 degrees and sunny in Paris."
    result = await agent.run(said)
    assert isinstance(result.output, CityWeather)
    assert (result.output.city, result.output.temperature_c) == ("Paris", 21)
    assert result.usage.requests == 1
    async with agent.run_stream(said) as streamed:
        assert await streamed.get_output() == result.output


@MODELS
async def test_tool_output_after_a_tool_call_ends_the_run(model_for, model_class) -> None:
    """With tools besides the output tool, pydantic-ai sends ``tool_choice: "required"`` every step; after
    the weather came back the participant called ``get_weather`` again with made-up cities until the
    request limit. Now it calls ``final_result`` with what the tool found, as a model does."""
    CALLS.clear()
    agent = Agent(model_for(model_class), output_type=CityWeather, tools=[get_weather])
    result = await agent.run("What is the weather in Paris?", usage_limits=UsageLimits(request_limit=5))
    assert CALLS == ["Paris"] and result.usage.requests == 2
    assert (result.output.city, result.output.temperature_c) == ("Paris", 21)
    assert "sunny" in result.output.summary


@MODELS
async def test_a_next_turn_with_the_message_history_and_a_refused_request(model_for, model_class) -> None:
    """``message_history=result.all_messages()``: the earlier call and its return go back as items; "And
    in Rome?" calls the tool again. A refused request is pydantic-ai's ``ModelHTTPError`` with the body."""
    CALLS.clear()
    agent = Agent(model_for(model_class), tools=[get_weather])
    first = await agent.run("What is the weather in Paris?")
    second = await agent.run("And in Rome?", message_history=first.all_messages())
    assert CALLS == ["Paris", "Rome"] and "Rome" in second.output
    with pytest.raises(ModelHTTPError) as raised:
        await agent.run("Hello", model_settings={"temperature": 5})
    assert raised.value.status_code == 400
    assert isinstance(raised.value.body, dict) and raised.value.body["param"] == "temperature"
