"""The recording format (version 1), shared by the recorder and the replayer.

Layout of ``mockengine record --out DIR`` (``docs/record-replay.md`` has the full description)::

    DIR/recording.json                 {"format": "mockengine-recording", "version": 1, "upstream", ...}
    DIR/realtime-0001/events.jsonl     one WebSocket session, in the journal's format (server/journal.py)
    DIR/realtime-0001/session.json     the upgrade request and answer (keys redacted), close codes
    DIR/realtime-0001/*.wav            its audio (PCM16 24 kHz mono), unless --no-audio
    DIR/http/0001.json                 one HTTP exchange: request, status, response body or SSE chunks

A session directory is a journal directory (``server/journal.py`` writes it), so ``mockengine journal
DIR`` reads a recording as it is.
Keys never reach the disk: bearer keys, ``openai-insecure-api-key.*`` subprotocols and cookies are
replaced by ``<redacted>``, and every recorded text is scrubbed of the keys the proxy knows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mockengine import __version__

FORMAT = "mockengine-recording"
VERSION = 1
MANIFEST = "recording.json"
EVENTS_FILE = "events.jsonl"  # a session's lines: the journal's format (mockengine/server/journal.py)
SESSION_FILE = "session.json"
HTTP_DIR = "http"
REDACTED = "<redacted>"
SECRET_HEADERS = {"authorization", "api-key", "cookie", "set-cookie", "openai-organization", "openai-project"}
KEY_SUBPROTOCOL = "openai-insecure-api-key."


class RecordingError(ValueError):
    """A directory is not a recording this version can read; names the directory and what is wrong."""


def write_manifest(directory: Path, upstream: str, has_audio: bool) -> None:
    """Create ``recording.json`` (kept when it exists: a second run adds sessions to the recording).
    RecordingError when ``directory`` is a file or holds a manifest this version cannot read."""
    if directory.exists() and not directory.is_dir():  # mkdir's own words: "[Errno 17] File exists"
        raise RecordingError(f"{directory}: a file, not a recording directory")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / MANIFEST
    if path.exists():
        read_manifest(directory)
        return
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "upstream": upstream,
        "started_at": round(time.time(), 3),
        "audio": has_audio,
        "recorded_by": f"mockengine {__version__}",
    }
    path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest of ``directory`` (or of its parent, for a session directory); RecordingError when
    absent or of another format/version."""
    for candidate in (directory / MANIFEST, directory.parent / MANIFEST):
        if candidate.is_file():
            try:  # a torn or hand-edited manifest was a JSONDecodeError / AttributeError traceback
                manifest = json.loads(candidate.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise RecordingError(f"{candidate}: not JSON ({exc})") from exc
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise RecordingError(f"{candidate}: not a {FORMAT} manifest")
            if manifest.get("version") != VERSION:
                raise RecordingError(
                    f"{candidate}: recording format version {manifest.get('version')}; "
                    f"this mockengine reads version {VERSION}"
                )
            return dict(manifest)
    raise RecordingError(f"{directory}: no {MANIFEST} (record one with `mockengine record --out DIR`)")


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """A session's ``events.jsonl`` lines; a torn last line (the recorder stopped mid-write) is skipped."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def next_number(directory: Path, pattern: str) -> int:
    """One more than the highest number among ``directory``'s entries matching ``pattern`` (``*-0007``)."""
    numbers = [int(p.stem.rsplit("-", 1)[-1]) for p in directory.glob(pattern) if p.stem[-4:].isdigit()]
    return max(numbers, default=0) + 1


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers fit to keep: secret ones replaced, key subprotocols redacted."""
    kept: dict[str, str] = {}
    for name, value in headers.items():
        if name.lower() in SECRET_HEADERS:
            kept[name] = REDACTED
        elif name.lower() == "sec-websocket-protocol":
            kept[name] = ", ".join(redact_protocols(p.strip() for p in value.split(",")))
        else:
            kept[name] = value
    return kept


def redact_protocols(protocols: Iterable[str]) -> list[str]:
    return [KEY_SUBPROTOCOL + REDACTED if p.startswith(KEY_SUBPROTOCOL) else p for p in protocols]


class Scrubber:
    """Removes known secrets (the upstream key, client keys, minted ``ek_`` secrets) from text."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = {s for s in secrets if s}

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4:
            self._secrets.add(secret)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text
