"""A server-side Node client attaching to a WebRTC call's sideband (``/v1/realtime?call_id=…``) with the
``ws`` package, its message listener attached after awaiting ``'open'`` (LiveKit Agents JS's pattern,
and ``await once(ws, 'open')`` code): it must get the sideband's ``session.created``. Needs Node ≥ 20
and npm (tests/js)."""

from __future__ import annotations

import json

import pytest

from tests.integration.compat.test_js_agents import _install, _run, _tools
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.models


async def test_sideband_session_created_reaches_a_listener_attached_after_open(engine) -> None:
    """The sideband wrote ``session.created`` in the same TCP write as its 101, so Node's ``ws`` emitted
    it before such a listener existed, as for a WebSocket session before the 5 ms wait there
    (test_js_livekit.py); the sideband now waits as the session's WebSocket does."""
    node, npm = _tools()
    await _install(npm)
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        url = f"{server.url}/realtime?call_id={client.call_id}"
        code, out, err = await _run(node, "ws_listen_after_open.mjs", url, "20")
    finally:
        await client.close()
    assert code == 0, err
    first = json.loads(out.strip().splitlines()[-1])["first"]
    # A loaded machine may be late to read the 101 now and then: most, not all.
    assert first.count("session.created") >= 15, first
    assert set(first) <= {"session.created", "nothing"}, first
