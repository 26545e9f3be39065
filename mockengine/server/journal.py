"""Per-session journal: every client and server event as JSON lines, audio in WAV files beside them.

Layout (``--journal-dir DIR``)::

    DIR/<session_id>/events.jsonl        one line per event, flushed as written
    DIR/<session_id>/input_audio.wav     every input_audio_buffer.append, in order (PCM16 24 kHz)
    DIR/<session_id>/<response_id>.wav   one response's output audio deltas (PCM16 24 kHz)
    DIR/<session_id>/item_<seq>_<n>.wav  audio inside items (conversation.item.create / .retrieved)
    DIR/<session_id>/output_audio.wav    a translation session's speech (session.output_audio.delta);
                                         its session.input_audio_buffer.append go to input_audio.wav

Sessions of a seeded engine share their ids (same seed, same ids), and a rerun of one finds its last run's
directories: a session whose directory is already there gets ``<session_id>.2``, ``.3``, … (the directory
is made when the session opens, so two sessions never take the same one). Before, they shared one
directory: their lines mixed in one ``events.jsonl`` and a later session's ``<response_id>.wav``
overwrote an earlier one's, which its lines still named.

A line is ``{"seq", "t" (unix s), "ms" (since the session opened), "from": "client"|"server"|"engine",
"event": {...}}``; engine lines (turn decisions, brain rules — the same records as ``--trace-dir``) carry
``"kind"`` and ``"data"`` instead. Audio fields are replaced by ``{"wav": file, "start_ms", "duration_ms"}``
(G.711 audio is decoded to PCM16 24 kHz first). A client frame that is not JSON keeps its text in
``"raw"`` (up to 64 KiB). WAV headers are rewritten after every write, so a crash loses at most the event
in flight.

Writing never blocks the event loop: the loop only enqueues; one :class:`BackgroundWriter` thread parses,
decodes audio and writes. ``mockengine journal DIR`` prints a readable timeline (``mockengine.journal``).
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import logging
import queue
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from mockengine.audio.g711 import G711InputStream
from mockengine.server.thread_names import PREFIX, set_os_thread_name

log = logging.getLogger("mockengine.journal")
RAW_TEXT_KEPT = 64 * 1024
TRANSLATION_OUTPUT_WAV = "output_audio.wav"  # a translation session's speech (it has no responses)
BYTES_PER_MS = 48  # PCM16 mono 24 kHz


class BackgroundWriter:
    """One daemon thread running file work queued from the event loop, in order. ``submit`` never blocks;
    a failing job is logged and the rest go on (a full disk must not take sessions down)."""

    def __init__(self, name: str = "mockengine-journal") -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def _run(self) -> None:
        set_os_thread_name(threading.current_thread().name.removeprefix(PREFIX))  # ``journal`` in /proc
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except Exception:
                log.exception("journal write failed")

    def drain(self, timeout_s: float = 5.0) -> None:
        """Wait until every job submitted so far has run (tests, shutdown)."""
        done = threading.Event()
        self.submit(done.set)
        done.wait(timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        self._jobs.put(None)
        self._thread.join(timeout_s)


class _WavStream:
    """A PCM16 24 kHz mono WAV file that grows; its header is patched by ``wave`` on every write."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("wb")
        self._wav = wave.open(self._file, "wb")  # noqa: SIM115 (closed in close())
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(24_000)
        self.written_bytes = 0

    def write(self, pcm: bytes) -> tuple[float, float]:
        """Append audio; returns (start_ms, duration_ms) of it in the file."""
        start = self.written_bytes
        pcm = pcm[: len(pcm) - len(pcm) % 2]
        self._wav.writeframes(pcm)
        self._file.flush()
        self.written_bytes += len(pcm)
        return start / BYTES_PER_MS, len(pcm) / BYTES_PER_MS

    def close(self) -> None:
        self._wav.close()
        self._file.close()


class _SessionFiles:
    """The writer thread's side of one session's journal (touched only by that thread)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.lines: IO[str] = (directory / "events.jsonl").open("a", encoding="utf-8")
        self.wavs: dict[str, _WavStream] = {}
        # G.711 into each WAV as one stream: decoded append by append (delta by delta), soxr's edge
        # transient clicked at every 20 ms frame (200 ms delta) of a phone call's journal.
        self.decoders: dict[str, G711InputStream] = {}
        self.response_formats: dict[str, str] = {}

    def wav(self, name: str) -> _WavStream:
        stream = self.wavs.get(name)
        if stream is None:
            stream = self.wavs[name] = _WavStream(self.directory / name)
        return stream

    def audio_ref(self, name: str, b64: Any, fmt: str) -> Any:
        """Decode base64 audio into the WAV file ``name``; the reference that replaces it in the line."""
        if not isinstance(b64, str):
            return b64
        try:
            data = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            return {"invalid_base64": b64[:200], "chars": len(b64)}
        if fmt == "audio/pcm":
            pcm = data
        else:  # (not setdefault: that would build a decoder for every append and delta)
            decoder = self.decoders.get(name) or self.decoders.setdefault(name, G711InputStream())
            pcm = decoder.decode(data, fmt)
        start_ms, duration_ms = self.wav(name).write(pcm)
        # Three decimals: one sample is 1/24 ms, so a reference gives back the exact bytes (replay).
        return {"wav": name, "start_ms": round(start_ms, 3), "duration_ms": round(duration_ms, 3)}

    def write(self, record: dict[str, Any]) -> None:
        try:
            self.lines.write(json.dumps(record, ensure_ascii=False) + "\n")
        except UnicodeEncodeError:
            # A lone surrogate (a client's "\ud800" escape, which json.loads takes) has no UTF-8 form:
            # the line keeps it as the escape the client sent instead of being lost.
            self.lines.write(json.dumps(record) + "\n")
        self.lines.flush()

    def close(self) -> None:
        self.lines.close()
        for stream in self.wavs.values():
            stream.close()
        self.wavs.clear()
        self.decoders.clear()
        self.response_formats.clear()


class SessionJournal:
    """The event loop's handle on one session's journal: each call only enqueues work."""

    def __init__(self, writer: BackgroundWriter, path: Path) -> None:
        self._writer = writer
        self._t0 = time.monotonic()
        self._seq = 0
        self._files: _SessionFiles | None = None
        self.path = path
        writer.submit(lambda: self._open(path))

    def _open(self, path: Path) -> None:
        self._files = _SessionFiles(path)

    def _stamp(self) -> dict[str, Any]:
        self._seq += 1
        since_open_ms = (time.monotonic() - self._t0) * 1e3
        return {"seq": self._seq, "t": round(time.time(), 4), "ms": round(since_open_ms, 1)}

    def client_text(self, raw: str, input_format: str, output_format: str) -> None:
        """A client TEXT frame as received; formats are the session's at that moment."""
        stamp = self._stamp()
        self._writer.submit(lambda: self._write_client(stamp, raw, input_format, output_format))

    def client_binary(self, size: int) -> None:
        stamp = {**self._stamp(), "from": "client", "binary_bytes": size}
        self._writer.submit(lambda: self._write(stamp))

    def server(self, data: bytes | str, output_format: str, input_format: str) -> None:
        """A server event exactly as sent (its JSON: the UTF-8 bytes the engine sends, or the text a
        recording proxy relays; parsed on the journal's thread)."""
        stamp = self._stamp()
        self._writer.submit(lambda: self._write_server(stamp, data, output_format, input_format))

    def engine(self, kind: str, data: Any) -> None:
        """An engine decision (a ``Trace`` effect: why a turn ended, which rule replied)."""
        record = {**self._stamp(), "from": "engine", "kind": kind, "data": data}
        self._writer.submit(lambda: self._write(record))

    def close(self) -> None:
        self._writer.submit(self._close)

    # -- writer thread --------------------------------------------------------------------------------

    def _write(self, record: dict[str, Any]) -> None:
        if self._files is not None:
            self._files.write(record)

    def _close(self) -> None:
        if self._files is not None:
            self._files.close()
            self._files = None

    def _write_client(self, stamp: dict[str, Any], raw: str, input_fmt: str, output_fmt: str) -> None:
        files = self._files
        if files is None:
            return
        try:
            event = json.loads(raw)
        except ValueError:
            files.write({**stamp, "from": "client", "raw": raw[:RAW_TEXT_KEPT], "chars": len(raw)})
            return
        if isinstance(event, dict):
            if event.get("type") in ("input_audio_buffer.append", "session.input_audio_buffer.append"):
                event["audio"] = files.audio_ref("input_audio.wav", event.get("audio"), input_fmt)
            for key in ("item",):
                if isinstance(event.get(key), dict):
                    self._item_audio(files, stamp["seq"], event[key], input_fmt, output_fmt)
            response = event.get("response")
            if isinstance(response, dict) and isinstance(response.get("input"), list):
                for item in response["input"]:
                    if isinstance(item, dict):
                        self._item_audio(files, stamp["seq"], item, input_fmt, output_fmt)
        files.write({**stamp, "from": "client", "event": event})

    def _write_server(
        self, stamp: dict[str, Any], data: bytes | str, output_fmt: str, input_fmt: str
    ) -> None:
        files = self._files
        if files is None:
            return
        event = json.loads(data)
        kind = event.get("type")
        if kind == "response.created":
            fmt = event["response"].get("audio", {}).get("output", {}).get("format", {}).get("type")
            files.response_formats[event["response"]["id"]] = fmt or output_fmt
        elif kind == "response.output_audio.delta":
            response_id = event.get("response_id", "response")
            fmt = files.response_formats.get(response_id, output_fmt)
            event["delta"] = files.audio_ref(f"{response_id}.wav", event.get("delta"), fmt)
        elif kind == "session.output_audio.delta":  # a translation session's one output stream
            event["delta"] = files.audio_ref(TRANSLATION_OUTPUT_WAV, event.get("delta"), "audio/pcm")
        elif kind == "response.done":
            stream = files.wavs.pop(f"{event['response']['id']}.wav", None)
            if stream is not None:
                stream.close()
            files.decoders.pop(f"{event['response']['id']}.wav", None)  # a G.711 reply's: one a response
            files.response_formats.pop(event["response"]["id"], None)
        elif kind == "conversation.item.retrieved" and isinstance(event.get("item"), dict):
            self._item_audio(files, stamp["seq"], event["item"], input_fmt, output_fmt)
        files.write({**stamp, "from": "server", "event": event})

    @staticmethod
    def _item_audio(
        files: _SessionFiles, seq: int, item: dict[str, Any], input_fmt: str, output_fmt: str
    ) -> None:
        content = item.get("content")
        if not isinstance(content, list):
            return
        for n, part in enumerate(content):
            if isinstance(part, dict) and isinstance(part.get("audio"), str):
                fmt = output_fmt if part.get("type") == "output_audio" else input_fmt
                part["audio"] = files.audio_ref(f"item_{seq}_{n}.wav", part["audio"], fmt)


def _new_directory(parent: Path, session_id: str) -> Path:
    """``parent/<session_id>``, or ``.2``, ``.3``, … when taken; made here, so it is this session's
    (one mkdir on the event loop as a session opens; everything else is the writer thread's)."""
    for n in itertools.count(1):
        path = parent / (session_id if n == 1 else f"{session_id}.{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise AssertionError("unreachable")


class Journal:
    """The application's journal: one background writer for every session. ``directory=None`` → off."""

    def __init__(self, directory: str | None, writer: BackgroundWriter | None = None) -> None:
        self.directory = Path(directory) if directory else None
        self._writer = writer
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)

    @property
    def is_enabled(self) -> bool:
        return self.directory is not None

    @property
    def writer(self) -> BackgroundWriter:
        if self._writer is None:
            self._writer = BackgroundWriter()
        return self._writer

    def open(self, session_id: str) -> SessionJournal | None:
        """The journal of a session opening now, in a directory of its own (see the module docstring)."""
        if self.directory is None:
            return None
        return SessionJournal(self.writer, _new_directory(self.directory, session_id))

    def drain(self) -> None:
        if self._writer is not None:
            self._writer.drain()

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
