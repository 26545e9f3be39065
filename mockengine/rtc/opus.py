"""The reply track's Opus, encoded where it is cheapest.

aiortc's own path for a track that returns PCM frames costs a call far more than the audio needs: its
Opus encoder resamples every 20 ms frame to 48 kHz stereo with a PyAV resampler and runs each encode
through the event loop's thread pool (a hand-off and a wake-up per frame, 50 a second, silence
included), and its sender computes each frame's audio level sample by sample in Python.

:class:`ReplyEncoder` instead gives aiortc **encoded packets** (``av.Packet``: its sender then only
packetises them: no thread hand-off, no resampler, no audio-level pass). libopus encodes the 24 kHz mono
PCM16 directly (Opus takes 8–48 kHz input natively; the packets are stamped in the 48 kHz RTP clock),
through ctypes (:class:`mockengine.rtc.libopus.OpusEncoder`: PyAV's bytes, cheaper), or PyAV's encoder
where no libopus loads or its encoder is not usable (an older library that refuses a setting).
Between replies no encoder runs: one silent packet, made once per process, is sent again; reply audio
another call already played goes out as the packets encoded then (:mod:`mockengine.rtc.packet_cache`).
What the client decodes is ordinary Opus (mono in the negotiated ``opus/48000/2``, which every decoder plays).

The microphone keeps PyAV's resampler (:class:`mockengine.rtc.media.InputResampler`): measured against
numpy + a streaming soxr resampler it costs the same (~20 µs a frame), so there was nothing to win.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import av
import numpy as np

from mockengine.rtc.libopus import OpusEncoder, opus_encoder
from mockengine.rtc.packet_cache import REPLY_PACKETS, ROOT, PacketCache, chain

RATE_HZ = 24_000
TIME_BASE = Fraction(1, RATE_HZ)
RTP_CLOCK_HZ = 48_000  # Opus's RTP clock (RFC 7587), whatever the audio's own rate
RTP_TIME_BASE = Fraction(1, RTP_CLOCK_HZ)
BIT_RATE = 32_000  # mono speech; aiortc's default is 96 kb/s stereo
FLUSH_FRAMES = 3  # silent frames still encoded after audio, so the encoder's look-ahead plays out
REPLAY_MAX_FRAMES = 50  # cached frames (1 s) an encoder may catch up on at a miss


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


def rtp_packet(payload: bytes, rtp_pts: int) -> av.Packet:
    """The packet stamped in the RTP clock (``rtp_pts`` in 48 kHz samples): aiortc then uses ``pts`` as
    is (no Fraction arithmetic)."""
    packet = av.Packet(payload)
    packet.pts = rtp_pts
    packet.time_base = RTP_TIME_BASE
    return packet


class ReplyEncoder:
    """20 ms frames of 24 kHz mono PCM16 (``pts`` in 24 kHz samples) → Opus packets stamped in the RTP
    clock (``pts`` in 48 kHz samples, time base 1/48000).

    Each stretch of audio (from the first audio after settled silence until the encoder has played out
    its look-ahead, or :meth:`cut`) starts from a fresh encoder, and its packets come from ``cache``
    (:mod:`mockengine.rtc.packet_cache`) when another call already played the same stretch. The frames
    served from the cache are kept; at the first miss they are run through this call's encoder first
    (their packets discarded), so what it encodes next is what it would have encoded anyway. After a
    long run of hits (over ``REPLAY_MAX_FRAMES``) that catch-up would stall the event loop, so the
    miss starts a new stretch there instead (a fresh encoder mid-reply: the decoder's state from the
    previous packet carries over, as after a lost packet).
    """

    def __init__(
        self, frame_samples: int, cache: PacketCache | None = REPLY_PACKETS, *, native: bool = True
    ) -> None:
        self.frame_samples = frame_samples
        self._cache = cache
        self._codec: av.audio.codeccontext.AudioCodecContext | None = None
        self._native: OpusEncoder | None = None  # made at the first encode (a silent call needs none)
        self._native_wanted = native
        self._native_fresh = True  # its state is a freshly created encoder's
        self._silence = silent_payload(frame_samples)
        self._flush_left = 0  # silent frames still to run through the encoder after audio
        self._key = ROOT
        # Frames served from the cache, not yet encoded here (None: more than REPLAY_MAX_FRAMES of them).
        self._behind: list[tuple[bytes, int]] | None = []

    @property
    def is_settled(self) -> bool:
        """No audio left in the encoder's look-ahead: what follows is the cached silent packet."""
        return self._flush_left == 0

    def cut(self) -> None:
        """The audio stops here (barge-in, a cleared buffer): silence follows at once, with no flush of
        the encoder's look-ahead (a few ms of audio that is being cut off anyway)."""
        self._flush_left = 0
        self._behind = []

    def close(self) -> None:
        """Free the encoders now (the track stopped); a later frame would start from a new one."""
        if self._native is not None:
            self._native.close()
        self._native, self._native_fresh, self._codec = None, True, None
        self._flush_left = 0

    def encode(self, pcm16: bytes | None, pts: int) -> av.Packet:
        """``pcm16`` is one frame of audio, or None for silence: the packet, for aiortc's sender."""
        return rtp_packet(self.payload(pcm16, pts), pts * (RTP_CLOCK_HZ // RATE_HZ))

    def payload(self, pcm16: bytes | None, pts: int) -> bytes:
        """``pcm16`` is one frame of audio, or None for silence: the Opus payload (RTP's, as is)."""
        if pcm16 is None:
            if self._flush_left == 0:
                return self._silence
            self._flush_left -= 1
            payload = self._payload(bytes(self.frame_samples * 2), pts)
            if self._flush_left == 0:
                # The stretch is over (the next audio starts a new one): nothing of it is kept for the
                # silence between replies, which may last the rest of the call.
                self._behind = []
            return payload
        if self._flush_left == 0:
            self._start_stretch()
        self._flush_left = FLUSH_FRAMES
        return self._payload(pcm16, pts)

    def _start_stretch(self) -> None:
        self._codec, self._key, self._behind = None, ROOT, []
        if self._native is not None and not self._native_fresh:
            self._native.reset()
            self._native_fresh = True

    def _payload(self, pcm16: bytes, pts: int) -> bytes:
        if self._cache is None:
            return self._encode(pcm16, pts)
        key = chain(self._key, pcm16)
        cached = self._cache.get(key)
        if cached is not None:
            self._key = key
            if self._behind is not None:
                self._behind.append((pcm16, pts))
                if len(self._behind) > REPLAY_MAX_FRAMES:
                    # Too far behind to catch up: the next miss starts a new stretch instead, so these
                    # frames are not needed (a long cached reply would otherwise keep all of its audio).
                    self._behind = None
            return cached
        behind = self._behind
        if behind is None:
            self._start_stretch()
            key, behind = chain(ROOT, pcm16), []
        for frame, frame_pts in behind:  # catch up: the encoder's state as if it had run
            self._encode(frame, frame_pts)
        self._behind = []
        self._key = key
        payload = self._encode(pcm16, pts)
        self._cache.put(key, payload)
        return payload

    def _encode(self, pcm16: bytes, pts: int) -> bytes:
        if self._native is None and self._native_wanted:
            self._native = opus_encoder()
            self._native_wanted = self._native is not None
        if self._native is not None:
            self._native_fresh = False
            return self._native.encode(pcm16)
        if self._codec is None:
            self._codec = _encoder()
        packets = self._codec.encode(_frame(pcm16, pts))
        # libopus gives one packet per 20 ms frame; it carries the frame's timestamp on the wire
        return bytes(packets[0]) if packets else self._silence
