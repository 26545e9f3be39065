"""The model names ``/v1/chat/completions`` and ``/v1/responses`` take, driven by the official SDK
over loopback: every OpenAI chat model family (and its variants and dated snapshots, as the frameworks
and HyperStudy send them), the listed ids and the scenario models are served; a name outside them is
the live 404 ``model_not_found`` (it was accepted, and answered as if it were a model); ``--any-chat-model``
serves any name (docs/chat.md)."""

from __future__ import annotations

import openai
import pytest
from openai import AsyncOpenAI

KNOWN = [
    "gpt-4o-mini",  # HRP's connection test: the first id /v1/models lists
    "gpt-4o",
    "gpt-4o-2024-11-20",
    "chatgpt-4o-latest",
    "gpt-4.1",
    "gpt-4.1-nano-2025-04-14",
    "gpt-4.5-preview",
    "gpt-4",
    "gpt-4-turbo",
    "gpt-4-0613",
    "gpt-3.5-turbo",  # LangChain's ChatOpenAI default
    "gpt-3.5-turbo-0125",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-chat-latest",
    "gpt-5-codex",
    "gpt-5.1",
    "gpt-5.2-pro",
    "o1",
    "o1-mini",
    "o3-mini",
    "o3-pro-2025-06-10",
    "o4-mini",
    "ft:gpt-4o-mini-2024-07-18:my-org:custom-suffix:AbC123",
    "mockengine-default",
]
UNKNOWN = ["llama3", "claude-3-5-sonnet", "gpt-nope", "gpt4o", "x", "ft:llama3:org::1"]


def _client(engine) -> AsyncOpenAI:
    return AsyncOpenAI(api_key="sk-test", base_url=f"{engine.http_url}/v1", max_retries=0)


def _not_found(model: str) -> dict:
    return {
        "message": f"The model `{model}` does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "param": None,
        "code": "model_not_found",
    }


async def test_every_openai_chat_model_family_is_served(engine) -> None:
    client = _client(await engine())
    for model in KNOWN:
        reply = await client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "Hello"}], max_completion_tokens=16
        )
        assert reply.choices, model
        response = await client.responses.create(model=model, input="Hello")
        assert response.output_text is not None, model


@pytest.mark.parametrize("model", UNKNOWN)
async def test_an_unknown_model_is_the_live_404_on_both_apis(engine, model) -> None:
    client = _client(await engine())
    with pytest.raises(openai.NotFoundError) as chat:
        await client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Hello"}])
    assert chat.value.status_code == 404 and chat.value.body == _not_found(model)
    with pytest.raises(openai.NotFoundError) as responses:
        await client.responses.create(model=model, input="Hello")
    assert responses.value.status_code == 404 and responses.value.body == _not_found(model)


async def test_an_unknown_scenario_model_is_named_as_the_realtime_endpoint_names_it(engine) -> None:
    client = _client(await engine())
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="mockengine-nope", messages=[{"role": "user", "content": "Hello"}]
        )
    assert refused.value.body["code"] == "unknown_scenario" and refused.value.body["param"] == "model"
    assert "Unknown scenario 'nope'" in refused.value.body["message"]


async def test_a_misspelt_scenario_model_names_the_near_miss(engine) -> None:
    client = _client(await engine())
    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.create(
            model="mockengine-defualt", messages=[{"role": "user", "content": "Hello"}]
        )
    assert refused.value.body["message"].startswith(
        "Unknown scenario 'defualt' in model 'mockengine-defualt' (did you mean 'default'?). "
        "Loaded scenarios: conformance, default"
    )


async def test_any_chat_model_serves_any_name(engine) -> None:
    client = _client(await engine(any_chat_model=True))
    reply = await client.chat.completions.create(model="llama3", messages=[{"role": "user", "content": "Hi"}])
    assert reply.choices and reply.model == "llama3"
    assert (await client.responses.create(model="llama3", input="Hi")).model == "llama3"
