"""The work of one :class:`~mockengine.realtime.effects.Transcribe` effect, as a shell runs it.

One job per effect, run in the shell's model executor (never on the event loop): whisper's transcript
with word timings and, for a semantic_vad probe (``prosody_at_ms`` set), the prosody of the last
syllable measured on the same audio (~5 ms of numpy). The core only combines the two results
(``RealtimeSession.on_transcript``), so a decision depends on the job's inputs alone: same audio, same
result, whenever it arrives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mockengine.engines.stt import Transcript
from mockengine.realtime.effects import Transcribe
from mockengine.realtime.prosody import Prosody, measure_prosody


@dataclass(frozen=True)
class Heard:
    """A job's result: the transcript, and the prosody when the job asked for it (else None)."""

    transcript: Transcript
    prosody: Prosody | None = None


def engine_for(job: Transcribe, transcriber: Any, turn_transcriber: Any | None) -> Any:
    """The transcriber that hears ``job``: ``turn_transcriber`` (when there is one) for a semantic_vad
    probe, ``transcriber`` for everything else (server_vad's prefetch, commits, items)."""
    return turn_transcriber if job.prosody_at_ms is not None and turn_transcriber is not None else transcriber


def run_transcribe(transcriber: Any, job: Transcribe, transcript: Transcript | None = None) -> Heard:
    """Transcribe ``job.pcm16`` (unless ``transcript`` is already known, e.g. from a cache) and measure
    the prosody the job asks for. Raises whatever the transcriber raises."""
    if transcript is None:
        transcript = transcriber.transcribe(job.pcm16, language=job.language, prompt=job.prompt)
    if job.prosody_at_ms is None:
        return Heard(transcript)
    return Heard(transcript, measure_prosody(job.pcm16, job.prosody_at_ms))
