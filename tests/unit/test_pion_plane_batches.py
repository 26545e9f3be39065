"""The pion media plane's received batches (``PionPlane._tick``): packets to their calls, in order; the
data channel's flow control (``PionChannel``)."""

from __future__ import annotations

import asyncio
import struct
import time

from mockengine.rtc.channel_flow import ChannelSender
from mockengine.rtc.pion.plane import STATE_CONGESTED, STATE_DRAINED, PionPlane
from mockengine.server.webrtc.pion_call import PionChannel


class Endpoint:
    def __init__(self) -> None:
        self.packets: list[tuple[int, int, bytes]] = []

    def on_state(self, state: int, reason: str) -> None: ...

    def on_message(self, data: bytes, is_text: bool) -> None: ...

    def on_packet(self, sequence_number: int, timestamp: int, payload: bytes) -> None:
        self.packets.append((sequence_number, timestamp, payload))

    def due_frames(self, now_s: float) -> list[tuple[bytes, int]]:
        return []


def batch(entries: list[tuple[int, int, int, bytes]]) -> bytes:
    body = b"R" + struct.pack("<Q", time.monotonic_ns())
    for call, sequence_number, timestamp, payload in entries:
        body += struct.pack("<IHIH", call, sequence_number, timestamp, len(payload)) + payload
    return body


def test_a_batch_goes_to_its_calls_with_swapped_packets_put_back_in_order():
    """A burst after a hiccup arrives swapped; handed on as it came, the decoder owed one frame as silence
    and appended the other late (the input ran ahead of the wall clock at each hiccup)."""
    plane = PionPlane()
    first, second = Endpoint(), Endpoint()
    plane._endpoints = {1: first, 2: second}
    plane._tick(
        batch(
            [
                (1, 65535, 0, b"a"),
                (2, 7, 960, b"x"),
                (1, 1, 1920, b"c"),  # (the sequence numbers wrap)
                (1, 0, 960, b"b"),
                (2, 8, 1920, b"y"),
                (3, 1, 0, b"nobody's"),
            ]
        )
    )
    assert [p[2] for p in first.packets] == [b"a", b"b", b"c"]
    assert [p[:2] for p in first.packets] == [(65535, 0), (0, 960), (1, 1920)]
    assert [p[2] for p in second.packets] == [b"x", b"y"]
    assert plane.ticks == 1


class Plane:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def send_text(self, call: int, text: str) -> None:
        self.sent.append(text)


async def test_a_congested_channel_holds_the_next_send_until_it_drains():
    """The sidecar buffered all the engine sent (``bufferedAmount`` stayed 0): a client that stopped
    reading let it grow without end. Told congested, the next send waits, as on aiortc's channel."""
    plane = Plane()
    channel = PionChannel(plane, 1)  # type: ignore[arg-type]
    channel.readyState = "open"
    ended = asyncio.Event()
    sender = ChannelSender(channel, ended)
    assert await sender.send("one") and sender.waits == 0
    channel.on_flow(STATE_CONGESTED)
    second = asyncio.ensure_future(sender.send("two"))
    await asyncio.sleep(0.05)
    assert not second.done() and plane.sent == ["one", "two"] and sender.waits == 1
    channel.on_flow(STATE_DRAINED)
    assert await asyncio.wait_for(second, 1.0)
    assert await sender.send("three") and sender.waits == 1
