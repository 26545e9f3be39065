"""``mockengine journal PATH``: a readable timeline of session journals (``--journal-dir``), or of
session traces (``--trace-dir``: the same events, no audio).

One line per event: time since the session opened, direction (``→`` client to engine, ``←`` engine to
client, ``·`` an engine decision), the event type and its gist. Runs of audio appends, audio deltas and
transcript deltas are merged into one line with their count and duration (``--all`` shows each).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from mockengine.recordings.format import EVENTS_FILE, FORMAT, MANIFEST, SESSION_FILE, read_lines

MERGED = {
    "input_audio_buffer.append",
    "response.output_audio.delta",
    "response.output_audio_transcript.delta",
    "response.output_text.delta",
    "response.function_call_arguments.delta",
    "conversation.item.input_audio_transcription.delta",
    # a translation session's (docs/translation.md)
    "session.input_audio_buffer.append",
    "session.output_audio.delta",
    "session.output_transcript.delta",
    "session.input_transcript.delta",
}
APPENDS = ("input_audio_buffer.append", "session.input_audio_buffer.append")
AUDIO_DELTAS = ("response.output_audio.delta", "session.output_audio.delta")
ARROWS = {"client": "→", "server": "←", "engine": "·"}
# What every journal record carries besides its content (server/journal.py's stamp, the reader's "from").
_STAMP_KEYS = ("seq", "t", "ms", "from")


# A --trace-dir's files that are not sessions' (mockengine/server/chat_routes.py): one line per request.
REQUEST_TRACES = {"chat-completions.jsonl", "responses.jsonl"}
# A trace line's kind for an event on the wire, and the journal's "from" for it.
TRACE_SOURCES = {"client_event": "client", "server_event": "server"}


def journal_files(path: Path) -> list[Path]:
    """The events files under ``path``: the file itself, a session directory, or a journal or trace
    directory (every session in it, oldest first)."""
    if path.is_file():
        return [path]
    if (path / EVENTS_FILE).is_file():
        return [path / EVENTS_FILE]
    found = [p for p in path.glob(f"*/{EVENTS_FILE}") if p.is_file()]
    found += [p for p in path.glob("*.jsonl") if p.is_file() and p.name not in REQUEST_TRACES]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """A journal's records (a recording's lines, docs/record-replay.md: torn last line skipped), or a
    session trace's (``{"t": unix s, "kind", "data"}``) as journal records: ``from`` client / server /
    engine, ``ms`` since the first line. A line that is not a JSON object is skipped."""
    start_s: float | None = None
    for record in read_lines(path):
        if not isinstance(record, dict):
            continue
        kind, stamp = record.get("kind"), record.get("t")
        if "from" in record or not isinstance(kind, str) or not isinstance(stamp, (int, float)):
            yield record
            continue
        start_s = stamp if start_s is None else start_s
        ms = (stamp - start_s) * 1000.0
        source = TRACE_SOURCES.get(kind)
        if source is None:
            yield {"from": "engine", "kind": kind, "data": record.get("data"), "ms": ms}
        else:
            yield {"from": source, "event": record.get("data"), "ms": ms}


def _kind(record: dict[str, Any]) -> str:
    if record.get("from") == "engine":
        return str(record.get("kind"))
    event = record.get("event")
    if isinstance(event, dict):
        return str(event.get("type", "<no type>"))
    if "binary_bytes" in record:
        return "<binary frame>"
    if "raw" in record:  # a client text frame that did not parse (server/journal.py)
        return "<not JSON>"
    if "event" in record:  # JSON, but an array, a string or a number
        return "<not an object>"
    # A JSON object of no shape a journal or trace writes ({"a": 1}, a line of another tool's log): it
    # was labelled <not JSON>. Its keys are its gist.
    return "<unknown event>"


def _audio_ms(record: dict[str, Any]) -> float:
    event = record.get("event") or {}
    ref = event.get("audio") if isinstance(event, dict) else None
    if not isinstance(ref, dict):
        ref = event.get("delta") if isinstance(event, dict) else None
    return float(ref.get("duration_ms", 0.0)) if isinstance(ref, dict) else 0.0


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _item_gist(item: dict[str, Any]) -> str:
    # A client's item often has no id of its own (the engine gives it one): nothing, not Python's "None".
    parts = [str(item[key]) for key in ("id", "type") if item.get(key) is not None]
    if item.get("role"):
        parts.append(str(item["role"]))
    if item.get("name"):
        parts.append(f"{item['name']}({_short(item.get('arguments', ''), 40)})")
    for part in item.get("content") or []:
        if not isinstance(part, dict):
            continue
        words = part.get("text") or part.get("transcript")
        if words:
            parts.append(repr(_short(words, 60)))
        elif isinstance(part.get("audio"), dict):
            parts.append(f"[audio {part['audio'].get('duration_ms')} ms in {part['audio'].get('wav')}]")
    if item.get("output"):
        parts.append(f"output={_short(item['output'], 40)!r}")
    return " ".join(parts)


def gist(record: dict[str, Any]) -> str:
    """The interesting fields of one record, briefly."""
    if record.get("from") == "engine":
        return _short(record.get("data"), 120)
    if "raw" in record:
        return repr(_short(record["raw"], 80))
    if "binary_bytes" in record:
        return f"{record['binary_bytes']} bytes"
    if "event" not in record:  # an object of unknown shape (see _kind)
        return "keys " + ", ".join(k for k in record if k not in _STAMP_KEYS)
    event = record.get("event")
    if not isinstance(event, dict):
        return _short(event)
    kind = event.get("type")
    extra = (
        [f"event_id={event['event_id']}"] if record.get("from") == "client" and event.get("event_id") else []
    )
    if kind == "error" and isinstance(event.get("error"), dict):
        err = event["error"]
        bits = [str(err["code"])] if err.get("code") is not None else []
        bits.append(_short(err.get("message", ""), 100))
        if err.get("param"):
            bits.append(f"param={err['param']}")
        if err.get("event_id"):
            bits.append(f"for {err['event_id']}")
        return " ".join(bits)
    if kind in ("session.created", "session.updated", "session.update"):
        session = event.get("session") or {}
        keys = [k for k in session if k not in ("object", "id")] if kind == "session.update" else []
        head = session.get("id") or ""
        return " ".join([head, ",".join(keys), *extra]).strip()
    if isinstance(event.get("item"), dict):
        return " ".join([_item_gist(event["item"]), *extra])
    if isinstance(event.get("response"), dict):
        response = event["response"]
        bits = [str(response.get("id") or ""), str(response.get("status") or "")]
        details = response.get("status_details")
        if isinstance(details, dict) and details.get("reason"):
            bits.append(str(details["reason"]))
        outputs = [_item_gist(o) for o in response.get("output") or [] if isinstance(o, dict)]
        return " ".join([b for b in bits if b] + outputs + extra)
    fields = {
        k: v
        for k, v in event.items()
        if k not in ("type", "event_id", "audio", "delta", "obfuscation", "response_id", "output_index")
    }
    for key in ("transcript", "text", "arguments"):
        if key in fields:
            fields[key] = _short(fields[key], 80)
    return " ".join([*(f"{k}={_short(v, 60)}" for k, v in fields.items()), *extra])


def _run_key(record: dict[str, Any]) -> tuple[str, ...] | None:
    """Records with the same key in a row merge: a response's deltas (audio and words interleaved), a
    run of appends, an item's transcription deltas."""
    kind = _kind(record)
    if kind not in MERGED:
        return None
    event = record.get("event") or {}
    owner = event.get("response_id") or event.get("item_id") or ""
    return str(record.get("from")), "audio" if kind in APPENDS else "deltas", str(owner)


def _merged_line(run: list[dict[str, Any]]) -> str:
    first = run[0]
    counts: dict[str, int] = {}
    for record in run:
        counts[_kind(record)] = counts.get(_kind(record), 0) + 1
    audio_ms = sum(_audio_ms(r) for r in run)
    words = "".join(
        str((r.get("event") or {}).get("delta", ""))
        for r in run
        if _kind(r) not in AUDIO_DELTAS and isinstance((r.get("event") or {}).get("delta"), str)
    )
    what = " + ".join(
        f"{kind.rsplit('.', 1)[0] if len(counts) > 1 else ''}×{n}".strip() for kind, n in counts.items()
    )
    if audio_ms:
        what += f" {audio_ms:.0f} ms audio"
    if words:
        what += f" {_short(words, 100)!r}"
    response_id = (first.get("event") or {}).get("response_id")
    kind = (
        _kind(first)
        if len(counts) == 1
        else "deltas of " + (str(response_id) if response_id else "the translation")
    )
    return _line(first, what, kind)


def timeline(records: Iterable[dict[str, Any]], show_all: bool = False) -> Iterator[str]:
    """Lines of the timeline; consecutive records with the same :func:`_run_key` collapse to one."""
    run: list[dict[str, Any]] = []
    for record in records:
        key = None if show_all else _run_key(record)
        if run and key != _run_key(run[0]):
            yield _merged_line(run)
            run = []
        if key is None:
            yield _line(record, gist(record))
        else:
            run.append(record)
    if run:
        yield _merged_line(run)


def _holds_records(path: Path) -> bool:
    """Whether the file ``path`` holds a journal record (a JSON object per line): text, not a WAV."""
    try:
        return any(isinstance(record, dict) for record in read_records(path))
    except (UnicodeDecodeError, OSError):
        return False


def _line(record: dict[str, Any], text: str, kind: str | None = None) -> str:
    arrow = ARROWS.get(str(record.get("from")), "?")
    seconds = float(record.get("ms", 0.0)) / 1000.0
    return f"{seconds:9.3f}s {arrow} {kind or _kind(record):<44} {text}".rstrip()


def _hint(path: Path) -> str:
    """What to read instead of a file beside a journal or recording (its ``session.json``,
    ``recording.json``): the directory it is in."""
    directory = path.parent
    if (directory / EVENTS_FILE).is_file() or (directory / "recording.json").is_file():
        return f"; read its directory: mockengine journal {directory}"
    return ""


def _not_a_journal(path: Path) -> str:
    """What the file ``path``, which holds no journal record, is instead (a journal is one JSON object per
    line): a recording's manifest or session file, another JSON document, text, or not text; with what to
    read instead beside a journal or recording. It said "(no JSON records)" of a JSON file."""
    hint = _hint(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        return f"not a journal's {EVENTS_FILE} (not text){hint}"
    except ValueError:
        return f"not a journal's {EVENTS_FILE} (no line of it is a JSON object){hint}"
    if isinstance(document, dict) and document.get("format") == FORMAT:
        what = f"a recording's manifest ({MANIFEST})"
    elif path.name == SESSION_FILE and (path.parent / EVENTS_FILE).is_file():
        what = f"a recorded session's {SESSION_FILE} (its upgrade and close)"
    else:
        what = "a JSON document"
    return f"{what}, not a journal" + (hint or f" (a journal's {EVENTS_FILE} is one JSON object per line)")


def print_timeline(path: str, show_all: bool = False, out: TextIO | None = None) -> int:
    """Print every session's timeline under ``path``: 0, also for a directory with no journal in it yet
    (``no journals in DIR`` on stdout: a ``--journal-dir`` no session has written to is not a mistake);
    2 when ``path`` does not exist or is a file with no journal record in it (a usage mistake, as a
    missing file is for every other command)."""
    # a recording's HTTP exchanges (mockengine record)
    from mockengine.recordings.timeline import http_line, print_http

    if not Path(path).exists():
        print(f"mockengine journal: {path}: no such file or directory", file=sys.stderr)
        return 2
    out = out or sys.stdout
    if Path(path).is_file() and not _holds_records(Path(path)):  # /etc/passwd printed "== session etc"
        exchange = http_line(Path(path))  # one http/NNNN.json of a recording
        if exchange is not None:
            print(exchange, file=out)
            return 0
        print(f"mockengine journal: {path}: {_not_a_journal(Path(path))}", file=sys.stderr)
        return 2
    files = journal_files(Path(path))
    for n, events_file in enumerate(files):
        if n:
            print(file=out)
        name = events_file.parent.name if events_file.name == EVENTS_FILE else events_file.stem  # a trace's
        print(f"== session {name} ({events_file})", file=out)
        for line in timeline(read_records(events_file), show_all=show_all):
            print(line, file=out)
    if Path(path).is_dir() and print_http(Path(path), out, separate=bool(files)):
        return 0
    if not files:
        print(f"no journals in {path}", file=out)
    return 0
