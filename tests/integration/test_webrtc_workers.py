"""WebRTC calls under ``serve --workers 2``, over real sockets: a hang-up or a sideband WebSocket that the
kernel hands to the worker not holding the call is forwarded to the one that does."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from mockengine.server.webrtc.siblings import VIA_HEADER, WORKER_HEADER
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.models
TRIES = 16  # new connections until one lands on the other worker: all 16 missing it is a 2 ** -16 chance


async def test_calls_on_both_workers_carry_their_worker_in_the_id(two_workers):
    marks, clients = set(), []
    try:
        for _ in range(TRIES):
            client = CallClient()
            clients.append(client)
            await client.connect(two_workers)
            assert client.call_id is not None and len(client.call_id) == len("rtc_u1_") + 32
            marks.add(client.call_id[-1])
            if len(marks) == 2:
                break
    finally:
        await asyncio.gather(*[c.close() for c in clients])
    assert marks == {"0", "1"}


async def test_a_sideband_reaches_the_call_from_either_worker(two_workers):
    client = CallClient()
    await client.connect(two_workers)
    await client.wait_for("session.created")
    owner = client.call_id[-1] if client.call_id else ""
    url = f"{two_workers.replace('http', 'ws')}/v1/realtime?call_id={client.call_id}"
    forwarded = 0
    try:
        async with aiohttp.ClientSession() as http:
            for attempt in range(TRIES):
                async with http.ws_connect(url, headers={"Authorization": "Bearer sk-test"}) as ws:
                    created = json.loads((await ws.receive(timeout=10)).data)
                    assert created["type"] == "session.created"
                    assert ws._response.headers.get(WORKER_HEADER, owner) == owner
                    if VIA_HEADER not in ws._response.headers:
                        continue
                    forwarded += 1  # through the other worker: its events and commands still flow
                    instructions = f"forwarded {attempt}"
                    await ws.send_json(
                        {
                            "type": "session.update",
                            "session": {"type": "realtime", "instructions": instructions},
                        }
                    )
                    on_call = await client.wait_for("session.updated")
                    assert on_call["session"]["instructions"] == instructions
                    seen = json.loads((await ws.receive(timeout=10)).data)
                    assert seen["type"] == "session.updated"
                    break
        assert forwarded == 1
        # The hang-up through whichever worker ends the call; the forwarded sideband closes with it.
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(url, headers={"Authorization": "Bearer sk-test"})
            await ws.receive(timeout=10)
            reply = await http.post(
                f"{two_workers}/v1/realtime/calls/{client.call_id}/hangup",
                headers={"Authorization": "Bearer sk-test"},
            )
            assert reply.status == 200, await reply.text()
            closing = await ws.receive(timeout=10)
            while closing.type == aiohttp.WSMsgType.TEXT:
                closing = await ws.receive(timeout=10)
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert ws.close_code == 1000
    finally:
        await client.close()


async def test_hangup_reaches_the_call_from_either_worker(two_workers):
    forwarded = False
    for _ in range(TRIES):
        client = CallClient()
        try:
            await client.connect(two_workers)
            await client.wait_for("session.created")
            # A fresh connection for the hang-up, so the kernel picks a worker anew.
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as http:
                reply = await http.post(
                    f"{two_workers}/v1/realtime/calls/{client.call_id}/hangup",
                    headers={"Authorization": "Bearer sk-test"},
                )
                assert reply.status == 200, await reply.text()
                forwarded = VIA_HEADER in reply.headers
                async with asyncio.timeout(10):
                    while client.pc.connectionState != "closed" and client.channel.readyState != "closed":
                        await asyncio.sleep(0.05)
                async with asyncio.timeout(10):  # ended, wherever the next hang-up lands
                    while True:
                        again = await http.post(
                            f"{two_workers}/v1/realtime/calls/{client.call_id}/hangup",
                            headers={"Authorization": "Bearer sk-test"},
                        )
                        if again.status == 404:
                            break
                        await asyncio.sleep(0.1)
        finally:
            await client.close()
        if forwarded:
            break
    assert forwarded, f"no hang-up of {TRIES} landed on the worker not holding the call"
