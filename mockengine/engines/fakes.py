"""Deterministic stand-ins for the model engines, for fast unit tests of the core and server.

They honour the same protocols and shapes as the real engines (24 kHz PCM16, sentence segments,
ValueError for an unknown voice or bad speed) but load nothing.
"""

from __future__ import annotations

import threading

import numpy as np

from mockengine.engines.cache import ByteLRU
from mockengine.engines.sentences import split_sentences
from mockengine.engines.stt import MIN_TRANSCRIBE_MS, Transcript, duration_ms_24k
from mockengine.engines.tts import MAX_SPEED, MIN_SPEED, OUTPUT_RATE_HZ, SpeechSegment
from mockengine.engines.voices import VOICE_NAMES

_BASE_TONE_HZ = 180.0
_TONE_STEP_HZ = 30.0
_TONE_LEVEL = 0.3


class FakeTranscriber:
    """Returns `script[n]` for the n-th call (0-based) when scripted, else `default`.

    Audio shorter than MIN_TRANSCRIBE_MS gives "" like the real engine. Every call's audio is kept in
    `calls` (in order) so tests can check what was sent. Thread-safe.
    """

    def __init__(self, script: dict[int, str] | None = None, default: str = "") -> None:
        self._script = dict(script or {})
        self._default = default
        self._lock = threading.Lock()
        self.calls: list[bytes] = []

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        """Scripted transcript of PCM16 LE mono 24 kHz audio; language echoes the hint or "en"."""
        with self._lock:
            index = len(self.calls)
            self.calls.append(pcm16_24k)
        duration_ms = duration_ms_24k(pcm16_24k)
        if duration_ms < MIN_TRANSCRIBE_MS:
            return Transcript(text="", duration_ms=duration_ms, language=None)
        text = self._script.get(index, self._default)
        return Transcript(text=text, duration_ms=duration_ms, language=language or "en")


class FakeSynthesizer:
    """A sine tone per sentence: len(sentence) * ms_per_char / speed long, pitch chosen by the voice.

    Voice i in VOICE_NAMES sounds at 180 + 30 * i Hz, so voices are told apart by frequency.
    """

    def __init__(self, ms_per_char: float = 60.0, cache: ByteLRU[bytes] | None = None) -> None:
        """``cache``: sentences kept by (voice, speed, text) as ``PiperSynthesizer`` keeps them, with its
        ``lookup`` for the event loop; None (the default, unlike piper's) keeps nothing, so every reply
        makes its tone in the thread pool. ``tools/append_bench.py`` passes one: a warm piper answers
        the load bench's replies from its cache (docs/cpu.md, eleventh pass), never making a tone."""
        self._ms_per_char = ms_per_char
        self.cache: ByteLRU[bytes] = ByteLRU(0) if cache is None else cache

    def synthesize(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment]:
        """Same contract as PiperSynthesizer.synthesize (segments per sentence, 24 kHz PCM16)."""
        if voice not in VOICE_NAMES:
            raise ValueError(f"unknown voice {voice!r}; expected one of {', '.join(VOICE_NAMES)}")
        if not MIN_SPEED <= speed <= MAX_SPEED:
            raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}, got {speed}")
        frequency_hz = tone_hz(voice)
        return [
            SpeechSegment(text=sentence, pcm16=self._cached_tone(voice, speed, sentence, frequency_hz))
            for sentence in split_sentences(text)
        ]

    def lookup(self, text: str, *, voice: str, speed: float = 1.0) -> list[SpeechSegment] | None:
        """``synthesize``'s result when every sentence is cached, else None (``PiperSynthesizer.lookup``:
        the server then synthesizes in a thread). Always None without a cache."""
        if not self.cache.is_enabled or voice not in VOICE_NAMES or not MIN_SPEED <= speed <= MAX_SPEED:
            return None
        sentences = split_sentences(text)
        if not all(self.cache.peek((voice, speed, sentence)) for sentence in sentences):
            return None
        segments = []
        for sentence in sentences:
            pcm16 = self.cache.get((voice, speed, sentence))
            if pcm16 is None:
                return None  # evicted meanwhile by another thread
            segments.append(SpeechSegment(text=sentence, pcm16=pcm16))
        return segments

    def _cached_tone(self, voice: str, speed: float, sentence: str, frequency_hz: float) -> bytes:
        if not self.cache.is_enabled:
            return self._tone(len(sentence), speed, frequency_hz)
        key = (voice, speed, sentence)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        pcm16 = self._tone(len(sentence), speed, frequency_hz)
        self.cache.put(key, pcm16, len(pcm16) + len(sentence) + 100)
        return pcm16

    def _tone(self, chars: int, speed: float, frequency_hz: float) -> bytes:
        samples = round(chars * self._ms_per_char / speed * OUTPUT_RATE_HZ / 1000.0)
        phase = 2.0 * np.pi * frequency_hz * np.arange(samples) / OUTPUT_RATE_HZ
        return np.round(np.sin(phase) * (_TONE_LEVEL * 32767.0)).astype("<i2").tobytes()


def tone_hz(voice: str) -> float:
    """The FakeSynthesizer tone frequency for a voice name (ValueError if unknown)."""
    return _BASE_TONE_HZ + _TONE_STEP_HZ * VOICE_NAMES.index(voice)


FAKE_TRANSCRIPT = "What is the capital of France?"
