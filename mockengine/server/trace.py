"""Optional JSON-lines trace of every session: client events (audio elided), server events, and the
engine's decisions (why a turn ended, which brain rule replied). One file per session in ``trace_dir``:
``<session_id>.jsonl``, or ``<session_id>.2.jsonl``, ``.3``, … when a live session or a file already has
the name (a seeded engine's sessions share their ids; before, their lines went into one file, interleaved
when they overlapped).

Lines are written by a background thread (:class:`~mockengine.server.journal.BackgroundWriter`), so
tracing never blocks the event loop. ``--journal-dir`` is the fuller record (audio kept as WAV files).
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import IO, Any

from mockengine.server.journal import BackgroundWriter


class Tracer:
    def __init__(self, directory: str | None) -> None:
        self.directory = Path(directory) if directory else None
        # An attribute, not a property: every client frame reads it (docs/cpu.md, twenty-first pass).
        self.is_enabled = self.directory is not None
        self._files: dict[str, IO[str]] = {}  # touched only by the writer thread
        self._live: set[str] = set()  # names taken by sessions not yet ended (the event loop's)
        self._writer: BackgroundWriter | None = None
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._writer = BackgroundWriter("mockengine-trace")

    def take_name(self, session_id: str) -> str:
        """The trace name for a session opening now: its id, or ``<id>.2``, ``.3``, … when a live session
        or a file has it. Pass it to :meth:`write` and :meth:`end_session`.

        The file is made here, exclusively (one open on the event loop as a session opens, as the
        journal's directory is): the writer thread makes it only at the first line, so a check for it
        let two sessions take one name — a session that ended before its first line was written, or
        the other worker of ``--workers 2``, whose lines then went into the same file."""
        if self.directory is None:
            return session_id
        for n in itertools.count(1):
            name = session_id if n == 1 else f"{session_id}.{n}"
            if name in self._live:
                continue
            try:
                (self.directory / f"{name}.jsonl").open("x").close()
            except FileExistsError:
                continue
            self._live.add(name)
            return name
        raise AssertionError("unreachable")

    def write(self, session_id: str, kind: str, data: Any) -> None:
        if self._writer is None:
            return
        if (
            kind == "server_event"
            and isinstance(data, dict)
            and "delta" in data
            and data.get("type") == "response.output_audio.delta"
        ):
            data = {**data, "delta": f"<{len(data['delta'])} base64 chars>"}
        stamp = round(time.time(), 3)
        try:
            line = json.dumps({"t": stamp, "kind": kind, "data": data}) + "\n"
        except RecursionError:  # a request nested about as deeply as the JSON parser takes
            line = json.dumps({"t": stamp, "kind": kind, "data": "<nested too deeply to trace>"}) + "\n"
        self._writer.submit(lambda: self._append(session_id, line))

    def _append(self, session_id: str, line: str) -> None:
        assert self.directory is not None
        handle = self._files.get(session_id)
        if handle is None:
            handle = (self.directory / f"{session_id}.jsonl").open("a", encoding="utf-8")
            self._files[session_id] = handle
        handle.write(line)
        handle.flush()

    def end_session(self, session_id: str) -> None:
        """Close the session's file (its lines are all written first)."""
        self._live.discard(session_id)
        if self._writer is not None:
            self._writer.submit(lambda: self._close_one(session_id))

    def _close_one(self, session_id: str) -> None:
        handle = self._files.pop(session_id, None)
        if handle is not None:
            handle.close()

    def drain(self) -> None:
        if self._writer is not None:
            self._writer.drain()

    def close(self) -> None:
        if self._writer is None:
            return
        self._writer.submit(self._close_all)
        self._writer.close()
        self._writer = None

    def _close_all(self) -> None:
        for handle in self._files.values():
            handle.close()
        self._files.clear()


def loggable_client_event(raw: str) -> Any:
    """A client event for the trace (voice-agent and translation sessions), its audio replaced by its size."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw[:200]
    if isinstance(data, dict) and isinstance(data.get("audio"), str):
        data["audio"] = f"<{len(data['audio'])} base64 chars>"
    return data
