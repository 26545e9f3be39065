"""A ``POST /v1/realtime/calls`` whose client leaves before the answer opens no call.

Run as ``mockengine serve`` runs the app (``lifecycle.py``'s ``web.AppRunner``): there aiohttp lets a
handler go on after its client left, while its test server (the ``engine`` fixture) cancels it, which
hid the leak from every test."""

from __future__ import annotations

import dataclasses
import logging

import aiohttp
import pytest
from aiohttp import web

from mockengine.server.app import create_app
from mockengine.server.state import STATS
from mockengine.server.webrtc.calls import CALLS
from tests.eventually import eventually
from tests.webrtc_client import CallClient


async def test_a_call_whose_client_left_before_its_answer_is_not_opened(resources, caplog):
    """A page that gives up on a slow answer (the voice-client spec's 8 s connect timeout against
    ``slow_call``'s 10 s) leaves no call behind: the engine opened it anyway and it held its admission
    seat (``sessions_active``) until the 30 s watchdog for a data channel that could never open."""
    caplog.set_level(logging.INFO, logger="mockengine.webrtc")
    app = create_app(resources.settings, dataclasses.replace(resources, settings=resources.settings))
    runner = web.AppRunner(app, handle_signals=False)  # handler_cancellation=False, as `serve`
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    client = CallClient()
    try:
        offer = await client.offer()
        headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/sdp"}
        async with aiohttp.ClientSession() as http:
            with pytest.raises(TimeoutError):
                await http.post(
                    f"http://127.0.0.1:{port}/v1/realtime/calls?fault=slow_call:1500",
                    data=offer,
                    headers=headers,
                    timeout=aiohttp.ClientTimeout(total=0.3),
                )
        # The handler goes on after the fault's 1.5 s: wait until it has said what it did (once done).
        await eventually(lambda: "left before its answer" in caplog.text, timeout_s=30.0)
        await eventually(lambda: app[STATS].sessions_active == 0, timeout_s=5.0)
        assert not app[CALLS]
    finally:
        await client.close()
        await runner.cleanup()
