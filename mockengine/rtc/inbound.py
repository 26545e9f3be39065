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
receiver's jitter buffer (:class:`_MicrophoneBuffer`) releases each packet as soon as it is the next in
order (aiortc's releases an audio frame four frames later, ``prefetch=4``: 80 ms more before the VAD
hears the user; without the prefetch, one frame later).

Time the client sent no audio for is silence (:class:`_GapFiller`): a sender using Opus DTX (a page
whose answer SDP asks ``usedtx=1``) sends one packet per 400 ms while the user is quiet, and a lost
packet is 20 ms that never comes. Decoded as they came, those gaps vanished from the session's input,
so its VAD heard a 20th of the silence there was: the end of a turn with ``silence_duration_ms`` 500
was detected ~2.6 s late (semantic_vad ~2.2 s; measured with chromium), and ``audio_start_ms`` ran on a
clock that skipped the quiet. A receiver plays the gap out as silence (comfort noise, concealment);
the engine appends it as silence when the next frame shows, from the RTP timestamps, whichever decoder
runs (libopus, or PyAV's fallback: it filled no gap before).
A gap of lost packets (sequence numbers missing, up to 120 ms) is concealed instead, as NetEq does: libopus's
packet loss concealment, and the last lost frame recovered from the next packet's in-band FEC where it
carries one (``_conceal``; PyAV's fallback keeps the silence).

A sender that stops sending altogether leaves no next frame to show the gap: a push-to-talk page that
calls ``RTCRtpSender.replaceTrack(null)`` when its button is released, a muted or ended track. The user
is quiet, and the real service ends the turn ``silence_duration_ms`` later; the engine heard nothing
and the turn stayed open until the next press (measured with chromium: ``speech_stopped`` came only
then). :class:`_QuietTimer` hands on that silence in real time once no packet has come for 100 ms, and
the RTP gap before the next frame owes only what it did not already hand on. Before that silence it
decodes what the jitter buffer still holds (packets waiting behind a lost one). The last frame before
the sender stopped used to wait there for a next packet that never came (aiortc's buffer releases a
frame once a packet of the next one arrives): the turn lost its last 20 ms, and got the quiet timer's
silence in their place.

The 100 ms is a clean link's wait. On a link (or a loaded media plane: a starved sidecar or load
driver) that delivered packets late lately, a packet held back 150-250 ms while speech flowed was taken
for a sender that stopped: silence went inside the speech, every turn's bytes differed from the clip
(the transcript cache, exact bytes, missed, and whisper ran for each: a 100-call level on a saturated
machine tipped into overload). A real receiver (NetEq) sets its delay from the jitter it observes; so
does the quiet timer's wait (``_QuietTimer._measure``). A packet's transit is its arrival time less its
RTP time (48 kHz Opus clock), from an arbitrary origin. Packets held back and delivered at once come in
with transits falling from the first (the most late) to the one that caught up: a packet's lateness is
the recent highest transit (a high-water mark that sinks ``TRANSIT_SINK``, 0.2 s per s) less its own.
Measured against the packets after the late ones, not a baseline from before them: a sender that
resumes after a pause, its timestamps where it stopped (chromium's), raises the transit for good and
nothing after it catches up, so it is not late; a sender's clock drift moves the transit far slower
than the mark sinks. The highest lateness is held while packets keep coming over 50 ms late and
``LATE_HOLD_S`` (2 s) after the last, then forgotten at ``LATE_DECAY`` (0.1 s per s). The wait is that
lateness plus ``LATE_MARGIN_S`` (50 ms: the held-back packet was due a frame after the last one, and
30 ms to spare), at least ``QUIET_AFTER_S``, at most ``QUIET_AFTER_MAX_S`` (400 ms), plus what the
frames last beyond 20 ms. So a clean link (lateness under 50 ms) waits 100 ms, and a push-to-talk
release ends its turn as fast as before; after a 250 ms burst the wait is 300 ms, back to 100 ms ~5 s
after it; a release on a jittery link is heard as quiet at most 300 ms later (its
silence is the same, only later). Once quiet is conceded, the silence since is handed on as on a clean
link (the wait is for late packets, not for quiet). Cost per packet: a dozen float operations, no
allocation kept. Codecs other than Opus are not measured (their wait stays 100 ms).

Frames that come after the quiet timer handed on silence for their time (a link that held the packets
back for longer than the quiet timer waits, then delivered them at once) put the input ahead of the
wall clock by as much, and it stayed ahead for good. They are kept (they may be speech), and the lead
they made (:class:`_Backlog`) is taken from the next quiet: silence and quiet frames are cut until the
input is back on the wall clock (as a receiver's jitter buffer plays out faster after a delay spike).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

import av
import numpy as np
from aiortc import RTCRtpReceiver
from aiortc.codecs import get_decoder
from aiortc.jitterbuffer import JitterBuffer, JitterFrame
from aiortc.rtp import RtpPacket

from mockengine.rtc.libopus import OpusError, opus_decoder
from mockengine.rtc.media import InputResampler
from mockengine.rtc.rtp_inline import drop_rtp_inline, receive_rtp_inline
from mockengine.rtc.stamp_clock import CLOCK_RESOLUTION_S

log = logging.getLogger("mockengine.webrtc")
_QUEUE_ATTRIBUTE = "_RTCRtpReceiver__decoder_queue"  # aiortc 1.x's private decoder queue
_JITTER_ATTRIBUTE = "_RTCRtpReceiver__jitter_buffer"
_CODECS_ATTRIBUTE = "_RTCRtpReceiver__codecs"
OPUS_CLOCK_HZ = 48_000  # RTP clock of Opus whatever its sampling rate (RFC 7587)
OUT_RATE_HZ = 24_000
# A longer jump in the timestamps is a new timeline (a sender that restarted, a replaced track), not
# silence to play: it is not filled. Opus DTX's gaps are 400 ms, loss bursts shorter.
MAX_FILLED_GAP_S = 2.0
# No packet for this long after the last one is due (20 ms frames: 100 ms after the last packet): the
# sender has stopped (or is in a DTX gap) and the quiet timer hands on what the jitter buffer holds,
# then the silence since the last packet. A clean link's wait: longer than the jitter a packet arrives
# late by on a working link; a jittery link's is longer (below); frames later than the wait: _Backlog.
# A sender of longer frames (``ptime`` 60: a packet every 60 ms) is waited for as much longer: with
# 100 ms flat, a 60 ms frame 40 ms late was silence.
QUIET_AFTER_S = 0.1
# On a link (or a loaded media plane) that delivered packets late lately, the quiet timer waits for the
# lateness it saw plus LATE_MARGIN_S (a frame's 20 ms and 30 ms to spare) before it concedes quiet, as
# NetEq's target delay follows the jitter it observes, up to QUIET_AFTER_MAX_S (plus the frames' extra):
# stalls of up to ~350 ms are waited out (the 150-250 ms bursts of a saturated machine, with headroom),
# and a push-to-talk release on such a link ends its turn at most 300 ms later than on a clean one
# (against a ``silence_duration_ms`` of 500). A longer stall is quiet, and its frames a backlog.
QUIET_AFTER_MAX_S = 0.4
LATE_MARGIN_S = 0.05
# How late packets came is held while packets keep coming late (by over 50 ms: what raises the wait)
# and LATE_HOLD_S after the last, then forgotten at LATE_DECAY (seconds of lateness per second of
# arrivals): 250 ms of lateness (a 300 ms wait) is back to the 100 ms wait ~5 s after the last burst.
LATE_HOLD_S = 2.0
LATE_DECAY = 0.1
# The high-water mark of the packets' transit (arrival less RTP time) sinks this fast (s per s): slow
# beside a burst's catch-up (a held-back burst delivered over 100 ms, not at once, is measured 20 ms
# short, within LATE_MARGIN_S's 30 ms to spare; at 0.5, over 60 ms was too much), fast beside a
# sender's clock drift (< 0.1 ms per s); a 250 ms burst stays "late" for ~1 s after it caught up.
TRANSIT_SINK = 0.2
_RTP_TICK_S = 1 / OPUS_CLOCK_HZ
_NEW_TIMELINE = int(MAX_FILLED_GAP_S * OPUS_CLOCK_HZ)  # RTP ticks: a longer step is a new timeline
QUIET_EVERY_S = 0.05  # then silence every 50 ms: the VAD hears the quiet within a tick of real time
FRAME_SAMPLES = OUT_RATE_HZ // 50  # 20 ms: the quiet timer hands on whole frames
# A missing packet is lost once packets this many later (60 ms) wait behind it; before, it may be late.
LOST_AFTER_PACKETS = 3
# After silence was handed on, frames arriving faster than real time by more than this are a backlog
# whose time that silence covered; less is ordinary jitter (a loaded loop releasing 2–3 packets at once).
BACKLOG_TOLERANCE_S = 0.06
# Decoded frames this quiet (peak, PCM16; about -35 dBFS, above a microphone's noise floor) carry no
# speech: the input's lead over the wall clock is taken from them.
QUIET_PEAK = 600
BACKLOG_WINDOW_S = 1.0  # a backlog shows in the frames of the first second after the silence, or not at all
# Lost packets (missing sequence numbers) covering up to this much RTP time are concealed by libopus
# (PLC, FEC from the next packet) as NetEq does; a longer gap is silence (NetEq's expansion fades out
# there anyway), and so is a DTX gap (no sequence number missing: the sender sent nothing on purpose).
MAX_CONCEALED_SAMPLES = OUT_RATE_HZ * 120 // 1000
CONCEALED_STEP_SAMPLES = OUT_RATE_HZ // 400  # libopus conceals whole 2.5 ms steps


class _GapFiller:
    """Silence for the RTP time between one Opus frame and the next that no frame covered."""

    def __init__(self) -> None:
        self._next_timestamp: int | None = None  # where the frame after the last one would start

    def owed(self, timestamp: int) -> int:
        """What ``samples_before`` will return for a frame at ``timestamp``, without moving on."""
        expected = self._next_timestamp
        if expected is None:
            return 0
        gap = (timestamp - expected) % 2**32
        if gap >= 2**31 or gap > MAX_FILLED_GAP_S * OPUS_CLOCK_HZ:
            return 0
        return gap * OUT_RATE_HZ // OPUS_CLOCK_HZ

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
    """Silence in real time while no packet arrives: a sender that stopped sending (a push-to-talk page's
    ``replaceTrack(null)``, a muted or ended track, a network that went quiet) is a user who is quiet.

    Armed by the first packet. Once none has come for ``quiet_after_s`` it has the decoder hand on what
    the jitter buffer still holds (``flush``: packets that waited behind a lost one), then
    hands on the silence since the last packet, then every ``QUIET_EVERY_S`` the silence since; it counts
    the silence, which the RTP gap before the next frame (:class:`_GapFiller`) then no longer owes. One
    timer per call, moved on by the packets (not re-armed per packet): ~10 wake-ups a second while audio
    flows.

    ``quiet_after_s`` adapts to the link (see the module docstring): ``QUIET_AFTER_S`` (100 ms) on a
    clean one; on one whose packets came late lately, their lateness plus ``LATE_MARGIN_S``, up to
    ``QUIET_AFTER_MAX_S``. Lateness is measured from the Opus packets' RTP timestamps (``packet_arrived``
    with one): a few float operations per packet, nothing kept per packet."""

    def __init__(
        self, sink: Callable[[bytes], None], flush: Callable[[], None], loop: asyncio.AbstractEventLoop
    ) -> None:
        self._sink = sink
        self._flush = flush
        self.loop = loop
        self._covered_s = loop.time()  # the audio handed on or held reaches this loop time
        self.filled_samples = 0  # silence handed on since the last frame (24 kHz samples)
        # What the sender's frames last beyond 20 ms (``frame_decoded``: the next packet of a 60 ms
        # sender is due 60 ms after the last).
        self._extra_s = 0.0
        # The wait for the link's lateness (QUIET_AFTER_S .. QUIET_AFTER_MAX_S; ``_measure``).
        self.wait_s = QUIET_AFTER_S
        # No packet for this long is quiet: the wait, plus the frames' extra.
        self.quiet_after_s = QUIET_AFTER_S
        # The lateness measure (``_measure``), all in seconds: the last packet's transit (its arrival less
        # its RTP time, from an arbitrary origin), the recent highest transit (sinking at TRANSIT_SINK),
        # and the lateness held (the highest seen, at ``_late_at_s``).
        self._timestamp: int | None = None  # the last packet's RTP timestamp (48 kHz)
        self._arrived_s = 0.0
        self._transit_s = 0.0
        self._high_s = 0.0
        self._late_s = 0.0
        self._late_at_s = 0.0
        self._handle: asyncio.TimerHandle | None = loop.call_at(self._covered_s + QUIET_AFTER_S, self._tick)

    def packet_arrived(self, timestamp: int | None = None) -> None:
        """A packet came now (the jitter buffer may hold it a little, behind a lost one); ``timestamp``:
        its RTP timestamp in the 48 kHz Opus clock, which measures how late it came (None: not measured)."""
        now = self._covered_s = self.loop.time()
        if timestamp is not None:
            self._measure(timestamp, now)

    def _measure(self, timestamp: int, now: float) -> None:
        """How late the packets come, NetEq-like: a packet's transit is its arrival less its RTP time;
        packets held back and then delivered at once come in with transits falling from the first (the
        most late) to the on-time one that caught up, so the lateness is the recent highest transit less
        this one's. Measured against the packets after it, not before: a sender that resumes after a
        pause (chromium's timestamps stand still meanwhile) raises the transit for good and is not
        late, and a sender whose clock drifts moves it slowly (the highest sinks faster)."""
        last = self._timestamp
        self._timestamp = timestamp
        elapsed = now - self._arrived_s
        self._arrived_s = now
        if last is None:
            return
        step = (timestamp - last) & 0xFFFFFFFF  # modulo: the timestamps wrap
        if step >= 0x80000000:
            step -= 0x100000000  # came late, reordered: its transit is the higher
        if step > _NEW_TIMELINE or step < -_NEW_TIMELINE:  # a new timeline: measured afresh
            self._transit_s = self._high_s = 0.0
            return
        transit = self._transit_s = self._transit_s + elapsed - step * _RTP_TICK_S
        high = self._high_s - TRANSIT_SINK * elapsed
        held = self._late_s
        if transit >= high:
            self._high_s = transit
            if not held:  # on time, and nothing late held: a clean link's packet stops here
                return
            late = 0.0
        else:
            self._high_s = high
            late = high - transit
        over_s = now - self._late_at_s - LATE_HOLD_S
        if over_s > 0.0:
            held -= over_s * LATE_DECAY
        if late >= held:  # the latest yet (or all forgotten): held from now
            self._late_s, self._late_at_s, held = late, now, late
        elif late > QUIET_AFTER_S - LATE_MARGIN_S:  # late still (the wait would be up for it): hold on
            self._late_s, self._late_at_s = held, now
        wait = held + LATE_MARGIN_S
        if wait < QUIET_AFTER_S:
            wait = QUIET_AFTER_S
        elif wait > QUIET_AFTER_MAX_S:
            wait = QUIET_AFTER_MAX_S
        if wait != self.wait_s:
            self.wait_s = wait
            self.quiet_after_s = wait + self._extra_s

    def frame_decoded(self, samples: int) -> None:
        """A frame of ``samples`` (24 kHz) was decoded: the next packet is due that much after this one."""
        self._extra_s = max(0, samples - FRAME_SAMPLES) / OUT_RATE_HZ
        self.quiet_after_s = self.wait_s + self._extra_s

    def take_filled(self) -> int:
        """A frame is handed on: the silence handed on before it since the previous one (24 kHz
        samples), counted afresh from here."""
        filled, self.filled_samples = self.filled_samples, 0
        return filled

    def _tick(self) -> None:
        now = self.loop.time()
        quiet_s = now - self._covered_s
        # Once quiet was conceded, what passes since is handed on as on a clean link: the wait for late
        # packets is over (any that come now are a backlog).
        after_s = self.quiet_after_s if not self.filled_samples else QUIET_AFTER_S + self._extra_s
        # Float time: a timer set for ``covered + after`` can read a hair under it (a sum of stamps rounds;
        # asyncio runs a handle up to its clock's resolution early), which cost a whole tick more.
        if (
            quiet_s < after_s - CLOCK_RESOLUTION_S
        ):  # a packet came since: look again when this one is old enough
            self._handle = self.loop.call_at(self._covered_s + after_s, self._tick)
            return
        self._flush()  # what arrived before the quiet goes first, in order
        frames = round(quiet_s * OUT_RATE_HZ) // FRAME_SAMPLES
        if frames and self._handle is not None:
            samples = frames * FRAME_SAMPLES
            self._covered_s += samples / OUT_RATE_HZ
            self.filled_samples += samples
            self._sink(bytes(samples * 2))
        if self._handle is not None:  # (the sink may have ended the call, and cancelled this)
            self._handle = self.loop.call_at(now + QUIET_EVERY_S, self._tick)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class _Backlog:
    """Frames that come after the quiet timer handed on silence for their time: a link that held the
    packets back for more than ``QUIET_AFTER_S`` delivers them in a burst, faster than real time.
    Appended after that silence they put the input ahead of the wall clock. ``late`` measures by how
    much: what of them came faster than real time (beyond ``BACKLOG_TOLERANCE_S`` of jitter), up to
    ``credit``, the silence handed on beyond their RTP gap. A sender that resumed sends in real time: nothing
    came late. (Its RTP gap does not tell: chromium's timestamps stand still while it sends nothing, so
    a push-to-talk press 2 s after the release follows straight on from it by its timestamps.)"""

    def __init__(self, credit: int, first: int, now_s: float) -> None:
        self._credit = credit  # 24 kHz samples of silence handed on beyond the RTP gap
        # The first frame after the silence (``first`` samples) came then: whether the sender resumed
        # or its packets were held back shows only in how the next ones arrive.
        self._began_s = now_s
        self._first = first
        self._received = first  # samples since it began (silence owed and frames)
        self._counted = 0
        self._leads: list[float] = []  # received less the wall time since it began, at each arrival

    def late(self, samples: int, now_s: float) -> int:
        """The next ``samples`` came now: how many more samples the input is ahead of the wall clock."""
        self._received += samples
        self._leads.append(self._received - (now_s - self._began_s) * OUT_RATE_HZ)
        wall = (now_s - self._began_s + BACKLOG_TOLERANCE_S) * OUT_RATE_HZ
        due = min(self._credit, max(0, int(self._received - wall))) - self._counted
        if due <= 0:
            return 0
        self._counted += due
        return due

    def settle(self) -> int:
        """At the window's end: the lead ``late`` left uncounted. Its tolerance, for the jitter of a
        sender that resumed, left up to 60 ms of each burst uncounted, and a link with a hiccup every
        few seconds put the input further ahead at each (~230 ms in 15 s). What the frames stayed ahead
        by from some arrival on (the highest of the lows that follow each arrival: jitter dips it, a
        loaded loop's stall too, neither raises it) is the lead the burst left."""
        lowest, lead = float("inf"), 0.0
        for ahead in reversed(self._leads):
            lowest = min(lowest, ahead)
            lead = max(lead, lowest)
        due = min(self._credit, max(0, int(lead - self._first))) - self._counted
        self._counted += max(0, due)
        return max(0, due)

    def is_over(self, now_s: float) -> bool:
        return self._counted >= self._credit or now_s - self._began_s > BACKLOG_WINDOW_S


class _Held(JitterFrame):
    """A frame the jitter buffer released or gave up: ``rtp_timestamp`` is the sender's (aiortc maps
    ``timestamp`` for its decoders; the frames a flush gives up are not mapped), ``payload_type`` names
    its codec, ``sequence_number`` is its packet's (a lost packet shows as a missing one)."""

    def __init__(self, data: bytes, timestamp: int, payload_type: int, sequence_number: int) -> None:
        super().__init__(data, timestamp)
        self.rtp_timestamp = timestamp
        self.payload_type = payload_type
        self.sequence_number = sequence_number


class _MicrophoneBuffer(JitterBuffer):
    """aiortc's jitter buffer for the microphone, releasing each packet as soon as it is the next in
    order. aiortc's releases a frame only once a packet of the next one has arrived (with ``prefetch=4``
    for audio, four frames later): a video frame spans packets, but an audio frame is one packet (Opus:
    RFC 7587; G.711), so that wait only held every frame 20 ms back, and the last one before a sender
    stopped stayed in the buffer, undecoded, until the next press. It also

    - reports each packet as it arrives, with its RTP timestamp (``on_packet``: the quiet timer's clock
      and its lateness measure);
    - puts back in order what loopback or a LAN swaps, and gives up a lost packet's place once packets
      ``LOST_AFTER_PACKETS`` later wait behind it (aiortc waited until the buffer was full, 320 ms,
      then released one frame per packet: the input stayed 300 ms late for the rest of the call);
    - hands over what it holds (``flush``): packets behind a lost one when the sender stops."""

    def __init__(self, on_packet: Callable[[int], None]) -> None:
        super().__init__(capacity=16, prefetch=0)
        self._on_packet = on_packet

    def add(self, packet: RtpPacket) -> tuple[bool, JitterFrame | None]:
        self._on_packet(packet.timestamp)
        return super().add(packet)

    def _remove_frame(self, sequence_number: int) -> JitterFrame | None:
        origin = self._origin
        if origin is None:
            return None
        packet = self._packets[origin % self._capacity]
        if packet is None:  # lost, or late: wait for it a little
            later = [k for k in range(1, self._capacity) if self._packets[(origin + k) % self._capacity]]
            if not later or later[-1] < LOST_AFTER_PACKETS:
                return None
            self.remove(later[0])
            packet = self._packets[(origin + later[0]) % self._capacity]
        self.remove(1)
        return _held(packet) if packet is not None else None

    def pop_ready(self) -> _Held | None:
        """The next packet's frame if it is here too (after a swapped or lost one, several are)."""
        return self._remove_frame(0)  # type: ignore[return-value]

    def flush(self) -> list[_Held]:
        """Every frame held, in order (lost packets' places skipped); the buffer is left empty."""
        if self._origin is None:
            return []
        frames: list[_Held] = []
        last = -1
        for count in range(self._capacity):
            packet = self._packets[(self._origin + count) % self._capacity]
            if packet is not None:
                frames.append(_held(packet))
                last = count
        self.remove(last + 1)
        return frames


def _peak(pcm16: bytes) -> int:
    return int(np.abs(np.frombuffer(pcm16, dtype="<i2").astype(np.int32)).max())


def _held(packet: RtpPacket) -> _Held:
    return _Held(packet._data, packet.timestamp, packet.payload_type, packet.sequence_number)  # type: ignore[attr-defined]


class InlineDecoder:
    """A receiver's decoder queue that decodes on ``put`` (see the module docstring).

    ``native``: libopus at 24 kHz (:mod:`mockengine.rtc.libopus`); False, or where it cannot be loaded,
    PyAV's decoder at 48 kHz and its resampler. Both fill the RTP time no frame covered and, when made
    in a running event loop, the wall time no packet arrives in (:class:`_QuietTimer`). ``codec_of``:
    the receiver's codec for an RTP payload type (for the frames a flush gives up)."""

    def __init__(
        self,
        on_pcm16: Callable[[bytes], None],
        *,
        native: bool = True,
        codec_of: Callable[[int], Any] | None = None,
        clock: Any = None,
    ) -> None:
        self.on_pcm16 = on_pcm16
        # What the quiet timer reads the time from and sets its timer on (``time``, ``call_at``): the
        # running event loop, or the pion media plane's clock of the sidecar's stamps (rtc/pion/plane.py).
        self._clock = clock
        self._native = opus_decoder() if native else None  # libopus at 24 kHz: no resampler
        self._opus = av.CodecContext.create("libopus", "r")
        self._opus.format = "s16"  # type: ignore[attr-defined]
        self._opus.layout = "mono"  # type: ignore[attr-defined]
        self._opus.sample_rate = 48_000  # type: ignore[attr-defined]
        self._other: Any = None  # aiortc's decoder, for a call without Opus
        self._codec: Any = None
        self._codec_is_opus = False
        self._codec_of = codec_of or (lambda _payload_type: self._codec)
        self._resampler = InputResampler()
        self._gaps = _GapFiller()
        self._sequence: int | None = None  # the newest Opus packet's RTP sequence number
        self._quiet: _QuietTimer | None = None
        self._backlog: _Backlog | None = None
        self._ahead = 0  # samples the input runs ahead of the wall clock (late frames), paid by quiet
        self.buffer: _MicrophoneBuffer | None = None  # the receiver's jitter buffer (decode_inline)
        self._dropping = False
        self._stopped = threading.Event()

    def drop_frames(self) -> None:
        """Frames arriving from now on are lost, as on a network that died (fault ``media_stall``): none
        is decoded, so the quiet timer hands on silence in their place, as for a sender that stopped.
        The frames that arrived before are handed on first."""
        self.flush()
        self._dropping = True

    def packet_arrived(self, timestamp: int | None = None) -> None:
        """A packet reached the jitter buffer (``_MicrophoneBuffer``; the pion plane's, ``put``): it moves
        the quiet timer on, starting it at the first one where an event loop runs, and its RTP
        ``timestamp`` tells the timer how late it came (Opus calls only: the timer reads the 48 kHz
        clock). Lost packets (``drop_frames``) do not."""
        if self._dropping:
            return
        if self._quiet is not None:
            self._quiet.packet_arrived(timestamp if self._codec_is_opus else None)
            return
        try:
            loop = self._clock or asyncio.get_running_loop()
        except RuntimeError:  # decoded outside a loop (a unit test): RTP gaps only
            return
        self._quiet = _QuietTimer(self._hand_on_quiet, self.flush, loop)

    def put(self, task: tuple[Any, Any] | None) -> None:
        if task is None:  # the receiver stops
            if self._quiet is not None:
                self._quiet.cancel()
            self._stopped.set()
            return
        if self._dropping:
            return
        codec, encoded_frame = task
        timestamp = getattr(encoded_frame, "rtp_timestamp", encoded_frame.timestamp)
        # (Through the buffer already, when it arrived: a frame it released later is not measured again.
        # The pion plane and unit tests put packets straight in, as they arrive.)
        self.packet_arrived(None if self.buffer is not None else timestamp)
        self._hand_on(codec, encoded_frame.data, timestamp, getattr(encoded_frame, "sequence_number", None))
        if self.buffer is not None:
            while (frame := self.buffer.pop_ready()) is not None:
                self._hand_on(codec, frame.data, frame.rtp_timestamp, frame.sequence_number)

    def flush(self) -> None:
        """Decode and hand on every frame the jitter buffer holds, in order (the quiet timer, before its
        silence: packets that waited behind a lost one when the sender stopped)."""
        if self.buffer is None or self._dropping:
            return
        for frame in self.buffer.flush():
            codec = self._codec_of(frame.payload_type)
            if codec is not None:
                self._hand_on(codec, frame.data, frame.rtp_timestamp, frame.sequence_number)

    def _hand_on(self, codec: Any, data: bytes, timestamp: int, sequence: int | None = None) -> None:
        """Decode one frame and hand it on, after the silence its RTP gap still owes (or, for packets
        lost just before it, their concealment: ``_conceal``)."""
        concealed = b""
        try:
            if self._is_opus(codec):
                concealed = self._conceal(data, timestamp, sequence)
                pcm16, duration = self._decode_opus(data)
                owed = self._gaps.samples_before(timestamp, duration)
            else:
                pcm16, owed = self._decode_other(codec, data), 0
        except (av.FFmpegError, OpusError) as exc:
            log.warning("undecodable %s frame from the client: %s", codec.name, exc)
            return
        quiet = self._quiet
        if quiet is not None and pcm16:
            quiet.frame_decoded(len(pcm16) // 2)
        if concealed:  # the lost frames' time is audio now, not silence: part of this frame
            owed = 0
            pcm16 = concealed + pcm16
        filled = quiet.take_filled() if quiet is not None else 0
        if filled and quiet is not None:  # the first frame after silence the quiet timer handed on
            ahead = filled - owed
            first = len(pcm16) // 2
            if self._backlog is not None:  # (another hiccup within a second of the last one)
                self._ahead += self._backlog.settle()
            self._backlog = _Backlog(ahead, first, quiet.loop.time()) if ahead > 0 else None
            owed = max(0, owed - filled)
        backlog = None if filled else self._backlog
        now_s = quiet.loop.time() if backlog is not None and quiet is not None else 0.0
        if owed > 0:
            if backlog is not None:
                self._ahead += backlog.late(owed, now_s)
            self._hand_on_quiet(bytes(owed * 2))
        if backlog is not None:
            self._ahead += backlog.late(len(pcm16) // 2, now_s)
            if backlog.is_over(now_s):
                self._ahead += backlog.settle()
                self._backlog = None
        if self._ahead and pcm16 and _peak(pcm16) <= QUIET_PEAK:
            pcm16 = self._pay_back(pcm16)
        if pcm16:
            self.on_pcm16(pcm16)

    def _hand_on_quiet(self, silence: bytes) -> None:
        """Silence (an RTP gap's, the quiet timer's), less what the input runs ahead."""
        if self._ahead:
            silence = self._pay_back(silence)
        if silence:
            self.on_pcm16(silence)

    def _pay_back(self, quiet: bytes) -> bytes:
        """``quiet`` audio less the part the input runs ahead of the wall clock by (see the module
        docstring): late frames are kept, their time is taken from the next quiet."""
        cut = min(self._ahead, len(quiet) // 2)
        self._ahead -= cut
        return quiet[cut * 2 :]

    def _conceal(self, data: bytes, timestamp: int, sequence: int | None) -> bytes:
        """PCM16 for packets lost just before this one (missing sequence numbers, their RTP time up to
        ``MAX_CONCEALED_SAMPLES``): libopus's PLC, and FEC from ``data`` for the last of them (as NetEq
        does), decoded before ``data`` so that the decoder's state runs on. Empty (the RTP gap stays
        silence) for a DTX gap (no sequence number missing), a longer gap, one the quiet timer already
        handed on silence for, a frame without a sequence number, and on PyAV's fallback (its decoder
        takes no empty packet to conceal with). One comparison for a packet that follows its predecessor."""
        if sequence is None:
            return b""
        last = self._sequence
        if last is not None and not 0 < (sequence - last) % 65536 < 32768:
            return b""  # a duplicate, or late: the timeline does not go back
        self._sequence = sequence
        if last is None or sequence == (last + 1) % 65536 or self._native is None:
            return b""
        owed = self._gaps.owed(timestamp)
        if not 0 < owed <= MAX_CONCEALED_SAMPLES or owed % CONCEALED_STEP_SAMPLES:
            return b""
        if self._quiet is not None and self._quiet.filled_samples:
            return b""  # the quiet timer handed this time on as silence already
        try:
            return self._native.conceal(owed, data)
        except OpusError as exc:
            log.debug("packet loss concealment refused (%s): silence instead", exc)
            return b""

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
    codecs: dict[int, Any] = getattr(receiver, _CODECS_ATTRIBUTE, {})  # filled when the receiver starts
    decoder = InlineDecoder(on_pcm16, codec_of=lambda payload_type: codecs.get(payload_type))
    setattr(receiver, _QUEUE_ATTRIBUTE, decoder)
    # aiortc holds 4 audio frames back before releasing one (prefetch=4: 80 ms more before the VAD
    # hears the user); this one releases each packet once it is the next in order.
    decoder.buffer = _MicrophoneBuffer(decoder.packet_arrived)
    setattr(receiver, _JITTER_ATTRIBUTE, decoder.buffer)
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
