"""Token counting for `usage` fields: text through a local BPE tokenizer, audio by a duration rule.

The real service counts with its own (unpublished) tokenizer; ours only has to be plausible and
deterministic. tiktoken fetches its vocabulary at run time, so we use the GPT-2-style byte-level BPE
`tokenizer.json` that ships inside every faster-whisper model directory instead.
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path
from typing import Literal

import tokenizers

# A documented approximation, not measured: the figures commonly quoted for OpenAI realtime billing are
# about one token per 100 ms of user (input) audio and one per 50 ms of assistant (output) audio.
USER_AUDIO_MS_PER_TOKEN = 100.0
ASSISTANT_AUDIO_MS_PER_TOKEN = 50.0

# Each response counts its whole context again (instructions, every item): the same texts turn after turn.
# Counts depend on the text alone, so recent ones are kept; texts longer than this are counted afresh,
# which bounds the cache at about CACHED_TEXTS × MAX_CACHED_CHARS characters.
CACHED_TEXTS = 1024
MAX_CACHED_CHARS = 16_384

# Fallback when no tokenizer file exists: one token per word run and per punctuation mark.
_FALLBACK_TOKEN = re.compile(r"\w+|[^\w\s]")

AudioDirection = Literal["input", "output"]


class TokenCounter:
    """Counts text and audio tokens.

    With a `tokenizers.Tokenizer` it counts BPE tokens (no special tokens); without one it counts word
    runs and punctuation marks, which undercounts long words but never needs a file.
    """

    def __init__(self, tokenizer: tokenizers.Tokenizer | None = None) -> None:
        self._tokenizer = tokenizer
        self._cached_count = functools.lru_cache(maxsize=CACHED_TEXTS)(self._count)

    @classmethod
    def from_model_dir(cls, model_dir: str | Path | None) -> TokenCounter:
        """Use `<model_dir>/tokenizer.json` if it exists, else the fallback rule."""
        if model_dir is None:
            return cls()
        tokenizer_file = Path(model_dir) / "tokenizer.json"
        if not tokenizer_file.is_file():
            return cls()
        return cls(tokenizers.Tokenizer.from_file(str(tokenizer_file)))

    @property
    def uses_tokenizer(self) -> bool:
        """True when counts come from a real BPE tokenizer rather than the fallback rule."""
        return self._tokenizer is not None

    def count(self, text: str) -> int:
        """Number of text tokens in `text` (0 for empty text)."""
        if not text:
            return 0
        return self._cached_count(text) if len(text) <= MAX_CACHED_CHARS else self._count(text)

    def _count(self, text: str) -> int:
        if self._tokenizer is None:
            return len(_FALLBACK_TOKEN.findall(text))
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    @staticmethod
    def audio_tokens(duration_ms: float, *, direction: AudioDirection = "input") -> int:
        """Audio tokens for `duration_ms` of audio, rounded up; "input" is user audio, "output" assistant.

        Raises ValueError for a negative duration.
        """
        if duration_ms < 0:
            raise ValueError(f"duration_ms must be >= 0, got {duration_ms}")
        ms_per_token = USER_AUDIO_MS_PER_TOKEN if direction == "input" else ASSISTANT_AUDIO_MS_PER_TOKEN
        return math.ceil(duration_ms / ms_per_token)
