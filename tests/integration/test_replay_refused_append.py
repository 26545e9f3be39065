"""Replay of a client whose ``input_audio_buffer.append`` was refused (not base64) among good ones: the
replaying client gets the one recorded error, when its own refused append arrives, at every speed.
Before, a refused append was no step of the replay: the recorded error went out at its recorded offset
from the last matched event (at once unpaced, a quarter of the way in at speed 4, before the client had
sent the bad append), and the engine then answered the live append with an error of its own: two errors,
the first at the wrong time. Recorded through the recorder proxy from an engine on loopback."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import aiohttp

SILENCE_20_MS = base64.b64encode(bytes(960)).decode()


async def client(url: str) -> list[Any]:
    """Silence in 20 ms appends, paced, with two refused appends (one with an ``event_id``, one without)
    among them, then a commit: what was sent and received, in order (``("sent", label)`` for the refused
    appends; errors as (code, param, event_id)."""
    log: list[Any] = []
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers={"Authorization": "Bearer sk-client"}) as ws,
    ):

        async def drain() -> None:
            while True:
                try:
                    message = await ws.receive(timeout=0.001)
                except TimeoutError:
                    return
                event = json.loads(message.data)
                if event["type"] == "error":
                    error = event["error"]
                    log.append(("error", error["code"], error["param"], error["event_id"]))
                elif event["type"] in ("session.created", "input_audio_buffer.committed"):
                    log.append(event["type"])

        update = {"type": "realtime", "audio": {"input": {"turn_detection": None}}}
        await ws.send_json({"type": "session.update", "session": update, "event_id": "evt_update"})
        for n in range(45):
            if n in (15, 30):
                bad = {"type": "input_audio_buffer.append", "audio": "not base64!"}
                await ws.send_json({**bad, "event_id": "evt_bad"} if n == 15 else bad)
                log.append(("sent", n))
            else:
                await ws.send_json({"type": "input_audio_buffer.append", "audio": SILENCE_20_MS})
            await asyncio.sleep(0.02)
            await drain()
        await ws.send_json({"type": "input_audio_buffer.commit"})
        async with asyncio.timeout(30):
            while "input_audio_buffer.committed" not in log:
                await drain()
    return [entry for entry in log if entry != "session.created"]


async def test_a_refused_append_replays_its_one_error_when_it_arrives(engine, recording) -> None:
    rec = await recording(audio_pace=0.0)
    recorded = await client(rec.realtime)
    bad_base64 = ("error", "invalid_value", "audio")
    assert recorded == [
        ("sent", 15),
        (*bad_base64, "evt_bad"),
        ("sent", 30),
        (*bad_base64, None),
        "input_audio_buffer.committed",
    ]
    await rec.written()

    for speed in (0.0, 4.0):
        replay = await engine(replay_dir=str(rec.out), replay_speed=speed, replay_strict=True)
        assert await client(replay.realtime) == recorded, speed
