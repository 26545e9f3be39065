"""A WebRTC call whose session is in a G.711 format: the Opus tracks are no G.711 line, and neither
direction is converted piece by piece any more.

The microphone's 20 ms frames were re-encoded to the session's G.711 format one by one (soxr's edge
transient at every frame, the audio cut to the 4 kHz telephone band) only for the core to decode them
again; the reply's 200 ms deltas were decoded one by one (a click at every delta), in the session's
format even when ``response.create`` had asked for another. A real ``CallRunner`` on an unconnected
aiortc peer connection, fake engines: no network."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from aiortc import RTCPeerConnection

from mockengine.audio.g711 import G711InputStream, from_pcm16_24k
from mockengine.protocol import client_events as ce
from mockengine.protocol import codec
from mockengine.server.trace import Tracer
from mockengine.server.webrtc.call import CallRunner
from mockengine.settings import Settings
from tests.conftest import make_driver, make_session
from tests.speech import DATA, load_wav_24k
from tests.unit.test_session_runner_flow import resources
from tests.webrtc_client import close_pcs

FRAME_BYTES = 960  # 20 ms of PCM16 24 kHz: what the call's Opus decoder hands over per frame


class OpenChannel:
    """An open ``oai-events`` channel that takes everything at once."""

    label = "oai-events"
    readyState = "open"

    def __init__(self) -> None:
        self.bufferedAmount = 0
        self.bufferedAmountLowThreshold = 0
        self.sent: list[str] = []

    def on(self, name: str, handler: Callable[..., Any]) -> None:
        pass

    def send(self, text: str) -> None:
        self.sent.append(text)


def g711_session(input_format: str = "audio/pcm", output_format: str = "audio/pcm") -> ce.SessionUpdate:
    audio = {
        "input": {"format": {"type": input_format}, "turn_detection": None},
        "output": {"format": {"type": output_format}},
    }
    return ce.SessionUpdate({"type": "realtime", "audio": audio})


async def test_the_microphone_reaches_a_g711_session_as_the_pcm16_it_is():
    pc = RTCPeerConnection()
    session = make_session()
    runner = CallRunner(pc, "rtc_test", session, resources(Settings()), Tracer(None))
    try:
        session.receive(g711_session(input_format="audio/pcmu"), 0.0)
        pcm = load_wav_24k(DATA / "question.wav")
        pcm = pcm[: len(pcm) // FRAME_BYTES * FRAME_BYTES]
        for offset in range(0, len(pcm), FRAME_BYTES):
            runner._on_microphone(pcm[offset : offset + FRAME_BYTES])
        step = session.receive(ce.InputAudioBufferCommit(), 0.0)
        item_id = next(e for e in step.events if e["type"] == "input_audio_buffer.committed")["item_id"]
        heard = bytes(session.conversation.get(item_id).audio)
    finally:
        await close_pcs(pc)
    # Not re-encoded to µ-law frame by frame and decoded again: the microphone's own samples.
    assert heard == pcm


async def deliver_reply(session_update: ce.SessionUpdate, response: dict[str, Any]) -> tuple[bytes, bytes]:
    """Run a reply to 'Tell me a story.' in a session set by ``session_update`` (``response``: the
    ``response.create`` parameters) and deliver its events to a call: (the deltas' bytes joined, the PCM16
    the call queued on its track)."""
    driver = make_driver()
    driver.send(session_update)
    story = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Tell me a story."}],
    }
    driver.send(ce.ConversationItemCreate(story))
    driver.send(ce.ResponseCreate(response))
    driver.run_until_idle()
    pc = RTCPeerConnection()
    runner = CallRunner(pc, "rtc_test", make_session(), resources(Settings()), Tracer(None))
    runner.session.receive(session_update, 0.0)
    runner._on_datachannel(OpenChannel())  # type: ignore[arg-type]
    queued: list[bytes] = []
    runner.track.enqueue = lambda _response_id, _item_id, pcm16: queued.append(pcm16)  # type: ignore[method-assign]
    try:
        for _, event in driver.events:
            if event["type"].startswith("response."):
                await runner.deliver(event, codec.dumps_utf8(event))
    finally:
        await close_pcs(pc)
    deltas = b"".join(base64.b64decode(e["delta"]) for e in driver.of_type("response.output_audio.delta"))
    assert len(driver.of_type("response.output_audio.delta")) > 3  # boundaries to get wrong
    return deltas, b"".join(queued)


async def test_g711_reply_deltas_play_on_the_track_as_the_reply_decoded_whole():
    deltas, played = await deliver_reply(g711_session(output_format="audio/pcmu"), {})
    # One stream however the deltas cut it (decoded delta by delta, each was a clip of its own: soxr's
    # edge transient at every 200 ms boundary).
    assert played == G711InputStream().decode(deltas, "audio/pcmu")
    assert len(played) == len(deltas) * 6  # 3 samples of PCM16 24 kHz per byte, none held back


async def test_a_reply_in_its_own_format_is_decoded_in_it_not_the_sessions():
    override = {"audio": {"output": {"format": {"type": "audio/pcmu"}}}}
    deltas, played = await deliver_reply(g711_session(), override)  # a PCM16 session
    assert played == G711InputStream().decode(deltas, "audio/pcmu")
    # and the other way: a G.711 session, a reply asked for in PCM16 plays as it came
    deltas, played = await deliver_reply(
        g711_session(output_format="audio/pcma"), {"audio": {"output": {"format": {"type": "audio/pcm"}}}}
    )
    assert played == deltas and len(played) > 48_000


def test_the_fixture_speech_is_g711_band_after_a_round_trip():
    """Guard for the microphone test: a G.711 round trip does change the samples (else it proves nothing)."""
    pcm = load_wav_24k(DATA / "question.wav")[: FRAME_BYTES * 50]
    assert G711InputStream().decode(from_pcm16_24k(pcm, "audio/pcmu"), "audio/pcmu") != pcm
