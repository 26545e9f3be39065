"""The reply track sent by the shared pacer (mockengine.rtc.rtp_send): over a real aiortc call on
loopback, the client gets the track's Opus packets in RTP exactly as aiortc's own sender would frame
them, and the pacer takes over only where aiortc is laid out as it expects."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import numpy as np
from aiortc import RTCPeerConnection, RTCRtpSender
from aiortc.rtp import RtpPacket

from mockengine.rtc.ice import include_loopback, offline_configuration
from mockengine.rtc.media import ReplyTrack
from mockengine.rtc.rtp_send import SharedPacer, send_on_shared_grid
from tests.webrtc_client import close_pcs


def sine(ms: int) -> bytes:
    return (np.sin(np.arange(24 * ms) * 2 * np.pi * 440 / 24_000) * 8000).astype("<i2").tobytes()


async def call(track: ReplyTrack, *, shared: bool) -> tuple[list[RtpPacket], dict[str, Any]]:
    """Connect a client to an "engine" peer that sends ``track``; the RTP packets the client received
    in about 0.5 s, and what the engine's sender looked like meanwhile."""
    client, engine = RTCPeerConnection(offline_configuration()), RTCPeerConnection(offline_configuration())
    received: list[RtpPacket] = []
    receiver = client.addTransceiver("audio", direction="recvonly").receiver
    handle = receiver._handle_rtp_packet

    async def record(packet: RtpPacket, arrival_time_ms: int) -> None:
        received.append(packet)
        await handle(packet, arrival_time_ms)

    receiver._handle_rtp_packet = record  # type: ignore[method-assign]
    try:
        include_loopback(client)
        await client.setLocalDescription(await client.createOffer())
        await engine.setRemoteDescription(client.localDescription)
        sender = engine.addTrack(track)
        if shared:
            assert send_on_shared_grid(sender, track)
        include_loopback(engine)
        await engine.setLocalDescription(await engine.createAnswer())
        await client.setRemoteDescription(engine.localDescription)
        async with asyncio.timeout(10):
            while len(received) < 25:
                await asyncio.sleep(0.02)
        pacer = SharedPacer._by_loop.get(asyncio.get_running_loop())
        streams = list(pacer._streams) if pacer else []
        seen = {
            "streams": len(streams),
            "headers_as_aiortc": [header_as_aiortc(stream, sender) for stream in streams],
            "packet_count": sender._RTCRtpSender__packet_count,  # type: ignore[attr-defined]
            # at the same moment: packets go on arriving until the peers close
            "received_then": len(received),
            "mid": sender._RTCRtpSender__mid,  # type: ignore[attr-defined]
            "ssrc": sender._ssrc,
        }
    finally:
        await close_pcs(engine, client)
    seen["pacer_after_close"] = SharedPacer._by_loop.get(asyncio.get_running_loop())
    return received, seen


def header_as_aiortc(stream: Any, sender: RTCRtpSender) -> bool:
    """The pacer's header for a few sequence numbers and timestamps against ``RtpPacket.serialize``
    with the sender's own header extensions (what aiortc's ``_run_rtp`` sends)."""
    extensions = sender._RTCRtpSender__rtp_header_extensions_map  # type: ignore[attr-defined]
    payload_type = stream._first_bytes[1] & 0x7F
    for sequence_number, timestamp in [(0, 0), (65535, 4294967295), (12345, 987654321)]:
        packet = RtpPacket(payload_type, 1, sequence_number, timestamp, sender._ssrc)
        packet.extensions.mid = sender._RTCRtpSender__mid  # type: ignore[attr-defined]
        packet.payload = b"\xfc\x01\x02"
        if stream.header(sequence_number, timestamp) + packet.payload != packet.serialize(extensions):
            return False
    return True


def expected_payloads(count: int) -> list[bytes]:
    """What a fresh track with the same reply hands out, frame by frame (libopus is deterministic)."""
    track = ReplyTrack(lambda _: None, lambda _: None)
    track.enqueue("resp_1", "item_1", sine(200))
    return [track.pull()[0] for _ in range(count)]  # type: ignore[index]


def test_the_client_gets_the_tracks_packets_framed_as_aiortc_frames_them():
    track = ReplyTrack(lambda _: None, lambda _: None)
    track.enqueue("resp_1", "item_1", sine(200))
    received, seen = asyncio.run(call(track, shared=True))
    assert seen["streams"] == 1  # sent by the pacer, not aiortc's loop
    assert seen["headers_as_aiortc"] == [True]
    assert seen["pacer_after_close"] is None and track.readyState == "ended"
    assert seen["packet_count"] >= seen["received_then"]  # what its RTCP sender reports count
    first = received[0]
    assert all(p.ssrc == seen["ssrc"] and p.payload_type == first.payload_type for p in received)
    assert all(p.marker == 1 and p.extensions.mid == seen["mid"] for p in received)
    assert [p.sequence_number for p in received] == [
        (first.sequence_number + i) & 0xFFFF for i in range(len(received))
    ]
    assert [p.timestamp for p in received] == [
        (first.timestamp + 960 * i) & 0xFFFFFFFF for i in range(len(received))
    ]
    assert [p.payload for p in received] == expected_payloads(len(received))


def test_where_aiortc_is_laid_out_otherwise_its_own_loop_sends_the_track():
    track = ReplyTrack(lambda _: None, lambda _: None)
    assert send_on_shared_grid(SimpleNamespace(transport=None), track) is False  # type: ignore[arg-type]
    assert RTCRtpSender._run_rtp is not None  # the class's loop is untouched either way

    track.enqueue("resp_1", "item_1", sine(200))
    received, seen = asyncio.run(call(track, shared=False))
    assert seen["streams"] == 0 and len(received) >= 25  # aiortc's loop pulled it through recv()
    assert [p.payload for p in received] == expected_payloads(len(received))
