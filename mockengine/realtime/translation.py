"""The core of a Realtime translation session (``/v1/realtime/translations``): its configuration, the
200 ms input frames, phrase segmentation and the frame-synchronous output schedule. No I/O: the shell
(``mockengine.server.translation_ws``) feeds it client bytes, runs whisper and piper on the phrases it
returns and writes the events it builds.

Source: openai-python 3.60 ``types/realtime/realtime_translation_*.py`` and ``resources/realtime/
translations/`` (the event and session shapes quoted below), the guide
https://developers.openai.com/api/docs/guides/realtime-translation and the API reference pages
"Translation client events" / "Translation server events".

What the real service documents, and the mock does:

- Input is base64 24 kHz PCM16 mono, consumed in 200 ms frames: a shorter append is buffered until a
  frame is whole, a longer one is split into frames enqueued back to back (:class:`FrameBuffer`).
- "Model time" is input audio time: a client that stops appending and resumes later is contiguous with
  what it sent before. ``elapsed_ms`` is that time at the end of the frame an event came from, so it
  advances in 200 ms steps and several deltas may share one.
- Transcript deltas are append-only fragments with no unconditional spaces between them: a word after
  the first carries its own leading space.
- ``session.input_transcript.delta`` only while ``audio.input.transcription`` is configured.

What the mock chooses (the live behaviour is not public; docs/translation.md says so too):

- Phrases: webrtcvad (``mockengine.audio.vad``) classifies each 20 ms of a frame; a frame with at least
  :data:`SPEECH_SUBFRAMES_MIN` speech sub-frames is speech. A phrase starts at a speech frame (with one
  frame of lead-in) and ends after :data:`PAUSE_MS` of non-speech, or at :data:`MAX_PHRASE_MS` so a
  monologue without pauses still streams.
- "Translation" is identity: the output transcript is the words whisper heard; piper speaks them.
- Output is frame-synchronous: each input frame consumed releases at most one 200 ms chunk of output
  audio (and the transcript words whose speech starts in it), stamped with that frame's ``elapsed_ms``.
  Output therefore flows at the pace the client streams input (real time for a live microphone), and
  a phrase's output starts in the frame that ended it (:data:`PAUSE_MS` after the speech). Silence
  produces no events. ``session.close`` pads the pending partial frame with silence, ends the open
  phrase and then runs silent frames until every output chunk is out.
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass
from typing import Any

from mockengine.audio.pcm import BYTES_PER_SAMPLE, INPUT_RATE_HZ
from mockengine.audio.vad import FRAME_MS as VAD_FRAME_MS
from mockengine.audio.vad import FrameClassifier
from mockengine.protocol import errors
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.schema_errors import json_type_name
from mockengine.protocol.session_schema import TRANSCRIPTION_MODELS

TRANSLATION_MODELS = ("gpt-realtime-translate",)
DEFAULT_OUTPUT_LANGUAGE = "en"  # ours: whisper tiny.en hears English, and the identity translation says it
# The languages gpt-realtime-translate speaks ("13 output languages", OpenAI's cookbook "Build Live
# Translation Apps with gpt-realtime-translate", whose demos validate these codes before calling the API),
# in its order.
# Any other value of ``audio.output.language`` (another language, a region tag "en-US", upper case) is
# refused as an enum is: invalid_value with the list (the live wording for this field is not public).
OUTPUT_LANGUAGES = ("es", "pt", "fr", "ja", "ru", "zh", "de", "ko", "hi", "id", "vi", "it", "en")

FRAME_MS = 200
FRAME_SAMPLES = INPUT_RATE_HZ * FRAME_MS // 1000
FRAME_BYTES = FRAME_SAMPLES * BYTES_PER_SAMPLE
OUTPUT_RATE_HZ = 24_000  # piper's audio as the engine shapes it (engines/tts.py)
OUTPUT_CHUNK_BYTES = OUTPUT_RATE_HZ * FRAME_MS // 1000 * BYTES_PER_SAMPLE

SPEECH_SUBFRAMES_MIN = 3  # of the 10 webrtcvad frames in 200 ms
PAUSE_MS = 600
MAX_PHRASE_MS = 6000
LEAD_IN_FRAMES = 1

CLIENT_EVENT_TYPES = ["session.update", "session.input_audio_buffer.append", "session.close"]
NOISE_REDUCTION_TYPES = ("near_field", "far_field")


def default_translation_session(session_id: str, model: str, expires_at: int) -> dict[str, Any]:
    """``RealtimeTranslationSession``: ``{id, type: "translation", model, expires_at (unix s), audio:
    {input: {noise_reduction, transcription}, output: {language}}}``; both input options off."""
    return {
        "id": session_id,
        "type": "translation",
        "model": model,
        "expires_at": expires_at,
        "audio": {
            "input": {"noise_reduction": None, "transcription": None},
            "output": {"language": DEFAULT_OUTPUT_LANGUAGE},
        },
    }


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise errors.invalid_type(path, "an object", json_type_name(value))
    return value


def _only(obj: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
    for key in obj:
        if key not in allowed:
            raise errors.unknown_parameter(f"{path}.{key}")


def merge_translation_session(
    current: dict[str, Any], update: Any, *, path: str = "session", creating: bool = False
) -> dict[str, Any]:
    """``current`` with ``update`` (a ``RealtimeTranslationSessionUpdateRequest``, or with ``creating`` a
    ``RealtimeTranslationSessionCreateRequest``) applied; ``current`` is not changed.

    Raises :class:`ProtocolError` (param = the offending path): ``unknown_parameter``, ``invalid_type``,
    ``invalid_value`` (a noise reduction type, a strength outside [0, 1], a transcription model the
    engine does not know), ``missing_required_parameter`` (noise reduction turned on without ``type``,
    transcription without ``model``), and on an update ``invalid_request_error`` code
    ``immutable_parameter`` for a ``type`` other than the session's (the wording is ours). An update's
    ``model`` is taken and changes nothing: the session keeps the model it was created with, as a
    voice-agent session does (openai-python's ``SessionUpdateEvent``: "any field except for ``voice`` and
    ``model``"; docs/translation.md)."""
    update = _object(update, path)
    merged = copy.deepcopy(current)
    _only(update, ("audio", "model", "type"), path)
    for field in ("type", "model"):
        if field not in update:
            continue
        value = update[field]
        if not creating and field == "model":
            continue  # kept, as on /v1/realtime: refusing it would break a client naming its model anyway
        if creating and field == "model":
            if not isinstance(value, str):
                raise errors.invalid_type(f"{path}.model", "a string", json_type_name(value))
            if value not in TRANSLATION_MODELS:
                raise unsupported_translation_model(value, f"{path}.model")
            merged["model"] = value
        elif value != current[field]:
            raise ProtocolError(
                "immutable_parameter",
                f"Cannot change '{path}.{field}' of a translation session: it is set when the session is "
                f"created (current value: '{current[field]}').",
                f"{path}.{field}",
            )
    if "audio" not in update:
        return merged
    audio = _object(update["audio"], f"{path}.audio")
    _only(audio, ("input", "output"), f"{path}.audio")
    if "input" in audio:
        audio_in = _object(audio["input"], f"{path}.audio.input")
        _only(audio_in, ("noise_reduction", "transcription"), f"{path}.audio.input")
        target = merged["audio"]["input"]
        if "noise_reduction" in audio_in:
            target["noise_reduction"] = _noise_reduction(
                audio_in["noise_reduction"], target["noise_reduction"], f"{path}.audio.input.noise_reduction"
            )
        if "transcription" in audio_in:
            target["transcription"] = _transcription(
                audio_in["transcription"], f"{path}.audio.input.transcription"
            )
    if "output" in audio:
        audio_out = _object(audio["output"], f"{path}.audio.output")
        _only(audio_out, ("language",), f"{path}.audio.output")
        if "language" in audio_out:
            language = audio_out["language"]
            if not isinstance(language, str):
                raise errors.invalid_type(
                    f"{path}.audio.output.language", "a string", json_type_name(language)
                )
            if language not in OUTPUT_LANGUAGES:
                raise errors.invalid_value(language, OUTPUT_LANGUAGES, f"{path}.audio.output.language")
            merged["audio"]["output"]["language"] = language
    return merged


def _noise_reduction(value: Any, current: dict[str, Any] | None, path: str) -> dict[str, Any] | None:
    """Null turns it off; an object without ``type`` keeps the current type (refused while off), and
    without ``strength`` keeps the current strength (1 when first turned on), as the SDK documents."""
    if value is None:
        return None
    value = _object(value, path)
    _only(value, ("type", "strength"), path)
    if "type" in value:
        if value["type"] not in NOISE_REDUCTION_TYPES:
            raise errors.invalid_value(value["type"], NOISE_REDUCTION_TYPES, f"{path}.type")
        kind = value["type"]
    elif current is not None:
        kind = current["type"]
    else:
        raise errors.missing_parameter(f"{path}.type")
    strength = current["strength"] if current is not None else 1.0
    if "strength" in value:
        raw = value["strength"]
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise errors.invalid_type(f"{path}.strength", "a number", json_type_name(raw))
        if not 0 <= raw <= 1:
            raise ProtocolError(
                "decimal_out_of_range",
                f"Invalid '{path}.strength': expected a value between 0 and 1, but got {raw} instead.",
                f"{path}.strength",
            )
        strength = raw
    return {"type": kind, "strength": strength}


def _transcription(value: Any, path: str) -> dict[str, Any] | None:
    if value is None:
        return None
    value = _object(value, path)
    _only(value, ("model",), path)
    if "model" not in value:
        raise errors.missing_parameter(f"{path}.model")
    model = value["model"]
    if model not in TRANSCRIPTION_MODELS:
        raise errors.invalid_value(model, TRANSCRIPTION_MODELS, f"{path}.model")
    return {"model": model}


def unsupported_translation_model(model: str, param: str | None) -> ProtocolError:
    """A model that is not a translation model on the translation endpoint (ours: the live wording is
    not public). A voice-agent model gets the way to its own endpoint."""
    message = f'Model "{model}" is not supported for realtime translation; use "gpt-realtime-translate".'
    if model.startswith(("gpt-realtime", "gpt-4o-realtime", "gpt-4o-mini-realtime", "gpt-audio")):
        message += " Voice-agent models connect to /v1/realtime."
    return ProtocolError("invalid_model", message, param)


@dataclass(frozen=True)
class Phrase:
    """One stretch of speech: its 24 kHz PCM16 audio and the input time span it covers (ms, frame
    aligned). ``end_ms`` is the end of the frame that closed it: its output's first ``elapsed_ms``."""

    pcm16: bytes
    start_ms: int
    end_ms: int


class FrameBuffer:
    """Client bytes → whole 200 ms frames (:data:`FRAME_BYTES`); the remainder waits for more."""

    def __init__(self) -> None:
        self._pending = bytearray()

    @property
    def pending_bytes(self) -> int:
        return len(self._pending)

    def push(self, pcm16: bytes) -> list[bytes]:
        self._pending += pcm16
        whole = len(self._pending) // FRAME_BYTES
        frames = [bytes(self._pending[i * FRAME_BYTES : (i + 1) * FRAME_BYTES]) for i in range(whole)]
        del self._pending[: whole * FRAME_BYTES]
        return frames

    def flush(self) -> bytes | None:
        """The pending partial frame padded with silence to a whole frame (None when nothing is pending;
        an odd trailing byte is dropped)."""
        if not self._pending:
            return None
        usable = len(self._pending) - len(self._pending) % BYTES_PER_SAMPLE
        frame = bytes(self._pending[:usable]) + bytes(FRAME_BYTES - usable)
        self._pending.clear()
        return frame


class PhraseSegmenter:
    """200 ms frames → phrases: a pause of ``pause_ms`` or a length of ``max_phrase_ms`` ends one.

    ``elapsed_ms`` is the input time at the end of the last frame pushed (a multiple of 200)."""

    def __init__(self, pause_ms: int = PAUSE_MS, max_phrase_ms: int = MAX_PHRASE_MS, threshold: float = 0.5):
        self._classifier = FrameClassifier(threshold, VAD_FRAME_MS)
        self._pause_frames = max(1, pause_ms // FRAME_MS)
        self._max_frames = max(1, max_phrase_ms // FRAME_MS)
        self._previous: bytes | None = None  # the lead-in frame for a phrase starting next
        self._frames: list[bytes] = []
        self._start_ms = 0
        self._speech_frames = 0
        self._silent_run = 0
        self.elapsed_ms = 0

    @property
    def in_phrase(self) -> bool:
        return bool(self._frames)

    def is_speech(self, frame: bytes) -> bool:
        return sum(f.is_speech for f in self._classifier.push(frame)) >= SPEECH_SUBFRAMES_MIN

    def push(self, frame: bytes, speech: bool | None = None) -> Phrase | None:
        """One whole frame (``speech``: its classification, for tests; None asks the VAD)."""
        if speech is None:
            speech = self.is_speech(frame)
        frame_start_ms = self.elapsed_ms
        self.elapsed_ms += FRAME_MS
        if not self._frames:
            if not speech:
                self._previous = frame
                return None
            lead_in = [] if self._previous is None else [self._previous]
            self._frames = [*lead_in, frame]
            self._start_ms = frame_start_ms - FRAME_MS * len(lead_in)
            self._speech_frames, self._silent_run = 1, 0
            self._previous = None
            return self._close_if_long()
        self._frames.append(frame)
        if speech:
            self._speech_frames += 1
            self._silent_run = 0
        else:
            self._silent_run += 1
            if self._silent_run >= self._pause_frames:
                return self._close()
        return self._close_if_long()

    def _close_if_long(self) -> Phrase | None:
        return self._close() if len(self._frames) >= self._max_frames else None

    def _close(self) -> Phrase:
        phrase = Phrase(b"".join(self._frames), self._start_ms, self.elapsed_ms)
        self._frames = []
        self._previous = None
        return phrase

    def flush(self) -> Phrase | None:
        """The open phrase, ended now (``session.close``); None when none is open."""
        return self._close() if self._frames else None


@dataclass(frozen=True)
class OutputChunk:
    """At most one frame of output: the transcript text whose speech starts in it, then its audio."""

    text: str
    pcm16: bytes


def schedule_output(segments: list[tuple[str, bytes]], leading_space: bool) -> list[OutputChunk]:
    """Cut spoken sentences (``(text, 24 kHz PCM16)`` pairs, piper's segments) into 200 ms chunks, each
    carrying the words whose speech starts in it. A word's start is placed by its character offset
    within its sentence's audio (piper gives no word timings). Words after the first carry a leading
    space; ``leading_space``: the first too (it continues an earlier phrase's transcript)."""
    audio = b"".join(pcm for _, pcm in segments)
    n_chunks = max(1, -(-len(audio) // OUTPUT_CHUNK_BYTES))
    texts = [""] * n_chunks
    offset_bytes = 0
    first = True
    for text, pcm in segments:
        words = text.split()
        position = 0
        for word in words:
            position = text.index(word, position)
            at = offset_bytes + len(pcm) * position // max(1, len(text))
            index = min(n_chunks - 1, at // OUTPUT_CHUNK_BYTES)
            texts[index] += (" " if leading_space or not first else "") + word
            first = False
            position += len(word)
        offset_bytes += len(pcm)
    return [
        OutputChunk(texts[i], audio[i * OUTPUT_CHUNK_BYTES : (i + 1) * OUTPUT_CHUNK_BYTES])
        for i in range(n_chunks)
    ]


class OutputQueue:
    """Output chunks waiting for input frames: each frame consumed takes at most one."""

    def __init__(self) -> None:
        self._chunks: deque[OutputChunk] = deque()

    def __len__(self) -> int:
        return len(self._chunks)

    def extend(self, chunks: list[OutputChunk]) -> None:
        self._chunks.extend(chunks)

    def take(self) -> OutputChunk | None:
        return self._chunks.popleft() if self._chunks else None


def transcript_deltas(text: str, leading_space: bool) -> list[str]:
    """Whisper's text as append-only word deltas (a leading space on each but a session's first)."""
    words = text.split()
    return [(" " if leading_space or i else "") + word for i, word in enumerate(words)]
