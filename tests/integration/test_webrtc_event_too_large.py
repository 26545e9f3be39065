"""A server event larger than the peer's data channel can take (``a=max-message-size`` in its offer:
262,144 bytes for Chromium and aiortc). A session whose instructions are 300 kB (a page's server minting
a secret, or a multipart ``session``) makes a ``session.created`` of that size: aiortc refused to send it
(``ValueError``), the session's writer died with it, and nothing more went out on the channel: no
``session.created``, no reply to anything, the call open and silent until the page gave up (seen from a
headless Chromium page). Now that event is replaced by an ``error`` (``event_too_large``, our choice:
the reference says nothing) and the call goes on."""

from __future__ import annotations

from typing import Any

from mockengine.server.webrtc.call import CallRunner
from mockengine.server.webrtc.calls import CALLS
from tests.eventually import eventually
from tests.webrtc_client import CallClient


async def test_an_event_over_the_peers_max_message_size_is_an_error_and_the_call_goes_on(engine):
    server = await engine()
    client = CallClient()
    big = {"type": "realtime", "instructions": "Be brief. " * 30_000}  # 300 kB
    try:
        await client.connect(server.http_url, session=big)
        error = await client.wait_for("error", timeout_s=10.0)
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello."}]}
        client.send({"type": "conversation.item.create", "item": item})
        client.send({"type": "response.create"})
        done = await client.wait_for("response.done", timeout_s=20.0)
    finally:
        await client.close()
    assert error["error"]["code"] == "event_too_large", error
    assert "session.created" in error["error"]["message"] and "262144" in error["error"]["message"]
    assert done["response"]["status"] == "completed"
    assert "session.created" not in client.kinds()


async def test_a_writer_that_fails_ends_the_call_instead_of_leaving_it_silent(engine, monkeypatch, caplog):
    """Should sending fail for any other reason (a bug), the session is closed (1011, logged) as when its
    other tasks fail: the failed writer was noticed only when the session ended, which it never did."""
    delivered = CallRunner.deliver

    async def failing(self: CallRunner, event: dict[str, Any], data: bytes) -> bool:
        if event["type"] == "session.updated":
            raise RuntimeError("a bug in sending")
        return await delivered(self, event, data)

    monkeypatch.setattr(CallRunner, "deliver", failing)
    server = await engine()
    client = CallClient()
    try:
        await client.connect(server.http_url)
        await client.wait_for("session.created")
        client.send({"type": "session.update", "session": {"type": "realtime", "instructions": "Be brief."}})
        await eventually(lambda: not server.app[CALLS], timeout_s=10.0)
    finally:
        await client.close()
    assert "its writer failed" in caplog.text
