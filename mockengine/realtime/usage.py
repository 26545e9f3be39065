"""How a response's tokens are counted: the ``usage`` in ``response.done`` and ``rate_limits.updated``.

The rule is a documented approximation, not measured: text tokens counted with whisper's tokenizer; user
audio 1 token per 100 ms, assistant audio 1 token per 50 ms; 85 tokens per image; no cached tokens.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from mockengine.engines.tokens import ASSISTANT_AUDIO_MS_PER_TOKEN, USER_AUDIO_MS_PER_TOKEN
from mockengine.realtime.conversation import Item
from mockengine.realtime.response import Usage

BYTES_PER_MS = 48  # PCM16 mono 24 kHz
IMAGE_TOKENS = 85
RATE_LIMIT_TOKENS = 15_000_000


class TokenCounting(Protocol):
    """``engines.tokens.TokenCounter``: counts for usage, and the tokens themselves for logprobs."""

    def count(self, text: str) -> int: ...

    def token_bytes(self, text: str) -> list[bytes]: ...


def text_tokens(tokens: TokenCounting, text: str) -> int:
    """Tokens in ``text`` (0 for the empty string, without asking the tokenizer)."""
    return int(tokens.count(text)) if text else 0


def audio_tokens(duration_ms: float, ms_per_token: float) -> int:
    """Tokens for ``duration_ms`` of audio, rounded up (a started token counts whole)."""
    return int(-(-duration_ms // ms_per_token)) if duration_ms > 0 else 0


def assistant_audio_tokens(pcm16_bytes: int) -> int:
    """Tokens for that many bytes of 24 kHz PCM16 reply audio."""
    return audio_tokens(pcm16_bytes / BYTES_PER_MS, ASSISTANT_AUDIO_MS_PER_TOKEN)


def add_input_usage(usage: Usage, tokens: TokenCounting, instructions: str, context: Iterable[Item]) -> None:
    """Count what the model reads: the instructions and each context item's text, audio and images."""
    usage.input_text_tokens += text_tokens(tokens, instructions)
    for item in context:
        if item.role == "user" and item.audio:
            usage.input_audio_tokens += audio_tokens(item.audio_ms, USER_AUDIO_MS_PER_TOKEN)
        usage.input_text_tokens += text_tokens(tokens, item.text())
        usage.input_image_tokens += IMAGE_TOKENS * len(item.images)


def rate_limits(usage: Usage) -> list[dict[str, Any]]:
    """The ``rate_limits`` list of ``rate_limits.updated`` after a response that used ``usage``."""
    remaining = RATE_LIMIT_TOKENS - usage.wire()["total_tokens"]
    return [{"name": "tokens", "limit": RATE_LIMIT_TOKENS, "remaining": remaining, "reset_seconds": 0.001}]
