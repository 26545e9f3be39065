"""Optional JSON-lines trace of every session: client events (audio elided), server events, and the
engine's decisions (why a turn ended, which brain rule replied). One file per session in ``trace_dir``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any


class Tracer:
    def __init__(self, directory: str | None) -> None:
        self.directory = Path(directory) if directory else None
        self._files: dict[str, IO[str]] = {}
        if self.directory is not None:
            self.directory.mkdir(parents=True, exist_ok=True)

    @property
    def is_enabled(self) -> bool:
        return self.directory is not None

    def write(self, session_id: str, kind: str, data: Any) -> None:
        if self.directory is None:
            return
        handle = self._files.get(session_id)
        if handle is None:
            handle = (self.directory / f"{session_id}.jsonl").open("a", encoding="utf-8")
            self._files[session_id] = handle
        if (
            kind == "server_event"
            and isinstance(data, dict)
            and "delta" in data
            and data.get("type") == "response.output_audio.delta"
        ):
            data = {**data, "delta": f"<{len(data['delta'])} base64 chars>"}
        handle.write(json.dumps({"t": round(time.time(), 3), "kind": kind, "data": data}) + "\n")
        handle.flush()

    def close(self) -> None:
        for handle in self._files.values():
            handle.close()
        self._files.clear()
