"""Routes of the console (docs/console.md): the static page at ``/`` and ``/console/*``, and two small
read-only JSON endpoints it needs beside the API and the fault control endpoints.

- ``GET /mockengine/console.json``: what the page offers to pick — scenarios, voices, turn-detection
  types, fault kinds with their parameters and defaults, whether journaling is on (``journal``) and
  whether WebRTC replies use DTX (``webrtc_dtx``: no packets between replies), and ``engine``, an id
  (``eng_`` and 16 hex digits) new each time the engine starts.
- ``GET /mockengine/journal``: the sessions' journal directories, live ones first, then the most
  recently written: ``{"journals": [{"journal": "sess_….2", "session_id": "sess_…", "live": bool}]}``
  (the ended ones cut at :data:`MAX_ENDED_LISTED`); 404 when journaling is off. Sessions of a seeded
  engine share their ids and the second one's journal is ``<session_id>.2`` (``.3``, …): this names each.
- ``GET /mockengine/journal/{journal}?from=N``: one journal's records (``events.jsonl``, the microphone's
  appends left out) as a JSON list, by its directory's name (a session id names its first session's;
  ``<session_id>.2`` the next one's): at most :data:`MAX_JOURNAL_RECORDS` from the ``N``-th on (default
  0), with ``from`` and ``total`` (records in the journal); 404 when journaling is off or there is no
  such journal, 400 (param ``from``) for a ``from`` that is not an index.

Both answer under the control endpoints' access rule (loopback clients, or the control token).
The page itself is plain HTML, CSS and JavaScript inside the package: no build step, no CDN, offline.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import secrets
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any, BinaryIO

from aiohttp import web

from mockengine.engines.voices import VOICE_NAMES
from mockengine.faults.control import forbidden, is_allowed
from mockengine.faults.spec import KINDS
from mockengine.faults.state import FAULTS
from mockengine.protocol.http_errors import error_response
from mockengine.server.state import RESOURCES

STATIC = Path(__file__).resolve().parents[1] / "console" / "static"
TURN_DETECTION_TYPES = ("server_vad", "semantic_vad", "none")
# Kinds that act while a connection is made: armed on a live session they would never act, so the page
# arms them for the next connection instead.
AT_CONNECT = frozenset(
    {"refuse_upgrade", "delay_session_created", "withhold_session_created", "refuse_call", "slow_call"}
)
# Kinds that act on one transport only (the others act on both); armed for the other one they would be
# used up without acting, so the page says so instead.
ONLY_ON = {
    "refuse_upgrade": "websocket",
    "refuse_call": "webrtc",
    "slow_call": "webrtc",
    "datachannel_close": "webrtc",
    "media_stall": "webrtc",
    "server_hangup": "webrtc",
}
MAX_JOURNAL_RECORDS = 5000
MAX_ENDED_LISTED = 50  # ended sessions' journals listed (a soak leaves thousands)
READ_CHUNK = 1 << 22  # bytes of a journal read at a time
SEEN_BYTES = 64  # bytes before a journal's read end kept to tell a file written over from one appended to
MAX_JOURNAL_INDEXES = 64  # journals whose record offsets are kept (8 bytes a record: 64 hours ≈ 25 MB)


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def console_info(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    settings = request.app[RESOURCES].settings
    faults = [
        {
            "kind": name,
            "layer": kind.layer,
            "doc": kind.doc,
            "params": {p: spec.default for p, spec in kind.params.items()},
            "at_connect": name in AT_CONNECT,
            "transport": ONLY_ON.get(name),
        }
        for name, kind in KINDS.items()
        if kind.layer == "ws"
    ]
    return web.json_response(
        {
            "scenarios": request.app[RESOURCES].scenarios.names(),
            "voices": list(VOICE_NAMES),
            "turn_detection": list(TURN_DETECTION_TYPES),
            "faults": faults,
            "journal": settings.journal_dir is not None,
            # The page's media-stall watch: with DTX the engine sends no packets between replies.
            "webrtc_dtx": settings.webrtc_dtx,
            # A new one each time the engine starts: the page, left open across a restart, reads its
            # choices again and forgets the old engine's session handles when it changes.
            "engine": request.app[ENGINE_ID],
        }
    )


async def journal(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    directory = request.app[RESOURCES].settings.journal_dir
    session_id = request.match_info["session_id"]
    if directory is None:
        return error_response(404, "Journaling is off: start the engine with --journal-dir DIR.")
    path = Path(directory) / session_id / "events.jsonl"
    if "/" in session_id or ".." in session_id or not path.is_file():
        return error_response(404, f"No journal for session '{session_id}'.", param="session_id")
    start = request.query.get("from", "0")
    # ASCII digits, at most 18 (str.isdigit takes "²", which int refuses, and int refuses 4300+ digits)
    if not re.fullmatch(r"[0-9]{1,18}", start):
        return error_response(
            400, f"Invalid 'from': expected a record index (0 or more), got '{start}'.", param="from"
        )
    first = int(start)
    indexes = request.app[JOURNAL_INDEXES]
    index = indexes.pop(session_id, None) or JournalIndex()
    indexes[session_id] = index  # the most recently refreshed last: the first one out
    while len(indexes) > MAX_JOURNAL_INDEXES:
        del indexes[next(iter(indexes))]
    async with index.lock:  # off the event loop: a first look at a study's hour reads ~50 MB
        work = functools.partial(index.serve, path, first, MAX_JOURNAL_RECORDS)
        try:
            records, total = await asyncio.get_running_loop().run_in_executor(None, work)
        except FileNotFoundError:  # deleted since it was looked for
            return error_response(404, f"No journal for session '{session_id}'.", param="session_id")
    body = {"session_id": _base_id(session_id), "journal": session_id, "from": first, "total": total}
    return web.json_response({**body, "records": records})


class JournalIndex:
    """Where each record of one journal's ``events.jsonl`` starts, kept between refreshes: the console
    asks for its timeline every few seconds, and each answer read the whole file again (for a study's
    hour-long session, hundreds of MB over and over). A refresh now reads what the writer added since
    the last one, and ``from=N`` seeks to the N-th record.

    Records are the lines the journal serves: JSON objects, the microphone's appends left out (before
    the cut: a console session's 25 appends a second filled the 5000 lines in ~3 minutes and its later
    records were never served). Lines end at ``\\n`` only: the writer keeps text as is
    (``ensure_ascii=False``), and a transcript's U+2028 cut its line where ``str.splitlines`` read the
    file. A last line without its newline (the writer is still appending it) is read again next time."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()  # one refresh of a journal at a time moves its index on
        self.file: tuple[int, int] | None = None  # (device, inode) of the file indexed
        self.scanned = 0  # bytes read, through the last newline
        self.offsets = array("q")  # where each record starts, in bytes
        self.seen = b""  # the bytes just before ``scanned``, as they were read

    def serve(self, path: Path, first: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """:meth:`read` of the journal at ``path``, indexed anew when it is another file than the one
        indexed: replaced, cut shorter, or written over in place with other lines (``cp`` of another
        journal onto it keeps the file: the offsets kept served the middles of its lines)."""
        with path.open("rb") as handle:
            stat = os.fstat(handle.fileno())
            seen = os.pread(handle.fileno(), len(self.seen), self.scanned - len(self.seen))
            if (stat.st_dev, stat.st_ino) != self.file or stat.st_size < self.scanned or seen != self.seen:
                self.file, self.scanned, self.offsets = (stat.st_dev, stat.st_ino), 0, array("q")
                self.seen = b""
            records, total = self.read(handle, first, limit)
            start = max(0, self.scanned - SEEN_BYTES)
            self.seen = os.pread(handle.fileno(), self.scanned - start, start)
            return records, total

    def read(self, handle: BinaryIO, first: int, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The records from the ``first``-th on (at most ``limit``), and how many the journal holds."""
        handle.seek(self.scanned)
        position, pending = self.scanned, b""
        while chunk := handle.read(READ_CHUNK):  # in pieces: a first look at a study's hour is ~50 MB
            added = pending + chunk
            complete = added.rfind(b"\n") + 1
            for line in added[:complete].split(b"\n")[:-1]:
                if _record(line) is not None:
                    self.offsets.append(position)
                position += len(line) + 1
            pending = added[complete:]
        self.scanned = position
        records = []
        for start in self.offsets[first : first + limit]:
            handle.seek(start)
            record = _record(handle.readline())
            if record is not None:  # (the file is only ever appended to: serve)
                records.append(record)
        total = len(self.offsets)
        torn = _record(pending) if pending else None
        if torn is not None:  # complete but for its newline: served as a whole line would be
            if first <= total < first + limit:
                records.append(torn)
            total += 1
        return records, total


def _record(line: bytes) -> dict[str, Any] | None:
    """A journal line as a record the journal serves; None for an append, a line that does not read
    (one the writer was still appending) and one that is not an object. A record whose ``event`` is no
    object (a client sent ``null``) is served: it took the journal's every answer down with a 500."""
    text = line.decode("utf-8", errors="replace")
    if '"event": {"type": "input_audio_buffer.append"' in text:  # the writer's spelling: no parse
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    event = record.get("event")
    if isinstance(event, dict) and event.get("type") == "input_audio_buffer.append":
        return None
    return record


def _base_id(journal: str) -> str:
    """``sess_x.2`` → ``sess_x`` (session ids have no dot: ``sess_`` and base62)."""
    head, _, tail = journal.rpartition(".")
    return head if head and tail.isdigit() else journal


async def journals(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    directory = request.app[RESOURCES].settings.journal_dir
    if directory is None:
        return error_response(404, "Journaling is off: start the engine with --journal-dir DIR.")
    live: set[str] = {
        name
        for handles in request.app[FAULTS].live.values()
        for handle in handles
        if (name := getattr(handle, "journal", None))  # realtime_faults.LiveHandle's
    }
    ended = []
    for path in Path(directory).iterdir():
        if path.name not in live and (path / "events.jsonl").is_file():
            ended.append(((path / "events.jsonl").stat().st_mtime, path.name))
    ended.sort(reverse=True)
    names = sorted(live, key=lambda n: (_base_id(n), len(n), n)) + [
        name for _, name in ended[:MAX_ENDED_LISTED]
    ]
    listed = [{"journal": n, "session_id": _base_id(n), "live": n in live} for n in names]
    return web.json_response({"journals": listed})


JOURNAL_INDEXES = web.AppKey("journal_indexes", OrderedDict)  # journal name → JournalIndex
ENGINE_ID = web.AppKey("console_engine_id", str)  # console.json's "engine": this start of the engine


def add_routes(app: web.Application) -> None:
    app[JOURNAL_INDEXES] = OrderedDict()
    # Random, not seeded: it names this run of the engine, not anything a session says.
    app[ENGINE_ID] = f"eng_{secrets.token_hex(8)}"
    app.router.add_get("/", index)
    app.router.add_static("/console/", STATIC, append_version=False)
    app.router.add_get("/mockengine/console.json", console_info)
    app.router.add_get("/mockengine/journal", journals)
    app.router.add_get("/mockengine/journal/{session_id}", journal)
