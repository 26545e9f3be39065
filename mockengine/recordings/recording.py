"""Reading a recording back: one WebSocket session as a script of steps, and its HTTP exchanges.

A session's records become :class:`ScriptStep` s in recorded order. Server events are ``emit`` steps;
every client event but ``input_audio_buffer.append`` is an ``expect`` step (the live client must send
the same kind of event there), and so is an append whose audio was not base64 (refused at the parse
boundary: the replay answers the live refused append with its recorded error, then paces on from it);
a frame that was not JSON is an ``invalid`` expect; and the turn
detection events ``input_audio_buffer.speech_started`` / ``speech_stopped`` become ``vad`` expects when
the recorded client was streaming audio at that point, because the engine's own VAD then decides them on
the live client's audio (docs/record-replay.md, "Turn detection"). Audio references point into the
session's WAV files, which are read once here.
"""

from __future__ import annotations

import base64
import json
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mockengine.recordings.format import EVENTS_FILE, HTTP_DIR, RecordingError, read_lines, read_manifest

VAD_TYPES = ("input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped")
StepKind = Literal["emit", "expect", "vad", "invalid"]


@dataclass(frozen=True)
class ScriptStep:
    kind: StepKind
    ms: float  # since the recorded session opened
    event: dict[str, Any]
    index: int  # position among the session's records (1-based ``seq`` of the journal line)

    @property
    def type(self) -> str:
        return str(self.event.get("type", "<invalid>"))


@dataclass
class RecordedSession:
    name: str
    directory: Path
    steps: list[ScriptStep]
    started_at_s: float  # unix time the recorded session opened
    wavs: dict[str, bytes] = field(default_factory=dict)

    def audio(self, ref: Any) -> bytes:
        """PCM16 24 kHz for an audio reference of the journal (``{"wav", "start_ms", "duration_ms"}``);
        silence of the recorded length for a ``--no-audio`` recording (``{"omitted_base64_chars"}``)."""
        if not isinstance(ref, dict):
            return b""
        if "omitted_base64_chars" in ref:
            return bytes(int(ref["omitted_base64_chars"]) * 3 // 4 // 2 * 2)
        span = self.span(ref)
        if span is None:
            return b""
        name, start, end = span
        return self.wavs[name][start * 2 : end * 2]

    def span(self, ref: Any) -> tuple[str, int, int] | None:
        """Where an audio reference of the journal lies: (its WAV's name, first sample, end sample), the
        end clamped to the WAV; None when it names no WAV of the recording."""
        if not isinstance(ref, dict) or str(ref.get("wav")) not in self.wavs:
            return None
        name = str(ref.get("wav"))
        start = round(float(ref.get("start_ms", 0)) * 24)  # 24 samples a millisecond
        end = min(start + round(float(ref.get("duration_ms", 0)) * 24), len(self.wavs[name]) // 2)
        return name, start, max(start, end)


def load_session(directory: Path) -> RecordedSession:
    """One recorded WebSocket session (a directory holding ``events.jsonl``)."""
    events_file = directory / EVENTS_FILE
    if not events_file.is_file():
        raise RecordingError(f"{directory}: no {EVENTS_FILE}")
    steps: list[ScriptStep] = []
    streaming = False
    started_at_s: float | None = None
    for record in read_lines(events_file):
        if started_at_s is None and "t" in record:
            started_at_s = float(record["t"]) - float(record.get("ms", 0)) / 1000.0
        step, streaming = _step(record, streaming)
        if step is not None:
            steps.append(step)
    wavs = {p.name: _read_wav(p) for p in directory.glob("*.wav")}
    return RecordedSession(directory.name, directory, steps, started_at_s or 0.0, wavs)


def _step(record: dict[str, Any], streaming: bool) -> tuple[ScriptStep | None, bool]:
    source, ms, index = record.get("from"), float(record.get("ms", 0.0)), int(record.get("seq", 0))
    event = record.get("event")
    if source == "client":
        if not isinstance(event, dict):
            return ScriptStep(
                "invalid", ms, {"type": "<invalid>", "raw": record.get("raw")}, index
            ), streaming
        if event.get("type") == "input_audio_buffer.append":
            return (ScriptStep("expect", ms, event, index) if is_refused_append(event) else None), True
        if event.get("type") in ("input_audio_buffer.commit", "input_audio_buffer.clear"):
            streaming = False
        return ScriptStep("expect", ms, event, index), streaming
    if source == "server" and isinstance(event, dict):
        kind: StepKind = "vad" if streaming and event.get("type") in VAD_TYPES else "emit"
        return ScriptStep(kind, ms, event, index), streaming
    return None, streaming


def is_refused_append(event: dict[str, Any]) -> bool:
    """A recorded ``input_audio_buffer.append`` whose ``audio`` the engine could not have taken: the
    journal's ``{"invalid_base64": ...}`` (the ``--no-audio`` one's too), or no string at all, rather
    than a reference to the audio it wrote (``{"wav": ...}`` or ``{"omitted_base64_chars": n}``)."""
    audio = event.get("audio")
    return not (isinstance(audio, dict) and ("wav" in audio or "omitted_base64_chars" in audio))


def _read_wav(path: Path) -> bytes:
    with wave.open(str(path), "rb") as handle:
        return handle.readframes(handle.getnframes())


def session_dirs(directory: Path) -> list[Path]:
    """The recorded WebSocket sessions under ``directory`` (itself when it is one), in recorded order."""
    if (directory / EVENTS_FILE).is_file():
        return [directory]
    return sorted(p.parent for p in directory.glob(f"*/{EVENTS_FILE}"))


def load_exchanges(directory: Path) -> list[dict[str, Any]]:
    """The recorded HTTP exchanges, in recorded order."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((directory / HTTP_DIR).glob("*.json"))]


@dataclass
class Recording:
    """A whole recording: its WebSocket sessions (loaded on first use) and HTTP exchanges."""

    directory: Path
    manifest: dict[str, Any]
    session_paths: list[Path]
    exchanges: list[dict[str, Any]]
    _loaded: dict[Path, RecordedSession] = field(default_factory=dict)
    _served: int = 0

    def session(self, name: str | None = None) -> RecordedSession:
        """The session called ``name``; without a name, the next one in recorded order (the last one
        again once all were served)."""
        if not self.session_paths:
            raise RecordingError(f"{self.directory}: the recording holds no WebSocket session")
        if name is not None:
            path = next((p for p in self.session_paths if p.name == name), None)
            if path is None:
                known = ", ".join(p.name for p in self.session_paths)
                raise RecordingError(f"no recorded session {name!r} in {self.directory} (has: {known})")
        else:
            path = self.session_paths[min(self._served, len(self.session_paths) - 1)]
            self._served += 1
        if path not in self._loaded:
            self._loaded[path] = load_session(path)
        return self._loaded[path]


def load_recording(directory: str | Path) -> Recording:
    """A recording directory (or one session directory of it); RecordingError when it is not one."""
    path = Path(directory)
    manifest = read_manifest(path)
    root = path if (path / "recording.json").is_file() else path.parent
    return Recording(path, manifest, session_dirs(path), load_exchanges(root))


def b64(pcm: bytes) -> str:
    return base64.b64encode(pcm).decode("ascii")
