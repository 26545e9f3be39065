"""``mockengine journal`` on what a user may point it at besides a journal: a ``--trace-dir`` (its files
and the directory) and a file with lines that are JSON but not objects."""

from __future__ import annotations

import io
import json
from pathlib import Path

from mockengine.journal import print_timeline


def _trace(path: Path, start_s: float) -> None:
    """A session trace as mockengine/server/trace.py writes it: ``{"t", "kind", "data"}`` lines."""
    lines = [
        (0.0, "server_event", {"type": "session.created", "session": {"id": "sess_a"}}),
        (0.25, "client_event", {"type": "response.create"}),
        (0.5, "reply", {"rule": "builtin.heard", "text": "Paris."}),
        (
            0.75,
            "server_event",
            {"type": "response.done", "response": {"id": "resp_1", "status": "completed"}},
        ),
    ]
    path.write_text(
        "".join(json.dumps({"t": start_s + dt, "kind": k, "data": d}) + "\n" for dt, k, d in lines)
    )


def test_a_trace_file_reads_as_a_timeline(tmp_path: Path) -> None:
    """A trace printed every line as '? <not JSON> null'."""
    trace = tmp_path / "sess_a.2.jsonl"
    _trace(trace, 1_796_000_000.0)
    out = io.StringIO()
    assert print_timeline(str(trace), out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == f"== session sess_a.2 ({trace})"
    assert "not JSON" not in out.getvalue()
    assert lines[1].split() == ["0.000s", "←", "session.created", "sess_a"]
    assert lines[2].split()[:3] == ["0.250s", "→", "response.create"]
    assert lines[3].split()[:3] == ["0.500s", "·", "reply"] and "builtin.heard" in lines[3]
    assert lines[4].split() == ["0.750s", "←", "response.done", "resp_1", "completed"]


def test_a_trace_directory_lists_its_sessions_not_its_request_lines(tmp_path: Path) -> None:
    _trace(tmp_path / "sess_a.jsonl", 1_796_000_000.0)
    _trace(tmp_path / "sess_b.jsonl", 1_796_000_100.0)
    (tmp_path / "chat-completions.jsonl").write_text(json.dumps({"t": 1.0, "request": {}}) + "\n")
    out = io.StringIO()
    assert print_timeline(str(tmp_path), out=out) == 0
    headers = [line for line in out.getvalue().splitlines() if line.startswith("==")]
    assert [h.split()[2] for h in headers] == ["sess_a", "sess_b"]


def test_lines_that_are_not_objects_are_skipped(tmp_path: Path) -> None:
    """A JSON array line was an AttributeError traceback."""
    path = tmp_path / "events.jsonl"
    record = {"from": "server", "ms": 5.0, "event": {"type": "session.created", "session": {"id": "sess_c"}}}
    path.write_text("[1, 2]\n" + json.dumps(record) + "\n" + '"text"\n')
    out = io.StringIO()
    assert print_timeline(str(path), out=out) == 0
    assert out.getvalue().splitlines()[1:] == [
        "    0.005s ← session.created                              sess_c"
    ]


def test_an_object_of_unknown_shape_is_labelled_so_with_its_keys(tmp_path: Path) -> None:
    """A JSON object that is no journal or trace record was labelled '<not JSON>' (and 'null')."""
    path = tmp_path / "events.jsonl"
    records = [
        {"from": "server", "ms": 5.0, "event": {"type": "session.created", "session": {"id": "sess_d"}}},
        {"level": "info", "msg": "started"},  # another tool's log line
        {"seq": 3, "from": "client", "ms": 6.0, "raw": "hello", "chars": 5},  # a text frame, not JSON
        {"seq": 4, "from": "client", "ms": 7.0, "event": [1, 2]},  # JSON, not an object
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    out = io.StringIO()
    assert print_timeline(str(path), out=out) == 0
    lines = [" ".join(line.split()) for line in out.getvalue().splitlines()[1:]]
    assert lines == [
        "0.005s ← session.created sess_d",
        "0.000s ? <unknown event> keys level, msg",
        "0.006s → <not JSON> 'hello'",
        "0.007s → <not an object> [1, 2]",
    ]


def test_a_directory_with_no_journal_yet_says_so_and_is_no_error(tmp_path: Path, capsys) -> None:
    """A ``--journal-dir`` no session has written to (empty, or only the request traces) exited 1 with
    a line on stderr, as if the user had made a mistake: it is ``no journals in DIR`` and status 0."""
    out = io.StringIO()
    assert print_timeline(str(tmp_path), out=out) == 0
    assert out.getvalue() == f"no journals in {tmp_path}\n"
    (tmp_path / "chat-completions.jsonl").write_text(json.dumps({"t": 1.0, "kind": "x", "data": {}}) + "\n")
    out = io.StringIO()
    assert print_timeline(str(tmp_path), out=out) == 0
    assert out.getvalue() == f"no journals in {tmp_path}\n"
    assert capsys.readouterr().err == ""


def test_a_recordings_own_files_read_as_what_they_are(tmp_path: Path, capsys) -> None:
    """``journal rec/http/0001.json`` and ``journal rec/http`` were "not a journal" (status 2) and "no
    journal" (status 1): they print the exchanges, as ``journal rec`` does. ``journal rec/recording.json``
    or a session's ``session.json`` stays a mistake, now pointing at the directory to read."""
    rec = tmp_path / "rec"
    (rec / "http").mkdir(parents=True)
    (rec / "recording.json").write_text(
        json.dumps({"format": "mockengine-recording", "version": 1}, indent=1)
    )
    exchange = {
        "t": 1.0,
        "method": "POST",
        "path": "/v1/chat/completions",
        "request_body": {"messages": [{"role": "user", "content": "What is your name?"}]},
        "status": 200,
        "ms": 19.0,
        "response_body": {},
    }
    (rec / "http" / "0001.json").write_text(json.dumps(exchange, indent=1))
    line = "0001   0.019s POST /v1/chat/completions 200  body  'What is your name?'"
    out = io.StringIO()
    assert print_timeline(str(rec / "http" / "0001.json"), out=out) == 0
    assert out.getvalue() == line + "\n"
    out = io.StringIO()
    assert print_timeline(str(rec / "http"), out=out) == 0
    assert out.getvalue() == f"== http exchanges ({rec / 'http'})\n{line}\n"
    assert capsys.readouterr().err == ""
    assert print_timeline(str(rec / "recording.json"), out=io.StringIO()) == 2
    assert capsys.readouterr().err == (
        f"mockengine journal: {rec / 'recording.json'}: a recording's manifest (recording.json), not a "
        f"journal; read its directory: mockengine journal {rec}\n"
    )


def test_several_paths_read_in_turn_with_the_worst_status(tmp_path: Path, capsys) -> None:
    """``mockengine journal jd/sess_a jd/sess_b`` (a shell glob) was "unrecognized arguments"."""
    from mockengine.cli import main

    _trace(tmp_path / "sess_a.jsonl", 1000.0)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["journal", str(tmp_path / "sess_a.jsonl"), str(empty)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== session sess_a") and out.endswith(f"\n\nno journals in {empty}\n")
    assert main(["journal", str(empty), str(tmp_path / "missing")]) == 2
    assert (
        capsys.readouterr().err == f"mockengine journal: {tmp_path / 'missing'}: no such file or directory\n"
    )


def test_a_file_that_is_no_journal_is_refused_with_what_it_is(tmp_path: Path, capsys) -> None:
    """`journal rec/recording.json` said "(no JSON records)" of a JSON file: a journal is one JSON object
    per line (events.jsonl), and the refusal now says what the file is instead."""
    session = tmp_path / "rec" / "realtime-0001"
    session.mkdir(parents=True)
    (session / "events.jsonl").write_text("")
    (session / "session.json").write_text(json.dumps({"request": {}, "close_code": 1000}, indent=1))
    document = tmp_path / "config.json"
    document.write_text(json.dumps({"voices": ["alloy"]}, indent=2))
    text = tmp_path / "notes.txt"
    text.write_text("root:x:0:0\n")
    binary = tmp_path / "a.wav"
    binary.write_bytes(b"RIFF\xff\xfe\x00WAVE")
    expected = {
        session / "session.json": "a recorded session's session.json (its upgrade and close), not a "
        f"journal; read its directory: mockengine journal {session}",
        document: "a JSON document, not a journal (a journal's events.jsonl is one JSON object per line)",
        text: "not a journal's events.jsonl (no line of it is a JSON object)",
        binary: "not a journal's events.jsonl (not text)",
    }
    for path, reason in expected.items():
        assert print_timeline(str(path), out=io.StringIO()) == 2
        assert capsys.readouterr().err == f"mockengine journal: {path}: {reason}\n"
