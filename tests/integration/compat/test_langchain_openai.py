"""LangChain's OpenAI chat model (``langchain-openai``'s ``ChatOpenAI``, pinned in pyproject's ``test``
extra) against a real engine on loopback, only ``base_url`` changed, over Chat Completions and (with
``use_responses_api=True``) the Responses API: invoke and stream with usage, a ``bind_tools`` loop to
its end, streamed tool-call chunks, and ``with_structured_output`` by each of its methods."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field

API = pytest.mark.parametrize("use_responses_api", [False, True], ids=["chat", "responses"])


@pytest.fixture
async def llm_for(engine):
    eng = await engine()

    def make(use_responses_api: bool) -> ChatOpenAI:
        return ChatOpenAI(
            model="gpt-4o-mini",
            base_url=f"{eng.http_url}/v1",
            api_key="sk-test",  # type: ignore[arg-type]
            use_responses_api=use_responses_api,
            stream_usage=True,
            max_retries=0,
        )

    return make


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"It is sunny and 21 degrees in {city}."


class CityWeather(BaseModel):
    """Weather in a city."""

    city: str = Field(description="the city")
    temperature_c: int
    summary: str


def _text(message: BaseMessage) -> str:
    return message.text if isinstance(message.text, str) else message.text()  # type: ignore[operator]


@API
async def test_invoke_and_stream_report_usage(llm_for, use_responses_api) -> None:
    llm = llm_for(use_responses_api)
    answer = await llm.ainvoke("Hello, who are you?")
    assert _text(answer) and answer.usage_metadata and answer.usage_metadata["output_tokens"] > 0
    full: Any = None
    chunks = 0
    async for chunk in llm.astream("Tell me about Paris."):
        full = chunk if full is None else full + chunk
        chunks += 1
    assert chunks > 2 and "Paris" in _text(full)
    usage = full.usage_metadata
    assert usage and usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0


@API
async def test_a_bind_tools_loop_runs_the_tool_and_ends(llm_for, use_responses_api) -> None:
    bound = llm_for(use_responses_api).bind_tools([get_weather])
    messages: list[BaseMessage] = [HumanMessage("What is the weather in Paris?")]
    for _ in range(4):
        reply = await bound.ainvoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            messages.append(ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"]))
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    assert messages[1].tool_calls[0]["args"] == {"city": "Paris"}  # type: ignore[attr-defined]
    assert "sunny" in _text(messages[-1]).lower()


@API
async def test_streamed_tool_call_chunks_assemble(llm_for, use_responses_api) -> None:
    bound = llm_for(use_responses_api).bind_tools([get_weather])
    full: AIMessageChunk | None = None
    async for chunk in bound.astream("What is the weather in Paris and in London?"):
        full = chunk if full is None else full + chunk  # type: ignore[assignment]
    assert full is not None
    assert [c["args"] for c in full.tool_calls] == [{"city": "Paris"}, {"city": "London"}]
    assert all(c["id"] and c["id"].startswith("call_") for c in full.tool_calls)
    assert full.usage_metadata and full.usage_metadata["output_tokens"] > 0


@API
@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
async def test_structured_output_takes_what_was_said(llm_for, use_responses_api, method) -> None:
    """``function_calling`` forces a ``CityWeather`` tool on words that ask for none: the city said is
    kept (it was dropped as "no request for this tool", and London made up)."""
    structured = llm_for(use_responses_api).with_structured_output(CityWeather, method=method)
    said = "It is 21 degrees and sunny in Paris."
    result = await structured.ainvoke(said)
    assert isinstance(result, CityWeather)
    assert (result.city, result.temperature_c) == ("Paris", 21)
    streamed = [part async for part in structured.astream(said)]
    assert streamed[-1] == result


@API
async def test_json_mode_follows_the_schema_in_the_prompt(llm_for, use_responses_api) -> None:
    """``method="json_mode"`` sends ``json_object`` and leaves the schema to the prompt (LangChain's
    documented use); the reply follows it, as a model does, instead of ``{"response": …}``."""
    structured = llm_for(use_responses_api).with_structured_output(CityWeather, method="json_mode")
    schema = json.dumps(CityWeather.model_json_schema())
    result = await structured.ainvoke(
        [
            SystemMessage(f"Answer in JSON following this schema: {schema}"),
            HumanMessage("It is 21 degrees and sunny in Paris."),
        ]
    )
    assert isinstance(result, CityWeather) and (result.city, result.temperature_c) == ("Paris", 21)


@API
async def test_a_bad_request_raises_the_sdks_error(llm_for, use_responses_api) -> None:
    import openai

    with pytest.raises(openai.BadRequestError) as raised:
        await llm_for(use_responses_api).bind(temperature=5).ainvoke("Hello")
    assert raised.value.body["param"] == "temperature"  # type: ignore[index]
