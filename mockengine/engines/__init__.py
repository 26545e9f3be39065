"""Model engines: faster-whisper speech-to-text, piper text-to-speech, token counting, and fakes.

This is the only package that touches model libraries; both are imported lazily, when a real engine
is constructed, so the fakes and the catalogue load without them.
"""

from mockengine.engines.errors import ModelNotFound, VoiceCatalogError
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.sentences import normalize_text, split_sentences
from mockengine.engines.stt import Transcriber, Transcript, WhisperTranscriber, resolve_whisper_model
from mockengine.engines.tokens import ASSISTANT_AUDIO_MS_PER_TOKEN, USER_AUDIO_MS_PER_TOKEN, TokenCounter
from mockengine.engines.tts import (
    OUTPUT_RATE_HZ,
    PiperSynthesizer,
    SpeechSegment,
    Synthesizer,
    resolve_piper_voice,
)
from mockengine.engines.voices import VOICE_NAMES, VoiceProfile, load_voice_catalog

__all__ = [
    "ASSISTANT_AUDIO_MS_PER_TOKEN",
    "OUTPUT_RATE_HZ",
    "USER_AUDIO_MS_PER_TOKEN",
    "VOICE_NAMES",
    "FakeSynthesizer",
    "FakeTranscriber",
    "ModelNotFound",
    "PiperSynthesizer",
    "SpeechSegment",
    "Synthesizer",
    "TokenCounter",
    "Transcriber",
    "Transcript",
    "VoiceCatalogError",
    "VoiceProfile",
    "WhisperTranscriber",
    "load_voice_catalog",
    "normalize_text",
    "resolve_piper_voice",
    "resolve_whisper_model",
    "split_sentences",
]
