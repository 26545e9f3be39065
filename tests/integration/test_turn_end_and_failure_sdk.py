"""Over the wire with the official ``openai`` SDK (fake engines, no models): a commit while the user
speaks ends the speech and commits the turn once; a response that fails before any output bills nothing;
an app's own ``send_chat`` is grounded from its output, not acknowledged as HyperStudy's."""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from openai import AsyncOpenAI

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.realtime.response import Usage
from mockengine.server.app import create_app
from mockengine.server.resources import Resources
from tests.integration.test_fidelity_sdk import events_until

APPEND_BYTES = 960  # 20 ms of PCM16 24 kHz
ZERO_USAGE = Usage().wire()


async def _append(connection: Any, pcm: bytes) -> None:
    for offset in range(0, len(pcm), APPEND_BYTES):
        await connection.input_audio_buffer.append(
            audio=base64.b64encode(pcm[offset : offset + APPEND_BYTES]).decode()
        )


@asynccontextmanager
async def _connected(url: str, query: dict[str, str] | None = None) -> AsyncIterator[Any]:
    """An SDK realtime connection to the engine at ``url`` (ws base), past its ``session.created``."""
    async with (
        AsyncOpenAI(api_key="sk-test", websocket_base_url=url) as client,
        client.realtime.connect(model="gpt-realtime", extra_query=query or {}) as connection,
    ):
        await events_until(connection, "session.created")
        yield connection


def _kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events if e["type"].startswith("input_audio_buffer.")]


@pytest.mark.parametrize(
    "turn_detection",
    [{"type": "server_vad", "silence_duration_ms": 500}, {"type": "semantic_vad", "eagerness": "low"}],
    ids=lambda t: str(t["type"]),
)
async def test_a_commit_while_the_user_speaks_ends_the_speech_and_commits_the_turn_once(
    engine, turn_detection: dict[str, Any]
) -> None:
    eng = await engine()
    async with _connected(eng.url) as connection:
        await connection.session.update(
            session={"type": "realtime", "audio": {"input": {"turn_detection": turn_detection}}}
        )
        await events_until(connection, "session.updated")
        await _append(connection, bytes(300 * 48) + synthetic_voiced_pcm16(800))
        started = (await events_until(connection, "input_audio_buffer.speech_started"))[-1]
        await connection.input_audio_buffer.commit()
        seen = await events_until(connection, "conversation.item.done")
        assert _kinds(seen) == ["input_audio_buffer.speech_stopped", "input_audio_buffer.committed"]
        stopped, committed = (e for e in seen if e["type"].startswith("input_audio_buffer."))
        assert stopped["item_id"] == committed["item_id"] == started["item_id"] == seen[-1]["item"]["id"]
        assert stopped["audio_end_ms"] == 1100
        # Speaking on is a fresh turn, which turn detection ends and answers; the commit asked for none.
        await _append(connection, synthetic_voiced_pcm16(800) + bytes(2500 * 48))
        seen = await events_until(connection, "response.done")
        assert _kinds(seen) == [
            "input_audio_buffer.speech_started",
            "input_audio_buffer.speech_stopped",
            "input_audio_buffer.committed",
        ]
        again = next(e for e in seen if e["type"] == "input_audio_buffer.speech_started")
        assert again["item_id"] != started["item_id"] and again["audio_start_ms"] >= 1100
        assert [e["type"] for e in seen].count("response.created") == 1
        assert seen[-1]["response"]["status"] == "completed"


HELLO = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello there."}]}


async def test_a_refused_response_bills_nothing(engine) -> None:
    eng = await engine(audio_pace=0.0)
    refusal = {"fault": "rate_limits:responses=1,limit=1000"}
    async with _connected(eng.url, refusal) as connection:
        statuses = []
        for _ in range(2):
            await connection.conversation.item.create(item=HELLO)
            await connection.response.create(response={"output_modalities": ["text"]})
            done = (await events_until(connection, "response.done"))[-1]["response"]
            statuses.append((done["status"], done["usage"]["input_tokens"] > 0))
        assert statuses == [("completed", True), ("failed", False)]
        assert done["status_details"]["error"]["code"] == "rate_limit_exceeded"
        assert done["output"] == [] and done["usage"] == ZERO_USAGE


class _SilentSynthesizer:
    """A speech engine that is down: every sentence fails."""

    def synthesize(self, text: str, *, voice: str, speed: float = 1.0) -> list[Any]:
        raise RuntimeError("speech engine down")


async def test_a_response_whose_speech_fails_before_any_output_bills_nothing(
    aiohttp_server, fake_resources: Resources
) -> None:
    broken = dataclasses.replace(fake_resources, synthesizer=_SilentSynthesizer())
    server = await aiohttp_server(create_app(broken.settings, broken))
    async with _connected(f"ws://127.0.0.1:{server.port}/v1") as connection:
        await connection.conversation.item.create(item=HELLO)
        await connection.response.create()
        seen = await events_until(connection, "response.done")
        done = seen[-1]["response"]
        assert done["status"] == "failed"
        assert done["status_details"]["error"]["code"] == "speech_synthesis_failed"
        assert done["output"] == [] and done["usage"] == ZERO_USAGE
        assert "response.output_item.added" not in [e["type"] for e in seen]
        # The session goes on: a text reply needs no speech.
        await connection.response.create(response={"output_modalities": ["text"]})
        done = (await events_until(connection, "response.done"))[-1]["response"]
        assert done["status"] == "completed" and done["usage"]["input_tokens"] > 0


MEETING_TOOLS = [
    {
        "type": "function",
        "name": "send_chat",
        "description": "Post a message in the meeting chat.",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string"}, "to": {"type": "string"}},
            "required": ["message"],
        },
    },
    {
        "type": "function",
        "name": "mute",
        "description": "Mute or unmute the microphone.",
        "parameters": {"type": "object", "properties": {}},
    },
]


async def test_an_apps_own_send_chat_is_grounded_from_its_output(engine) -> None:
    eng = await engine()
    async with _connected(eng.url) as connection:
        await connection.session.update(
            session={"type": "realtime", "output_modalities": ["text"], "tools": MEETING_TOOLS}
        )
        await events_until(connection, "session.updated")
        said = "Message Dario saying the parcel is here."
        await connection.conversation.item.create(
            item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]}
        )
        await connection.response.create()
        done = (await events_until(connection, "response.done"))[-1]["response"]
        (call,) = [item for item in done["output"] if item["type"] == "function_call"]
        assert (call["name"], json.loads(call["arguments"])) == (
            "send_chat",
            {"message": "the parcel is here", "to": "Dario"},
        )
        output = {"ok": True, "to": "Dario", "title": "Parcel note"}
        await connection.conversation.item.create(
            item={"type": "function_call_output", "call_id": call["call_id"], "output": json.dumps(output)}
        )
        await connection.response.create()
        seen = await events_until(connection, "response.done")
        text = next(e for e in seen if e["type"] == "response.output_text.done")["text"]
        assert text == "I've sent the chat to Dario."
