"""What the sans-IO core asks its shell to do, and what one step of the core returns.

The core never awaits: it returns :class:`Step` (events to send now, effects to start). The shell runs
each effect (in an executor for the models) and feeds the result back through the matching
``RealtimeSession.on_*`` method, and calls ``RealtimeSession.tick(now_ms)`` when ``next_deadline_ms``
comes due.

Each effect carries a small typed key saying what its result is for; the shell hands it back untouched
with the result, and the session routes the result by the key's type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ItemTranscriptKey:
    """The transcript of a user audio item: it feeds the brain and, if asked for, the input
    transcription events. ``item_id``: the item's id, or ``<id>#<n>`` while another item with the same
    (client-reused) id awaits its transcript too (``SessionContext.await_transcript``)."""

    item_id: str


@dataclass(frozen=True)
class ProbeKey:
    """A turn detector's transcript of the speech so far (its ``number``-th probe). ``generation``
    names the detector that asked: a result for an earlier one (turn detection restarted) is ignored."""

    generation: int
    number: int


@dataclass(frozen=True)
class SentenceKey:
    """The speech of sentence ``index`` (from 0) of a response's reply."""

    response_id: str
    index: int


TranscriptKey = ItemTranscriptKey | ProbeKey
EffectKey = ItemTranscriptKey | ProbeKey | SentenceKey


@dataclass(frozen=True)
class Transcribe:
    """Transcribe PCM16 24 kHz mono. ``key`` says what for. The result goes to
    ``RealtimeSession.on_transcript(key, text, now_ms, words, prosody)`` or
    ``on_transcript_failed(key, message)``; ``RealtimeSession.is_wanted(key)`` says if it still matters."""

    key: TranscriptKey
    pcm16: bytes
    language: str | None = None
    prompt: str | None = None
    # A semantic_vad probe: the same job also measures the prosody of the syllable ending here (ms from
    # the start of ``pcm16``), so the numpy work runs beside whisper, not on the event loop; the result
    # reaches ``on_transcript`` as ``prosody`` (see ``mockengine.realtime.probe_job``).
    prosody_at_ms: int | None = None


@dataclass(frozen=True)
class Synthesize:
    """Speak one sentence (PCM16 24 kHz). Result → ``RealtimeSession.on_speech(key, pcm16)`` or
    ``on_speech_failed(key, message)``."""

    key: SentenceKey
    text: str
    voice: str
    speed: float


@dataclass(frozen=True)
class Trace:
    """A decision worth logging (turn ends, brain rules): the shell writes it to the log / trace file."""

    kind: str
    data: dict[str, Any]


Effect = Transcribe | Synthesize | Trace


@dataclass
class Step:
    events: list[dict[str, Any]] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)

    def extend(self, other: Step) -> Step:
        self.events.extend(other.events)
        self.effects.extend(other.effects)
        return self
