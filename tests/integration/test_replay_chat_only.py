"""A recording of chat completions only (``mockengine record`` with a chat client): under ``serve
--replay`` every Realtime WebSocket was refused, ``error`` ``unknown_recording`` ("the recording holds
no WebSocket session") and close 4000, though the client named no recording. The engine now serves such
a session itself, as it serves WebRTC calls under a replay, while chat completions replay."""

from __future__ import annotations

import asyncio

from openai import AsyncOpenAI

from tests.eventually import eventually

ASKED = [{"role": "user", "content": "Hello there"}]


async def test_a_chat_only_recording_replays_chat_and_the_engine_serves_realtime(engine, recording):
    rec = await recording()
    out = rec.out
    recorder = AsyncOpenAI(api_key="sk-client", base_url=f"{rec.http_url}/v1")
    recorded = (await recorder.chat.completions.create(model="gpt-4o-mini", messages=ASKED)).id  # type: ignore[arg-type]
    await eventually((out / "http" / "0001.json").is_file, timeout_s=5, message="not written")
    assert not list(out.glob("realtime-*"))

    for strict in (False, True):
        replay = await engine(replay_dir=str(out), replay_speed=0.0, replay_strict=strict)
        client = AsyncOpenAI(
            api_key="sk-client", base_url=f"{replay.http_url}/v1", websocket_base_url=replay.url
        )
        answer = await client.chat.completions.create(model="gpt-4o-mini", messages=ASKED)  # type: ignore[arg-type]
        assert answer.id == recorded  # the recorded answer
        async with client.realtime.connect(model="gpt-realtime") as conn:
            assert (await asyncio.wait_for(conn.recv(), 30)).type == "session.created"
            await conn.session.update(session={"type": "realtime", "output_modalities": ["text"]})
            text = [{"type": "input_text", "text": "What is your name?"}]
            await conn.conversation.item.create(item={"type": "message", "role": "user", "content": text})  # type: ignore[typeddict-item]
            await conn.response.create()
            events = []
            while (event := await asyncio.wait_for(conn.recv(), 30)).type != "response.done":
                events.append(event)
            assert event.response.status == "completed"
            assert [e for e in events if e.type == "error"] == []
