"""A WebRTC call while the engine serves a replay (``serve --replay``): the call path never wraps its
session in a ``ReplayingSession`` (only the WebSocket handler does, ``server/replay.replaying``), so the
microphone's audio reaches the engine's own session through ``receive_audio`` and the call is served by
the engine as without ``--replay`` (docs/record-replay.md, "Limits"), while a WebSocket session beside it
still replays. Over real sockets, fake engines: a recording made through ``mockengine record`` against an
engine on loopback, an aiortc call with a microphone."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from tests.webrtc_client import CallClient

RECORDED = "What is the capital of France?"


async def typed_turn(url: str, text: str) -> list[dict[str, Any]]:
    """A typed turn and its response over a WebSocket: every event up to ``response.done``."""
    events: list[dict[str, Any]] = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": "Bearer sk-client"}) as ws,
    ):
        content = [{"type": "input_text", "text": text}]
        await ws.send_json(
            {
                "type": "conversation.item.create",
                "item": {"type": "message", "role": "user", "content": content},
            }
        )
        await ws.send_json({"type": "response.create", "response": {"output_modalities": ["text"]}})
        while not events or events[-1]["type"] != "response.done":
            message = await ws.receive(timeout=30)
            assert message.type == aiohttp.WSMsgType.TEXT, message
            events.append(json.loads(message.data))
    return events


def said(events: list[dict[str, Any]]) -> str:
    return next(e["text"] for e in events if e["type"] == "response.output_text.done")


async def test_a_call_under_replay_is_served_by_the_engine_and_hears_the_microphone(
    engine, recording
) -> None:
    rec = await recording()
    recorded = said(await typed_turn(rec.realtime, RECORDED))
    await rec.written()

    replay = await engine(replay_dir=str(rec.out), replay_speed=0.0)
    client = CallClient()
    try:
        await client.connect(replay.http_url)
        await client.wait_for("session.created")
        client.mic.say(synthetic_voiced_pcm16(1_200) + bytes(24_000 * 2))  # speech, then a second of silence
        # Turn detection ran on the track's audio: receive_audio on the call's session, no crash.
        started = await client.wait_for("input_audio_buffer.speech_started")
        stopped = await client.wait_for(
            "input_audio_buffer.speech_stopped", after=client.events.index(started)
        )
        # Its answer: the turn's last, should late microphone packets have split the turn (a CI run at
        # load ~15; CallClient.wait_for_answer).
        spoken = await client.wait_for_answer(after=client.events.index(stopped), timeout_s=30)
        assert spoken["response"]["status"] == "completed"
        # A typed turn on the data channel is answered by the engine's participant, not the recording.
        content = [{"type": "input_text", "text": "What is the capital of Italy?"}]
        mark = len(client.events)
        client.send(
            {
                "type": "conversation.item.create",
                "item": {"type": "message", "role": "user", "content": content},
            }
        )
        client.send({"type": "response.create", "response": {"output_modalities": ["text"]}})
        done = await client.wait_for("response.done", after=mark)
        assert done["response"]["status"] == "completed"
        typed = next(e for e in client.events[mark:] if e["type"] == "response.output_text.done")
        assert "Rome" in typed["text"] and typed["text"] != recorded
        assert not [e for e in client.events if e["type"] == "error"]
    finally:
        await client.close()
    # The WebSocket beside it replays the recording (typed words are matched: the recorded ones).
    replayed = await typed_turn(replay.realtime, RECORDED)
    assert said(replayed) == recorded
