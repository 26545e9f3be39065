"""``reasoning`` on the realtime models, through the openai SDK over a socket and over HTTP: a model
without it (``gpt-realtime``) refuses it where it is set — ``session.update`` (the whole update
discarded), ``response.create`` (no response starts), a client secret's and a WebRTC call's session
(HTTP 400) — with ``unsupported_parameter``, and the session goes on; ``gpt-realtime-2`` takes it and
echoes it. Evidence: pipecat strips ``reasoning`` for any model but gpt-realtime-2 because "the server
otherwise rejects the whole update" (session_config.check_reasoning)."""

from __future__ import annotations

import json

import aiohttp
import openai
import pytest
from openai import AsyncOpenAI

from mockengine.protocol.session_config import takes_reasoning

LOW = {"effort": "low"}


def _client(base: str) -> AsyncOpenAI:
    return AsyncOpenAI(api_key="sk-test", base_url=base.replace("ws://", "http://"), websocket_base_url=base)


async def _until(conn, *kinds: str):
    async for event in conn:
        if event.type in kinds:
            return event
    raise AssertionError(f"the socket closed before {kinds}")


@pytest.mark.parametrize(
    ("model", "takes"),
    [
        ("gpt-realtime", False),
        ("gpt-realtime-mini", False),
        ("gpt-realtime-2025-08-28", False),
        ("gpt-realtime-mini-2025-10-06", False),
        ("gpt-realtime-1.5", False),
        ("gpt-4o-realtime-preview", False),
        ("gpt-realtime-2", True),
        ("gpt-realtime-2.1", True),
        ("gpt-realtime-2.1-mini", True),
        ("mockengine-restaurant", True),
    ],
)
def test_which_models_take_reasoning(model: str, takes: bool) -> None:
    assert takes_reasoning(model) is takes


async def test_gpt_realtime_refuses_reasoning_and_goes_on(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    async with _client(base) as client, client.realtime.connect(model="gpt-realtime") as conn:
        created = await _until(conn, "session.created")
        await conn.session.update(
            session={"type": "realtime", "instructions": "Be brief.", "reasoning": LOW}, event_id="upd"
        )
        error = (await _until(conn, "error", "session.updated")).model_dump()["error"]
        assert error["code"] == "unsupported_parameter" and error["event_id"] == "upd"
        assert error["param"] == "session.reasoning.effort"
        assert error["message"] == (
            "Unsupported parameter: 'session.reasoning.effort' is not supported with this model."
        )
        await conn.response.create(response={"output_modalities": ["text"], "reasoning": LOW}, event_id="rc")
        error = (await _until(conn, "error", "response.created")).model_dump()["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "unsupported_parameter",
            "response.reasoning.effort",
            "rc",
        )
        # The refused update changed nothing; a response without reasoning runs.
        await conn.session.update(session={"type": "realtime"})
        updated = await _until(conn, "session.updated")
        assert updated.session.instructions == created.session.instructions
        assert "reasoning" not in updated.model_dump(exclude_unset=True)["session"]
        await conn.response.create(response={"output_modalities": ["text"]})
        done = await _until(conn, "response.done")
        assert done.response.status == "completed"


async def test_gpt_realtime_2_takes_reasoning(engine_url) -> None:
    base = await engine_url(audio_pace=0.0)
    async with _client(base) as client, client.realtime.connect(model="gpt-realtime-2") as conn:
        await _until(conn, "session.created")
        await conn.session.update(session={"type": "realtime", "reasoning": LOW})
        updated = await _until(conn, "session.updated", "error")
        assert updated.type == "session.updated", updated
        assert updated.session.reasoning is not None and updated.session.reasoning.effort == "low"
        await conn.response.create(response={"output_modalities": ["text"], "reasoning": {"effort": "high"}})
        done = await _until(conn, "response.done", "error")
        assert done.type == "response.done" and done.response.status == "completed", done


async def test_client_secrets_and_calls_refuse_reasoning_on_gpt_realtime(engine_url) -> None:
    base = await engine_url()
    http_base = base.replace("ws://", "http://")
    async with _client(base) as client:
        with pytest.raises(openai.BadRequestError) as refused:
            await client.realtime.client_secrets.create(
                session={"type": "realtime", "model": "gpt-realtime", "reasoning": LOW}
            )
        body = refused.value.body
        assert isinstance(body, dict)
        assert (body["code"], body["param"]) == ("unsupported_parameter", "session.reasoning.effort")
        secret = await client.realtime.client_secrets.create(
            session={"type": "realtime", "model": "gpt-realtime-2", "reasoning": LOW}
        )
        assert secret.session.reasoning is not None and secret.session.reasoning.effort == "low"
    form = aiohttp.FormData()
    form.add_field("sdp", "v=0\r\n")
    form.add_field("session", json.dumps({"type": "realtime", "model": "gpt-realtime", "reasoning": {}}))
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{http_base}/realtime/calls", data=form, headers={"Authorization": "Bearer sk-t"}
        ) as answer,
    ):
        assert answer.status == 400
        error = (await answer.json())["error"]
    assert (error["code"], error["param"]) == ("unsupported_parameter", "session.reasoning")


async def test_reasoning_null_clears_it_and_a_models_switch_changes_nothing(engine_url) -> None:
    """Through the SDK (``conn.send`` of a dict: its typed ``session.update`` leaves ``reasoning``
    non-nullable): ``reasoning: null`` clears the setting, and an update naming ``gpt-realtime`` on a
    gpt-realtime-2 session with reasoning is taken, the session keeping its model and its reasoning
    (docs/realtime-protocol.md); on a gpt-realtime session the refusal says the update's model did not
    switch it."""
    base = await engine_url(audio_pace=0.0)
    async with _client(base) as client, client.realtime.connect(model="gpt-realtime-2") as conn:
        await _until(conn, "session.created")
        await conn.session.update(session={"type": "realtime", "reasoning": LOW})
        assert (await _until(conn, "session.updated", "error")).session.reasoning.effort == "low"
        await conn.send({"type": "session.update", "session": {"type": "realtime", "reasoning": None}})
        cleared = await _until(conn, "session.updated", "error")
        assert cleared.type == "session.updated", cleared
        assert "reasoning" not in cleared.model_dump(exclude_unset=True)["session"]
        await conn.session.update(session={"type": "realtime", "reasoning": LOW})
        await _until(conn, "session.updated")
        await conn.session.update(
            session={"type": "realtime", "model": "gpt-realtime", "instructions": "Hi."}
        )
        kept = await _until(conn, "session.updated", "error")
        assert kept.type == "session.updated", kept
        assert kept.session.model == "gpt-realtime-2" and kept.session.reasoning.effort == "low"
        assert kept.session.instructions == "Hi."
        await conn.response.create(response={"output_modalities": ["text"]})
        done = await _until(conn, "response.done", "error")
        assert done.type == "response.done" and done.response.status == "completed", done
    async with _client(base) as client, client.realtime.connect(model="gpt-realtime") as conn:
        await _until(conn, "session.created")
        await conn.session.update(
            session={"type": "realtime", "model": "gpt-realtime-2", "reasoning": LOW}, event_id="sw"
        )
        error = (await _until(conn, "error", "session.updated")).model_dump()["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "unsupported_parameter",
            "session.reasoning.effort",
            "sw",
        )
        assert "The session's model is 'gpt-realtime'" in error["message"]
        assert "('gpt-realtime-2') does not change it" in error["message"]
        await conn.send({"type": "session.update", "session": {"type": "realtime", "reasoning": None}})
        assert (await _until(conn, "session.updated", "error")).type == "session.updated"
