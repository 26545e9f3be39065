"""WebRTC calls on the pion media plane (``serve --media-plane pion``): aiortc as the client over the wire,
a real engine on loopback whose calls' media run in the Go sidecar (mockengine/rtc/pion/).

These need the sidecar built (`make pion`, from Debian's golang-go and golang-github-pion-webrtc.v3-dev);
CI builds it (.ci/run). Where it is not built they fail, saying so, unless MOCKENGINE_PION_OPTIONAL=1 lets
them skip (a developer's machine without the Go packages)."""

from __future__ import annotations

import os

import pytest

from mockengine.rtc.media import RATE_HZ
from mockengine.rtc.pion.plane import PION_PLANE, is_built, sidecar_binary
from tests.speech import question, validate_server_event, word_error_rate
from tests.webrtc_client import CallClient

pytestmark = pytest.mark.models

SESSION = {
    "type": "realtime",
    "audio": {
        "input": {
            "transcription": {"model": "whisper-1"},
            "turn_detection": {"type": "server_vad", "silence_duration_ms": 500},
        }
    },
}


@pytest.fixture
def pion_engine(engine):
    if not is_built():
        if os.environ.get("MOCKENGINE_PION_OPTIONAL") == "1":
            pytest.skip("the pion sidecar is not built (make pion)")
        sidecar_binary()  # raises SidecarMissing, saying how to build it

    async def start(**overrides):
        return await engine(media_plane="pion", **overrides)

    return start


async def test_a_spoken_question_gets_a_spoken_answer_on_the_track(pion_engine, real_resources):
    server = await pion_engine()
    client = CallClient()
    pcm, _ = question()
    try:
        await client.connect(server.http_url, session=SESSION)
        created = await client.wait_for("session.created")
        assert created["session"]["audio"]["input"]["turn_detection"]["silence_duration_ms"] == 500
        client.mic.say(pcm)
        done = await client.wait_for("response.done", timeout_s=40)
        stopped = await client.wait_for("output_audio_buffer.stopped", timeout_s=30)
    finally:
        await client.close()
    for event in client.events:
        validate_server_event(event)
    kinds = client.kinds()
    assert "response.output_audio.delta" not in kinds, "audio deltas went on the data channel"
    user = next(e for e in client.events if e["type"].endswith("input_audio_transcription.completed"))
    assert "capital" in user["transcript"].lower() and "france" in user["transcript"].lower()
    assert done["response"]["status"] == "completed"
    started = client.events[kinds.index("output_audio_buffer.started")]
    assert started["response_id"] == stopped["response_id"] == done["response"]["id"]
    assert kinds.index("response.created") < kinds.index("output_audio_buffer.started")
    assert kinds.index("response.done") < kinds.index("output_audio_buffer.stopped")
    transcript = next(e for e in client.events if e["type"] == "response.output_audio_transcript.done")
    heard = real_resources.transcriber.transcribe(bytes(client.heard), language="en", prompt=None).text
    assert word_error_rate(transcript["transcript"], heard) <= 0.35, (transcript["transcript"], heard)
    assert len(client.heard) / 2 / RATE_HZ > 1.0
    assert server.app[PION_PLANE].ticks > 0
