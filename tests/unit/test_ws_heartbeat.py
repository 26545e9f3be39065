"""The Realtime socket's cheap heartbeat keeps aiohttp's rule over real loopback sockets: a silent peer is
pinged and, without a pong, dropped; a peer that sends frames or answers pings stays; and a received frame
schedules nothing (the per-frame callback it replaces)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import pytest
from aiohttp import WSMsgType, web

from mockengine.server.ws_heartbeat import HEARTBEAT_RESPONSE, CheapHeartbeatResponse
from tests.loopback import serve_on_loopback

HEARTBEAT_S = 0.2  # pong due within 0.1 s; looks every 0.1 s
# A peer that answers must answer within half an interval; 0.1 s is less than a loaded CI machine can hold
# its client loop still, so the answering test gets a longer one (its pong is due within 0.5 s).
ANSWERING_HEARTBEAT_S = 1.0


class Served:
    def __init__(self, url: str) -> None:
        self.url = url
        self.closed_at: float | None = None
        self.opened_at = 0.0


@pytest.fixture
async def served(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    loop = asyncio.get_running_loop()
    state = Served("")
    heartbeat_s = getattr(request, "param", HEARTBEAT_S)

    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = HEARTBEAT_RESPONSE(heartbeat=heartbeat_s)
        await ws.prepare(request)
        state.opened_at = loop.time()
        async for _msg in ws:
            pass
        state.closed_at = loop.time()
        return ws

    app = web.Application()
    app.router.add_get("/ws", handler)
    async with serve_on_loopback(app) as port:
        state.url = f"http://127.0.0.1:{port}/ws"
        yield state


async def _connected(
    served: Served, client: Callable[[aiohttp.ClientWebSocketResponse], Awaitable[None]], seconds: float
) -> float | None:
    """Run ``client`` for ``seconds`` (or until the server drops it); when the server dropped it."""
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(served.url, autoping=False, heartbeat=None) as ws,
    ):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client(ws), seconds)
        await asyncio.sleep(0.05)  # a drop at the very end is seen
        return served.closed_at  # before this client says goodbye itself


def test_the_installed_aiohttp_has_the_hooks_the_cheap_heartbeat_needs() -> None:
    assert HEARTBEAT_RESPONSE is CheapHeartbeatResponse, (
        "aiohttp changed: the heartbeat costs a callback per frame"
    )


async def test_a_silent_peer_is_pinged_and_dropped(served: Served) -> None:
    pinged: list[float] = []
    loop = asyncio.get_running_loop()

    async def silent(ws: aiohttp.ClientWebSocketResponse) -> None:  # reads, never answers or sends
        while not ws.closed:
            msg = await ws.receive()
            if msg.type == WSMsgType.PING:
                pinged.append(loop.time())
            elif msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.ERROR):
                return

    closed_at = await _connected(served, silent, 50 * HEARTBEAT_S)  # returns at the drop
    assert closed_at is not None, "the silent peer was never dropped"
    silent_for = closed_at - served.opened_at
    # Dropped at the first unanswered ping, not a later one: counted, where a wall-clock bound of
    # 2.5 heartbeats + 0.3 s failed whenever a loaded machine held the loop that long (each look is
    # armed from when the last one ran, so any stall pushes the drop later by as much). The bounds from
    # below hold however late the loop runs; the one from above is only a sanity bound now.
    assert len(pinged) == 1, pinged
    assert 1.5 * HEARTBEAT_S <= silent_for <= 10 * HEARTBEAT_S
    assert pinged[0] - served.opened_at >= HEARTBEAT_S


@pytest.mark.parametrize("served", [ANSWERING_HEARTBEAT_S], indirect=True)
async def test_a_peer_that_answers_pings_stays(served: Served) -> None:
    pongs = 0

    async def answering(ws: aiohttp.ClientWebSocketResponse) -> None:
        nonlocal pongs
        while True:
            msg = await ws.receive()
            if msg.type == WSMsgType.PING:
                await ws.pong(msg.data)
                pongs += 1

    assert await _connected(served, answering, 4 * ANSWERING_HEARTBEAT_S) is None
    assert pongs >= 2


async def test_a_peer_that_streams_frames_is_never_pinged_or_dropped(served: Served) -> None:
    async def streaming(ws: aiohttp.ClientWebSocketResponse) -> None:  # never reads: never pongs
        while True:
            await ws.send_str('{"type": "input_audio_buffer.append", "audio": ""}')
            await asyncio.sleep(HEARTBEAT_S / 5)

    assert await _connected(served, streaming, 8 * HEARTBEAT_S) is None


async def test_a_received_frame_schedules_no_callback() -> None:
    for response_class, schedules in ((web.WebSocketResponse, True), (HEARTBEAT_RESPONSE, False)):
        ws = response_class(heartbeat=HEARTBEAT_S)
        ws._loop = asyncio.get_running_loop()
        ws._on_data_received()  # what the protocol calls for every frame
        assert (ws._heartbeat_reset_handle is not None) is schedules
        if ws._heartbeat_reset_handle is not None:
            ws._heartbeat_reset_handle.cancel()
