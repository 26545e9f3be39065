"""One session's transcription jobs waiting for the transcriber, and their bound (issue 15).

Whisper runs one call at a time for the whole engine, so when sessions commit turns faster than it
transcribes them the jobs wait here, each holding its turn's audio (PCM16 24 kHz: 48 kB per second).
Unbounded, a load run with a turn every 3.5 s per session and more sessions than whisper keeps up with
had 2,400 jobs waiting after five minutes, and every transcript came later than the one before.

The lane keeps at most ``limit`` jobs whose words are an item's transcript (``max_pending_transcriptions``;
the job whisper is running is no longer in the lane). A job past the bound drops the **oldest** waiting
one, which the session then reports failed (``RealtimeSession.on_transcription_backlog``): the newest
turns, which a conversation is about, keep timely transcripts, and the failure is on the wire, not a
transcript that never comes. Jobs whose results no longer matter (an item deleted, a probe of a pause
the speaker talked through) leave the lane at the same moment instead of at its head.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from mockengine.realtime.effects import Transcribe, TranscriptKey
from mockengine.server.single_consumer_queue import SingleConsumerQueue


class TranscriptionLane(SingleConsumerQueue[Transcribe]):
    """``Transcribe`` jobs oldest first, for one consumer (the session's ``stt_worker``); a cancelled
    ``get`` takes nothing (see :class:`~mockengine.server.single_consumer_queue.SingleConsumerQueue`)."""

    @property
    def audio_bytes(self) -> int:
        """The PCM the waiting jobs hold (bytes)."""
        return sum(len(job.pcm16) for job in self.queued)

    def bound(
        self,
        limit: int,
        is_wanted: Callable[[TranscriptKey], bool],
        is_item_transcript: Callable[[TranscriptKey], bool],
    ) -> list[Transcribe]:
        """Drop the jobs no longer wanted, then the oldest item transcriptions beyond ``limit`` (0: no
        bound); returns the latter, oldest first, for the session to report as failed."""
        kept = [job for job in self.queued if is_wanted(job.key)]
        counted = [job for job in kept if is_item_transcript(job.key)]
        over = counted[: max(0, len(counted) - limit)] if limit > 0 else []
        if len(kept) != len(self.queued) or over:
            dropped = {id(job) for job in over}
            self.queued = deque(job for job in kept if id(job) not in dropped)
        return over
