"""``MOCKENGINE_*`` variables nothing reads are warned of: ``MOCKENGINE_SEDD=3`` was ignored in silence
and the engine ran unseeded. The variables something reads are listed in one place (the settings' own
and ``mockengine.settings.OTHER_VARIABLES``); the code is searched here for a reader that list misses."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import mockengine
from mockengine.cli import main, warn_of_unknown_variables
from mockengine.settings import OTHER_VARIABLES, known_variables, unknown_variables

ROOT = Path(mockengine.__file__).parent.parent
# Misspellings the tests use on purpose, and the names the docstrings make up as examples.
NOT_READ = {
    "MOCKENGINE_SEDD",
    "MOCKENGINE_PORTT",
    "MOCKENGINE_FOO",
    "MOCKENGINE_BENCH_TURN_SPLTS",
    "MOCKENGINE_EXTRA",
    "MOCKENGINE_X",
    "MOCKENGINE_REPLAY",
}
QUOTED = re.compile(r"""["'](MOCKENGINE_[A-Z0-9_]+)["']""")
ASSIGNED = re.compile(r"\b(MOCKENGINE_[A-Z0-9_]+)[=:]")  # the Makefile, deploy/: NAME=value, NAME: value


def _code() -> dict[str, str]:
    paths = [
        *ROOT.glob("mockengine/**/*.py"),
        *ROOT.glob("tests/**/*.py"),
        *ROOT.glob("tools/**/*.py"),
        ROOT / "Makefile",
        *ROOT.glob("deploy/*"),
    ]
    return {path.relative_to(ROOT).as_posix(): path.read_text() for path in paths if path.is_file()}


def test_every_variable_the_code_reads_or_sets_is_known() -> None:
    """A reader added without a line in OTHER_VARIABLES would be warned of as unknown."""
    missing = sorted(
        f"{name} ({path})"
        for path, text in _code().items()
        for name in {*QUOTED.findall(text), *ASSIGNED.findall(text)}
        if name not in known_variables() and name not in NOT_READ
    )
    assert not missing, "add them to mockengine.settings.OTHER_VARIABLES: " + ", ".join(missing)


def test_every_other_variable_listed_has_a_reader() -> None:
    code = "\n".join(text for path, text in _code().items() if path != "mockengine/settings.py")
    assert [name for name in OTHER_VARIABLES if not re.search(rf"\b{name}\b", code)] == []


def test_unknown_variables() -> None:
    environ = {
        "MOCKENGINE_SEED": "3",
        "MOCKENGINE_SEDD": "3",
        "MOCKENGINE_FUZZ_SEED": "7",  # the test suite's: not warned of
        "MOCKENGINE_EXTRA": "x",  # `extra` is the one field no variable sets
        "mockengine_port": "9000",  # read in upper case only
        "HOME": "/root",
    }
    assert unknown_variables(environ) == ["MOCKENGINE_EXTRA", "MOCKENGINE_SEDD", "mockengine_port"]


@pytest.fixture
def no_variables(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No MOCKENGINE_* variable of the run's own environment."""
    for name in [name for name in os.environ if name.upper().startswith("MOCKENGINE_")]:
        monkeypatch.delenv(name)
    return monkeypatch


def test_each_unknown_variable_is_one_warning_line_with_its_near_miss(no_variables, capsys) -> None:
    monkeypatch = no_variables
    monkeypatch.setenv("MOCKENGINE_SEDD", "3")
    monkeypatch.setenv("MOCKENGINE_PORTT", "9000")
    monkeypatch.setenv("MOCKENGINE_FOO", "1")
    monkeypatch.setenv("MOCKENGINE_SEED", "3")
    warn_of_unknown_variables("mockengine record")
    # said once: gone from the environment the command's child processes (bench's engines) inherit
    assert unknown_variables() == [] and os.environ["MOCKENGINE_SEED"] == "3"
    assert capsys.readouterr().err.splitlines() == [
        "mockengine record: warning: unknown environment variable MOCKENGINE_FOO: ignored",
        "mockengine record: warning: unknown environment variable MOCKENGINE_PORTT (did you mean "
        "'MOCKENGINE_PORT'?): ignored",
        "mockengine record: warning: unknown environment variable MOCKENGINE_SEDD (did you mean "
        "'MOCKENGINE_SEED'?): ignored",
    ]


@pytest.mark.parametrize("command", ["journal", "faults"])
def test_commands_that_read_no_variable_say_nothing_of_them(
    command: str, monkeypatch, capsys, tmp_path
) -> None:
    monkeypatch.setenv("MOCKENGINE_SEDD", "3")
    main(["journal", str(tmp_path)] if command == "journal" else ["faults", "kinds"])
    assert "MOCKENGINE_SEDD" not in capsys.readouterr().err


def test_bench_warns_before_it_refuses_a_usage_mistake(no_variables, capsys) -> None:
    no_variables.setenv("MOCKENGINE_BENCH_TURN_SPLTS", "dev")
    assert main(["bench", "--only", "nope"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "mockengine bench: warning: unknown environment variable MOCKENGINE_BENCH_TURN_SPLTS (did you mean "
        "'MOCKENGINE_BENCH_TURN_SPLITS'?): ignored"
    )
    assert err[1].startswith("mockengine bench: unknown section(s) nope")
