"""Stopping ``mockengine record`` (Ctrl-C) while a session is being relayed: the recorder waited for the
client to leave (aiohttp waits for its handlers), so the user's Ctrl-C did nothing while their client
kept the socket open, the client was never told, and the session's ``session.json`` came only when the
client gave up. Now the recorder closes both sides 1001 ("going away", as ``serve`` does) at once and
writes the session's end as its own."""

from __future__ import annotations

import asyncio
import json

import aiohttp


async def test_stopping_the_recorder_closes_its_sessions_1001_and_writes_them(recording):
    rec = await recording()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(rec.realtime, headers={"Authorization": "Bearer k"}) as ws,
    ):
        first = json.loads((await ws.receive(timeout=30)).data)
        assert first["type"] == "session.created"
        stopping = asyncio.create_task(rec.proxy.close())  # what SIGINT does: the app shuts down
        while (message := await ws.receive(timeout=30)).type == aiohttp.WSMsgType.TEXT:
            pass
        assert (message.type, ws.close_code, message.extra) == (
            aiohttp.WSMsgType.CLOSE,
            1001,
            "recorder shutting down",
        )
        await asyncio.wait_for(stopping, 30)
    session = json.loads((rec.out / "realtime-0001" / "session.json").read_text())
    assert session["close"] == {"by": "recorder", "code": 1001, "reason": "recorder shutting down"}
    await rec.upstream.wait_until_idle()  # the upstream session was closed too
