"""The engine's shutdown never waits forever for a call whose peer connection will not close.

aiortc's ``close()`` waits on each transport in turn with no bound; the engine hangs each call up at
shutdown and waits for it at most ``SHUTDOWN_WAIT_S`` (each call's own end waits for its close at most
``PC_CLOSE_WAIT_S``; the close goes on in a task of its own: ``mockengine/rtc/closing.py``). Here the
engine's SCTP stop never returns, for a voice-agent call and a translation call, and the server's
shutdown still ends within that bound."""

from __future__ import annotations

import asyncio
import time

import pytest

from mockengine.server.app import create_app
from mockengine.server.webrtc.calls import CALLS, SHUTDOWN_WAIT_S
from mockengine.server.webrtc.translation_call import TRANSLATION_CALLS
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.slow  # each shutdown waits its whole bound by design

PATHS = {
    "voice": ("/v1/realtime/calls", CALLS),
    "translation": ("/v1/realtime/translations/calls", TRANSLATION_CALLS),
}


@pytest.mark.parametrize("kind", sorted(PATHS))
async def test_shutdown_ends_in_its_bound_when_a_calls_close_never_ends(
    aiohttp_server, resources, kind
) -> None:
    path, registry = PATHS[kind]
    server = await aiohttp_server(create_app(resources.settings, resources))
    client = CallClient()
    never = asyncio.Event()
    try:
        await client.connect(f"http://127.0.0.1:{server.port}", path=path)
        await client.wait_for("session.created")
        (call,) = server.app[registry].values()
        stop = call.pc.sctp.stop

        async def stop_never() -> None:
            await never.wait()  # cancellable: the event loop's own shutdown may cancel it
            await stop()

        call.pc.sctp.stop = stop_never
        started = time.monotonic()
        await asyncio.wait_for(server.close(), timeout=SHUTDOWN_WAIT_S + 10)
        assert time.monotonic() - started <= SHUTDOWN_WAIT_S + 3
    finally:
        never.set()
        await client.close()
