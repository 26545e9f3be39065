"""Reading a recording back: one WebSocket session as a script of steps, and its HTTP exchanges.

A session's records become :class:`ScriptStep` s in recorded order. Server events are ``emit`` steps;
every client event but ``input_audio_buffer.append`` is an ``expect`` step (the live client must send
the same kind of event there), and so is an append whose audio was not base64 (refused at the parse
boundary: the replay answers the live refused append with its recorded error, then paces on from it);
a frame that was not JSON is an ``invalid`` expect; and the turn
detection events ``input_audio_buffer.speech_started`` / ``speech_stopped`` become ``vad`` expects when
the recorded client was streaming audio at that point, because the engine's own VAD then decides them on
the live client's audio (docs/record-replay.md, "Turn detection"). Audio references point into the
session's WAV files: each one's header is checked with the lines (:func:`wav_problem`), its samples read
when a step first sends from it (:class:`WavFiles`).
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import logging
import os
import wave
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mockengine.recordings.format import EVENTS_FILE, HTTP_DIR, MANIFEST, RecordingError, read_manifest

log = logging.getLogger("mockengine.replay")

VAD_TYPES = ("input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped")
StepKind = Literal["emit", "expect", "vad", "invalid"]


@dataclass(frozen=True, slots=True)  # slots: a study-length session keeps tens of thousands
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
    wavs: Mapping[str, bytes] = field(default_factory=dict)  # name → PCM16 24 kHz (:class:`WavFiles`)

    def audio(self, ref: Any) -> bytes:
        """PCM16 24 kHz for an audio reference of the journal (``{"wav", "start_ms", "duration_ms"}``):
        its :meth:`span` of its WAV, or silence as long as a silent span; b"" for what is no reference."""
        span = self.span(ref)
        if span is None:
            return b""
        name, start, end = span
        if name is None:
            return bytes((end - start) * 2)
        return self.wavs[name][start * 2 : end * 2]

    def span(self, ref: Any) -> tuple[str | None, int, int] | None:
        """Where an audio reference of the journal lies: (its WAV's name, first sample, end sample), the
        end clamped to the WAV. A silent span, (None, 0, samples), where there is no audio to send but a
        length: a ``--no-audio`` recording's ``{"omitted_base64_chars"}``, and a reference whose WAV
        cannot be read when its step comes (deleted or cut after start-up: :class:`WavFiles` logs it),
        sent as silence of the recorded length. None for what is no audio reference."""
        if not isinstance(ref, dict):
            return None
        if "omitted_base64_chars" in ref:
            return None, 0, int(ref["omitted_base64_chars"]) * 3 // 4 // 2
        if "wav" not in ref or "start_ms" not in ref:
            return None
        name = str(ref["wav"])
        start = round(float(ref["start_ms"]) * 24)  # 24 samples a millisecond
        length = round(float(ref.get("duration_ms", 0)) * 24)
        try:
            samples = len(self.wavs[name]) // 2  # read on its first use
        except KeyError:  # not in the session, or unreadable since start-up: the recorded length, silent
            return None, 0, max(0, length)
        end = min(start + length, samples)
        return name, start, max(start, end)


@dataclass(frozen=True)
class SessionScript:
    """What serving a recorded session needs of its ``events.jsonl``, read once: the steps in recorded
    order and the unix time the recorded session opened."""

    steps: list[ScriptStep]
    started_at_s: float


def load_session(directory: Path, script: SessionScript | None = None) -> RecordedSession:
    """One recorded WebSocket session (a directory holding ``events.jsonl``), its WAVs read as used: from
    ``script`` when the lines were read already (:func:`load_recording` reads them once), else from the
    lines (:func:`read_script`'s RecordingError)."""
    script = script if script is not None else read_script(directory)
    return RecordedSession(directory.name, directory, script.steps, script.started_at_s, WavFiles(directory))


class WavFiles(Mapping[str, bytes]):
    """A session's WAVs by file name, each one's PCM read when first asked for, then kept. Read all at a
    session's start, a study-length session's stalled it (an hour of the microphone alone is 170 MB,
    which a replay never sends) and all of them stayed in memory."""

    def __init__(self, directory: Path) -> None:
        self._paths = {path.name: path for path in directory.glob("*.wav")}
        self._read: dict[str, bytes] = {}
        self._unreadable: set[str] = set()

    def __getitem__(self, name: str) -> bytes:
        """The WAV's PCM; KeyError when it cannot be read (deleted or cut since start-up: it was
        there when the session started), said once in the log — it closed the session with a 1011."""
        pcm = self._read.get(name)
        if pcm is None:
            if name in self._unreadable:
                raise KeyError(name)
            try:
                pcm = self._read[name] = _read_wav(self._paths[name])
            except (OSError, EOFError, wave.Error) as exc:
                self._unreadable.add(name)
                log.warning(
                    "replay: %s can no longer be read (%s); its audio is sent as silence of the recorded "
                    "length — put the WAV back and restart to replay it",
                    self._paths[name],
                    exc,
                )
                raise KeyError(name) from exc
        return pcm

    def __contains__(self, name: object) -> bool:  # (Mapping's would read the file)
        return name in self._paths and name not in self._unreadable

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def read_script(directory: Path) -> SessionScript:
    """A session's :class:`SessionScript`, its lines checked as :func:`read_records` checks them, in one
    pass that keeps only the steps (a study-length ``events.jsonl`` is mostly appends, which are none)."""
    steps: list[ScriptStep] = []
    streaming = False
    started_at_s: float | None = None
    for record in _checked_records(directory):
        if started_at_s is None and "t" in record:
            started_at_s = float(record["t"]) - float(record.get("ms", 0)) / 1000.0
        step, streaming = _step(record, streaming)
        if step is not None:
            steps.append(step)
    return SessionScript(steps, started_at_s or 0.0)


def read_records(directory: Path) -> list[dict[str, Any]]:
    """The records of a session's ``events.jsonl``, checked: each line a JSON object (a blank line
    skipped), and each ``{"wav": NAME}`` it holds naming a file of the session. A torn last line — no
    newline after it: what a recorder killed mid-write leaves — is skipped; anything else that does not
    read is a RecordingError with the file, the line and what to do. Skipping every such line, as the
    timeline reader does, replayed a hand-edited recording without the events its broken lines held,
    and a deleted WAV as empty audio deltas, with no word of either."""
    return list(_checked_records(directory))


def _checked_records(directory: Path) -> Iterator[dict[str, Any]]:
    """:func:`read_records`' records one at a time, the file read line by line: a study-length
    ``events.jsonl`` (hundreds of MB) is never in memory whole. Lines end at ``\\n`` only: the journal
    writes text as is (``ensure_ascii=False``), and a transcript's U+2028 or U+0085, where
    ``str.splitlines`` also cut, refused a recording that was whole."""
    path = directory / EVENTS_FILE
    if not path.is_file():
        raise RecordingError(f"{directory}: no {EVENTS_FILE} (a recorded session's directory holds one)")
    # each WAV checked once (its header): a 60-minute session refers to its WAVs 200,000 times
    problems: dict[str, str | None] = {}
    try:
        with path.open(encoding="utf-8", newline="\n") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                record = _checked_record(path, number, line)
                if record is None:
                    continue
                if '"wav"' in line:  # no reference can be where the line does not spell its key
                    for name in _wav_refs(record.get("event")):
                        if name not in problems:
                            problems[name] = wav_problem(directory / name)
                        if problems[name] == NO_WAV:
                            raise RecordingError(
                                f"{path}: line {number}: refers to {name}, which is not in {directory}; put "
                                "the WAV back or record again (`mockengine record --no-audio` makes a "
                                "recording that replays silence instead of audio)"
                            )
                        if problems[name] is not None:
                            raise RecordingError(
                                f"{directory / name}: {problems[name]}; line {number} of {path} sends from "
                                "it. Put the recorded WAV back or record again"
                            )
                yield record
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingError(f"{path}: cannot be read ({exc})") from exc


def _checked_record(path: Path, number: int, line: str) -> dict[str, Any] | None:
    """Line ``number`` of ``path`` as a journal record; None for a torn last line (no newline after it);
    RecordingError naming the file and line of anything else that is not one."""
    try:
        record = json.loads(line)
    except ValueError as exc:
        if not line.endswith("\n"):  # only the last line can lack its newline
            return None  # torn by a recorder that stopped mid-write
        raise RecordingError(
            f"{path}: line {number}: not JSON ({exc}); fix or delete the line (one JSON object a line, "
            "docs/record-replay.md)"
        ) from exc
    if not isinstance(record, dict):
        kinds: dict[type, str] = {list: "a JSON list", str: "a JSON string"}
        kind = kinds.get(type(record), f"JSON {json.dumps(record)}")
        raise RecordingError(
            f"{path}: line {number}: not a journal record ({kind}); each line is an object "
            '{"seq", "t", "ms", "from", "event"} (docs/record-replay.md)'
        )
    if not isinstance(record.get("ms", 0.0), (int, float)) or not isinstance(record.get("seq", 0), int):
        raise RecordingError(f'{path}: line {number}: "ms" must be a number and "seq" an integer')
    return record


def _wav_refs(value: Any) -> list[str]:
    """The WAV file names of the journal's audio references (``{"wav", "start_ms", "duration_ms"}``)
    anywhere in ``value``, in order (only containers are walked into: a line is mostly scalars)."""
    names: list[str] = []
    if isinstance(value, dict):
        if isinstance(value.get("wav"), str) and "start_ms" in value:
            names.append(value["wav"])
        items: Iterable[Any] = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return names
    for item in items:
        if isinstance(item, (dict, list)):
            names += _wav_refs(item)
    return names


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


NO_WAV = "no such file"
WAV_FORMAT = (1, 2, 24_000)  # channels, bytes a sample, Hz: what a recorder writes (server/journal.py)


def wav_problem(path: Path) -> str | None:
    """Why ``path`` cannot be replayed, from its header alone (no sample is read: the replay reads them
    when a step first sends from it): :data:`NO_WAV`; not a WAV (no RIFF/WAVE header, cut inside it, not
    PCM); not PCM16 24 kHz mono; or cut short, its data chunk naming more bytes than the file holds.
    None when it can be. A corrupt WAV was taken at start-up and found out in the middle of a session."""
    try:
        with path.open("rb") as file, wave.open(file, "rb") as handle:
            found = (handle.getnchannels(), handle.getsampwidth(), handle.getframerate())
            claimed = handle.getnframes() * handle.getnchannels() * handle.getsampwidth()
            held = os.fstat(file.fileno()).st_size - file.tell()  # wave stops at the data chunk's start
    except FileNotFoundError:
        return NO_WAV
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    except EOFError:
        return "not a WAV file: it ends inside its header"
    except wave.Error as exc:  # "file does not start with RIFF id", "unknown format: 3", …
        return f"not a WAV file of PCM samples ({exc})"
    if found != WAV_FORMAT:
        channels, width, rate = found
        return f"{rate} Hz, {width * 8}-bit, {channels} channel(s): a recording's WAVs are PCM16 24 kHz mono"
    if claimed > held:
        return f"cut short: its header gives {claimed} bytes of samples, the file holds {max(held, 0)}"
    return None


def _read_wav(path: Path) -> bytes:
    with wave.open(str(path), "rb") as handle:
        return handle.readframes(handle.getnframes())


def session_dirs(directory: Path) -> list[Path]:
    """The recorded WebSocket sessions under ``directory`` (itself when it is one), in recorded order."""
    if (directory / EVENTS_FILE).is_file():
        return [directory]
    return sorted(p.parent for p in directory.glob(f"*/{EVENTS_FILE}"))


def load_exchanges(directory: Path) -> list[dict[str, Any]]:
    """The recorded HTTP exchanges, in recorded order; RecordingError naming a file that is not a JSON
    object (a hand edit gone wrong was a JSONDecodeError traceback)."""
    exchanges = []
    for path in sorted((directory / HTTP_DIR).glob("*.json")):
        try:
            exchange = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RecordingError(f"{path}: not JSON ({exc}); fix it or delete the file") from exc
        if not isinstance(exchange, dict):
            raise RecordingError(
                f"{path}: not a recorded exchange (a JSON object); fix it or delete the file"
            )
        exchanges.append(exchange)
    return exchanges


@dataclass
class Recording:
    """A whole recording: its WebSocket sessions and HTTP exchanges. Each session's lines are read once,
    by :func:`load_recording` (``scripts``: what serving needs of them); its WAVs on its first use."""

    directory: Path
    manifest: dict[str, Any]
    session_paths: list[Path]
    exchanges: list[dict[str, Any]]
    scripts: dict[Path, SessionScript] = field(default_factory=dict)
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
            # With `serve --workers N` the workers share one count (a file in their common directory),
            # so the order is the connections' whichever worker takes each: counted per worker, a
            # second session on the other worker replayed the first recorded session again.
            shared = os.environ.get(WORKER_DIR_ENV)
            key = hashlib.sha256(str(self.directory.resolve()).encode()).hexdigest()[:16]
            served = next_replay_ordinal(shared, key) if shared else self._served
            self._served += 1
            path = self.session_paths[min(served, len(self.session_paths) - 1)]
        if path not in self._loaded:
            self._loaded[path] = load_session(path, self.scripts.get(path))
        return self._loaded[path]


WORKER_DIR_ENV = "MOCKENGINE_WORKER_DIR"  # the workers' common directory (mockengine/server/workers.py)


def next_replay_ordinal(directory: str, key: str) -> int:
    """The next session ordinal (0, 1, …) of the count ``key`` kept in ``directory``, taken under an
    exclusive lock, so processes sharing the directory number their sessions once each."""
    with open(Path(directory) / f"replay-{key}.count", "a+", encoding="ascii") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        text = handle.read().strip()
        ordinal = int(text) if text.isdigit() else 0
        handle.seek(0)
        handle.truncate()
        handle.write(str(ordinal + 1))
        handle.flush()
        return ordinal  # the lock goes with the file's close


def load_recording(directory: str | Path) -> Recording:
    """A recording directory (or one session directory of it), each session's lines read once (a
    :class:`SessionScript`); RecordingError when it is not one, or when a session's lines or an exchange
    do not read (:func:`check_recording`). The recording :func:`check_recording` just read, when its
    lines are unchanged since, is taken as it is: ``serve`` checks before the models load and serves
    after, and a study-length recording was read twice over."""
    path = Path(directory)
    if _CHECKED and _CHECKED[0][0] == _signature(path):
        return _CHECKED.pop()[1]
    manifest = read_manifest(path)
    root = path if (path / MANIFEST).is_file() else path.parent
    sessions = session_dirs(path)
    scripts = {session: read_script(session) for session in sessions}
    return Recording(path, manifest, sessions, load_exchanges(root), scripts)


def check_recording(directory: str | Path) -> Recording:
    """RecordingError naming the first file (and line) of ``directory`` a replay could not read: the
    manifest, a session's ``events.jsonl`` and the WAVs it refers to, an HTTP exchange. Reads no audio,
    so ``serve`` makes it before the models load. The recording read, which the next
    :func:`load_recording` of the same directory takes when no session's lines changed since (then
    nothing is read twice)."""
    signature = _signature(Path(directory))
    recording = load_recording(directory)
    _CHECKED[:] = [(signature, recording)] if signature is not None else []
    return recording


# The one recording check_recording read last, for the next load_recording of the same directory
# (unchanged) to take: at most one is kept, and only until then.
_CHECKED: list[tuple[tuple[Any, ...] | None, Recording]] = []


def _signature(directory: Path) -> tuple[Any, ...] | None:
    """``directory`` resolved, and each file a recording reads (the manifest, the sessions'
    ``events.jsonl``, the HTTP exchanges) as (name, inode, size, modification ns): an edit tells. None
    when one cannot be looked at (reading it says why)."""
    root = directory if (directory / MANIFEST).is_file() else directory.parent
    files = [root / MANIFEST, *(s / EVENTS_FILE for s in session_dirs(directory))]
    files += sorted((root / HTTP_DIR).glob("*.json"))
    try:
        stats = [(str(f), f.stat()) for f in files]
    except OSError:
        return None
    return (directory.resolve(), *((n, s.st_ino, s.st_size, s.st_mtime_ns) for n, s in stats))


def b64(pcm: bytes) -> str:
    return base64.b64encode(pcm).decode("ascii")
