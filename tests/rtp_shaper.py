"""An aiortc call whose microphone packets the test writes itself: Opus at any frame size (10, 20,
60 ms), mono or stereo, optional DTX, and a network that reorders, loses, holds back or delivers
them late, or a sender clock that drifts. aiortc's own sender runs (it sets up SSRC, header
extensions, RTCP) but its RTP packets are dropped before SRTP; the shaped ones take their place,
protected by the same DTLS transport."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import av
import numpy as np
from aiortc.rtcdtlstransport import RTCDtlsTransport
from aiortc.rtp import RtpPacket, is_rtcp

from tests.webrtc_client import CallClient

Network = Callable[[int, float], list[float]]  # (packet index, send time s) -> delays (s); [] = lost


def straight(_index: int, _at: float) -> list[float]:
    return [0.0]


class ShapedCall(CallClient):
    """``play(pcm16_24k)``: send it (then silence up to ``tail_s``) as shaped RTP."""

    _shaped: dict[int, ShapedCall] = {}
    _original: Any = None

    def __init__(
        self,
        *,
        frame_ms: int = 20,
        stereo: bool = False,
        dtx: bool = False,
        drift: float = 1.0,
        network: Network = straight,
    ) -> None:
        super().__init__()
        self.frame_ms, self.stereo, self.dtx, self.drift, self.network = frame_ms, stereo, dtx, drift, network
        self.template: RtpPacket | None = None
        self.ready = asyncio.Event()
        self.dtls: RTCDtlsTransport | None = None
        self.sent: list[tuple[int, float]] = []  # (index, loop time handed to the network)
        self.delivered = 0

    @classmethod
    def install(cls) -> None:
        if cls._original is not None:
            return
        cls._original = RTCDtlsTransport._send_rtp

        async def _send_rtp(transport: RTCDtlsTransport, data: bytes) -> None:
            call = cls._shaped.get(id(transport))
            if call is None or is_rtcp(data):
                return await cls._original(transport, data)
            if call.template is None:
                call.template = RtpPacket.parse(data, transport._rtp_header_extensions_map)
                call.ready.set()
            return None  # aiortc's own packet: the shaped ones stand in

        RTCDtlsTransport._send_rtp = _send_rtp  # type: ignore[method-assign]

    @classmethod
    def uninstall(cls) -> None:
        if cls._original is not None:
            RTCDtlsTransport._send_rtp = cls._original  # type: ignore[method-assign]
            cls._original = None
        cls._shaped.clear()

    async def offer(self) -> str:
        sdp = await super().offer()
        self.dtls = self.pc.getTransceivers()[0].sender.transport
        ShapedCall._shaped[id(self.dtls)] = self
        return sdp

    def _encoder(self) -> Any:
        codec = av.CodecContext.create("libopus", "w")
        codec.sample_rate, codec.format = 48_000, "s16"
        codec.layout = "stereo" if self.stereo else "mono"
        codec.options = {"frame_duration": str(self.frame_ms), "application": "voip"}
        codec.time_base = Fraction(1, 48_000)
        codec.open()
        return codec

    async def play(self, pcm16_24k: bytes, *, lead_s: float = 0.5, tail_s: float = 2.0) -> float:
        """Send ``lead_s`` of silence, the speech, ``tail_s`` of silence, in real time (times ``drift``).
        Returns the loop time the speech's first sample was captured at."""
        await asyncio.wait_for(self.ready.wait(), 10)
        assert self.template is not None and self.dtls is not None
        loop = asyncio.get_running_loop()
        mono = np.frombuffer(pcm16_24k, dtype="<i2")
        silence = np.zeros(int(24_000 * lead_s), dtype="<i2")
        tail = np.zeros(int(24_000 * tail_s), dtype="<i2")
        audio48 = np.repeat(np.concatenate([silence, mono, tail]), 2)
        n = 48 * self.frame_ms
        encoder = self._encoder()
        seq, ts0, ssrc = self.template.sequence_number, self.template.timestamp, self.template.ssrc
        start = loop.time()
        pending: list[asyncio.Task[None]] = []
        dtx_since = 0
        for k in range(len(audio48) // n):
            chunk = audio48[k * n : (k + 1) * n]
            due = start + (k + 1) * n / 48_000 * self.drift
            if (wait := due - loop.time()) > 0:
                await asyncio.sleep(wait)
            samples = np.repeat(chunk, 2) if self.stereo else chunk
            frame = av.AudioFrame.from_ndarray(
                samples.reshape(1, -1), format="s16", layout="stereo" if self.stereo else "mono"
            )
            frame.sample_rate, frame.pts, frame.time_base = 48_000, k * n, Fraction(1, 48_000)
            for encoded in encoder.encode(frame):
                payload = bytes(encoded)
                quiet = int(np.abs(chunk).max()) < 50
                if self.dtx and quiet and dtx_since < 400 // self.frame_ms - 1:
                    dtx_since += 1  # DTX: one packet per 400 ms while quiet
                    continue
                dtx_since = 0
                seq = (seq + 1) % 65536
                packet = RtpPacket(
                    payload_type=self.template.payload_type,
                    sequence_number=seq,
                    timestamp=(ts0 + k * n) % 2**32,
                    ssrc=ssrc,
                    payload=payload,
                )
                packet.extensions = self.template.extensions
                data = packet.serialize(self.dtls._rtp_header_extensions_map)
                index = len(self.sent)
                self.sent.append((index, loop.time()))
                for delay in self.network(index, loop.time() - start):
                    pending.append(asyncio.ensure_future(self._deliver(data, delay)))
        await asyncio.gather(*pending)
        return start + lead_s

    async def _deliver(self, data: bytes, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        assert self.dtls is not None
        await ShapedCall._original(self.dtls, data)
        self.delivered += 1

    async def close(self) -> None:
        if self.dtls is not None:
            ShapedCall._shaped.pop(id(self.dtls), None)
        await super().close()
