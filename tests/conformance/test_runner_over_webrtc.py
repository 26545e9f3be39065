"""``mockengine conformance --transport webrtc``: HRP checks over a WebRTC call to mockengine (offer to
``/v1/realtime/calls``, events on ``oai-events``, the checks' audio on the Opus microphone track, reply
audio read back from the incoming track). Real time: the track plays at 1x."""

from __future__ import annotations

import io

import pytest

from mockengine.conformance import arun_conformance
from mockengine.conformance.webrtc import calls_url

pytestmark = pytest.mark.models


def test_calls_url_follows_the_websocket_url():
    assert calls_url("ws://h:1/v1/realtime?model=m") == "http://h:1/v1/realtime/calls?model=m"
    assert calls_url("wss://h/v1/realtime/") == "https://h/v1/realtime/calls"


async def test_hrp_checks_pass_over_a_webrtc_call(mockengine_url: str) -> None:
    out = io.StringIO()
    results, _ = await arun_conformance(
        mockengine_url,
        api_key="sk-mockengine",
        checks=["handshake", "engine_turn[server_vad]", "function_call"],
        out=out,
        transport="webrtc",
    )
    assert [r.label for r in results if not r.passed] == [], out.getvalue()
    turn = next(r for r in results if r.label == "engine_turn[server_vad]")
    assert turn.figures["audio_deltas"] > 5  # reply audio heard on the track


async def test_barge_in_and_cancel_pass_with_webrtc_semantics(mockengine_url: str) -> None:
    """The service's own clear and truncation on barge-in; cancel then output_audio_buffer.clear."""
    out = io.StringIO()
    results, _ = await arun_conformance(
        mockengine_url,
        api_key="sk-mockengine",
        checks=["barge_in[server_vad]", "cancel"],
        out=out,
        transport="webrtc",
    )
    assert [r.label for r in results if not r.passed] == [], out.getvalue()
    barge_in = next(r for r in results if r.label == "barge_in[server_vad]")
    # the engine truncated where the client's track had got to (checks_webrtc's tolerance)
    assert barge_in.figures["truncated_at_ms"] > 0
    assert abs(barge_in.figures["truncated_at_ms"] - barge_in.figures["received_audio_ms"]) <= 300
    cancel = next(r for r in results if r.label == "cancel")
    assert "clear_ack_ms" in cancel.figures or any("played out" in n for n in cancel.notes)
