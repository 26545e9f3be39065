"""A call whose peer has gone ends promptly, whether the peer said so or not.

The peer that closes its ``RTCPeerConnection`` sends an SCTP ABORT and a DTLS ``close_notify``; a killed
client process (or a closed browser tab: ``browser/test_peer_gone.py``) sends nothing, and its call lasted
until ICE consent freshness failed, ~30 s later (``rtc/peer_gone.py``). The waits below are well under
those 30 s and far over the ~2 s the engine takes, so load does not make them flaky."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import textwrap
from pathlib import Path

from mockengine.server.state import STATS
from mockengine.server.webrtc.calls import CALLS
from tests.eventually import eventually
from tests.webrtc_client import CallClient

CONSENT_EXPIRY_S = 30.0  # RFC 7675: what ended a silent peer's call before
GONE_WITHIN_S = 15.0
REPO = Path(__file__).resolve().parents[2]

# A client in a process of its own, killed with SIGKILL: its sockets close with not a packet sent.
CLIENT = textwrap.dedent(
    """
    import asyncio, sys
    from tests.webrtc_client import CallClient

    async def main():
        client = CallClient()
        await client.connect(sys.argv[1])
        await client.wait_for("session.created")
        print(client.call_id, flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


async def test_a_call_whose_peer_closes_its_connection_ends_at_once(engine):
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        assert server.sessions_active() == 1
    finally:
        await client.close()
    await eventually(lambda: server.sessions_active() == 0, timeout_s=GONE_WITHIN_S)
    assert not server.app[CALLS]


async def test_a_call_whose_client_process_is_killed_ends_well_before_consent_expiry(engine, caplog):
    """The engine's packets to the dead client's port get ICMP port unreachable: the call ends as a
    hang-up does (seat freed, ``sessions_active`` back to 0, the call out of the registry)."""
    caplog.set_level(logging.INFO, logger="mockengine.webrtc")
    server = await engine()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CLIENT, server.http_url, stdout=asyncio.subprocess.PIPE, env=env, cwd=REPO
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout=60.0)
        call_id = line.decode().strip()
        assert call_id in server.app[CALLS], (call_id, list(server.app[CALLS]))
        # Live for a while first: a peer that sends its media is never taken for gone.
        await asyncio.sleep(3.0)
        assert call_id in server.app[CALLS]
        os.kill(process.pid, signal.SIGKILL)
        await process.wait()
        started = asyncio.get_running_loop().time()
        await eventually(lambda: call_id not in server.app[CALLS], timeout_s=GONE_WITHIN_S)
        assert asyncio.get_running_loop().time() - started < CONSENT_EXPIRY_S
        await eventually(lambda: server.app[STATS].sessions_active == 0, timeout_s=5.0)
        assert "refuses the call's packets" in caplog.text
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
