"""The one near-miss helper (mockengine/near_miss.py) every refusal of a misspelt name uses, and the
command line's near misses: a misspelt option of any command, a misspelt command or choice."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mockengine
from mockengine.cli import main
from mockengine.near_miss import did_you_mean, nearest

ROOT = Path(mockengine.__file__).parent


def test_the_nearest_choice_and_its_one_shape() -> None:
    assert nearest("stauts", ["status", "code"]) == "status"
    assert did_you_mean("stauts", ["status", "code"]) == " (did you mean 'status'?)"
    assert did_you_mean("nope", ["status", "code"]) == ""
    assert nearest("Pizza", ["pizza", "quiz"]) == "pizza"  # without case


def test_a_shared_prefix_alone_makes_no_near_miss() -> None:
    """``MOCKENGINE_FOO`` is 80 % alike ``MOCKENGINE_LOOP`` by its prefix alone: no near miss of it."""
    variables = ["MOCKENGINE_LOOP", "MOCKENGINE_SEED", "MOCKENGINE_PORT"]
    assert nearest("MOCKENGINE_FOO", variables) == "MOCKENGINE_LOOP"  # what the prefix does
    assert nearest("MOCKENGINE_FOO", variables, prefix="MOCKENGINE_") is None
    assert nearest("MOCKENGINE_SEDD", variables, prefix="MOCKENGINE_") == "MOCKENGINE_SEED"
    assert nearest("mockengine_port", variables, prefix="MOCKENGINE_") == "MOCKENGINE_PORT"


def test_no_module_but_the_helper_calls_difflib() -> None:
    """One helper, one message shape: the near misses of faults, scenarios, the control endpoint, the
    pytest marker and the command line each called difflib and said it their own way."""
    callers = []
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                if "difflib" in names:
                    callers.append(path.relative_to(ROOT).as_posix())
    assert callers == ["near_miss.py"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["serve", "--prot", "8000"],
            "mockengine serve: error: unrecognized arguments: --prot (did you mean '--port'?) 8000 "
            "(`mockengine serve --help` lists the options)",
        ),
        (  # each misspelt option with its own near miss; `--x=value` too
            ["serve", "--prot=8000", "--sed", "3"],
            "mockengine serve: error: unrecognized arguments: --prot=8000 (did you mean '--port'?) --sed "
            "(did you mean '--seed'?) 3 (`mockengine serve --help` lists the options)",
        ),
        (  # a long option typed with one dash
            ["serve", "-port", "8000"],
            "mockengine serve: error: unrecognized arguments: -port (did you mean '--port'?) 8000 "
            "(`mockengine serve --help` lists the options)",
        ),
        (  # nothing near: as before
            ["serve", "--bogus"],
            "mockengine serve: error: unrecognized arguments: --bogus (`mockengine serve --help` lists the "
            "options)",
        ),
        (
            ["faults", "schedule", "--cout", "3"],
            "mockengine faults schedule: error: unrecognized arguments: --cout (did you mean '--count'?) 3 "
            "(`mockengine faults schedule --help` lists the options)",
        ),
        (
            ["bench", "--onyl", "tools"],
            "mockengine bench: error: unrecognized arguments: --onyl (did you mean '--only'?) tools "
            "(`mockengine bench --help` lists the options)",
        ),
        (  # argparse names the missing option first: the misspelt one it was, with its near miss
            ["record", "--upstrem", "wss://api.openai.com", "--out", "rec"],
            "mockengine record: error: the following arguments are required: --upstream; unrecognized "
            "arguments: --upstrem (did you mean '--upstream'?) (`mockengine record --help` lists the "
            "options)",
        ),
        (
            ["conformance", "--ulr", "ws://127.0.0.1:8765"],
            "mockengine conformance: error: the following arguments are required: --url; unrecognized "
            "arguments: --ulr (did you mean '--url'?) (`mockengine conformance --help` lists the options)",
        ),
        (
            ["--verison"],
            "mockengine: error: the following arguments are required: COMMAND; unrecognized arguments: "
            "--verison (did you mean '--version'?) (`mockengine --help` lists the options)",
        ),
        (
            ["serv", "--port", "8000"],
            "mockengine: error: argument COMMAND: invalid choice: 'serv' (did you mean 'serve'?); choose "
            "from 'serve', 'conformance', 'bench', 'faults', 'journal', 'record' (`mockengine --help` "
            "lists the options)",
        ),
        (
            ["serve", "--loop", "uvlop"],
            "mockengine serve: error: argument --loop: invalid choice: 'uvlop' (did you mean 'uvloop'?); "
            "choose from 'asyncio', 'uvloop' (`mockengine serve --help` lists the options)",
        ),
    ],
)
def test_a_misspelt_option_command_or_choice_names_its_near_miss(argv: list[str], said: str, capsys) -> None:
    """`serve --prot 8000` said only "unrecognized arguments: --prot 8000" (Python 3.11's argparse has no
    suggest_on_error): every command's parser now offers the near miss, in the one shape."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines() == [said]


def test_an_abbreviated_option_is_no_mistake(capsys) -> None:
    """argparse takes an unambiguous prefix (``--ou`` for ``--out``): not "unrecognized"."""
    with pytest.raises(SystemExit) as exited:
        main(["record", "--ou", "rec"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "required: --upstream (" in err and "unrecognized" not in err, err


def test_what_follows_a_double_dash_is_no_option_and_offers_no_near_miss(capsys) -> None:
    """After ``--`` every argument is a value, not an option: `serve -- --help` said "unrecognized
    arguments: -- --help (did you mean '--help'?)", offering the very word typed; `record -- --upstrem`
    added "--upstrem (did you mean '--upstream'?)" to the missing-argument sentence."""
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--", "--help"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "mockengine serve: error: unrecognized arguments: -- --help (`mockengine serve --help` lists the "
        "options)"
    ]
    with pytest.raises(SystemExit):
        main(["record", "--out", "rec", "--", "--upstrem"])
    err = capsys.readouterr().err
    assert "did you mean" not in err, err
