"""Sending on a WebRTC data channel is bounded (rtc/channel_flow.py): two aiortc peers on loopback, one
sends 8 MiB of events as fast as it can through a ChannelSender. aiortc's own ``send`` never waits, so
its SCTP queue took all 8 MiB at once; the sender waits past 1 MiB buffered, and every message still
arrives, in order."""

from __future__ import annotations

import asyncio

from aiortc import RTCPeerConnection

from mockengine.rtc.channel_flow import HIGH_WATER_BYTES, ChannelSender
from mockengine.rtc.ice import include_loopback, offline_configuration
from tests.webrtc_client import close_pcs

MESSAGE = "x" * 60_000  # under SCTP's 64 KiB default maximum message size
COUNT = 140  # 8.4 MB


async def _connected_pair() -> tuple[RTCPeerConnection, RTCPeerConnection, object, asyncio.Queue[str]]:
    sender_pc, receiver_pc = (
        RTCPeerConnection(offline_configuration()),
        RTCPeerConnection(offline_configuration()),
    )
    channel = sender_pc.createDataChannel("oai-events")
    received: asyncio.Queue[str] = asyncio.Queue()
    receiver_pc.on("datachannel", lambda ch: ch.on("message", received.put_nowait))
    opened = asyncio.Event()
    channel.on("open", opened.set)
    include_loopback(sender_pc)
    await sender_pc.setLocalDescription(await sender_pc.createOffer())
    await receiver_pc.setRemoteDescription(sender_pc.localDescription)
    include_loopback(receiver_pc)
    await receiver_pc.setLocalDescription(await receiver_pc.createAnswer())
    await sender_pc.setRemoteDescription(receiver_pc.localDescription)
    await asyncio.wait_for(opened.wait(), 30)
    return sender_pc, receiver_pc, channel, received


async def test_sends_wait_while_too_much_is_buffered_and_nothing_is_lost() -> None:
    sender_pc, receiver_pc, channel, received = await _connected_pair()
    try:
        sender = ChannelSender(channel, asyncio.Event())
        most_buffered = 0
        for n in range(COUNT):
            assert await sender.send(f"{n:04d}{MESSAGE}")
            most_buffered = max(most_buffered, channel.bufferedAmount)  # type: ignore[attr-defined]
        assert sender.waits > 0
        assert most_buffered <= HIGH_WATER_BYTES + len(MESSAGE) + 4
        order = [(await asyncio.wait_for(received.get(), 30))[:4] for _ in range(COUNT)]
        assert order == [f"{n:04d}" for n in range(COUNT)]
    finally:
        await close_pcs(sender_pc, receiver_pc)


async def test_a_wait_ends_when_the_call_ends() -> None:
    sender_pc, receiver_pc, channel, _ = await _connected_pair()
    try:
        ended = asyncio.Event()
        sender = ChannelSender(channel, ended, high_water_bytes=0)  # every send would wait for a drain
        ended.set()
        assert await asyncio.wait_for(sender.send("after the end"), 5)  # … but the call is over
        await close_pcs(sender_pc)
        assert not await sender.send("closed")
    finally:
        await close_pcs(sender_pc, receiver_pc)
