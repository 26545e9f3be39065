"""Real speech for the framework tests, streamed at real-time pace the way a microphone would."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable

from tests.speech import DATA, load_wav_24k, question

CHUNK_MS = 20
BYTES_PER_MS = 48  # PCM16 mono 24 kHz


def spoken_question() -> tuple[bytes, str]:
    """``What is the capital of France?`` (espeak-ng speech, not the engine's voice) and its text."""
    pcm, label = question()
    return pcm, label["text"]


@functools.cache
def clear_question() -> bytes:
    """``What is the capital of France?`` in the engine's piper voice ``sage``, a second of silence
    before it and none after (PCM16 mono 24 kHz), for turns that semantic_vad ends.

    semantic_vad's transcript of a turn is whisper's on the speech and the first 100 ms of the pause (its
    probe, ``realtime/turn_detection.py``). On that span whisper tiny.en hears the espeak-ng clip of
    :func:`spoken_question` as "What is the capital and friends?" where ctranslate2 computes with oneDNN
    (its default on AMD CPUs) and "... of France?" where it computes with MKL (its default on Intel CPUs;
    ``CT2_USE_MKL=1`` forces it, at ~8 x the time on AMD): a test of a framework's plumbing must not hang
    on that. ``sage``'s clip is heard right on both, with 0 to 400 ms of the pause (``echo``'s and ``ash``'s
    are not: "capital of friends")."""
    from mockengine.engines import PiperSynthesizer, load_voice_catalog
    from mockengine.engines.cache import ByteLRU

    piper = PiperSynthesizer(load_voice_catalog(), cache=ByteLRU(0))
    segments = piper.synthesize("What is the capital of France?", voice="sage")
    return bytes(1000 * BYTES_PER_MS) + b"".join(segment.pcm16 for segment in segments)


def other_speaker() -> bytes:
    """A second utterance, for speaking over a reply."""
    return load_wav_24k(DATA / "utterances" / "06_my_sister_lives_in_chicago.wav")


async def stream(
    send: Callable[[bytes], Awaitable[None]],
    pcm: bytes,
    silence_ms: int = 0,
    bytes_per_ms: int = BYTES_PER_MS,
) -> float:
    """``pcm`` and then ``silence_ms`` of silence in 20 ms chunks, one chunk every 20 ms (PCM16 mono at
    24 kHz, or at the rate ``bytes_per_ms`` says: 32 for 16 kHz). Returns the loop time the first chunk
    went at: the audio at ``t`` ms of ``pcm`` went at that time + ``t`` / 1000."""
    audio = pcm + bytes(silence_ms * bytes_per_ms)
    step = CHUNK_MS * bytes_per_ms
    loop = asyncio.get_running_loop()
    start = loop.time()
    for index, offset in enumerate(range(0, len(audio), step)):
        await send(audio[offset : offset + step])
        await asyncio.sleep(max(0.0, start + (index + 1) * CHUNK_MS / 1000 - loop.time()))
    return start


async def engine_speech(http_url: str, text: str, voice: str = "echo") -> bytes:
    """``text`` spoken by the engine's own ``/v1/audio/speech`` (PCM16 mono 24 kHz), a second of silence
    before it: a user's question in another voice than the replies'."""
    from openai import AsyncOpenAI

    async with AsyncOpenAI(api_key="sk-test", base_url=f"{http_url}/v1") as client:
        reply = await client.audio.speech.create(
            model="tts-1", voice=voice, input=text, response_format="pcm"
        )
    return bytes(1000 * BYTES_PER_MS) + reply.content


def speech_end_ms(pcm16_24k: bytes, threshold: int = 300) -> int:
    """Where the speech in ``pcm16_24k`` ends: the end of its last 20 ms chunk louder than ``threshold``
    (RMS of the int16 samples)."""
    import numpy as np

    samples = np.frombuffer(pcm16_24k, dtype="<i2").astype(np.float64)
    step = CHUNK_MS * BYTES_PER_MS // 2
    loud = [
        index
        for index in range(0, len(samples), step)
        if np.sqrt(np.mean(samples[index : index + step] ** 2)) > threshold
    ]
    return (loud[-1] + step) * 1000 // 24_000 if loud else 0


def to_16k(pcm16_24k: bytes) -> bytes:
    """24 kHz PCM16 as 16 kHz (soxr), the rate Silero VAD takes."""
    import numpy as np
    import soxr

    samples = np.frombuffer(pcm16_24k, dtype="<i2").astype(np.float32) / 32768.0
    resampled = soxr.resample(samples, 24_000, 16_000)
    return (np.clip(np.rint(resampled * 32768.0), -32768, 32767).astype("<i2")).tobytes()
