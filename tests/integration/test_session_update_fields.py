"""Session fields the SDKs send beyond what our validation knew, over a real socket (fake engines):
turn detection's ``model_version`` as the OpenAI Agents SDK sends it, and ``noise_reduction.strength``
(openai-python's ``NoiseReduction``) through the ``openai`` SDK. Both were refused with
``unknown_parameter`` and the whole update discarded. And what the SDK requires of them: a
``noise_reduction`` object that would turn noise reduction on names its ``type``."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import aiohttp
from agents.realtime import RealtimeAgent, RealtimeRunner
from openai import AsyncOpenAI

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from tests.speech import events_until
from tests.webrtc_client import CallClient


async def test_the_agents_sdks_model_version_is_taken_and_echoed(engine) -> None:
    eng = await engine()
    turn_detection = {"type": "semantic_vad", "eagerness": "high", "modelVersion": "default"}
    config: Any = {"model_settings": {"model_name": "gpt-realtime", "turn_detection": turn_detection}}
    runner = RealtimeRunner(starting_agent=RealtimeAgent(name="Assistant"), config=config)
    updated: list[dict[str, Any]] = []
    errors: list[Any] = []
    url = f"{eng.url}/realtime?model=gpt-realtime"
    async with await runner.run(model_config={"url": url, "api_key": "sk-test"}) as session:

        async def collect() -> None:
            async for event in session:
                if event.type == "error":
                    errors.append(event)
                if event.type == "raw_model_event" and event.data.type == "raw_server_event":
                    if event.data.data.get("type") == "error":
                        errors.append(event.data.data)
                    if event.data.data.get("type") == "session.updated":
                        updated.append(event.data.data)

        task = asyncio.create_task(collect())
        async with asyncio.timeout(10):
            while not updated and not errors:
                await asyncio.sleep(0.01)
        task.cancel()
    assert errors == []
    echoed = updated[-1]["session"]["audio"]["input"]["turn_detection"]
    assert echoed == {
        "type": "semantic_vad",
        "eagerness": "high",
        "create_response": True,
        "interrupt_response": True,
        "model_version": "default",
    }


async def test_noise_reduction_strength_is_taken_and_kept_by_a_later_update(engine) -> None:
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-test", base_url=eng.http_url + "/v1", websocket_base_url=eng.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.recv()  # session.created
        near = {"type": "near_field", "strength": 0.4}
        await conn.session.update(session={"type": "realtime", "audio": {"input": {"noise_reduction": near}}})
        first = await conn.recv()
        assert first.type == "session.updated", first
        assert first.session.audio.input.noise_reduction.model_dump() == near
        # "Omitting strength from a session update preserves the current strength" (the SDK's docstring).
        far = {"type": "far_field"}
        await conn.session.update(session={"type": "realtime", "audio": {"input": {"noise_reduction": far}}})
        second = await conn.recv()
        assert second.type == "session.updated", second
        assert second.session.audio.input.noise_reduction.model_dump() == {
            "type": "far_field",
            "strength": 0.4,
        }


NO_TYPE = {
    "type": "invalid_request_error",
    "code": "missing_required_parameter",
    "message": "Missing required parameter: 'session.audio.input.noise_reduction.type'.",
    "param": "session.audio.input.noise_reduction.type",
}


def noise(value: Any, kind: str = "realtime") -> dict[str, Any]:
    return {"type": kind, "audio": {"input": {"noise_reduction": value}}}


async def test_noise_reduction_turned_on_without_a_type_is_refused_and_the_session_keeps_working(
    engine,
) -> None:
    # openai-python 3.60: "When you supply a noise_reduction object, you must set type to near_field or
    # far_field". An object without one was taken ({} echoed as the session's noise reduction).
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-test", base_url=eng.http_url + "/v1", websocket_base_url=eng.url)
    async with client.realtime.connect(model="gpt-realtime") as conn:
        assert (await conn.recv()).type == "session.created"
        for value in ({}, {"strength": 0.5}):
            await conn.session.update(session=noise(value), event_id="evt_no_type")  # type: ignore[arg-type]
            refused = await conn.recv()
            assert refused.type == "error", refused
            assert refused.error.model_dump(exclude_none=True) == {**NO_TYPE, "event_id": "evt_no_type"}
        # Unchanged and working: an update lands on noise reduction still off; while on, one without
        # type keeps the current type (and strength, when it names none).
        await conn.session.update(session={"type": "realtime", "instructions": "Be brief."})
        same = await conn.recv()
        assert same.type == "session.updated" and same.session.audio.input.noise_reduction is None
        await conn.session.update(session=noise({"type": "far_field"}))
        assert (await conn.recv()).session.audio.input.noise_reduction.type == "far_field"
        await conn.session.update(session=noise({"strength": 0.2}))  # type: ignore[arg-type]
        kept = await conn.recv()
        assert kept.type == "session.updated", kept
        assert kept.session.audio.input.noise_reduction.model_dump() == {"type": "far_field", "strength": 0.2}


async def test_a_transcription_session_refuses_it_too(engine) -> None:
    eng = await engine()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"{eng.url}/realtime?intent=transcription", headers={"Authorization": "Bearer sk"}
        ) as ws,
    ):
        assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
        await ws.send_json({"type": "session.update", "session": noise({"strength": 1}, "transcription")})
        refused = json.loads((await ws.receive(timeout=10)).data)
        assert refused["type"] == "error" and refused["error"]["param"] == NO_TYPE["param"]
        await ws.send_json(
            {"type": "session.update", "session": noise({"type": "near_field"}, "transcription")}
        )
        updated = json.loads((await ws.receive(timeout=10)).data)
        assert updated["session"]["audio"]["input"]["noise_reduction"] == {"type": "near_field"}


async def test_a_client_secret_or_a_call_asking_for_it_without_a_type_gets_a_400(engine) -> None:
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        for session in (noise({"strength": 0.5}), noise({}, "transcription")):
            async with http.post(
                f"{eng.http_url}/v1/realtime/client_secrets",
                json={"session": session},
                headers={"Authorization": "Bearer sk-test"},
            ) as reply:
                assert reply.status == 400
                assert (await reply.json())["error"] == NO_TYPE
        caller = CallClient()
        try:
            form = aiohttp.FormData(default_to_multipart=True)
            form.add_field("sdp", await caller.offer())
            form.add_field("session", json.dumps(noise({})))
            async with http.post(
                f"{eng.http_url}/v1/realtime/calls", data=form, headers={"Authorization": "Bearer sk-test"}
            ) as reply:
                assert reply.status == 400
                assert (await reply.json())["error"] == NO_TYPE
        finally:
            await caller.close()


async def test_a_calls_session_applies_over_its_client_secrets_field_by_field(engine) -> None:
    # A call's `session` used to replace the secret's `audio` whole ({**secret, **call}): a page that
    # set only its turn detection lost the voice and noise reduction its server minted.
    eng = await engine()
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{eng.http_url}/v1/realtime/client_secrets",
            json={
                "session": {
                    "type": "realtime",
                    "instructions": "Be brief.",
                    "audio": {
                        "input": {"noise_reduction": {"type": "near_field"}},
                        "output": {"voice": "coral"},
                    },
                }
            },
            headers={"Authorization": "Bearer sk-test"},
        ) as minted,
    ):
        secret = (await minted.json())["value"]
    caller = CallClient()
    call_session = {
        "type": "realtime",
        "audio": {
            "input": {
                "turn_detection": {"type": "server_vad", "silence_duration_ms": 700},
                "noise_reduction": {"strength": 0.4},
            }
        },
    }
    try:
        await caller.connect(eng.http_url, key=secret, session=call_session)
        created = (await caller.wait_for("session.created"))["session"]
    finally:
        await caller.close()
    assert created["instructions"] == "Be brief."
    assert created["audio"]["output"]["voice"] == "coral"
    assert created["audio"]["input"]["turn_detection"]["silence_duration_ms"] == 700
    assert created["audio"]["input"]["noise_reduction"] == {"type": "near_field", "strength": 0.4}


async def test_transcription_without_a_model_is_echoed_with_a_null_model_and_still_transcribes(
    engine,
) -> None:
    """``audio.input.transcription`` naming no model (openai-python's ``AudioTranscriptionParam`` has none
    required; ``{"model": null}`` is the same, nulls mean "not given") was echoed without a ``model`` key,
    which the live echo always carries; now ``model`` is ``null``, as the live service fills the
    ``language`` and ``prompt`` a client left out, and the audio is still transcribed."""
    eng = await engine()
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        for transcription in ({"language": "en"}, {"model": None, "prompt": "names"}):
            audio_input: Any = {"transcription": transcription, "turn_detection": None}
            await connection.session.update(session={"type": "realtime", "audio": {"input": audio_input}})
            session = (await events_until(connection, "session.updated"))[-1]["session"]
            given = {key: value for key, value in transcription.items() if value is not None}
            assert (
                session["audio"]["input"]["transcription"]
                == {"model": None, "language": None, "prompt": None} | given
            )
        await connection.input_audio_buffer.append(
            audio=base64.b64encode(synthetic_voiced_pcm16(600)).decode()
        )
        await connection.input_audio_buffer.commit()
        completed = (await events_until(connection, "conversation.item.input_audio_transcription.completed"))[
            -1
        ]
        assert completed["transcript"]
