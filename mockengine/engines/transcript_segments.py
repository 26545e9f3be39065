"""A transcript cut into timed segments: the ``segments`` of ``POST /v1/audio/transcriptions``'
``verbose_json``, its subtitle cues, ``diarized_json``'s segments and the diarizing model's realtime
input-transcript segments.

Blocking-free and pure: the same transcript always gives the same segments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mockengine.engines.stt import Transcript, WordTiming
from mockengine.engines.transcript_tokens import whisper_words

# The one speaker label of a diarized transcript: the engine tells no voices apart, so everything it hears
# is the first speaker (live labels run "A", "B", …: openai-python's TranscriptionDiarizedSegment).
ONE_SPEAKER = "A"
# A subtitle cue ends after a sentence's last word, or after this many words.
MAX_CUE_WORDS = 12
_SENTENCE_END = re.compile(r"[.!?]['\")\]]*$")


@dataclass(frozen=True)
class Cue:
    """One segment of the transcript: its text and span (seconds), and the words in it."""

    text: str
    start_s: float
    end_s: float
    words: tuple[WordTiming, ...]


def word_timings(transcript: Transcript) -> tuple[WordTiming, ...]:
    """Whisper's word timings, or (when it gave none: audio over 14 s, or a prompt) the transcript's
    words spread evenly over the audio, each word's share in proportion to its length (ours)."""
    words = transcript.text.split()
    heard = whisper_words(transcript)
    if heard:
        return heard
    if not words:
        return ()
    total = sum(len(w) for w in words)
    out: list[WordTiming] = []
    at = 0
    for word in words:
        start = at * transcript.duration_ms // total
        at += len(word)
        out.append(WordTiming(word, start, at * transcript.duration_ms // total))
    return tuple(out)


def cues(transcript: Transcript) -> list[Cue]:
    """The transcript cut into segments: at each sentence end, or every MAX_CUE_WORDS words."""
    out: list[Cue] = []
    current: list[WordTiming] = []
    timings = word_timings(transcript)
    for index, word in enumerate(timings):
        current.append(word)
        if _SENTENCE_END.search(word.word) or len(current) == MAX_CUE_WORDS or index == len(timings) - 1:
            start_s = 0.0 if not out else current[0].start_ms / 1000
            out.append(
                Cue(" ".join(w.word for w in current), start_s, current[-1].end_ms / 1000, tuple(current))
            )
            current = []
    if out:  # the last segment runs to the end of the audio, as whisper's do
        last = out[-1]
        out[-1] = Cue(last.text, last.start_s, max(last.end_s, transcript.duration_ms / 1000), last.words)
    return out
