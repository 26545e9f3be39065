"""Framework tests: a real engine on loopback, and the engine's own record of the ``error`` events it
sent (a framework may swallow some, e.g. LiveKit and Pipecat a failed cancel)."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.server.realtime_ws import SessionRunner


@pytest.fixture
def server_events(monkeypatch) -> list[dict[str, Any]]:
    """Every Realtime server event the engines of this test send, in order (all sessions together)."""
    sent: list[dict[str, Any]] = []
    send = SessionRunner._send

    async def recording_send(self: SessionRunner, event: dict[str, Any], text: str | None) -> bool:
        sent.append(event)
        return await send(self, event, text)

    monkeypatch.setattr(SessionRunner, "_send", recording_send)
    return sent


@pytest.fixture
async def framework_engine(engine, server_events):
    """``await framework_engine(**settings)`` → the engine; on teardown, fails the test if the engine
    sent any ``error`` event meanwhile (the errors are shown)."""
    yield engine
    assert server_events, "no server event observed"
    errors = [event for event in server_events if event["type"] == "error"]
    assert not errors, errors
