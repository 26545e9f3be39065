"""The client's microphone decoded where it arrives: in the event loop, without aiortc's decoder thread.

aiortc's receiver hands every encoded frame leaving its jitter buffer to a decoder thread
(``queue.Queue``), which decodes it (48 kHz stereo) and posts the frame back to the event loop
(``run_coroutine_threadsafe`` for each frame: a self-pipe write and a loop wake-up), where the track's
reader takes it from an ``asyncio.Queue``, resamples it and feeds the session. For Opus audio at 50
frames a second per call that hand-off costs more than the decoding itself (a py-spy profile of the
engine: ~4 % of its busy time in the queue hand-off alone, besides the thread switches).

:class:`InlineDecoder` stands in for that queue on the engine's receiver: ``put`` decodes the frame
at once, straight to 24 kHz PCM16 mono with libopus (:mod:`mockengine.rtc.libopus`; where it cannot
be loaded, PyAV's decoder in mono and its resampler), and calls the session's sink, in the loop that
received the packet. The receiver's thread still starts (it
is aiortc's); it blocks in ``get`` until the receiver stops, then ends the track as usual. Codecs other
than Opus (an offer with only PCMU / PCMA) go through aiortc's own decoder, inline as well. The
receiver's jitter buffer releases each frame when the next one arrives, not four frames later
(aiortc's ``prefetch=4`` for audio adds 80 ms before the VAD hears the user).

Time the client sent no audio for is silence (:class:`_GapFiller`): a sender using Opus DTX (a page
whose answer SDP asks ``usedtx=1``) sends one packet per 400 ms while the user is quiet, and a lost
packet is 20 ms that never comes. Decoded as they came, those gaps vanished from the session's input,
so its VAD heard a 20th of the silence there was: the end of a turn with ``silence_duration_ms`` 500
was detected ~2.6 s late (semantic_vad ~2.2 s; measured with chromium), and ``audio_start_ms`` ran on a
clock that skipped the quiet. A receiver plays the gap out as silence (comfort noise, concealment);
the engine appends it as silence when the next frame shows, from the RTP timestamps, whichever decoder
runs (libopus, or PyAV's fallback: it filled no gap before).

A sender that stops sending altogether leaves no next frame to show the gap: a push-to-talk page that
calls ``RTCRtpSender.replaceTrack(null)`` when its button is released, a muted or ended track. The user
is quiet, and the real service ends the turn ``silence_duration_ms`` later; the engine heard nothing
and the turn stayed open until the next press (measured with chromium: ``speech_stopped`` came only
then). :class:`_QuietTimer` hands on that silence in real time once no frame has come for 100 ms, and the
RTP gap before the next frame owes only what it did not already hand on.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

import av
from aiortc import RTCRtpReceiver
from aiortc.codecs import get_decoder
from aiortc.jitterbuffer import JitterBuffer

from mockengine.rtc.libopus import OpusError, opus_decoder
from mockengine.rtc.media import InputResampler
from mockengine.rtc.rtp_inline import drop_rtp_inline, receive_rtp_inline

log = logging.getLogger("mockengine.webrtc")
_QUEUE_ATTRIBUTE = "_RTCRtpReceiver__decoder_queue"  # aiortc 1.x's private decoder queue
_JITTER_ATTRIBUTE = "_RTCRtpReceiver__jitter_buffer"
OPUS_CLOCK_HZ = 48_000  # RTP clock of Opus whatever its sampling rate (RFC 7587)
OUT_RATE_HZ = 24_000
# A longer jump in the timestamps is a new timeline (a sender that restarted, a replaced track), not
# silence to play: it is not filled. Opus DTX's gaps are 400 ms, loss bursts shorter.
MAX_FILLED_GAP_S = 2.0
# No frame for this long: the sender has stopped (or is in a DTX gap) and the quiet timer hands on the
# silence since the last frame. Longer than the jitter a frame may arrive late by (a frame that comes
# after the timer filled its time is appended after that silence: the input's clock slips by as much).
QUIET_AFTER_S = 0.1
QUIET_EVERY_S = 0.05  # then silence every 50 ms: the VAD hears the quiet within a tick of real time
FRAME_SAMPLES = OUT_RATE_HZ // 50  # 20 ms: the quiet timer hands on whole frames


class _GapFiller:
    """Silence for the RTP time between one Opus frame and the next that no frame covered."""

    def __init__(self) -> None:
        self._next_timestamp: int | None = None  # where the frame after the last one would start

    def samples_before(self, timestamp: int, duration: int) -> int:
        """The 24 kHz samples of silence owed before the frame at RTP ``timestamp`` that lasts
        ``duration`` (both in the 48 kHz RTP clock); 0 when it follows on (or came late, out of order)."""
        expected = self._next_timestamp
        end = (timestamp + duration) % 2**32
        if expected is None:
            self._next_timestamp = end
            return 0
        gap = (timestamp - expected) % 2**32  # modulo: the timestamps wrap
        if gap >= 2**31:  # came late (reordered): the timeline does not go back
            if 0 < (end - expected) % 2**32 < 2**31:
                self._next_timestamp = end
            return 0
        self._next_timestamp = end
        if gap == 0 or gap > MAX_FILLED_GAP_S * OPUS_CLOCK_HZ:  # on time, or a new timeline
            return 0
        return gap * OUT_RATE_HZ // OPUS_CLOCK_HZ


class _QuietTimer:
    """Silence in real time while no frame arrives: a sender that stopped sending (a push-to-talk page's
    ``replaceTrack(null)``, a muted or ended track, a network that went quiet) is a user who is quiet.

    Armed by the first frame. Once no frame has come for ``QUIET_AFTER_S`` it hands on the silence
    since the last frame, then every ``QUIET_EVERY_S`` the silence since; it counts what it handed on,
    which the RTP gap before the next frame (:class:`_GapFiller`) then no longer owes. One timer per
    call, moved on by the frames (not re-armed per frame): ~10 wake-ups a second while audio flows."""

    def __init__(self, sink: Callable[[bytes], None], loop: asyncio.AbstractEventLoop) -> None:
        self._sink = sink
        self._loop = loop
        self._covered_s = loop.time()  # the audio handed on so far reaches this loop time
        self.filled_samples = 0  # silence handed on since the last frame (24 kHz samples)
        self._handle: asyncio.TimerHandle | None = loop.call_at(self._covered_s + QUIET_AFTER_S, self._tick)

    def frame_arrived(self) -> int:
        """A frame came now: the silence already handed on since the previous one (24 kHz samples)."""
        self._covered_s = self._loop.time()
        filled, self.filled_samples = self.filled_samples, 0
        return filled

    def _tick(self) -> None:
        now = self._loop.time()
        quiet_s = now - self._covered_s
        if quiet_s < QUIET_AFTER_S:  # a frame came since: look again when this one is old enough
            self._handle = self._loop.call_at(self._covered_s + QUIET_AFTER_S, self._tick)
            return
        frames = int(quiet_s * OUT_RATE_HZ) // FRAME_SAMPLES
        if frames:
            samples = frames * FRAME_SAMPLES
            self._covered_s += samples / OUT_RATE_HZ
            self.filled_samples += samples
            self._sink(bytes(samples * 2))
        self._handle = self._loop.call_at(now + QUIET_EVERY_S, self._tick)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class InlineDecoder:
    """A receiver's decoder queue that decodes on ``put`` (see the module docstring).

    ``native``: libopus at 24 kHz (:mod:`mockengine.rtc.libopus`); False, or where it cannot be loaded,
    PyAV's decoder at 48 kHz and its resampler. Both fill the RTP time no frame covered and, when made
    in a running event loop, the wall time no frame arrives in (:class:`_QuietTimer`)."""

    def __init__(self, on_pcm16: Callable[[bytes], None], *, native: bool = True) -> None:
        self.on_pcm16 = on_pcm16
        self._native = opus_decoder() if native else None  # libopus at 24 kHz: no resampler
        self._opus = av.CodecContext.create("libopus", "r")
        self._opus.format = "s16"  # type: ignore[attr-defined]
        self._opus.layout = "mono"  # type: ignore[attr-defined]
        self._opus.sample_rate = 48_000  # type: ignore[attr-defined]
        self._other: Any = None  # aiortc's decoder, for a call without Opus
        self._codec: Any = None
        self._codec_is_opus = False
        self._resampler = InputResampler()
        self._gaps = _GapFiller()
        self._quiet: _QuietTimer | None = None
        self._dropping = False
        self._stopped = threading.Event()

    def drop_frames(self) -> None:
        """Frames arriving from now on are lost, as on a network that died (fault ``media_stall``): none
        is decoded, so the quiet timer hands on silence in their place, as for a sender that stopped."""
        self._dropping = True

    def put(self, task: tuple[Any, Any] | None) -> None:
        if task is None:  # the receiver stops
            if self._quiet is not None:
                self._quiet.cancel()
            self._stopped.set()
            return
        if self._dropping:
            return
        codec, encoded_frame = task
        try:
            if self._is_opus(codec):
                pcm16, duration = self._decode_opus(encoded_frame.data)
                owed = self._gaps.samples_before(encoded_frame.timestamp, duration)
            else:
                pcm16, owed = self._decode_other(codec, encoded_frame.data), 0
        except (av.FFmpegError, OpusError) as exc:
            log.warning("undecodable %s frame from the client: %s", codec.name, exc)
            return
        owed -= self._quiet_filled()
        if owed > 0:
            self.on_pcm16(bytes(owed * 2))
        if pcm16:
            self.on_pcm16(pcm16)

    def _quiet_filled(self) -> int:
        """The frame arrived: the silence the quiet timer handed on since the previous one (starting
        the timer at the first frame, where an event loop runs)."""
        if self._quiet is not None:
            return self._quiet.frame_arrived()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # decoded outside a loop (a unit test): RTP gaps only
            return 0
        self._quiet = _QuietTimer(self.on_pcm16, loop)
        return 0

    def _decode_opus(self, data: bytes) -> tuple[bytes, int]:
        """One Opus frame → (PCM16 24 kHz mono, its duration in the 48 kHz RTP clock)."""
        if self._native is not None:
            pcm16 = self._native.decode(data)
            return pcm16, len(pcm16) // 2 * OPUS_CLOCK_HZ // OUT_RATE_HZ
        frames = list(self._opus.decode(av.Packet(data)))  # 48 kHz: the RTP clock
        pcm16 = b"".join(self._resampler.convert(frame) for frame in frames)
        return pcm16, sum(frame.samples for frame in frames)

    def _decode_other(self, codec: Any, data: bytes) -> bytes:
        if self._other is None:
            self._other = get_decoder(codec)
        return b"".join(self._resampler.convert(frame) for frame in self._other.decode(_Frame(data)))

    def _is_opus(self, codec: Any) -> bool:
        if codec is not self._codec:  # (aiortc's ``codec.name`` splits the MIME type on every call)
            self._codec, self._codec_is_opus = codec, codec.name.lower() == "opus"
        return self._codec_is_opus

    def get(self, *_args: Any, **_kwargs: Any) -> None:
        """What aiortc's decoder thread reads: nothing until the receiver stops."""
        self._stopped.wait()


class _Frame:
    """The part of aiortc's ``JitterFrame`` its audio decoders read."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.timestamp = 0


def decode_inline(receiver: RTCRtpReceiver, on_pcm16: Callable[[bytes], None]) -> InlineDecoder:
    """Make ``receiver`` deliver its audio to ``on_pcm16`` as PCM16 24 kHz mono, decoded in the event
    loop. Call before the receiver starts (from the peer connection's ``track`` event). Returns the
    decoder (``drop_frames`` for the media-stall fault)."""
    if not hasattr(receiver, _QUEUE_ATTRIBUTE):
        raise RuntimeError("this aiortc version keeps its decoder queue elsewhere")
    decoder = InlineDecoder(on_pcm16)
    setattr(receiver, _QUEUE_ATTRIBUTE, decoder)
    # aiortc holds 4 audio frames back before releasing one (prefetch=4: 80 ms more before the VAD
    # hears the user); a frame is released once the next one arrives, which reorders what loopback or
    # a LAN can swap.
    setattr(receiver, _JITTER_ATTRIBUTE, JitterBuffer(capacity=16, prefetch=0))
    receive_rtp_inline(receiver)
    return decoder


class _Discard:
    """A decoder queue that drops every frame: for a load driver that never listens to the replies."""

    def __init__(self) -> None:
        self._stopped = threading.Event()

    def put(self, task: Any) -> None:
        if task is None:
            self._stopped.set()

    def get(self, *_args: Any, **_kwargs: Any) -> None:
        self._stopped.wait()


def discard_inbound(receiver: RTCRtpReceiver) -> None:
    """Make ``receiver`` drop its media where it arrives, before SRTP (counted in the transport's
    statistics; RTCP, DTLS and SCTP still run). Call before it starts."""
    if not hasattr(receiver, _QUEUE_ATTRIBUTE):
        raise RuntimeError("this aiortc version keeps its decoder queue elsewhere")
    setattr(receiver, _QUEUE_ATTRIBUTE, _Discard())
    drop_rtp_inline(receiver)
