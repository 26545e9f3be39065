"""The Azure OpenAI clients pointed at the engine with only the endpoint changed: openai-python's
``AsyncAzureOpenAI`` (its realtime URL ``{endpoint}/openai/realtime?api-version=…&deployment=…``, or
``{websocket_base_url}/realtime`` with the same query, the key in an ``api-key`` header and no
``model``), and ``AsyncOpenAI`` on Azure's GA path (``wss://RESOURCE.openai.azure.com/openai/v1``,
the key as a bearer token), as Azure's Realtime how-to writes it. A typed turn each, answered without
an error; a wrong ``api-key`` is refused as a wrong bearer key is. Fake speech engines: this is the
handshake, not the models (docs/client-compatibility.md, "Azure OpenAI clients")."""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncAzureOpenAI, AsyncOpenAI

from mockengine.server.handshake import api_key_from, requested_model
from tests.speech import validate_server_event

QUESTION = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello there."}]}
API_VERSION = "2025-08-28"


async def typed_turn(connection: Any) -> list[Any]:
    """One typed question and its answer in text; every event the engine sent until ``response.done``."""
    await connection.session.update(session={"type": "realtime", "output_modalities": ["text"]})
    await connection.conversation.item.create(item=QUESTION)
    await connection.response.create()
    events = []
    async for event in connection:
        events.append(event)
        if event.type == "response.done":
            return events
    raise AssertionError("the connection closed before response.done")


def assert_answered(events: list[Any], model: str, server_events: list[dict[str, Any]]) -> None:
    """Answered in text, every event the engine sent of the SDK's types (framework_engine fails the test on
    any ``error``)."""
    for event in server_events:
        validate_server_event(event)
    created = next(e for e in events if e.type == "session.created")
    assert created.session.model == model
    done = events[-1]
    assert done.response.status == "completed"
    assert done.response.output[0].content[0].text


@pytest.mark.parametrize("deployment", ["gpt-realtime", "gpt-4o-realtime-preview"])
async def test_azure_client_on_its_websocket_base_url(
    framework_engine, server_events, deployment: str
) -> None:
    """``/v1/realtime?api-version=…&deployment=NAME`` with ``api-key: …`` (no ``model``, no bearer)."""
    eng = await framework_engine()
    client = AsyncAzureOpenAI(
        api_key="azure-key-123",
        api_version=API_VERSION,
        azure_endpoint=eng.http_url,
        azure_deployment=deployment,
        websocket_base_url=eng.url,
    )
    async with client.realtime.connect(model=deployment) as connection:
        assert_answered(await typed_turn(connection), deployment, server_events)


async def test_azure_client_on_the_openai_path(framework_engine, server_events) -> None:
    """Azure's own path, ``/openai/realtime?api-version=…&deployment=…`` (the SDK's URL from
    ``azure_endpoint``; its ``wss`` is given here as ``ws`` through ``websocket_base_url``)."""
    eng = await framework_engine()
    client = AsyncAzureOpenAI(
        api_key="azure-key-123",
        api_version=API_VERSION,
        azure_endpoint=eng.http_url,
        websocket_base_url=f"{eng.http_url.replace('http', 'ws')}/openai",
    )
    async with client.realtime.connect(model="gpt-realtime") as connection:
        assert_answered(await typed_turn(connection), "gpt-realtime", server_events)


async def test_openai_client_on_azure_v1_path(framework_engine, server_events) -> None:
    """Azure's GA how-to: ``AsyncOpenAI(websocket_base_url="wss://RESOURCE.openai.azure.com/openai/v1")``."""
    eng = await framework_engine()
    base = f"{eng.http_url.replace('http', 'ws')}/openai/v1"
    client = AsyncOpenAI(api_key="azure-token", websocket_base_url=base)
    async with client.realtime.connect(model="gpt-realtime") as connection:
        assert_answered(await typed_turn(connection), "gpt-realtime", server_events)


async def test_wrong_azure_api_key_is_refused_like_a_wrong_bearer_key(engine) -> None:
    eng = await engine(api_keys=("azure-key-123",))
    client = AsyncAzureOpenAI(
        api_key="azure-key-999",
        api_version=API_VERSION,
        azure_endpoint=eng.http_url,
        websocket_base_url=eng.url,
    )
    async with client.realtime.connect(model="gpt-realtime") as connection:
        event = await connection.recv()
    assert event.type == "error"
    assert event.error.code == "invalid_api_key"


def test_which_key_and_model_a_connection_names() -> None:
    """A bearer key (or the key subprotocol) wins over ``api-key``; an empty ``api-key`` is no key;
    ``?model=`` wins over ``?deployment=``."""
    assert api_key_from({"Authorization": "Bearer sk-a", "api-key": "az-b"}, []) == "sk-a"
    assert api_key_from({"api-key": "az-b"}, ["realtime", "openai-insecure-api-key.ek_c"]) == "ek_c"
    assert api_key_from({"api-key": " az-b "}, []) == "az-b"
    assert api_key_from({"api-key": " "}, []) is None
    assert requested_model({"model": "gpt-realtime", "deployment": "gpt-realtime-mini"}) == "gpt-realtime"
    assert requested_model({"api-version": "2025-08-28", "deployment": "gpt-realtime-2"}) == "gpt-realtime-2"
    assert requested_model({"model": "", "deployment": ""}) is None
