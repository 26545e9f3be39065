"""``null`` means "not given" over the wire: one representative field per client event type and HTTP body,
the fields where ``null`` has a meaning of its own, and messages that quote JSON (``null``, not ``None``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
import pytest

from tests.speech import validate_server_event

pytestmark = pytest.mark.models
USER_ITEM = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello there."}]}


class Wire:
    """One realtime socket: send a frame, wait for an event type, and fail on any unexpected error."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    async def send(self, frame: dict) -> None:
        await self.ws.send_str(json.dumps(frame))

    async def receive(self, kind: str, errors_allowed: bool = False) -> dict:
        while True:
            event = json.loads((await self.ws.receive(timeout=30)).data)
            validate_server_event(event)
            if event["type"] == kind:
                return event
            assert errors_allowed or event["type"] != "error", event


@asynccontextmanager
async def opened(url: str) -> AsyncIterator[tuple[Wire, dict]]:
    """A realtime socket to ``url`` past its ``session.created``: the wire and the created session."""
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": "Bearer sk-1"}) as ws,
    ):
        wire = Wire(ws)
        yield wire, (await wire.receive("session.created"))["session"]


async def test_null_means_not_given_in_every_client_event(engine) -> None:
    # Paced audio and a delay before the first delta keep the reply active until the cancel arrives,
    # however loaded the machine is (unpaced, it could complete first).
    eng = await engine(audio_pace=1.0, first_delta_delay_ms=2000)
    async with opened(eng.realtime) as (wire, created):
        # session.update: null optional fields leave the session as it was.
        nulls = {"instructions": None, "tools": None, "tool_choice": None, "max_output_tokens": None}
        audio = {"output": {"voice": None, "speed": None}, "input": {"format": None}}
        await wire.send(
            {
                "type": "session.update",
                "event_id": None,
                "session": {"type": "realtime", **nulls, "audio": audio},
            }
        )
        assert (await wire.receive("session.updated"))["session"] == created

        # conversation.item.create: previous_item_id, the item's id and status null.
        item = {**USER_ITEM, "id": None, "status": None}
        await wire.send({"type": "conversation.item.create", "previous_item_id": None, "item": item})
        added = (await wire.receive("conversation.item.added"))["item"]
        assert added["id"].startswith("item_") and added["status"] == "completed"

        # response.create as LiveKit's plugin sends it on every generate_reply() without instructions.
        response = {"instructions": None, "metadata": {"client_event_id": "response_create_1"}, "tools": None}
        await wire.send({"type": "response.create", "event_id": "response_create_1", "response": response})
        started = (await wire.receive("response.created"))["response"]
        assert started["metadata"] == {"client_event_id": "response_create_1"}
        # response.cancel: response_id null is the default conversation's active response.
        await wire.send({"type": "response.cancel", "response_id": None})
        done = (await wire.receive("response.done"))["response"]
        assert done["id"] == started["id"] and done["status"] == "cancelled"

        # input_audio_buffer.append / commit with event_id null: the error echoes null.
        await wire.send({"type": "input_audio_buffer.append", "audio": "AAAA", "event_id": None})
        await wire.send({"type": "input_audio_buffer.commit", "event_id": None})
        error = (await wire.receive("error", errors_allowed=True))["error"]
        assert (error["code"], error["event_id"]) == ("input_audio_buffer_commit_empty", None)


async def test_null_switches_off_where_it_has_a_meaning(engine) -> None:
    eng = await engine(audio_pace=0.0)
    async with opened(eng.realtime) as (wire, _):
        on = {"transcription": {"model": "whisper-1"}, "noise_reduction": {"type": "near_field"}}
        await wire.send({"type": "session.update", "session": {"type": "realtime", "audio": {"input": on}}})
        assert (await wire.receive("session.updated"))["session"]["audio"]["input"]["transcription"]
        off = {"turn_detection": None, "transcription": None, "noise_reduction": None}
        await wire.send({"type": "session.update", "session": {"type": "realtime", "audio": {"input": off}}})
        updated = (await wire.receive("session.updated"))["session"]["audio"]["input"]
        assert (updated["turn_detection"], updated["transcription"], updated["noise_reduction"]) == (
            None,
            None,
            None,
        )
        idle = {"turn_detection": {"type": "server_vad", "idle_timeout_ms": None}}
        await wire.send({"type": "session.update", "session": {"type": "realtime", "audio": {"input": idle}}})
        updated = (await wire.receive("session.updated"))["session"]["audio"]["input"]
        assert (
            updated["turn_detection"]["type"] == "server_vad"
            and updated["turn_detection"]["idle_timeout_ms"] is None
        )


@pytest.mark.parametrize(
    ("frame", "code", "param", "message"),
    [
        (
            {"type": "conversation.item.truncate", "item_id": None, "content_index": 0, "audio_end_ms": 0},
            "missing_required_parameter",
            "item_id",
            "Missing required parameter: 'item_id'.",
        ),
        (
            {"type": "conversation.item.retrieve", "item_id": None},
            "missing_required_parameter",
            "item_id",
            "Missing required parameter: 'item_id'.",
        ),
        (
            {"type": "conversation.item.delete", "item_id": None},
            "missing_required_parameter",
            "item_id",
            "Missing required parameter: 'item_id'.",
        ),
        (
            {"type": "session.update", "session": {"type": "realtime", "output_modalities": [None]}},
            "invalid_value",
            "session.output_modalities[0]",
            "Invalid value: 'null'. Supported values are: 'text' and 'audio'.",
        ),
        (
            {"type": True},
            "invalid_value",
            "type",
            "Invalid value: 'true'. Supported values are: 'session.update'",
        ),
        ({"type": None}, "invalid_event", "type", "The 'type' field is missing."),
    ],
)
async def test_a_null_where_a_value_is_required_is_reported_in_json_terms(
    engine, frame, code, param, message
) -> None:
    eng = await engine(audio_pace=0.0)
    async with opened(eng.realtime) as (wire, _):
        await wire.send({**frame, "event_id": "e1"})
        error = (await wire.receive("error", errors_allowed=True))["error"]
        assert (error["code"], error["param"], error["event_id"]) == (code, param, "e1")
        assert error["message"].startswith(message), error["message"]
        assert "None" not in error["message"] and "True" not in error["message"]


async def test_null_means_not_given_in_http_bodies(engine) -> None:
    eng = await engine(audio_pace=0.0)
    session = {
        "type": "realtime",
        "instructions": None,
        "tools": None,
        "audio": {"input": {"turn_detection": None, "transcription": None}, "output": {"voice": None}},
    }
    async with aiohttp.ClientSession() as http:
        secret_url = f"{eng.http_url}/v1/realtime/client_secrets"
        body = {"expires_after": None, "session": session}
        async with http.post(secret_url, json=body, headers={"Authorization": "Bearer sk-1"}) as reply:
            answer = await reply.json()
            assert reply.status == 200, answer
        effective = answer["session"]
        assert effective["audio"]["input"]["turn_detection"] is None
        assert effective["audio"]["output"]["voice"] == "alloy" and effective["instructions"]
        chat = {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "Hello there."}],
            "temperature": None,
            "max_tokens": None,
            "tools": None,
            "tool_choice": None,
            "response_format": None,
            "stream": None,
        }
        chat_url = f"{eng.http_url}/v1/chat/completions"
        async with http.post(chat_url, json=chat, headers={"Authorization": "Bearer sk-1"}) as reply:
            answer = await reply.json()
            assert reply.status == 200, answer
        assert answer["choices"][0]["message"]["content"]
