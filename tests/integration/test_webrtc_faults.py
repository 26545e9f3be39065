"""WebRTC faults, chosen like every session fault (here ``?fault=`` on the ``POST``), and a call's place
in the journal and the counters."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from mockengine.server.webrtc.calls import CALL_CLOCK
from tests.eventually import eventually
from tests.integration.test_webrtc_calls import story
from tests.speech import question
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.models


async def until(condition, timeout_s: float = 10.0) -> None:
    await eventually(condition, timeout_s=timeout_s)


@asynccontextmanager
async def faulted_call(server: Any, fault: str) -> AsyncIterator[CallClient]:
    """A WebRTC call to ``server`` with ``?fault=<fault>``, past ``session.created``; closed on exit."""
    client = CallClient()
    try:
        await client.connect(server.http_url, query=f"?fault={fault}")
        await client.wait_for("session.created")
        yield client
    finally:
        await client.close()


async def test_refuse_call_and_slow_call(engine):
    server = await engine()
    client = CallClient()
    offer = await client.offer()
    await client.close()
    url = f"{server.http_url}/v1/realtime/calls"
    headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/sdp"}
    loop = asyncio.get_running_loop()
    async with aiohttp.ClientSession() as http:
        refused = await http.post(url + "?fault=refuse_call:429", data=offer, headers=headers)
        body = await refused.json()
        # A 502 is the gateway's body, as http_status:502 answers (it was a made-up "refused" message).
        bad_gateway = await http.post(url + "?fault=refuse_call:502", data=offer, headers=headers)
        gateway_body = await bad_gateway.json()
        began = loop.time()
        slow = await http.post(url + "?fault=slow_call:800", data=offer, headers=headers)
        waited_s = loop.time() - began
        health = await (await http.get(f"{server.http_url}/healthz")).json()
    assert refused.status == 429 and body["error"]["message"]
    assert bad_gateway.status == 502 and gateway_body["error"]["type"] == "cf_bad_gateway"
    assert slow.status == 201 and waited_s >= 0.8
    assert health["faults_injected"] == {"refuse_call": 2, "slow_call": 1}


async def test_datachannel_close_mid_response(engine):
    server = await engine()
    async with faulted_call(server, "datachannel_close:2") as client:
        story(client)
        # The fault acts on the reply's second audio delta: as long as that takes to come (a loaded
        # machine took over 10 s), the same 30 s as any event here.
        await until(lambda: client.channel.readyState == "closed", timeout_s=30.0)
    kinds = client.kinds()
    assert "response.created" in kinds and "response.done" not in kinds
    await server.wait_until_idle()


async def test_media_stall_keeps_the_connection_up_but_sends_nothing(engine):
    server = await engine()
    pcm, _ = question()
    # The stall comes 5 s after the call opened, mid-reply: at 1.5 s it raced the reply's first frame
    # (the story asked for, its first sentence spoken), and a loaded machine lost, the stall coming first
    # and output_audio_buffer.started never.
    async with faulted_call(server, "media_stall:5000") as client:
        loop = asyncio.get_running_loop()
        opened_by = loop.time()  # the call opened before session.created: the stall is due by +5.1 s
        story(client)
        await client.wait_for("output_audio_buffer.started")
        await asyncio.sleep(max(0.0, opened_by + 5.5 - loop.time()))
        frames = client.frames_heard
        mark = len(client.events)
        client.mic.say(pcm)  # not heard either: the microphone is ignored
        await asyncio.sleep(2.5)
        assert client.frames_heard <= frames + 15  # the receiver's buffer may still hand out a few
        assert client.pc.connectionState == "connected" and client.channel.readyState == "open"
        assert "input_audio_buffer.speech_started" not in client.kinds()[mark:]
        client.send(
            {"type": "session.update", "session": {"type": "realtime", "instructions": "Still here?"}}
        )
        await client.wait_for("session.updated", after=mark)  # events still flow


async def test_media_stall_mid_reply_still_ends_the_output_buffer(engine):
    """The stall loses the packets, not the playback: the reply plays on into the void, and its
    ``output_audio_buffer.stopped`` comes after its ``response.done`` when it would have ended. (The
    track froze instead: ``started`` with no ``stopped`` nor ``cleared`` ever, and a client waiting for
    the end of the reply hung.)"""
    server = await engine()
    async with faulted_call(server, "media_stall:5000") as client:
        loop = asyncio.get_running_loop()
        opened_by = loop.time()
        story(client)
        started = await client.wait_for("output_audio_buffer.started")
        await asyncio.sleep(max(0.0, opened_by + 5.5 - loop.time()))
        frames = client.frames_heard
        done = await client.wait_for("response.done", timeout_s=60)
        assert done["response"]["id"] == started["response_id"], "the stall came after the reply"
        stopped = await client.wait_for("output_audio_buffer.stopped", timeout_s=90)
        assert stopped["response_id"] == started["response_id"]
        kinds = client.kinds()
        assert kinds.index("response.done") < kinds.index("output_audio_buffer.stopped")
        assert "output_audio_buffer.cleared" not in kinds
        assert client.frames_heard <= frames + 15  # nothing more was sent meanwhile
        assert client.pc.connectionState == "connected" and client.channel.readyState == "open"


async def test_media_stall_mid_speech_ends_the_turn_after_its_silence(engine):
    """The microphone's packets are lost from the stall on: the service hears a quiet user, and the turn
    the user was speaking ends after its silence. (Ignored outright, the turn stayed open: no
    ``speech_stopped`` for the rest of the call.)"""
    server = await engine()
    pcm, _ = question()  # 3.2 s of speech
    async with faulted_call(server, "media_stall:6000") as client:
        loop = asyncio.get_running_loop()
        opened_by = loop.time()  # the call opened before this: the stall is due by opened_by + 6.1 s
        await asyncio.sleep(max(0.0, opened_by + 3.5 - loop.time()))
        client.mic.say(pcm + pcm)  # speaking from ~3.5 s to ~10 s: the stall cuts it mid-way
        await client.wait_for("input_audio_buffer.speech_started", timeout_s=6)
        stopped = await client.wait_for("input_audio_buffer.speech_stopped", timeout_s=8)
        stopped_s = loop.time() - opened_by
        assert stopped_s < 9.5, stopped_s  # after the stall and its silence, before the speech would end
        assert client.pc.connectionState == "connected" and client.channel.readyState == "open"
        assert stopped["audio_end_ms"] > 0


async def test_server_hangup(engine):
    server = await engine()
    async with faulted_call(server, "server_hangup:500") as client:
        await until(lambda: client.channel.readyState == "closed" or client.pc.connectionState == "closed")
        await server.wait_until_idle()


async def test_the_fault_clock_runs_only_while_a_call_is_open(engine):
    """The timed faults' clock woke an engine with no call ten times a second (a quarter of the loop
    thread's instructions in append_bench's WebSocket sessions); it now runs only while a call is open,
    and a call opened after it stopped still gets its timed fault."""
    server = await engine()
    clock = server.app[CALL_CLOCK]
    assert not clock.running
    async with faulted_call(server, "server_hangup:500") as client:
        assert clock.running
        await until(lambda: client.channel.readyState == "closed" or client.pc.connectionState == "closed")
        await server.wait_until_idle()
    await until(lambda: not clock.running)
    async with faulted_call(server, "server_hangup:500") as client:  # started again, and still ticks
        await until(lambda: client.channel.readyState == "closed" or client.pc.connectionState == "closed")
        await server.wait_until_idle()


async def test_a_call_is_counted_and_journaled_like_a_websocket_session(engine, tmp_path: Path):
    server = await engine(journal_dir=str(tmp_path))
    client = CallClient()
    pcm, _ = question()
    try:
        await client.connect(server.http_url)
        created = await client.wait_for("session.created")
        assert server.sessions_active() == 1
        client.mic.say(pcm)
        await client.wait_for("response.done", timeout_s=40)
    finally:
        await client.close()
    await server.wait_until_idle()
    async with aiohttp.ClientSession() as http:
        health = await (await http.get(f"{server.http_url}/healthz")).json()
        metrics = await (await http.get(f"{server.http_url}/metrics")).text()
    assert health["sessions_total"] == 1 and health["sessions_active"] == 0
    assert 'mockengine_server_events_total{type="output_audio_buffer.started"}' in metrics
    session_dir = tmp_path / created["session"]["id"]
    records = [json.loads(line) for line in (session_dir / "events.jsonl").read_text().splitlines()]
    sent = [r["event"]["type"] for r in records if r.get("from") == "server"]
    assert "response.done" in sent and "output_audio_buffer.started" in sent
    assert (session_dir / "input_audio.wav").stat().st_size > 48_000  # the microphone, as PCM16 24 kHz
