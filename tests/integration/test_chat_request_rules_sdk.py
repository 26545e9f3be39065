"""Chat Completions parameters the live service refuses by context, through the openai SDK against a real
engine on loopback: ``parallel_tool_calls`` without ``tools``, and ``max_tokens`` on a reasoning model.

Evidence (live bodies quoted in public issues): openai/swarm#30 (``parallel_tool_calls`` without tools:
param ``parallel_tool_calls``, code null); microsoft/vscode-copilot-release#8065 and #9954,
griptape-ai/ComfyUI-Griptape#312 (``max_tokens`` on o-series and gpt-5 models: param ``max_tokens``,
code ``unsupported_parameter``), teilomillet/gollm#33 (o1, o3-mini)."""

from __future__ import annotations

import openai
import pytest
from openai import AsyncOpenAI

HELLO = [{"role": "user", "content": "Hello"}]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


@pytest.fixture
async def sdk(engine_url):
    base = (await engine_url()).replace("ws://", "http://")
    async with AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0) as client:
        yield client


@pytest.mark.parametrize("value", [True, False])
async def test_parallel_tool_calls_without_tools_is_refused(sdk, value) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await sdk.chat.completions.create(model="gpt-4o-mini", messages=HELLO, parallel_tool_calls=value)
    error = refused.value
    assert (error.type, error.param, error.code) == ("invalid_request_error", "parallel_tool_calls", None)
    assert error.body["message"] == (
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are "
        "specified."
    )


async def test_parallel_tool_calls_with_tools_or_null_is_served(sdk) -> None:
    with_tools = await sdk.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "What's the weather in Paris and in Rome?"}],
        tools=[WEATHER],
        parallel_tool_calls=False,
    )
    assert len(with_tools.choices[0].message.tool_calls or []) == 1
    # null is "not given" (the SDK's NOT_GIVEN sends nothing; a hand-written body may send null)
    plain = await sdk.post(
        "/chat/completions",
        body={"model": "gpt-4o-mini", "messages": HELLO, "parallel_tool_calls": None},
        cast_to=object,
    )
    assert plain["choices"][0]["message"]["content"]


async def test_the_responses_api_still_takes_parallel_tool_calls_without_tools(sdk) -> None:
    # The Responses API echoes parallel_tool_calls on every response; an agent without tools may send it.
    response = await sdk.responses.create(model="gpt-4o-mini", input="Hello", parallel_tool_calls=False)
    assert response.status == "completed" and response.parallel_tool_calls is False
    default = await sdk.responses.create(model="gpt-4o-mini", input="Hello")
    assert default.parallel_tool_calls is True


@pytest.mark.parametrize("model", ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini", "gpt-5.1"])
async def test_max_tokens_on_a_reasoning_model_is_unsupported(sdk, model) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await sdk.chat.completions.create(model=model, messages=HELLO, max_tokens=50)
    error = refused.value
    assert (error.param, error.code) == ("max_tokens", "unsupported_parameter")
    assert error.type == "invalid_request_error"
    assert error.body["message"] == (
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' "
        "instead."
    )
    served = await sdk.chat.completions.create(model=model, messages=HELLO, max_completion_tokens=3)
    assert served.choices[0].finish_reason == "length"


@pytest.mark.parametrize(
    "model", ["gpt-4o-mini", "gpt-4.1", "gpt-3.5-turbo", "gpt-5-chat-latest", "mockengine-default"]
)
async def test_max_tokens_on_other_models_is_served(sdk, model) -> None:
    served = await sdk.chat.completions.create(model=model, messages=HELLO, max_tokens=3)
    assert served.choices[0].finish_reason == "length" and served.usage.completion_tokens == 3


# ``temperature`` on a reasoning model: the live bodies quoted in owndev/Open-WebUI-Functions#98 (gpt-5),
# QwenLM/qwen-code#921 and glebm/i18n-tasks#672 (gpt-5-mini: "does not support 0" / "0.0", the number as
# sent), BeehiveInnovations/pal-mcp-server#78 (o3: unsupported_value; o3-mini: unsupported_parameter).
@pytest.mark.parametrize(
    ("model", "temperature", "shown"),
    [("gpt-5", 0.01, "0.01"), ("gpt-5-mini", 0, "0"), ("gpt-5-mini", 0.0, "0.0"), ("o3", 0.2, "0.2")],
)
async def test_temperature_other_than_1_on_a_reasoning_model_is_unsupported(
    sdk, model, temperature, shown
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await sdk.chat.completions.create(model=model, messages=HELLO, temperature=temperature)
    error = refused.value
    assert (error.type, error.param, error.code) == (
        "invalid_request_error",
        "temperature",
        "unsupported_value",
    )
    assert error.body["message"] == (
        f"Unsupported value: 'temperature' does not support {shown} with this model. Only the default (1) "
        "value is supported."
    )
    for served in (1, 1.0, None):
        answer = await sdk.post(
            "/chat/completions",
            body={"model": model, "messages": HELLO, "temperature": served},
            cast_to=object,
        )
        assert answer["choices"][0]["message"]["content"]


async def test_temperature_on_o3_mini_is_an_unsupported_parameter(sdk) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await sdk.chat.completions.create(model="o3-mini", messages=HELLO, temperature=0.2)
    error = refused.value
    assert (error.param, error.code) == ("temperature", "unsupported_parameter")
    assert error.body["message"] == "Unsupported parameter: 'temperature' is not supported with this model."


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4.1", "gpt-5-chat-latest", "o4-mini", "o1-mini"])
async def test_temperature_on_other_models_is_served(sdk, model) -> None:
    # o4-mini and o1-mini: their live answer is not public, so the engine takes it.
    served = await sdk.chat.completions.create(model=model, messages=HELLO, temperature=0.2)
    assert served.choices[0].message.content


async def test_the_responses_api_is_not_checked_for_temperature(sdk) -> None:
    # The Responses API's wording for it is not public; left as it was.
    response = await sdk.responses.create(model="gpt-5", input="Hello", temperature=0.2)
    assert response.status == "completed"


# ``stop`` on the gpt-5 models: the live body quoted in huggingface/smolagents#1671 (gpt-5-mini) and #1662
# (gpt-5, gpt-5-mini, gpt-5-nano), BittnerPierre/AI-Agent-Casebook#133 (gpt-5 through LangChain).
@pytest.mark.parametrize("model", ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-mini-2025-08-07"])
@pytest.mark.parametrize("stop", ["\nObservation:", ["END", "STOP"]])
async def test_stop_on_a_gpt5_model_is_unsupported(sdk, model, stop) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        await sdk.chat.completions.create(model=model, messages=HELLO, stop=stop)
    error = refused.value
    assert (error.type, error.param, error.code) == ("invalid_request_error", "stop", "unsupported_parameter")
    assert error.body["message"] == "Unsupported parameter: 'stop' is not supported with this model."


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4.1", "gpt-5-chat-latest", "gpt-5.5", "o3"])
async def test_stop_on_other_models_is_served(sdk, model) -> None:
    # gpt-5.5 takes it (BerriAI/litellm#28650); o3's and gpt-5.1's answers are not public: taken.
    served = await sdk.chat.completions.create(model=model, messages=HELLO, stop=["Nice"])
    assert served.choices[0].finish_reason == "stop"
    assert "Nice" not in (served.choices[0].message.content or "")
    for empty in (None, []):
        answer = await sdk.post(
            "/chat/completions", body={"model": "gpt-5", "messages": HELLO, "stop": empty}, cast_to=object
        )
        assert answer["choices"][0]["message"]["content"]
