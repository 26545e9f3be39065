"""A barge-in on a call cuts the reply track at once, even while the ``oai-events`` data channel is
congested and the writer waits for it to drain (a fake channel that never drains, fake engines, an
unconnected aiortc peer connection: no network). RTP does not depend on the data channel."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiortc import RTCPeerConnection

from mockengine.protocol import server_events as se
from mockengine.realtime.effects import Step
from mockengine.rtc.channel_flow import HIGH_WATER_BYTES
from mockengine.rtc.media import FRAME_BYTES
from mockengine.server.trace import Tracer
from mockengine.server.webrtc.call import CallRunner
from mockengine.settings import Settings
from tests.conftest import make_session
from tests.unit.test_session_runner_flow import resources
from tests.webrtc_client import close_pcs


class CongestedChannel:
    """An open ``oai-events`` channel whose peer acknowledges nothing: the buffer never drains."""

    label = "oai-events"
    readyState = "open"

    def __init__(self) -> None:
        self.bufferedAmount = 4 * HIGH_WATER_BYTES
        self.bufferedAmountLowThreshold = 0
        self.sent: list[str] = []
        self.handlers: dict[str, Callable[..., Any]] = {}

    def on(self, name: str, handler: Callable[..., Any]) -> None:
        self.handlers[name] = handler

    def send(self, text: str) -> None:
        self.sent.append(text)
        self.bufferedAmount += len(text)


async def test_barge_in_cuts_the_track_while_the_channel_waits_to_drain():
    pc = RTCPeerConnection()
    runner = CallRunner(pc, "rtc_test", make_session(), resources(Settings()), Tracer(None))
    channel = CongestedChannel()
    runner._on_datachannel(channel)  # type: ignore[arg-type]
    writer = asyncio.create_task(runner.writer())
    try:
        runner.track.enqueue("resp_1", "item_1", bytes(FRAME_BYTES * 50))
        for _ in range(5):
            assert runner.track.pull() is not None
        assert runner.track.is_playing  # output_audio_buffer.started went to the writer
        for _ in range(3):
            await asyncio.sleep(0)
        assert channel.sent and runner.sender is not None and runner.sender.waits == 1  # stuck there
        speech = se.input_audio_buffer_speech_started("event_1", audio_start_ms=0, item_id="item_2")
        runner.apply(Step(events=[speech]))
        assert not runner.track.is_playing and runner.track.clear() is None  # cut already
        runner.track.enqueue("resp_1", "item_1", bytes(FRAME_BYTES))  # late audio of the cut reply
        assert not runner.track._queue
        queued = [event["type"] for event, _ in list(runner.outbox.queued)]
        assert queued.index(speech["type"]) < queued.index("output_audio_buffer.cleared")
        assert runner.sender.waits == 1 and not writer.done()  # the channel is still congested
    finally:
        runner.ended.set()
        runner.outbox.put_nowait(None)
        await asyncio.wait_for(writer, 5)
        await close_pcs(pc)
