"""The reply track's Opus, encoded where it is cheapest.

aiortc's own path for a track that returns PCM frames costs a call far more than the audio needs: its
Opus encoder resamples every 20 ms frame to 48 kHz stereo with a PyAV resampler and runs each encode
through the event loop's thread pool (a hand-off and a wake-up per frame, 50 a second, silence
included), and its sender computes each frame's audio level sample by sample in Python.

:class:`ReplyEncoder` instead gives aiortc **encoded packets** (``av.Packet``: its sender then only
packetises them: no thread hand-off, no resampler, no audio-level pass). libopus encodes the 24 kHz mono
PCM16 directly (Opus takes 8–48 kHz input natively; the packets are stamped in the 48 kHz RTP clock).
Between replies no encoder runs: one silent packet, made once per process, is sent again. What the
client decodes is ordinary Opus (mono in the negotiated ``opus/48000/2``, which every decoder plays).

The microphone keeps PyAV's resampler (:class:`mockengine.rtc.media.InputResampler`): measured against
numpy + a streaming soxr resampler it costs the same (~20 µs a frame), so there was nothing to win.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import av
import numpy as np

RATE_HZ = 24_000
TIME_BASE = Fraction(1, RATE_HZ)
RTP_CLOCK_HZ = 48_000  # Opus's RTP clock (RFC 7587), whatever the audio's own rate
RTP_TIME_BASE = Fraction(1, RTP_CLOCK_HZ)
BIT_RATE = 32_000  # mono speech; aiortc's default is 96 kb/s stereo
FLUSH_FRAMES = 3  # silent frames still encoded after audio, so the encoder's look-ahead plays out


def _encoder() -> av.audio.codeccontext.AudioCodecContext:
    codec = av.CodecContext.create("libopus", "w")
    codec.sample_rate = RATE_HZ
    codec.format = "s16"
    codec.layout = "mono"
    codec.bit_rate = BIT_RATE
    codec.options = {"application": "voip"}
    codec.time_base = TIME_BASE
    return codec  # type: ignore[return-value]


def _frame(pcm16: bytes, pts: int) -> av.AudioFrame:
    samples = np.frombuffer(pcm16, dtype=np.int16).reshape(1, -1)
    frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
    frame.sample_rate = RATE_HZ
    frame.pts = pts
    frame.time_base = TIME_BASE
    return frame


@cache
def silent_payload(frame_samples: int) -> bytes:
    """One Opus packet of ``frame_samples`` of digital silence, as a steady encoder makes it."""
    codec = _encoder()
    silence = bytes(frame_samples * 2)
    payload = b""
    for index in range(5):  # past the first packets, which carry the encoder's start-up
        for packet in codec.encode(_frame(silence, index * frame_samples)):
            payload = bytes(packet)
    return payload


def _packet(payload: bytes, pts: int) -> av.Packet:
    """The packet stamped in the RTP clock: aiortc then uses ``pts`` as is (no Fraction arithmetic)."""
    packet = av.Packet(payload)
    packet.pts = pts * (RTP_CLOCK_HZ // RATE_HZ)
    packet.time_base = RTP_TIME_BASE
    return packet


class ReplyEncoder:
    """20 ms frames of 24 kHz mono PCM16 (``pts`` in 24 kHz samples) → Opus packets stamped in the RTP
    clock (``pts`` in 48 kHz samples, time base 1/48000)."""

    def __init__(self, frame_samples: int) -> None:
        self.frame_samples = frame_samples
        self._codec = _encoder()
        self._silence = silent_payload(frame_samples)
        self._flush_left = 0  # silent frames still to run through the encoder after audio

    @property
    def is_settled(self) -> bool:
        """No audio left in the encoder's look-ahead: what follows is the cached silent packet."""
        return self._flush_left == 0

    def encode(self, pcm16: bytes | None, pts: int) -> av.Packet:
        """``pcm16`` is one frame of audio, or None for silence."""
        if pcm16 is None:
            if self._flush_left == 0:
                return _packet(self._silence, pts)
            self._flush_left -= 1
            pcm16 = bytes(self.frame_samples * 2)
        else:
            self._flush_left = FLUSH_FRAMES
        packets = self._codec.encode(_frame(pcm16, pts))
        # libopus gives one packet per 20 ms frame; it carries the frame's timestamp on the wire
        return _packet(bytes(packets[0]) if packets else self._silence, pts)
