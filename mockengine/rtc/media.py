"""Audio of a WebRTC call: the reply track the engine plays to the client, and the client's microphone
turned into the session's PCM16.

:class:`ReplyTrack` is the engine's outgoing Opus track. It hands out one 20 ms frame of 24 kHz mono
PCM16 per 20 ms of wall time, already encoded (see :mod:`mockengine.rtc.opus`; taken by the shared
pacer of :mod:`mockengine.rtc.rtp_send` with ``pull``, or as an ``av.Packet`` that aiortc's sender
only packetises with ``recv``), reply audio while there is some queued and silence otherwise, so the
client hears replies at real-time pace however fast the session produced them. It counts what it has
handed out per assistant item: that is what the client has been sent (and, give or take its jitter
buffer, heard), the position WebRTC barge-in truncates at.

The output-buffer events (``output_audio_buffer.started`` / ``.stopped``; reference §13, the SDK's
``OutputAudioBufferStarted`` docstrings) come from here: *started* when a response's first audio frame
goes out, *stopped* when its last one has gone and the response is done.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass

import av
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from mockengine.rtc.opus import RTP_CLOCK_HZ, ReplyEncoder, rtp_packet

log = logging.getLogger("mockengine.webrtc")

RATE_HZ = 24_000
FRAME_MS = 20
FRAME_S = FRAME_MS / 1000
FRAME_SAMPLES = RATE_HZ * FRAME_MS // 1000
FRAME_BYTES = FRAME_SAMPLES * 2
RTP_CLOCK_PER_SAMPLE = RTP_CLOCK_HZ // RATE_HZ
SILENCE = bytes(FRAME_BYTES)
# Opus DTX on the wire (libopus, RFC 7587 §3.1.3): while silent, one packet every 400 ms.
DTX_KEEPALIVE_MS = 400
DTX_KEEPALIVE_SAMPLES = RATE_HZ * DTX_KEEPALIVE_MS // 1000


@dataclass
class Chunk:
    response_id: str
    item_id: str
    pcm16: bytes


@dataclass(frozen=True)
class Cut:
    """Where a cleared reply stopped: ``audio_end_ms`` of ``item_id`` had gone out on the track."""

    response_id: str
    item_id: str
    audio_end_ms: int


class ReplyTrack(MediaStreamTrack):
    """The outgoing audio track. ``on_started`` / ``on_stopped`` receive a response id."""

    kind = "audio"

    def __init__(
        self, on_started: Callable[[str], None], on_stopped: Callable[[str], None], *, dtx: bool = False
    ) -> None:
        super().__init__()
        self.dtx = dtx  # between replies one silent packet per DTX_KEEPALIVE_MS instead of one per frame
        self._last_sent_pts = -DTX_KEEPALIVE_SAMPLES
        self.on_started = on_started
        self.on_stopped = on_stopped
        self._queue: deque[Chunk] = deque()
        # Per call, not per reply: what a cut needs (the item going out and its samples handed out), the
        # replies whose queued audio is the last they bring, the replies cut off while they still stream.
        # Entries leave as their replies end, so a 60-minute call keeps no more than a short one.
        self._playing: str | None = None  # the response whose audio is going out (started, not stopped)
        self._last_item: str | None = None
        self._last_item_samples = 0  # of _last_item, handed out
        self._done: set[str] = set()  # responses with audio queued that will bring no more
        self._cleared: set[str] = set()  # responses cut off: their late audio is dropped until done
        self._start_s: float | None = None
        self._pts = 0
        self._stalled = False  # fault media_stall: frames are taken on time and not sent
        self._encoder = ReplyEncoder(FRAME_SAMPLES)

    # -- from the session --------------------------------------------------------------------------

    def enqueue(self, response_id: str, item_id: str, pcm16: bytes) -> None:
        if response_id not in self._cleared and pcm16:
            self._queue.append(Chunk(response_id, item_id, pcm16))

    def finish(self, response_id: str) -> None:
        """The response is done: once its queued audio has gone out, the buffer stops."""
        self._cleared.discard(response_id)  # no more of its audio will come to be dropped
        if response_id == self._playing or any(c.response_id == response_id for c in self._queue):
            self._done.add(response_id)

    def clear(self, stopped: Iterable[str] = ()) -> Cut | None:
        """Drop the queued reply audio. Where the reply being played stopped, or None when none was.

        The replies still streaming whose audio was queued, and ``stopped`` (replies the session has just
        cancelled, whose last deltas may still be on their way here), play no more: their later deltas
        are dropped until their ``response.done``."""
        playing = self._playing
        is_done = playing in self._done
        self._cleared.update(c.response_id for c in self._queue if c.response_id not in self._done)
        self._cleared.update(stopped)
        self._queue.clear()
        self._done.clear()  # nothing is queued any more: no reply is left to stop at its end
        self._playing = None
        if playing is None or self._last_item is None:
            return None
        self._encoder.cut()
        if not is_done:  # still streaming: its later deltas are dropped (until its response.done)
            self._cleared.add(playing)
        return Cut(playing, self._last_item, self._last_item_samples * 1000 // RATE_HZ)

    @property
    def playing_response_id(self) -> str | None:
        """The response whose audio is going out (started, not stopped), if any."""
        return self._playing

    @property
    def is_playing(self) -> bool:
        return self._playing is not None

    @property
    def is_drained(self) -> bool:
        """Whether every queued sample has gone out."""
        return not self._queue

    def stop(self) -> None:
        super().stop()
        self._encoder.close()  # libopus's state, freed now rather than whenever the track is collected
        # The call ended, maybe mid-reply: what was queued and kept for replies whose response.done
        # never came goes too.
        self._queue.clear()
        self._done.clear()
        self._cleared.clear()

    def stall(self) -> None:
        """Stop sending media silently (the connection stays up): a client must notice by itself.

        The packets are lost, not the playback: frames are still taken in real time (and dropped), so
        a reply "plays" on into the void and its ``output_audio_buffer.stopped`` comes when it would
        have ended, as from a service whose packets are lost downstream. (Frozen instead, the track
        sent ``started`` and never ``stopped``: a client waiting for the end of the reply hung.)"""
        self._stalled = True

    # -- to aiortc ---------------------------------------------------------------------------------

    async def recv(self) -> av.Packet:  # type: ignore[override]
        """aiortc's pull: the next frame's packet once it falls due (where :mod:`mockengine.rtc.rtp_send`
        cannot send the track itself)."""
        loop = asyncio.get_running_loop()
        while True:
            if self.readyState != "live":
                raise MediaStreamError
            wait_s = self.next_due_s(loop.time()) - loop.time()
            if wait_s > 0:
                await asyncio.sleep(wait_s)
            pulled = self.pull()
            if pulled is not None:
                return rtp_packet(*pulled)

    @property
    def is_stalled(self) -> bool:
        return self._stalled

    def next_due_s(self, now_s: float) -> float:
        """When (loop time, s) the next frame falls due; the first call starts the track's clock."""
        if self._start_s is None:
            # On a grid shared by every track of the process: all calls' frames fall due together,
            # so the loop wakes once per 20 ms for all of them instead of once per call.
            self._start_s = math.ceil(now_s / FRAME_S) * FRAME_S
        return self._start_s + self._pts / RATE_HZ

    def pull(self) -> tuple[bytes, int] | None:
        """The next frame, taken now: its Opus payload and RTP timestamp (48 kHz clock, from 0), or
        None when DTX holds a silent frame back or media is stalled (its time passes all the same)."""
        pcm16, pts = self._take(), self._pts
        self._pts += FRAME_SAMPLES
        if self._stalled:
            return None
        silent = pcm16 == SILENCE
        if silent and self._holds_back(pts):
            return None
        self._last_sent_pts = pts
        return self._encoder.payload(None if silent else pcm16, pts), pts * RTP_CLOCK_PER_SAMPLE

    def _holds_back(self, pts: int) -> bool:
        """DTX: a silent frame is not sent once the encoder has settled, but for one per keep-alive
        interval (the RTP timestamps then jump, as after Opus DTX; the receiver fills the gap)."""
        return self.dtx and self._encoder.is_settled and pts - self._last_sent_pts < DTX_KEEPALIVE_SAMPLES

    def _take(self) -> bytes:
        """The next 20 ms: queued reply audio, padded with silence."""
        out = bytearray()
        while self._queue and len(out) < FRAME_BYTES:
            chunk = self._queue[0]
            if self._playing != chunk.response_id:
                if self._playing is not None:  # a new reply's audio: the previous one has ended
                    self.on_stopped(self._playing)
                self._playing = chunk.response_id
                self.on_started(chunk.response_id)
            piece = chunk.pcm16[: FRAME_BYTES - len(out)]
            out += piece
            if self._last_item != chunk.item_id:
                self._last_item, self._last_item_samples = chunk.item_id, 0
            self._last_item_samples += len(piece) // 2
            if len(piece) == len(chunk.pcm16):
                self._queue.popleft()
            else:
                chunk.pcm16 = chunk.pcm16[len(piece) :]
        playing = self._playing
        if (
            playing is not None
            and playing in self._done
            and not any(c.response_id == playing for c in self._queue)
        ):
            self._playing = None
            self._done.discard(playing)
            self.on_stopped(playing)
        return bytes(out) + SILENCE[len(out) :]


class InputResampler:
    """Decoded microphone frames (aiortc gives 48 kHz stereo) → PCM16 24 kHz mono bytes."""

    def __init__(self) -> None:
        self._resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE_HZ)

    def convert(self, frame: av.AudioFrame) -> bytes:
        return b"".join(bytes(out.planes[0])[: out.samples * 2] for out in self._resampler.resample(frame))


async def pcm16_frames(track: MediaStreamTrack) -> AsyncIterator[bytes]:
    """Each frame received on an audio ``track`` as PCM16 24 kHz mono bytes, until the track ends.

    A frame may come out empty (``b""``) while the resampler fills; callers that count frames see it.
    """
    resampler = InputResampler()
    while True:
        try:
            frame = await track.recv()
        except MediaStreamError:
            return
        yield resampler.convert(frame)  # type: ignore[arg-type]


async def pump_microphone(track: MediaStreamTrack, on_pcm16: Callable[[bytes], None]) -> None:
    """Feed the client's audio track into ``on_pcm16`` until the track ends."""
    async for pcm in pcm16_frames(track):
        if pcm:
            on_pcm16(pcm)
