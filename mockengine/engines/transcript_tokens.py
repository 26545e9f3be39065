"""A transcript's words and tokens as whisper heard them: its word timings matched to the text, and the
log probability of each text token. One definition for every place that reports them: the REST
transcriptions (``include[]=logprobs``, ``chat/transcription.py``) and the Realtime input transcription
events (``include: ["item.input_audio_transcription.logprobs"]``, ``realtime/items.py``).

Nothing here is random: the figures come from whisper's greedy decode of the audio (each word's mean token
probability), so the same audio gives the same logprobs whatever the seed.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from mockengine.engines.stt import Transcript, WordTiming


class TokenBytes(Protocol):
    """What cuts a text into tokens (``engines.tokens.TokenCounter``)."""

    def token_bytes(self, text: str) -> list[bytes]: ...


def whisper_words(transcript: Transcript) -> tuple[WordTiming, ...]:
    """Whisper's word timings matched to the transcript's words, or () when it gave none or they do not
    spell the text. Whisper's alignment makes punctuation a word of its own (``France`` and ``?``, the
    ``?`` often stretched over the trailing silence, where the text says ``France?``): those pieces join
    the word they are written with, which keeps its own times and probability, as whisper's
    ``merge_punctuations`` does."""
    pieces = list(transcript.words)
    out: list[WordTiming] = []
    for word in transcript.text.split():
        spelled, taken = "", []
        while pieces and len(spelled) < len(word):
            taken.append(pieces.pop(0))
            spelled += taken[-1].word
        if spelled != word:
            return ()
        spoken = [t for t in taken if any(c.isalnum() for c in t.word)] or taken
        probability = round(sum(t.probability for t in spoken) / len(spoken), 3)
        out.append(WordTiming(word, spoken[0].start_ms, spoken[-1].end_ms, probability))
    return tuple(out) if not pieces else ()


def logprobs(transcript: Transcript, tokens: TokenBytes) -> list[dict[str, Any]]:
    """One entry per text token of the transcript, in the SDK's ``LogProbProperties`` /
    ``transcription_create_response`` shape: ``{"token": str, "bytes": [int, …], "logprob": float}``,
    the log of the probability whisper gave the word the token is part of (0.0 when whisper gave no
    word probabilities: a transcript from a cache of text only, an engine without word timings)."""
    timings = whisper_words(transcript)
    # The character offset where each word ends, to find a token's word.
    ends: list[int] = []
    at = 0
    for word in transcript.text.split():
        at = transcript.text.index(word, at) + len(word)
        ends.append(at)
    out: list[dict[str, Any]] = []
    offset = 0
    for piece in tokens.token_bytes(transcript.text):
        text = piece.decode("utf-8", "replace")
        index = next((i for i, end in enumerate(ends) if offset < end), len(ends) - 1)
        probability = timings[index].probability if timings and index >= 0 else 1.0
        out.append(
            {"token": text, "bytes": list(piece), "logprob": round(math.log(max(probability, 1e-9)), 6)}
        )
        offset += len(text)
    return out
