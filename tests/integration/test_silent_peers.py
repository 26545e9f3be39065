"""Peers that go silent are freed within the ping timeout, over a real socket (issue 15).

A client whose network dies sends no close: only the engine's own pings (``heartbeat_s``, a pong due
within half of it) can tell. Before issue 15 a session playing dead (the ``dead_peer`` fault, which a
client uses to test its own dead-server detection) never noticed its client leaving: it stayed listed,
``sessions_active`` 1, for good. Here the client goes away in both ways — silently (it stops reading and
sending; its pongs are never sent) and with its TCP connection torn down — and the engine lets the
session go, with nothing left in memory.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web
from websockets.asyncio.client import connect as ws_connect

from mockengine.server.app import create_app
from mockengine.server.state import LIVE_SESSIONS
from tests.integration.conftest import Engine

pytestmark = pytest.mark.models
AUTH = {"Authorization": "Bearer sk-test"}
HEARTBEAT_S = 1.0  # pong due within 0.5 s of each ping
# Generous: the ping timeout is 1.5 s; the bound only separates "freed" from "never freed".
FREED_WITHIN_S = 10.0


@pytest.fixture
async def served(real_resources) -> AsyncIterator:
    """Start an engine the way ``serve`` runs it (``web.AppRunner`` defaults: a lost connection does not
    cancel its handler — the test client's server would, which hides this leak)."""
    runners: list[web.AppRunner] = []

    async def start(**overrides) -> Engine:
        settings = dataclasses.replace(real_resources.settings, **overrides)
        app = create_app(settings, dataclasses.replace(real_resources, settings=settings))
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = runner.addresses[0][1]
        return Engine(f"ws://127.0.0.1:{port}/v1", f"http://127.0.0.1:{port}", app)

    yield start
    for runner in runners:
        await runner.cleanup()


async def until_no_session(eng) -> float:
    loop = asyncio.get_running_loop()
    started = loop.time()
    await eng.wait_until_idle(timeout_s=FREED_WITHIN_S)
    gc.collect()
    assert len(eng.app[LIVE_SESSIONS]) == 0, "the session is still in memory"
    return loop.time() - started


def ask() -> list[str]:
    content = [{"type": "input_text", "text": "Tell me a story."}]
    item = {"type": "message", "role": "user", "content": content}
    return [
        json.dumps({"type": "conversation.item.create", "item": item}),
        json.dumps({"type": "response.create"}),
    ]


@pytest.mark.parametrize("fault", ["", "&fault=dead_peer:after_events=1"])
async def test_a_client_that_goes_silent_is_dropped_by_the_pings(served, fault):
    eng = await served(heartbeat_s=HEARTBEAT_S)
    async with aiohttp.ClientSession() as http:
        # No client-side heartbeat, and pongs are only sent while the client reads: once it stops
        # reading and sending it is, to the engine, a peer whose network died.
        ws = await http.ws_connect(eng.realtime + fault, headers=AUTH, autoping=True)
        assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
        for text in ask():
            await ws.send_str(text)
        await asyncio.sleep(0.3)
        took_s = await until_no_session(eng)
        assert took_s < FREED_WITHIN_S
        await ws.close()


async def test_a_dead_peer_whose_client_tears_down_tcp_is_freed(served):
    eng = await served(heartbeat_s=0)  # no pings: the connection's end alone must free the session
    async with ws_connect(
        eng.realtime + "&fault=dead_peer:after_events=1",
        additional_headers=AUTH,
        ping_interval=None,
    ) as ws:
        assert json.loads(await ws.recv())["type"] == "session.created"
        for text in ask():
            await ws.send(text)
        await asyncio.sleep(0.3)
        assert eng.sessions_active() == 1
        ws.transport.abort()  # no close frame: the socket is simply gone
        await until_no_session(eng)
