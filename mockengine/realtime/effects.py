"""What the sans-IO core asks its shell to do, and what one step of the core returns.

The core never awaits: it returns :class:`Step` (events to send now, effects to start). The shell runs
each effect (in an executor for the models) and feeds the result back through the matching
``RealtimeSession.on_*`` method, and calls ``RealtimeSession.tick(now_ms)`` when ``next_deadline_ms``
comes due.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Transcribe:
    """Transcribe PCM16 24 kHz mono. ``key`` says what for: ``item:<id>`` a user audio item (feeds the
    brain and, if asked for, input transcription events); ``turn<N>:p-<k>`` a turn detector's probe of the
    speech so far. The result goes to ``RealtimeSession.on_transcript(key, text, now_ms, words, prosody)`` or
    ``on_transcript_failed(key, message)``; ``RealtimeSession.is_wanted(key)`` says if it still matters."""

    key: str
    pcm16: bytes
    language: str | None = None
    prompt: str | None = None
    # A semantic_vad probe: the same job also measures the prosody of the syllable ending here (ms from
    # the start of ``pcm16``), so the numpy work runs beside whisper, not on the event loop; the result
    # reaches ``on_transcript`` as ``prosody`` (see ``mockengine.realtime.probe_job``).
    prosody_at_ms: int | None = None


@dataclass(frozen=True)
class Synthesize:
    """Speak one sentence (PCM16 24 kHz). Result → ``RealtimeSession.on_speech(key, pcm16)``."""

    key: str
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
