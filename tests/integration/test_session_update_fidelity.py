"""What a ``session.update`` and a client event's envelope may carry, over a loopback engine with the
openai SDK's realtime connection: G.711 formats and their ``rate``, ``tracing`` once on, a non-string
``event_id``. Each refusal is an OpenAI-shaped ``error`` and the session goes on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from openai import AsyncOpenAI
from openai.types.realtime import SessionUpdatedEvent

from tests.speech import events_until, validate_server_event

USER_TEXT = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello there."}]}


async def next_event(connection: Any) -> dict[str, Any]:
    """The next server event, validated against the SDK's types."""
    event = json.loads(await asyncio.wait_for(connection.recv_bytes(), 15))
    validate_server_event(event)
    return dict(event)


async def answer(connection: Any, event: dict[str, Any], kind: str) -> dict[str, Any]:
    """Send ``event``; the next ``kind`` or ``error`` event answering it."""
    await connection.send(event)
    while True:
        seen = await next_event(connection)
        if seen["type"] in (kind, "error"):
            return seen


async def update(connection: Any, session: dict[str, Any], event_id: str = "upd") -> dict[str, Any]:
    """The ``session.updated`` or ``error`` answering one update."""
    return await answer(
        connection, {"type": "session.update", "event_id": event_id, "session": session}, "session.updated"
    )


async def still_replies(connection: Any) -> None:
    await connection.conversation.item.create(item=USER_TEXT)
    await connection.response.create(response={"output_modalities": ["text"]})
    seen = await events_until(connection, "response.done")
    assert [e for e in seen if e["type"] == "error"] == []
    assert seen[-1]["response"]["status"] == "completed"


async def test_g711_formats_echo_no_rate_and_take_only_8000(engine) -> None:
    eng = await engine(audio_pace=0.0)
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        # The SDK's own shape: no rate, none echoed.
        plain = {"type": "realtime", "audio": {"input": {"format": {"type": "audio/pcmu"}}}}
        updated = await update(connection, plain)
        assert updated["session"]["audio"]["input"]["format"] == {"type": "audio/pcmu"}
        # 8000 named anyway (a phone bridge that states its rate): taken, echoed as the SDK types it.
        for direction, kind in (("input", "audio/pcmu"), ("output", "audio/pcma")):
            session = {"type": "realtime", "audio": {direction: {"format": {"type": kind, "rate": 8000}}}}
            updated = await update(connection, session)
            assert updated["type"] == "session.updated", updated
            assert updated["session"]["audio"][direction]["format"] == {"type": kind}
            SessionUpdatedEvent.model_validate(updated)
        # Any other rate is refused as the PCM one is, naming the bound; nothing of the update applies.
        wrong = {
            "type": "realtime",
            "instructions": "never applied",
            "audio": {"input": {"format": {"type": "audio/pcma", "rate": 16000}}},
        }
        error = (await update(connection, wrong, "wrong_rate"))["error"]
        assert (error["type"], error["code"], error["param"], error["event_id"]) == (
            "invalid_request_error",
            "integer_above_max_value",
            "session.audio.input.format.rate",
            "wrong_rate",
        )
        assert "8000" in error["message"], error["message"]
        # A response's own G.711 format echoes without rate too.
        await connection.send(
            {
                "type": "response.create",
                "response": {
                    "output_modalities": ["audio"],
                    "audio": {"output": {"format": {"type": "audio/pcmu", "rate": 8000}}},
                    "input": [USER_TEXT],
                },
            }
        )
        done = (await events_until(connection, "response.done"))[-1]["response"]
        assert done["audio"]["output"]["format"] == {"type": "audio/pcmu"}
        updated = await update(connection, {"type": "realtime"})
        assert updated["session"]["instructions"] != "never applied"
        assert updated["session"]["audio"]["input"]["format"] == {"type": "audio/pcmu"}
        await still_replies(connection)


async def test_a_non_string_event_id_is_refused_naming_it(engine) -> None:
    """openai-python types every client event's ``event_id`` as a string; a number, object or boolean
    there is ``invalid_type`` on ``event_id`` (the event is not run), not dropped silently."""
    eng = await engine(audio_pace=0.0)
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        for event_id, kind in ((5, "an integer"), ({"n": 1}, "an object"), (True, "a boolean")):
            create = {"type": "conversation.item.create", "event_id": event_id, "item": USER_TEXT}
            error = (await answer(connection, create, "conversation.item.added"))["error"]
            assert (error["type"], error["code"], error["param"], error["event_id"]) == (
                "invalid_request_error",
                "invalid_type",
                "event_id",
                None,
            )
            assert (
                error["message"] == f"Invalid type for 'event_id': expected a string, but got {kind} instead."
            )
        # An audio append takes the same rule (it has a fast path of its own).
        append = {"type": "input_audio_buffer.append", "event_id": 7, "audio": "AAAA"}
        error = (await answer(connection, append, "never"))["error"]
        assert (error["code"], error["param"]) == ("invalid_type", "event_id")
        # null is "not given": the event runs.
        create = {"type": "conversation.item.create", "event_id": None, "item": USER_TEXT}
        added = await answer(connection, create, "conversation.item.added")
        assert added["type"] == "conversation.item.added"
        # Nothing refused was added: the one item is the last one.
        await events_until(connection, "conversation.item.done")
        await still_replies(connection)


async def test_tracing_once_on_keeps_its_configuration(engine) -> None:
    """ "Once tracing is enabled for a session, the configuration cannot be modified" (the API reference):
    another configuration or null is refused whole; the same one, and the ``"auto"`` both Agents SDKs
    send on every ``session.created``, are taken and change nothing."""
    eng = await engine(audio_pace=0.0)
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=eng.url) as client,
        client.realtime.connect(model="gpt-realtime") as connection,
    ):
        await events_until(connection, "session.created")
        named = {"workflow_name": "support", "group_id": "g1", "metadata": {"shop": "north"}}
        # Off: anything may be set, and "auto" may be named afterwards (@openai/agents-realtime's path).
        assert (await update(connection, {"type": "realtime", "tracing": "auto"}))["session"][
            "tracing"
        ] == "auto"
        assert (await update(connection, {"type": "realtime", "tracing": named}))["session"][
            "tracing"
        ] == named
        for same in (named, "auto"):
            updated = await update(connection, {"type": "realtime", "tracing": same})
            assert updated["type"] == "session.updated" and updated["session"]["tracing"] == named
        for changed in ({**named, "workflow_name": "sales"}, {"workflow_name": "support"}, None):
            session = {"type": "realtime", "instructions": "never applied", "tracing": changed}
            error = (await update(connection, session, "retrace"))["error"]
            assert (error["type"], error["code"], error["param"], error["event_id"]) == (
                "invalid_request_error",
                "invalid_value",
                "session.tracing",
                "retrace",
            )
            assert "cannot be modified once tracing is enabled" in error["message"]
        updated = await update(connection, {"type": "realtime"})
        assert updated["session"]["tracing"] == named
        assert updated["session"]["instructions"] != "never applied"
        await still_replies(connection)
