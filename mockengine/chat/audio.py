"""Audio in Chat Completions, as the audio models (``gpt-4o-audio-preview``, ``gpt-4o-mini-audio-preview``,
``gpt-audio``, ``gpt-audio-mini``) serve it: which models speak, the ``audio`` output parameter, the input
audio a user message carries, the reply's audio encoded in the asked format, and the ids of earlier
replies' audio a conversation may name again.

Shapes after ``openai/types/chat/``: ``ChatCompletionAudioParam`` (``{"voice", "format"}``),
``ChatCompletionContentPartInputAudioParam`` (``{"type": "input_audio", "input_audio": {"data",
"format"}}``), ``ChatCompletionAudio`` (``{"id", "data", "expires_at", "transcript"}``) and the streamed
``ChoiceDeltaAudio``. Audio is PCM16 mono 24 kHz inside the engine (piper's output, whisper's input);
``wav`` is that in a RIFF header, ``pcm16`` the raw samples, the compressed formats are encoded with
PyAV (``mp3`` LAME, ``flac``, ``opus`` in Ogg, ``aac`` in ADTS), bit-exact so the same speech gives the
same bytes. Everything here blocks (codecs): run it in an executor.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
import time
import wave
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal, cast

import av
import numpy as np

from mockengine.engines.tokens import ASSISTANT_AUDIO_MS_PER_TOKEN, USER_AUDIO_MS_PER_TOKEN

RATE_HZ = 24_000
BYTES_PER_MS = RATE_HZ * 2 // 1000
AUDIO_FORMATS = ("wav", "aac", "mp3", "flac", "opus", "pcm16")  # the SDK's order
INPUT_AUDIO_FORMATS = ("wav", "mp3")
STREAM_AUDIO_FORMATS = ("pcm16",)  # the live service streams raw PCM16 only
AUDIO_ID_PREFIX = "audio_"
AUDIO_ID_LENGTH = 32  # audio_6729f5d7d4a481909ba6ee84f3cf98a3 on the live service
# How long an answer's audio can be named again in a later request (``expires_at``): one hour, our
# choice (the live service's ids have been seen to expire within hours).
AUDIO_EXPIRY_S = 3600
# Streamed audio comes in pieces of this many bytes (200 ms): a multiple of 3 bytes, so the base64 of
# the pieces joins into the base64 of the whole (what the SDK's stream helper does with them).
STREAM_PIECE_BYTES = 9_600
# Model families that speak (and, as on the live service, must hear or speak audio in every request).
AUDIO_MODEL_PREFIXES = ("gpt-4o-audio-preview", "gpt-4o-mini-audio-preview", "gpt-audio")
# Scenario models (``mockengine-NAME``) may speak, and need not.
SCENARIO_MODEL_PREFIX = "mockengine-"
# The voices the Chat Completions audio models take (the SDK's list): the Realtime voices of the
# catalogue, and three older ones that speak here with the catalogue voice nearest in register (ours).
CHAT_VOICES: tuple[str, ...] = ("alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage")
CHAT_VOICES += ("shimmer", "verse", "marin", "cedar")
VOICE_STAND_INS = {"fable": "ballad", "nova": "shimmer", "onyx": "ash"}
# (container, encoder) per compressed format.
_CODECS = {
    "mp3": ("mp3", "libmp3lame"),
    "flac": ("flac", "flac"),
    "opus": ("ogg", "libopus"),
    "aac": ("adts", "aac"),
}

_WORD = re.compile(r"\s*\S+")

AudioSupport = Literal["required", "optional", "none"]


def audio_support(model: str) -> AudioSupport:
    """``required``: an audio model (it refuses a request with audio neither in nor out); ``optional``: a
    scenario model; ``none``: a text model (it refuses audio output)."""
    if model.startswith(AUDIO_MODEL_PREFIXES):
        return "required"
    return "optional" if model.startswith(SCENARIO_MODEL_PREFIX) else "none"


@dataclass(frozen=True)
class AudioOutput:
    """The request's ``audio`` parameter: one of CHAT_VOICES and one of AUDIO_FORMATS."""

    voice: str
    format: str

    @property
    def catalogue_voice(self) -> str:
        """The engine's voice (``voices.yaml``) that speaks ``voice``."""
        return VOICE_STAND_INS.get(self.voice, self.voice)


@dataclass(frozen=True)
class ChoiceAudio:
    """One choice's spoken reply. ``data``: the audio in the asked format; ``pcm16``: the same speech as
    PCM16 24 kHz; ``sentence_ends``: (sentence, end byte in ``pcm16``) in order, for streaming."""

    id: str
    expires_at: int
    transcript: str
    data: bytes
    pcm16: bytes
    sentence_ends: tuple[tuple[str, int], ...]

    @property
    def duration_ms(self) -> float:
        return len(self.pcm16) / BYTES_PER_MS

    @property
    def tokens(self) -> int:
        """Output audio tokens: one per 50 ms, as the Realtime side counts (docs/chat.md, Audio)."""
        return output_audio_tokens(self.duration_ms)

    def wire(self) -> dict[str, object]:
        """``message.audio`` (``ChatCompletionAudio``)."""
        return {
            "id": self.id,
            "data": base64.b64encode(self.data).decode(),
            "expires_at": self.expires_at,
            "transcript": self.transcript,
        }


def input_audio_tokens(duration_ms: float) -> int:
    """Prompt audio tokens: one per 100 ms (rounded up), the Realtime side's rule for user audio."""
    return math.ceil(duration_ms / USER_AUDIO_MS_PER_TOKEN) if duration_ms > 0 else 0


def output_audio_tokens(duration_ms: float) -> int:
    """Reply audio tokens: one per 50 ms (rounded up)."""
    return math.ceil(duration_ms / ASSISTANT_AUDIO_MS_PER_TOKEN) if duration_ms > 0 else 0


# The most spoken input one request may carry, all its parts together: the live transcription models'
# limit (their 400 says "audio duration … seconds is longer than 1500 seconds which is the maximum for
# this model"); the Chat Completions one is not public. Ours: a bound on what one request costs, since a
# body of 72 MB holds hours of low-rate mp3, gigabytes once decoded, and whisper's one stt worker is
# shared with the Realtime sessions.
MAX_INPUT_AUDIO_MS = 1_500_000


class InputAudioTooLong(ValueError):
    """Spoken input past MAX_INPUT_AUDIO_MS (decoding stops there)."""


def decode_input_audio(data: str, fmt: str, max_ms: float = MAX_INPUT_AUDIO_MS) -> bytes:
    """A user's ``input_audio`` (base64 ``wav`` or ``mp3``) as PCM16 mono 24 kHz. Raises ValueError for
    data that is not base64 or not audio of that format (PyAV/FFmpeg cannot read an audio stream), and
    InputAudioTooLong as soon as the decoded audio passes ``max_ms``."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("input audio is not base64") from exc
    return decode_audio_file(raw, fmt, max_ms)


def decode_audio_file(raw: bytes, fmt: str | None = None, max_ms: float = MAX_INPUT_AUDIO_MS) -> bytes:
    """Audio file bytes in container ``fmt`` (None: whatever FFmpeg recognises in them: wav, mp3, mp4/m4a,
    webm, ogg, flac, …) as PCM16 mono 24 kHz, its first audio stream downmixed and resampled. Raises
    ValueError for empty bytes, bytes FFmpeg cannot read, or a file without audio samples, and
    InputAudioTooLong as soon as the decoded audio passes ``max_ms``."""
    if not raw:
        raise ValueError("input audio is empty")
    resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE_HZ)
    pieces: list[bytes] = []
    limit_bytes = max_ms * BYTES_PER_MS
    size = 0
    try:
        with av.open(io.BytesIO(raw), "r", format=fmt) as container:
            if not container.streams.audio:
                raise ValueError("no audio stream")
            for frame in container.decode(audio=0):
                for out in resampler.resample(frame):
                    pieces.append(bytes(out.planes[0])[: out.samples * 2])
                    size += len(pieces[-1])
                if size > limit_bytes:
                    raise InputAudioTooLong(f"input audio is longer than {max_ms / 1000:g} s")
            pieces.extend(bytes(out.planes[0])[: out.samples * 2] for out in resampler.resample(None))
    except (av.FFmpegError, OSError, IndexError) as exc:
        raise ValueError(f"input audio is not {fmt or 'audio'}: {exc}") from exc
    pcm16 = b"".join(pieces)
    if not pcm16:
        raise ValueError("input audio has no samples")
    if len(pcm16) > limit_bytes:
        raise InputAudioTooLong(f"input audio is longer than {max_ms / 1000:g} s")
    return pcm16


def encode_audio(pcm16: bytes, fmt: str) -> bytes:
    """PCM16 mono 24 kHz speech in ``fmt`` (one of AUDIO_FORMATS); the same input gives the same bytes."""
    if fmt == "pcm16":
        return pcm16
    if fmt == "wav":
        out = io.BytesIO()
        with wave.open(out, "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(2)
            handle.setframerate(RATE_HZ)
            handle.writeframes(pcm16)
        return out.getvalue()
    out = io.BytesIO()
    container, stream = _open_encoder(out, fmt)
    with container:
        _mux(container, stream, pcm16)
        _mux(container, stream, None)
    return out.getvalue()


def _open_encoder(file: Any, fmt: str) -> tuple[Any, av.AudioStream]:
    """A container of ``fmt`` (one of ``_CODECS``) writing to ``file``, and its mono 24 kHz stream.
    bitexact: no encoder version in the headers, a fixed Ogg serial number; same speech, same bytes."""
    container_format, encoder = _CODECS[fmt]
    container = av.open(file, "w", format=container_format, options={"fflags": "+bitexact"})
    stream = cast("av.AudioStream", container.add_stream(encoder, rate=RATE_HZ, layout="mono"))
    stream.codec_context.flags |= av.codec.context.Flags.bitexact
    return container, stream


def _mux(container: Any, stream: av.AudioStream, pcm16: bytes | None) -> None:
    """``pcm16`` (PCM16 mono 24 kHz) encoded and muxed; None flushes the encoder."""
    if pcm16 is None:
        packets = stream.encode(None)
    elif pcm16:
        frame = av.AudioFrame.from_ndarray(
            np.frombuffer(pcm16, dtype="<i2").reshape(1, -1), format="s16", layout="mono"
        )
        frame.sample_rate = RATE_HZ
        packets = stream.encode(frame)
    else:
        return
    for packet in packets:
        container.mux(packet)


# Formats whose container is written front to back (no header updated at the end), so the bytes can
# leave sentence by sentence: MP3 frames, Ogg pages, ADTS frames. WAV and FLAC headers hold the length.
STREAMED_ENCODINGS = frozenset(("mp3", "opus", "aac"))


class _Sink:
    """A write-only, unseekable file for the muxer: what it wrote since the last ``take``."""

    def __init__(self) -> None:
        self._written = bytearray()

    def write(self, data: bytes) -> int:
        self._written += data
        return len(data)

    def take(self) -> bytes:
        out = bytes(self._written)
        self._written.clear()
        return out


class StreamEncoder:
    """PCM16 mono 24 kHz in, ``fmt`` (one of STREAMED_ENCODINGS) out as the muxer writes it: ``feed``
    returns the bytes a piece of speech completed (possibly none: an Ogg page fills first), ``finish``
    the rest. Deterministic (bitexact, as ``encode_audio``). The output is unseekable, so an MP3 has no
    Xing header (``encode_audio``'s has one): a stream's bytes, as a streamed answer's are. Blocking
    (codecs); one thread at a time."""

    def __init__(self, fmt: str) -> None:
        self._sink = _Sink()
        self._container, self._stream = _open_encoder(self._sink, fmt)

    def feed(self, pcm16: bytes) -> bytes:
        _mux(self._container, self._stream, pcm16)
        return self._sink.take()

    def finish(self) -> bytes:
        _mux(self._container, self._stream, None)
        self._container.close()
        return self._sink.take()


@dataclass(frozen=True)
class HeardAudio:
    """What an earlier answer said: its transcript and length (ms), until ``expires_at`` (Unix s)."""

    transcript: str
    duration_ms: float
    expires_at: int


class AudioStore:
    """The audio ids the engine has answered with, newest ``capacity`` kept, until they expire: an
    assistant message naming one (``audio: {"id": …}``) stands for its transcript. Per engine process;
    used from the event loop only."""

    def __init__(self, capacity: int = 4096) -> None:
        self._capacity = capacity
        self._kept: OrderedDict[str, HeardAudio] = OrderedDict()

    def put(self, audio: ChoiceAudio) -> None:
        self._kept[audio.id] = HeardAudio(audio.transcript, audio.duration_ms, audio.expires_at)
        self._kept.move_to_end(audio.id)
        while len(self._kept) > self._capacity:
            self._kept.popitem(last=False)

    def get(self, audio_id: str, now: float | None = None) -> HeardAudio | None:
        """The audio ``audio_id`` names, or None: never given, forgotten, or expired."""
        kept = self._kept.get(audio_id)
        if kept is None or (time.time() if now is None else now) >= kept.expires_at:
            return None
        return kept


def stream_pieces(audio: ChoiceAudio) -> list[tuple[str, str | bytes]]:
    """The streamed order of one spoken reply: per sentence its transcript (word by word), then the
    audio up to that sentence's end in STREAM_PIECE_BYTES pieces (the last piece of the reply may be
    shorter), as ``("transcript", text)`` / ``("data", pcm16)`` pairs. The pieces add up to
    ``audio.pcm16``; the transcript pieces to ``audio.transcript``."""
    out: list[tuple[str, str | bytes]] = []
    sent = 0
    for index, (sentence, end) in enumerate(audio.sentence_ends):
        words = _WORD.findall(sentence if index == 0 else " " + sentence)
        out.extend(("transcript", word) for word in words)
        last = index == len(audio.sentence_ends) - 1
        while sent < len(audio.pcm16) and (sent + STREAM_PIECE_BYTES <= end or last):
            piece = audio.pcm16[sent : sent + STREAM_PIECE_BYTES]
            out.append(("data", piece))
            sent += len(piece)
    return out
