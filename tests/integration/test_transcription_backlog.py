"""Over a real aiohttp server on loopback, through the official SDK: turns committed faster than whisper
transcribes them (a gated fake transcriber stands for a busy whisper) wait at most
``max_pending_transcriptions`` per session; the oldest waiting one fails with an OpenAI-shaped
``…input_audio_transcription.failed`` (code ``transcription_backlog``), the newer ones are transcribed
and the session goes on (issue 15)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
from typing import Any

from openai import AsyncOpenAI

from mockengine.server.app import create_app
from tests.eventually import eventually
from tests.transcription_gate import GatedTranscriber

FAILED = "conversation.item.input_audio_transcription.failed"
COMPLETED = "conversation.item.input_audio_transcription.completed"


def turn_audio(n: int) -> str:
    return base64.b64encode(bytes([n, 0]) * 24_000).decode()  # 1 s, different for each turn


async def test_a_backlog_of_turns_fails_the_oldest_over_the_wire(aiohttp_server, fake_resources) -> None:
    transcriber = GatedTranscriber()
    settings = dataclasses.replace(fake_resources.settings, max_pending_transcriptions=2, heartbeat_s=0.0)
    resources = dataclasses.replace(fake_resources.with_settings(settings), transcriber=transcriber)
    server = await aiohttp_server(create_app(settings, resources))
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=f"ws://127.0.0.1:{server.port}/v1")
    try:
        async with client.realtime.connect(model="gpt-realtime") as conn:
            await conn.session.update(
                session={
                    "type": "realtime",
                    "audio": {"input": {"transcription": {"model": "whisper-1"}, "turn_detection": None}},
                }
            )
            seen: list[Any] = []

            async def until(kind: str, count: int) -> list[Any]:
                async with asyncio.timeout(20):
                    while len([e for e in seen if e.type == kind]) < count:
                        event = await conn.recv()
                        assert event.type != "error", event
                        seen.append(event)
                return [e for e in seen if e.type == kind]

            async def commit(n: int) -> None:
                await conn.input_audio_buffer.append(audio=turn_audio(n))
                await conn.input_audio_buffer.commit()

            await commit(1)
            await eventually(lambda: transcriber.entered == 1)  # whisper is busy with turn 1
            for n in range(2, 7):
                await commit(n)
            items = [e.item_id for e in await until("input_audio_buffer.committed", 6)]
            failed = await until(FAILED, 3)
            assert [e.item_id for e in failed] == items[1:4]
            assert failed[0].error.type == "transcription_error"
            assert failed[0].error.code == "transcription_backlog"
            assert failed[0].error.message and "transcriptions were waiting" in failed[0].error.message

            transcriber.allow(3)  # turn 1, then the two newest
            completed = await until(COMPLETED, 3)
            assert [e.item_id for e in completed] == [items[0], items[4], items[5]]
            assert transcriber.entered == 3

            transcriber.allow()  # the session goes on
            await commit(7)
            await until(COMPLETED, 4)
            assert len([e for e in seen if e.type == FAILED]) == 3
    finally:
        transcriber.open()
