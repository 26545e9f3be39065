"""File paths and file names are taken as written for a parameter named for a path, file or folder: a
typed "Delete the file at /tmp/notes.txt." gave ``delete_file {"path": "tmp notes"}`` (the words of the
path, its slashes and extension dropped). A path said only in words stays as it was ("the notes file")."""

from __future__ import annotations

import json
from datetime import date

import pytest

from mockengine.brain import acting, addresses
from mockengine.brain.model import ToolSpec
from mockengine.brain.referents import Referent

TODAY = date(2026, 3, 2)


def tool(name: str, description: str, parameter: str) -> ToolSpec:
    schema = {"type": "object", "properties": {parameter: {"type": "string"}}, "required": [parameter]}
    return ToolSpec(name, description, schema)


DELETE = tool("delete_file", "Delete a file at a path.", "path")
READ = tool("read_file", "Read a file.", "filename")
OPEN = tool("open_folder", "Open a folder.", "directory")


def arguments(said: str, spec: ToolSpec) -> dict[str, str]:
    decided = acting.plan(said, [spec], Referent(), TODAY)
    assert decided is not None and decided.actions, said
    call = decided.actions[0].call
    assert call.name == spec.name
    return dict(json.loads(call.arguments))


@pytest.mark.parametrize(
    ("said", "spec", "expected"),
    [
        ("Delete the file at /tmp/notes.txt.", DELETE, "/tmp/notes.txt"),
        ("Delete /var/log/app.log please", DELETE, "/var/log/app.log"),
        ("Delete ~/Downloads/report.pdf", DELETE, "~/Downloads/report.pdf"),
        ("Read the file config.yaml", READ, "config.yaml"),
        ("Read notes.txt, thanks.", READ, "notes.txt"),
        ("Open the folder C:\\Users\\ada\\Documents", OPEN, "C:\\Users\\ada\\Documents"),
        ("Open the folder src/components", OPEN, "src/components"),
    ],
)
def test_a_written_path_is_taken_as_written(said: str, spec: ToolSpec, expected: str) -> None:
    assert arguments(said, spec) == {next(iter(spec.parameters["properties"])): expected}


def test_a_path_said_in_words_stays_words() -> None:
    assert arguments("Delete the notes file", DELETE) == {"path": "notes"}


@pytest.mark.parametrize(
    "text",
    ["see e.g. the notes", "open 24/7", "mail bob@example.com", "at https://example.org/a", "it is 3.5"],
)
def test_no_path_is_found_in_other_written_forms(text: str) -> None:
    assert addresses.path_for(text) is None


@pytest.mark.parametrize(
    ("name", "takes"),
    [("path", True), ("file_path", True), ("file_name", True), ("targetFolder", True), ("city", False)],
)
def test_which_parameters_take_a_path(name: str, takes: bool) -> None:
    assert addresses.takes_path(name, {"type": "string"}) is takes


def calls(said: str, spec: ToolSpec) -> list[dict[str, str]]:
    decided = acting.plan(said, [spec], Referent(), TODAY)
    assert decided is not None
    return [dict(json.loads(action.call.arguments)) for action in decided.actions]


def test_several_paths_are_a_call_each() -> None:
    """Only the first was called ("Delete /tmp/a.txt and /tmp/b.txt." deleted /tmp/a.txt alone)."""
    assert calls("Delete /tmp/a.txt and /tmp/b.txt.", DELETE) == [
        {"path": "/tmp/a.txt"},
        {"path": "/tmp/b.txt"},
    ]
    assert calls("Delete /tmp/a.txt, /tmp/b.txt and notes.md", DELETE) == [
        {"path": "/tmp/a.txt"},
        {"path": "/tmp/b.txt"},
        {"path": "notes.md"},
    ]


def test_two_path_parameters_take_a_path_each() -> None:
    schema = {
        "type": "object",
        "properties": {"source_path": {"type": "string"}, "target_path": {"type": "string"}},
        "required": ["source_path", "target_path"],
    }
    move = ToolSpec("move_file", "Move a file.", schema)
    assert calls("Move /tmp/a.txt to /tmp/b.txt", move) == [
        {"source_path": "/tmp/a.txt", "target_path": "/tmp/b.txt"}
    ]
