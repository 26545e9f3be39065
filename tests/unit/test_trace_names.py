"""A trace file is one session's, whichever process or moment takes its name."""

from __future__ import annotations

import json

from mockengine.server.trace import Tracer


def test_two_workers_sharing_a_trace_dir_take_different_names(tmp_path):
    """Two processes of ``serve --workers 2`` (two Tracers on one directory), a seeded id each: the
    second took the first's name while that file was not yet written, and their lines shared a file."""
    first, second = Tracer(str(tmp_path)), Tracer(str(tmp_path))
    names = [first.take_name("sess_a"), second.take_name("sess_a")]
    assert names == ["sess_a", "sess_a.2"]
    for tracer, name in zip((first, second), names, strict=True):
        tracer.write(name, "engine", {"who": name})
        tracer.end_session(name)
        tracer.close()
    for name in names:
        lines = (tmp_path / f"{name}.jsonl").read_text().splitlines()
        assert [json.loads(line)["data"]["who"] for line in lines] == [name]


def test_a_session_that_ended_before_its_first_line_keeps_its_name(tmp_path):
    tracer = Tracer(str(tmp_path))
    name = tracer.take_name("sess_b")
    tracer.end_session(name)  # nothing written yet
    assert tracer.take_name("sess_b") == "sess_b.2"
    tracer.close()
