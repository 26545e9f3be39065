"""``POST /v1/audio/speech``: the JSON request checked as the live service checks it, and the engine's
piper speech shaped as the answer: the audio bytes in ``response_format`` (``stream_format="audio"``,
the default) or ``speech.audio.delta`` / ``speech.audio.done`` server-sent events
(``stream_format="sse"``, not for ``tts-1`` / ``tts-1-hd``).

Shapes after ``openai/types/audio/speech_create_params.py``. Audio is PCM16 mono 24 kHz inside the
engine; ``pcm`` is those samples raw (as live), the other formats are ``chat.audio.encode_audio``'s
(``mp3`` LAME, ``opus`` in Ogg, ``aac`` in ADTS, ``flac``, ``wav``), bit-exact: same request, same bytes
(with a seed, piper's noise is off). Voices are the Realtime voices of the catalogue, ``fable`` /
``nova`` / ``onyx`` spoken by their stand-ins (``chat.audio.VOICE_STAND_INS``), a custom voice
(``{"id": "voice_…"}``) by ``alloy`` (ours). ``speed`` 0.25–4.0: piper speaks up to 1.5 itself, faster
speech is piper's at 1.5 time-stretched (WSOLA, pitch kept). ``instructions`` are accepted and do not
change the voice. Raw ``pcm`` streams sentence by sentence, as bytes or as events (the first bytes leave
once the first sentence is spoken); the other formats are encoded whole, then sent in pieces.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mockengine.chat import errors
from mockengine.chat.audio import CHAT_VOICES, RATE_HZ, VOICE_STAND_INS, encode_audio, output_audio_tokens
from mockengine.chat.errors import ChatError
from mockengine.engines.pitch import time_stretch
from mockengine.engines.sentences import split_sentences
from mockengine.engines.tokens import TokenCounter
from mockengine.engines.tts import MAX_SPEED, Synthesizer

SPEECH_MODELS = ("tts-1", "tts-1-hd", "gpt-4o-mini-tts", "gpt-4o-mini-tts-2025-12-15")
# tts-1 and tts-1-hd are billed by character and cannot stream events (the SDK's docstring).
NO_SSE_MODELS = ("tts-1", "tts-1-hd")
SPEECH_FORMATS = ("mp3", "opus", "aac", "flac", "wav", "pcm")
STREAM_FORMATS = ("sse", "audio")
MAX_INPUT_CHARS = 4096
MIN_SPEECH_SPEED = 0.25
MAX_SPEECH_SPEED = 4.0
CUSTOM_VOICE_STAND_IN = "alloy"
# The Content-Type of each format's answer, as live.
CONTENT_TYPES = {
    "mp3": "audio/mpeg",
    "opus": "audio/opus",
    "aac": "audio/aac",
    "flac": "audio/flac",
    "wav": "audio/wav",
    "pcm": "audio/pcm",
}
# Streamed pieces: 100 ms of PCM16 (a multiple of 3 bytes, so SSE pieces' base64 joins cleanly).
STREAM_PIECE_BYTES = 4_800


@dataclass(frozen=True)
class SpeechRequest:
    """One checked request. ``voice``: the catalogue voice that speaks; ``asked_voice``: as sent."""

    model: str
    input: str
    voice: str
    asked_voice: str
    instructions: str | None
    response_format: str
    speed: float
    stream_format: str

    @property
    def content_type(self) -> str:
        return "text/event-stream" if self.stream_format == "sse" else CONTENT_TYPES[self.response_format]


def parse_request(body: Any) -> SpeechRequest:
    """The JSON body, checked; ChatError 400 (the live wording where known) for what the live service
    refuses."""
    if not isinstance(body, dict):
        raise errors.malformed_json()
    model = body.get("model")
    if model is None:
        raise errors.missing_parameter("model")
    if not isinstance(model, str) or model not in SPEECH_MODELS:
        raise errors.invalid_enum("model", model, SPEECH_MODELS)
    text = body.get("input")
    if text is None:
        raise errors.missing_parameter("input")
    if not isinstance(text, str):
        raise ChatError(400, "Invalid type for 'input': expected a string.", "input", "invalid_type")
    if len(text) > MAX_INPUT_CHARS:
        raise ChatError(
            400,
            f"Invalid 'input': string too long. Expected a string with maximum length {MAX_INPUT_CHARS}, "
            f"but got a string with length {len(text)} instead.",
            "input",
            "string_above_max_length",
        )
    asked, voice = _voice(body.get("voice"))
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise ChatError(
            400, "Invalid type for 'instructions': expected a string.", "instructions", "invalid_type"
        )
    # null is "not given" (docs/client-compatibility.md), as for `instructions` above and every optional
    # Chat Completions parameter: an OpenAPI-generated client sends its unset fields so.
    fmt = _given(body, "response_format", "mp3")
    if fmt not in SPEECH_FORMATS:
        raise errors.invalid_enum("response_format", fmt, SPEECH_FORMATS)
    speed = _given(body, "speed", 1.0)
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or math.isnan(speed):
        raise ChatError(400, "Invalid type for 'speed': expected a number.", "speed", "invalid_type")
    if speed < MIN_SPEECH_SPEED:
        raise errors.number_below_minimum("speed", MIN_SPEECH_SPEED, speed)
    if speed > MAX_SPEECH_SPEED:
        raise errors.number_above_maximum("speed", MAX_SPEECH_SPEED, speed)
    stream_format = _given(body, "stream_format", "audio")
    if stream_format not in STREAM_FORMATS:
        raise errors.invalid_enum("stream_format", stream_format, STREAM_FORMATS)
    if stream_format == "sse" and model in NO_SSE_MODELS:
        # The rule is the SDK's docstring; wording ours.
        raise ChatError(
            400,
            f"stream_format 'sse' is not supported for model '{model}'. Use 'audio' instead.",
            "stream_format",
            "unsupported_value",
        )
    return SpeechRequest(model, text, voice, asked, instructions, fmt, float(speed), stream_format)


def _given(body: dict[str, Any], name: str, default: Any) -> Any:
    value = body.get(name)
    return default if value is None else value


def _voice(voice: Any) -> tuple[str, str]:
    """(voice as asked, catalogue voice) for a voice name or a custom voice ``{"id": …}``."""
    if voice is None:
        raise errors.missing_parameter("voice")
    if isinstance(voice, dict):
        voice_id = voice.get("id")
        if not isinstance(voice_id, str) or not voice_id:
            raise errors.missing_parameter("voice.id")
        return voice_id, CUSTOM_VOICE_STAND_IN
    if voice not in CHAT_VOICES:
        raise errors.invalid_enum("voice", voice, CHAT_VOICES)
    return voice, VOICE_STAND_INS.get(voice, voice)


def sentences(request: SpeechRequest) -> list[str]:
    """The input's sentences, in the order they are spoken (piper speaks one at a time)."""
    return split_sentences(request.input)


def speak(request: SpeechRequest, synthesizer: Synthesizer, text: str | None = None) -> bytes:
    """The request's input (or ``text``, one of its sentences) spoken as PCM16 mono 24 kHz (blocking:
    piper, and WSOLA above speed 1.5)."""
    piper_speed = min(request.speed, MAX_SPEED)
    spoken = request.input if text is None else text
    segments = synthesizer.synthesize(spoken, voice=request.voice, speed=piper_speed)
    pcm16 = b"".join(segment.pcm16 for segment in segments)
    if request.speed <= MAX_SPEED or not pcm16:
        return pcm16
    samples = np.frombuffer(pcm16, dtype="<i2").astype(np.float32) / 32768.0
    stretched = time_stretch(samples, piper_speed / request.speed, RATE_HZ)
    return np.clip(np.round(stretched * 32768.0), -32768, 32767).astype("<i2").tobytes()


def encoded(request: SpeechRequest, pcm16: bytes) -> bytes:
    """The speech in the asked ``response_format`` (blocking: codecs)."""
    return encode_audio(pcm16, "pcm16" if request.response_format == "pcm" else request.response_format)


def usage(request: SpeechRequest, pcm16_bytes: int, tokens: TokenCounter) -> dict[str, int]:
    """``speech.audio.done``'s usage for ``pcm16_bytes`` of speech (PCM16 24 kHz): input text tokens
    (input and instructions), output audio tokens (one per 50 ms, the Realtime side's rule)."""
    input_tokens = tokens.count(request.input) + tokens.count(request.instructions or "")
    output_tokens = output_audio_tokens(pcm16_bytes / (RATE_HZ * 2 / 1000))
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
    }


def pieces(data: bytes, size: int = STREAM_PIECE_BYTES) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def delta_events(audio: bytes) -> list[dict[str, Any]]:
    """``speech.audio.delta`` events (``audio``: base64 of the next piece of the audio)."""
    return [
        {"type": "speech.audio.delta", "audio": base64.b64encode(piece).decode()} for piece in pieces(audio)
    ]


def done_event(usage_: dict[str, int]) -> dict[str, Any]:
    return {"type": "speech.audio.done", "usage": usage_}


def sse_events(audio: bytes, usage_: dict[str, int]) -> list[dict[str, Any]]:
    """``speech.audio.delta`` events (``audio``: base64 of the next piece of the encoded audio), then
    ``speech.audio.done`` with the usage."""
    return [*delta_events(audio), done_event(usage_)]
