"""The labelled tool-intent set's loader (mockengine/bench/tool_cases.py): every case file in the folder is
picked up, each with apps and histories of its own, and reported per file and per app."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mockengine.bench.tool_cases import DATA, CaseFileError, case_files, load, split_names, split_of
from mockengine.bench.tools import evaluate, report

SEALED = """
today: "2026-05-04"
apps:
  notes:
    - {type: function, name: create_note, description: "Create a note.",
       parameters: {type: object, properties: {title: {type: string}}, required: [title]}}
  calendar:   # the file's own calendar wins over apps.yaml's, in this file only
    - {type: function, name: list_events, description: "List the events on a day.",
       parameters: {type: object, properties: {day: {type: string, format: date}}, required: [day]}}
histories:
  noted:
    - {say: "make a note called groceries"}
    - {call: create_note, arguments: {title: groceries}}
    - {output: {ok: true, note: {title: groceries}}}
cases:
  - {id: s-1, app: notes, say: "make a note called packing",
     expect: [{tool: create_note, arguments: {title: packing}}]}
  - {id: s-2, app: calendar, say: "what's on tomorrow?",
     expect: [{tool: list_events, arguments: {day: "2026-05-05"}}]}
  - {id: s-3, app: notes, history: noted, say: "thanks", expect: []}
  - {id: s-4, app: shop, history: gesture_open, say: "view my cart",
     expect: [{tool: view_cart, arguments: {}}]}
"""


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    for name in ("apps.yaml", "cases.yaml"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "heldout_r10.yaml").write_text(SEALED, encoding="utf-8")
    (tmp_path / "heldout_r9.yaml").write_text("cases: []\n", encoding="utf-8")
    return tmp_path


def test_every_case_file_is_found_in_natural_order(folder: Path) -> None:
    assert [p.name for p in case_files(folder)] == ["cases.yaml", "heldout_r9.yaml", "heldout_r10.yaml"]
    assert {"heldout_r2.yaml", "heldout_r4.yaml", "user_r1.yaml", "dev_r5.yaml"} <= {
        p.name for p in case_files(DATA)
    }


def test_a_files_own_apps_histories_and_today(folder: Path) -> None:
    shared, cases, _ = load(folder)
    sealed = {c.id: c for c in cases if c.split == "heldout_r10"}
    assert set(sealed) == {"s-1", "s-2", "s-3", "s-4"} and all(c.held_out for c in sealed.values())
    assert [t.name for t in sealed["s-1"].tools] == ["create_note"] and "notes" not in shared
    assert [t.name for t in sealed["s-2"].tools] == ["list_events"]  # the file's own calendar
    assert [t.name for t in shared["calendar"]][:2] == ["create_event", "list_events"]  # untouched
    assert sealed["s-3"].history[1] == {"call": "create_note", "arguments": {"title": "groceries"}}
    assert sealed["s-4"].history[1]["call"] == "open_card"  # cases.yaml's histories stay available
    assert str(sealed["s-2"].today) == "2026-05-04"


def test_the_bench_reports_a_new_file_per_app(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = report(evaluate(folder))
    out = capsys.readouterr().out
    assert "-- heldout_r10 (HELD OUT)" in out and "-- tune (tuned on)" in out
    assert figures["heldout_r10.notes"]["cases"] == 2 and figures["heldout_r10.calendar"]["cases"] == 1
    assert figures["heldout_r10.all"]["cases"] == 4 and figures["heldout_r10.all"]["invalid"] == 0
    assert figures["heldout_r10.notes"]["exact"] == 1.0  # its own tools, its own today
    assert figures["heldout_r10.calendar"]["exact"] == 1.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cases:\n  - {id: x, app: nowhere, say: hi, expect: []}\n", "app 'nowhere'"),
        ("cases:\n  - {id: x, app: shop, say: hi}\n", "needs id, app, say and expect"),
        ("cases:\n  - {id: x, app: shop, say: hi, history: missing, expect: []}\n", "history 'missing'"),
        ("apps: [1]\ncases: []\n", "apps must be a mapping"),
        ("cases:\n  - {id: vc-01, app: shop, say: hi, expect: []}\n", "case id 'vc-01'"),
        ("cases: [\n", "not valid YAML"),
        ("cases:\n  - {id: x, app: shop, say: hi, tool_choice: get_weather, expect: []}\n", "tool_choice"),
    ],
)
def test_a_broken_file_is_named_in_the_error(folder: Path, text: str, message: str) -> None:
    (folder / "heldout_r11.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(CaseFileError, match=message) as raised:
        load(folder)
    assert "heldout_r11" in str(raised.value) or "vc-01" in str(raised.value)


def test_splits_follow_from_the_file_and_id() -> None:
    assert split_of("vc-01") == "burned-r1" and split_of("vc-02") == "tune"
    assert split_of("r4-vc-01", "heldout_r4") == "heldout_r4"


def test_split_names_come_from_the_file_names(folder: Path) -> None:
    assert split_names(folder) == ["tune", "burned-r1", "heldout_r9", "heldout_r10"]


def test_an_unknown_tools_misses_split_is_refused_naming_the_splits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`bench --tools-misses nope` was taken: the bench ran and listed no misses, as for a split with none."""
    from mockengine.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["bench", "--only", "tools", "--tools-misses", "nope"])
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--tools-misses: unknown split 'nope'; the splits: tune, burned-r1, " in err
    assert all(name in err for name in ("heldout_r4", "user_r1", "dev_r5"))


FORCED = """
apps:
  profile:
    - {type: function, name: save_hobbies, description: "Save the user's hobbies",
       parameters: {type: object, properties: {hobbies: {type: array, items: {type: string}}},
         required: [hobbies]}}
cases:
  - {id: f-1, app: profile, say: "hello there", expect: []}
  - {id: f-2, app: profile, say: "hello there", tool_choice: save_hobbies,
     expect: [{tool: save_hobbies, arguments: {hobbies: [Hobbies]}}]}
  - {id: f-3, app: profile, say: "hello there", tool_choice: required,
     expect: [{tool: save_hobbies, arguments: {hobbies: [Hobbies]}}]}
"""


def test_a_case_may_carry_the_hosts_tool_choice(folder: Path) -> None:
    """A case's ``tool_choice`` (a tool's name, or ``required``) is what the brain is asked under: the
    same words call nothing unforced and the forced tool when it is forced."""
    (folder / "heldout_r11.yaml").write_text(FORCED, encoding="utf-8")
    _, cases, _ = load(folder)
    assert [c.tool_choice for c in cases if c.split == "heldout_r11"] == ["auto", "save_hobbies", "required"]
    figures = report(evaluate(folder))
    assert figures["heldout_r11.profile"]["exact"] == 1.0 and figures["heldout_r11.profile"]["calls"] == 2
