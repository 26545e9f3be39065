"""Framework tests: a real engine on loopback, and the engine's own record of the ``error`` events it
sent (a framework may swallow some, e.g. LiveKit and Pipecat a failed cancel)."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.server.realtime_ws import SessionRunner


@pytest.fixture
async def framework_engine(engine, monkeypatch):
    """``await framework_engine(**settings)`` → the engine; on teardown, fails the test if the engine
    sent any ``error`` event meanwhile (the errors are shown)."""
    sent: list[dict[str, Any]] = []
    send = SessionRunner._send

    async def recording_send(self: SessionRunner, event: dict[str, Any], text: str | None) -> bool:
        sent.append(event)
        return await send(self, event, text)

    monkeypatch.setattr(SessionRunner, "_send", recording_send)
    yield engine
    assert sent, "no server event observed"
    errors = [event for event in sent if event["type"] == "error"]
    assert not errors, errors
