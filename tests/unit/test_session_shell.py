"""The session shell (``server/session_shell.py``): what voice-agent and translation sessions do at their
connection is one piece of code, so a fix to reading, sending, closing or expiry reaches both. Fast
checks with a fake transport; the real proofs are the integration tests of both endpoints
(``test_translation_*``, ``test_disconnects``, ``test_faults_ws``, ``test_session_runner_flow``)."""

from __future__ import annotations

import asyncio
from typing import Any

from mockengine.server.realtime_ws import SessionRunner
from mockengine.server.session_shell import CLOSE_WAIT_S, SessionShell, WebSocketTransport
from mockengine.server.trace import Tracer
from mockengine.server.translation_ws import TranslationSocket
from mockengine.server.webrtc.call import CallRunner
from mockengine.server.webrtc.translation_call import TranslationCall
from mockengine.settings import Settings
from tests.eventually import eventually


def test_both_websocket_sessions_read_send_close_and_expire_through_the_same_code() -> None:
    for name in ("read_frames", "deliver", "close_transport", "abort_transport", "is_gone"):
        assert getattr(SessionRunner, name) is getattr(TranslationSocket, name), name
        assert getattr(SessionRunner, name) is getattr(WebSocketTransport, name), name
    for cls in (SessionRunner, TranslationSocket, CallRunner, TranslationCall):
        for name in (
            "send_filtered",
            "_send",
            "close_or_abort",
            "arm_expiry",
            "expiry_error",
            "close_records",
        ):
            assert getattr(cls, name) is getattr(SessionShell, name), (cls.__name__, name)


class Stuck(SessionShell):
    """A transport whose close never completes (a peer that does not read), recording what is done."""

    def __init__(self) -> None:
        self.init_shell(Settings(session_max_s=1), Tracer(None), None, "sess_1")
        self.done: list[str] = []
        self.expired_at = 0.0  # the event loop's clock when expire() was called
        self.sent: list[tuple[dict[str, Any], bytes]] = []

    async def deliver(self, event: dict[str, Any], data: bytes) -> bool:
        self.sent.append((event, data))
        return True

    @property
    def is_transport_closed(self) -> bool:
        return "abort" in self.done

    async def close_transport(self, code: int, reason: str) -> None:
        self.done.append(f"close {code} {reason}")
        await asyncio.Event().wait()

    def abort_transport(self) -> None:
        self.done.append("abort")

    def formats(self) -> tuple[str, str]:
        return "audio/pcm", "audio/pcm"

    def expire(self) -> None:
        self.done.append("expire")
        self.expired_at = asyncio.get_running_loop().time()


async def test_a_close_the_peer_does_not_take_drops_the_connection_after_the_wait() -> None:
    shell = Stuck()
    started = asyncio.get_running_loop().time()
    await shell.close_or_abort(1001, "Your session hit the maximum duration of 60 minutes.")
    waited = asyncio.get_running_loop().time() - started
    assert shell.done == ["close 1001 Your session hit the maximum duration of 60 minutes.", "abort"]
    assert CLOSE_WAIT_S <= waited < CLOSE_WAIT_S + 1.0


async def test_events_go_out_as_their_json_until_the_transport_is_closed_then_expiry_fires() -> None:
    shell = Stuck()
    await shell.send_filtered({"type": "session.created", "event_id": "e1"}, None)
    assert shell.sent == [
        ({"type": "session.created", "event_id": "e1"}, b'{"type":"session.created","event_id":"e1"}')
    ]
    shell.abort_transport()
    await shell.send_filtered({"type": "error", "event_id": "e2"}, None)
    assert len(shell.sent) == 1  # nothing is sent (or journaled) on a closed transport
    loop = asyncio.get_running_loop()
    armed_at = loop.time()
    timer = shell.arm_expiry()
    # Waited for, then timed: a fixed sleep either side of the 1 s lost to a loaded machine's stall.
    await eventually(lambda: "expire" in shell.done, timeout_s=10)
    assert shell.done == ["abort", "expire"]
    assert shell.expired_at - armed_at >= 1.0 - 0.01  # at --session-max-s, not before (loop clock slack)
    timer.cancel()
    error = shell.expiry_error()
    assert (error.code, error.message) == (
        "session_expired",
        "Your session hit the maximum duration of 1 second.",
    )
