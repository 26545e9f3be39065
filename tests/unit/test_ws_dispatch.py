"""Text frames that skip aiohttp's queue (``server/ws_dispatch``, issue 15) are handled in the order they
came, interleaved correctly with what still takes the queue (binary frames, declined text), over real
loopback sockets; pings are still answered and the close still ends the reader loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import WSMsgType, web

from mockengine.server.ws_dispatch import DispatchingResponse
from tests.loopback import serve_on_loopback


class Served:
    def __init__(self) -> None:
        self.url = ""
        self.handled: list[tuple[str, Any]] = []  # (how, payload) in the order the server handled them
        self.done = asyncio.Event()
        self.can_dispatch = False


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    state = Served()

    def on_text(raw: str) -> bool:
        if raw.startswith("decline"):
            return False
        state.handled.append(("direct", raw))
        return True

    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = DispatchingResponse(heartbeat=5.0)
        await ws.prepare(request)
        state.can_dispatch = ws.can_dispatch
        ws.dispatch_to(on_text)
        async for msg in ws:
            state.handled.append(("queued", msg.data))
            if msg.type is WSMsgType.BINARY:
                await asyncio.sleep(0.05)  # a slow reader: text arriving meanwhile must wait its turn
            ws.taken(msg)  # done with it (the session's loop handles a message without awaiting)
            if msg.data == "decline-end":
                await ws.close()
        ws.dispatch_to(None)
        state.done.set()
        return ws

    app = web.Application()
    app.router.add_get("/ws", handler)
    async with serve_on_loopback(app) as port:
        state.url = f"http://127.0.0.1:{port}/ws"
        yield state


async def test_text_frames_skip_the_queue_in_order_with_what_takes_it(served: Served) -> None:
    sent: list[Any] = ["a", "b", b"bin-1", "c", "d", "decline-1", "e", b"bin-2", "f", "decline-end"]
    async with aiohttp.ClientSession() as http, http.ws_connect(served.url) as ws:
        for payload in sent:
            if isinstance(payload, bytes):
                await ws.send_bytes(payload)
            else:
                await ws.send_str(payload)
            if payload in ("b", b"bin-1"):
                await asyncio.sleep(0.02)  # "a" and "b" go in on their own; "c" while bin-1 is handled
        await ws.ping(b"still there?")
        async for _msg in ws:  # until the server closes (the client answers its close here)
            pass
    await asyncio.wait_for(served.done.wait(), 5.0)
    assert served.can_dispatch, "aiohttp no longer lets ws_dispatch replace its queue: frames all queue"
    assert [payload for _, payload in served.handled] == sent
    how = dict((payload, kind) for kind, payload in served.handled)
    assert how["a"] == how["b"] == "direct"
    # text after a binary frame the reader has not taken yet waits in the queue behind it
    assert how["c"] == "queued" and how["decline-1"] == "queued"
    assert how["e"] == "queued"  # the declined frame was still waiting when it came


async def test_a_ping_is_answered_while_text_skips_the_queue(served: Served) -> None:
    async with aiohttp.ClientSession() as http, http.ws_connect(served.url, autoping=False) as ws:
        await ws.send_str("a")
        await ws.ping(b"hello")
        reply = await asyncio.wait_for(ws.receive(), 5.0)
        assert (reply.type, reply.data) == (WSMsgType.PONG, b"hello")
        await ws.send_str("decline-end")
        async for _msg in ws:
            pass
    await asyncio.wait_for(served.done.wait(), 5.0)
    assert served.handled == [("direct", "a"), ("queued", "decline-end")]
