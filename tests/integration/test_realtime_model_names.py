"""Which model names the Realtime endpoints serve, through the official ``openai`` SDK on loopback: an
unknown name (``gpt-4o-nope``) is the live ``invalid_model`` refusal (reference §0: error event, close
4000 ``invalid_request_error.invalid_model``; a client secret's ``session.model`` a 400), while the
default realtime model of every framework installed (openai-agents, livekit-agents, pipecat) and the
field's well-known names open a session, so no refusal breaks a framework's default."""

from __future__ import annotations

import inspect

import pytest
from openai import AsyncOpenAI
from websockets.exceptions import ConnectionClosedError


def framework_defaults() -> dict[str, str]:
    """The realtime model each installed framework connects with when the app names none."""
    from agents.realtime.openai_realtime import DEFAULT_REALTIME_MODEL
    from livekit.agents.llm._realtime.openai import RealtimeModel as LiveKitRealtime
    from pipecat.services.openai.realtime.llm import OpenAIRealtimeLLMService

    livekit = inspect.signature(LiveKitRealtime.__init__).parameters["model"].default
    pipecat_source = inspect.getsource(OpenAIRealtimeLLMService)
    pipecat = pipecat_source.split('model="', 1)[1].split('"', 1)[0]
    return {"openai-agents": DEFAULT_REALTIME_MODEL, "livekit-agents": livekit, "pipecat": pipecat}


WELL_KNOWN = (
    "gpt-realtime", "gpt-realtime-mini", "gpt-realtime-2025-08-28", "gpt-realtime-mini-2025-10-06",
    "gpt-realtime-1.5", "gpt-realtime-2", "gpt-4o-realtime-preview", "gpt-4o-realtime-preview-2024-12-17",
    "gpt-4o-mini-realtime-preview", "gpt-4o-mini-realtime-preview-2024-12-17",
)  # fmt: skip


async def _client(engine_url) -> AsyncOpenAI:
    base = (await engine_url()).replace("ws://", "http://").split("/realtime")[0]
    return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)


async def test_an_unknown_realtime_model_is_refused_as_live(engine_url):
    """On connect: the live error event and close (reference §0). A client secret for it mints, as
    live (a secret for a model the realtime endpoint will not take was minted, then the connection
    refused: hurttlocker/o8#2165, 2026-09-10), and the session opened with it is refused the same way."""
    client = await _client(engine_url)
    async with client.realtime.connect(model="gpt-4o-nope") as connection:
        await _expect_invalid_model(connection)
    secret = await client.realtime.client_secrets.create(session={"type": "realtime", "model": "gpt-4o-nope"})
    assert secret.session.model == "gpt-4o-nope" and secret.value.startswith("ek_")
    browser = AsyncOpenAI(api_key=secret.value, base_url=str(client.base_url), max_retries=0)
    async with browser.realtime.connect(model="gpt-realtime") as connection:
        await _expect_invalid_model(connection)


async def _expect_invalid_model(connection) -> None:
    event = await connection.recv()
    assert event.type == "error" and event.error.code == "invalid_model"
    assert event.error.message.startswith('Model "gpt-4o-nope" is not supported in realtime mode.')
    with pytest.raises(ConnectionClosedError) as closed:
        await connection.recv()
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4000, "invalid_request_error.invalid_model")


@pytest.mark.parametrize("model", sorted({*framework_defaults().values(), *WELL_KNOWN}))
async def test_framework_defaults_and_well_known_names_are_served(engine_url, model):
    client = await _client(engine_url)
    async with client.realtime.connect(model=model) as connection:
        created = await connection.recv()
        assert created.type == "session.created" and created.session.model == model
    secret = await client.realtime.client_secrets.create(session={"type": "realtime", "model": model})
    assert secret.session.model == model
