"""A reply's output tokens are counted once a word: the streamer used to count its whole transcript again
at each delta under ``max_output_tokens`` (and the whole reply again for each word dropped to fit it),
quadratic in the reply's length: a 2,000-word reply took 18-24 s of tokenizing on the event loop. The
usage it reports is the same to the token (the figures below are the base's: 2de737a0)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

from mockengine.brain.model import Reply
from mockengine.engines.stt import resolve_whisper_model
from mockengine.engines.tokens import TokenCounter
from mockengine.realtime.response import Pacing, Response
from tests.streamers import streamer as make_streamer

# Contractions, numbers, punctuation and non-ASCII: where a tokenizer might not add up word by word.
WORDS = (
    "The harbour's seven grey boats, moored at 4.30 a.m., don't sail (not today); ask O'Neil why—it's 12°C!"
)
REPLY = " ".join(WORDS.split()[i % len(WORDS.split())] for i in range(2000))
WORD_MS = 300  # the fake speech: 300 ms of audio a word


class CountingTokens:
    """The server's counter (the bundled whisper tokenizer), and how many characters it was asked to count."""

    def __init__(self) -> None:
        path = Path(resolve_whisper_model(None)) / "tokenizer.json"
        self.inner = TokenCounter(Tokenizer.from_file(str(path)))
        self.chars = 0

    def count(self, text: str) -> int:
        self.chars += len(text)
        return self.inner.count(text)

    def token_bytes(self, text: str) -> list[bytes]:
        return self.inner.token_bytes(text)


def _stream(modality: str, max_output_tokens: Any, text_rate: float) -> tuple[Response, CountingTokens]:
    """``REPLY`` streamed to its end on a virtual clock; the response and the counter."""
    pacing = Pacing(pace=1.0, first_delta_delay_ms=0, delta_ms=200, text_tokens_per_s=text_rate)
    tokens = CountingTokens()
    streamer = make_streamer(modality, max_output_tokens, pacing, tokens)
    response = streamer.response
    _, speech = streamer.begin(Reply(REPLY), 0.0)
    for synthesize in speech:
        streamer.on_speech(synthesize.key.index, b"\0\0" * 24 * WORD_MS * len(synthesize.text.split()))
    now_ms = 0.0
    while (due := streamer.next_deadline_ms()) is not None:
        now_ms = max(now_ms, due)
        streamer.advance(now_ms)
    assert response.status != "in_progress"
    return response, tokens


@pytest.mark.parametrize(
    ("modality", "max_output_tokens", "text_rate", "status", "text_tokens", "audio_tokens"),
    [
        ("text", "inf", 50.0, "completed", 4232, 0),
        ("text", "inf", 0.0, "completed", 4232, 0),
        ("text", 1500, 50.0, "incomplete", 1500, 0),
        ("text", 1500, 0.0, "incomplete", 1500, 0),
        ("audio", "inf", 0.0, "completed", 4232, 12000),
        ("audio", 3000, 0.0, "incomplete", 781, 2219),
        ("audio", 20000, 0.0, "completed", 4232, 12000),
    ],
)
def test_a_long_reply_counts_each_word_once_to_the_same_usage(
    modality: str, max_output_tokens: Any, text_rate: float, status: str, text_tokens: int, audio_tokens: int
) -> None:
    response, tokens = _stream(modality, max_output_tokens, text_rate)
    usage = response.usage
    assert (response.status, usage.output_text_tokens, usage.output_audio_tokens) == (
        status,
        text_tokens,
        audio_tokens,
    )
    # Each word of the reply at most once (with its space); the base asked for 10 to 83 million.
    assert tokens.chars <= len(REPLY)
