"""A call whose peer has gone ends promptly, whether the peer said so or not.

The peer that closes its ``RTCPeerConnection`` sends an SCTP ABORT and a DTLS ``close_notify``; a killed
client process (or a closed browser tab: ``browser/test_peer_gone.py``) sends nothing, and its call lasted
until ICE consent freshness failed, ~30 s later (``rtc/peer_gone.py``). The waits below are well under
those 30 s and far over the ~2 s the engine takes, so load does not make them flaky."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from mockengine.server.state import STATS
from mockengine.server.webrtc.calls import CALLS, CONNECT_TIMEOUT_S
from tests.eventually import eventually
from tests.webrtc_client import CallClient

GONE_WITHIN_S = 15.0  # consent freshness would take 30 s
REPO = Path(__file__).resolve().parents[2]
pytestmark = (
    pytest.mark.slow
)  # a client process, seconds of real time (tests/unit/test_rtc_peer_gone.py: fast)

# An aiortc client in a process of its own: it prints its call's id, then closes its peer connection
# (``close``) or waits to be killed with SIGKILL (``kill``: its sockets close with not a packet sent).
CLIENT = textwrap.dedent(
    """
    import asyncio, sys
    from tests.webrtc_client import CallClient

    async def main():
        client = CallClient()
        await client.connect(sys.argv[1], query=sys.argv[3])
        if not sys.argv[3]:  # (under withhold_session_created it never comes: the channel is open)
            await client.wait_for("session.created")
        print(client.call_id, flush=True)
        if sys.argv[2] == "close":
            await asyncio.sleep(3.0)  # live a while first
            await client.close()
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


@contextlib.asynccontextmanager
async def client_process(
    server, leave: str, fault: str
) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """Start :data:`CLIENT` against ``server``; yield the process and its call's id; kill it at the end."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CLIENT,
        server.http_url,
        leave,
        fault,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        cwd=REPO,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout=60.0)
        yield process, line.decode().strip()
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


@pytest.mark.parametrize("fault", ["", "?fault=withhold_session_created"])
@pytest.mark.parametrize("leave", ["close", "kill"])
async def test_a_call_whose_client_goes_away_ends_well_before_consent_expiry(engine, caplog, leave, fault):
    """``close``: ``pc.close()`` ends the call at once (the data channel closes). ``kill``: the engine's
    packets to the dead client's port get ICMP port unreachable, and the call ends as a hang-up does
    (seat freed, ``sessions_active`` back to 0, the call out of the registry); it lasted ~31 s. The same
    under ``withhold_session_created``, whose writer waits for good on the held event: the call's end
    does not wait for it (``SessionLoop.run`` gives the writer 1 s, then cancels it)."""
    caplog.set_level(logging.INFO, logger="mockengine.webrtc")
    server = await engine()
    async with client_process(server, leave, fault) as (process, call_id):
        assert call_id in server.app[CALLS], (call_id, list(server.app[CALLS]))
        if leave == "kill":
            await asyncio.sleep(3.0)  # live a while first: a peer that sends its media is not gone
            assert call_id in server.app[CALLS]
            os.kill(process.pid, signal.SIGKILL)
        await eventually(lambda: call_id not in server.app[CALLS], timeout_s=GONE_WITHIN_S)
        await eventually(lambda: server.app[STATS].sessions_active == 0, timeout_s=5.0)
        if leave == "kill":
            assert "refuses the call's packets" in caplog.text


NEVER_CONNECTED_WITHIN_S = 20.0  # CONNECT_TIMEOUT_S (15 s) and the call's teardown; it was 30 s


@pytest.mark.parametrize("fault", ["", "?fault=withhold_session_created"])
@pytest.mark.parametrize("client_after_201", ["silent", "closed"])
async def test_a_call_whose_client_never_connects_is_freed_at_the_connect_bound(
    engine, caplog, fault, client_after_201
):
    """A client that has its 201 and never completes ICE (``silent``: it never applies the answer;
    ``closed``: it closes its peer connection, or its process dies, before any check) leaves no call
    behind: the engine's checks go unanswered, no data channel opens, and the call is ended at
    ``CONNECT_TIMEOUT_S`` (15 s; it was 30 s), seat and ``sessions_active`` freed."""
    caplog.set_level(logging.INFO, logger="mockengine.webrtc")
    server = await engine()
    client = CallClient()
    try:
        offer = await client.offer()
        headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/sdp"}
        async with aiohttp.ClientSession() as http:
            url = f"{server.http_url}/v1/realtime/calls{fault}"
            reply = await http.post(url, data=offer, headers=headers)
            assert reply.status == 201, await reply.text()
        started = time.monotonic()
        if client_after_201 == "closed":
            await client.close()
        assert server.sessions_active() == 1
        await eventually(lambda: server.sessions_active() == 0, timeout_s=NEVER_CONNECTED_WITHIN_S)
        assert not server.app[CALLS]
        assert time.monotonic() - started >= CONNECT_TIMEOUT_S - 1.0  # not before the bound
        assert f"no data channel after {CONNECT_TIMEOUT_S:.0f} s" in caplog.text
    finally:
        await client.close()


CONSENT_EXPIRY_S = 30.0  # RFC 7675: consent expires 30 s after the last answered check


async def test_a_client_that_stops_answering_is_freed_at_consent_expiry(engine, caplog):
    """A client whose network dies without a word (its process frozen by SIGSTOP: its UDP socket stays
    open, so no ICMP comes back, and nothing is sent or answered) is freed by ICE consent freshness
    (RFC 7675): its call ends about 30 s after its last answer, seat and ``sessions_active`` freed."""
    caplog.set_level(logging.INFO, logger="mockengine.webrtc")
    server = await engine()
    async with client_process(server, "freeze", "") as (process, call_id):
        await asyncio.sleep(2.0)
        assert call_id in server.app[CALLS]
        os.kill(process.pid, signal.SIGSTOP)
        frozen = time.monotonic()
        await eventually(lambda: call_id not in server.app[CALLS], timeout_s=CONSENT_EXPIRY_S + 30)
        freed_after_s = time.monotonic() - frozen
        print(f"frozen client freed after {freed_after_s:.1f} s")
        await eventually(lambda: server.app[STATS].sessions_active == 0, timeout_s=5.0)
        assert freed_after_s <= CONSENT_EXPIRY_S + 5
