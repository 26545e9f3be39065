"""The WebRTC bench's and soak's driver clients keep a bounded record of what they receive
(``mockengine/bench/webrtc_talk.py``'s ``KEEP_EVENTS``): they kept every event (and, listening, every
frame's peak) for the whole run, so over a 30–60 min soak the driver's memory grew, not the engine's.
Real calls and WebSocket sessions against an engine on loopback (fake models); the bound is made small
so a few events cross it."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.bench import rtc_soak, webrtc_talk
from mockengine.conformance import webrtc as conformance_webrtc

KEEP = 4
UPDATES = 30


async def _open(engine: Any, how: str) -> Any:
    if how == "rtc_soak":
        conn, _call_id = await rtc_soak._open_call(engine.http_url, engine.realtime)
        return conn
    return await webrtc_talk.open_session(engine.realtime, how)


@pytest.mark.parametrize("how", ["webrtc", "websocket", "rtc_soak"])
async def test_a_driver_client_keeps_a_bounded_record_and_still_finds_what_it_waits_for(
    engine, monkeypatch, how
):
    monkeypatch.setattr(webrtc_talk, "KEEP_EVENTS", KEEP, raising=False)
    server = await engine()
    conn = await _open(engine=server, how=how)
    try:
        for n in range(UPDATES):
            await conn.send(
                {"type": "session.update", "session": {"type": "realtime", "instructions": f"n{n}"}}
            )
            updated = await conn.wait_for(
                "session.updated",
                lambda e, n=n: e.get("session", {}).get("instructions") == f"n{n}",
                since_ms=0,
                timeout_ms=20_000,
            )
            assert updated is not None, n  # a trim never hides the event a driver waits for
        assert len(conn.events) < 2 * KEEP  # only the newest kept
        assert conn.events_received == UPDATES + 1  # but every event counted (and session.created)
        assert [e.index for e in conn.events] == list(
            range(conn.events_received - len(conn.events), UPDATES + 1)
        )
    finally:
        await conn.close()


async def test_a_listening_call_keeps_a_bounded_record_of_frame_peaks(engine, monkeypatch):
    """The bench's reply-latency call decodes the reply track: one peak a 20 ms frame, 50 a second."""
    monkeypatch.setattr(webrtc_talk, "KEEP_EVENTS", KEEP, raising=False)
    monkeypatch.setattr(conformance_webrtc, "FRAME_PEAKS_KEPT", 10, raising=False)
    server = await engine()
    conn = await webrtc_talk.open_session(server.realtime, "webrtc")
    try:
        await conn.send({"type": "response.create"})
        stopped = await conn.wait_for("output_audio_buffer.stopped", since_ms=0, timeout_ms=60_000)
        assert stopped is not None
        heard = [e for e in conn.events if e.get("transport") == "webrtc-track"]
        assert len(conn.frame_peaks) < 20
        assert len(conn.events) < 2 * KEEP < conn.events_received, heard
    finally:
        await conn.close()
