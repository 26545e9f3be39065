"""Clients that vanish or stop reading: nothing is left behind and other sessions go on.

A client disconnects at each stage of a turn (mid-append, while its turn is transcribed, while the reply
is synthesized, while reply audio streams). Afterwards: no task more than before, no queued executor job,
the session object garbage-collected — while a bystander session stays connected and still gets a spoken
reply. A client that stops reading is disconnected with a logged reason once its unsent events pass the
bound, and the engine keeps serving others.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import logging
import socket

import aiohttp
import pytest
from websockets.asyncio.client import connect as ws_connect

from mockengine.server.state import LIVE_SESSIONS
from tests.eventually import eventually
from tests.speech import question

# Real models: a disconnect "during transcription" or "during synthesis" needs calls that take time.
pytestmark = pytest.mark.models
AUTH = {"Authorization": "Bearer sk-test"}


async def receive(ws, kind: str, timeout: float = 20) -> dict:
    while True:
        event = json.loads((await ws.receive(timeout=timeout)).data)
        if event["type"] == kind:
            return event


def send(ws, **event) -> asyncio.Future:
    return ws.send_str(json.dumps(event))


def append(pcm: bytes) -> dict:
    return {"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm).decode()}


def user_text(text: str) -> dict:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return {"type": "conversation.item.create", "item": item}


async def leave_mid_append(ws) -> None:
    pcm, _ = question()
    for offset in range(0, len(pcm) // 2, 4800):
        await ws.send_str(json.dumps(append(pcm[offset : offset + 4800])))
    await receive(ws, "input_audio_buffer.speech_started")


async def leave_during_transcription(ws) -> None:
    pcm, _ = question()
    await send(
        ws, type="session.update", session={"type": "realtime", "audio": {"input": {"turn_detection": None}}}
    )
    await receive(ws, "session.updated")
    for offset in range(0, len(pcm), 48_000):
        await ws.send_str(json.dumps(append(pcm[offset : offset + 48_000])))
    await send(ws, type="input_audio_buffer.commit")
    await send(ws, type="response.create")
    await receive(ws, "input_audio_buffer.committed")  # whisper is at work on the turn now


async def leave_during_synthesis(ws) -> None:
    await ws.send_str(json.dumps(user_text("Tell me a long story about a lighthouse keeper, please.")))
    await send(ws, type="response.create")
    await receive(ws, "response.created")  # piper is at work on the first sentence now


async def leave_mid_response(ws) -> None:
    await ws.send_str(json.dumps(user_text("Tell me a long story about a lighthouse keeper, please.")))
    await send(ws, type="response.create")
    await receive(ws, "response.output_audio.delta")  # paced audio is streaming now


STAGES = {
    "mid-append": leave_mid_append,
    "during-transcription": leave_during_transcription,
    "during-synthesis": leave_during_synthesis,
    "mid-response": leave_mid_response,
}


@pytest.mark.parametrize("stage", list(STAGES))
async def test_disconnect_leaves_nothing_behind_and_others_go_on(engine, resources, stage):
    eng = await engine(audio_pace=5.0, first_delta_delay_ms=0)
    async with aiohttp.ClientSession() as http:
        bystander = await http.ws_connect(eng.realtime, headers=AUTH)
        await receive(bystander, "session.created")
        await send(bystander, type="input_audio_buffer.clear")  # a round trip: its tasks all run now
        await receive(bystander, "input_audio_buffer.cleared")
        tasks_before = len(asyncio.all_tasks())

        leaver = await http.ws_connect(eng.realtime, headers=AUTH)
        await receive(leaver, "session.created")
        await STAGES[stage](leaver)
        await leaver.close()

        await eventually(lambda: eng.sessions_active() == 1, message="the server still serves the leaver")
        await eventually(
            lambda: len(asyncio.all_tasks()) <= tasks_before,
            message=lambda: f"tasks left: {len(asyncio.all_tasks())} > {tasks_before}",
        )
        for executor in (resources.stt_executor, resources.tts_executor):
            await eventually(lambda ex=executor: ex._work_queue.qsize() == 0, message="executor jobs queued")
        gc.collect()
        assert len(eng.app[LIVE_SESSIONS]) == 1, "the leaver's session is still in memory"

        await bystander.send_str(json.dumps(user_text("Hello, how are you?")))
        await send(bystander, type="response.create")
        done = await receive(bystander, "response.done", timeout=30)
        assert done["response"]["status"] == "completed"
        await bystander.close()
    await eng.wait_until_idle()


async def test_a_peer_that_stops_reading_is_disconnected_with_a_logged_reason(engine, caplog):
    eng = await engine(audio_pace=0.0, max_send_backlog_bytes=256 * 1024, heartbeat_s=0.0)
    host, port = eng.http_url.removeprefix("http://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
    sock.connect((host, int(port)))
    sock.setblocking(False)
    caplog.set_level(logging.WARNING, logger="mockengine.session")
    async with ws_connect(
        eng.realtime,
        sock=sock,
        additional_headers=AUTH,
        max_queue=1,
        max_size=None,
        compression=None,
        ping_interval=None,
        close_timeout=0.5,
    ) as slow:
        await slow.send(json.dumps(user_text("Hello there.")))
        await slow.send(json.dumps({"type": "response.create"}))
        item_id = None
        while True:
            event = json.loads(await slow.recv())
            if event["type"] == "response.output_item.added":
                item_id = event["item"]["id"]
            if event["type"] == "response.done":
                break
        # From here on the client never reads again, and asks for its reply's audio over and over.
        for n in range(400):
            await slow.send(
                json.dumps({"type": "conversation.item.retrieve", "item_id": item_id, "event_id": f"r{n}"})
            )
        async with aiohttp.ClientSession() as http:
            other = await http.ws_connect(eng.realtime, headers=AUTH)
            await receive(other, "session.created")
            await eventually(
                lambda: eng.sessions_active() == 1, timeout_s=20, message="the slow peer is still served"
            )
            await send(other, type="input_audio_buffer.clear")
            await receive(other, "input_audio_buffer.cleared")
            await other.close()
    assert any("does not read" in r.getMessage() for r in caplog.records)
    await eng.wait_until_idle()
