"""Real speech for the framework tests, streamed at real-time pace the way a microphone would."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from tests.speech import DATA, load_wav_24k, question

CHUNK_MS = 20
BYTES_PER_MS = 48  # PCM16 mono 24 kHz


def spoken_question() -> tuple[bytes, str]:
    """``What is the capital of France?`` (espeak-ng speech, not the engine's voice) and its text."""
    pcm, label = question()
    return pcm, label["text"]


def other_speaker() -> bytes:
    """A second utterance, for speaking over a reply."""
    return load_wav_24k(DATA / "utterances" / "06_my_sister_lives_in_chicago.wav")


async def stream(send: Callable[[bytes], Awaitable[None]], pcm: bytes, silence_ms: int = 0) -> None:
    """``pcm`` and then ``silence_ms`` of silence in 20 ms chunks, one chunk every 20 ms."""
    audio = pcm + bytes(silence_ms * BYTES_PER_MS)
    step = CHUNK_MS * BYTES_PER_MS
    loop = asyncio.get_running_loop()
    start = loop.time()
    for index, offset in enumerate(range(0, len(audio), step)):
        await send(audio[offset : offset + step])
        await asyncio.sleep(max(0.0, start + (index + 1) * CHUNK_MS / 1000 - loop.time()))
