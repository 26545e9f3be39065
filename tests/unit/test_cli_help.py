"""`mockengine COMMAND --help` describes each command (README: "`mockengine COMMAND --help` describes
each"): only `serve` said what it does; `conformance`, `bench`, `faults`, `journal` and `record` listed
their options with no word on what the command is for or what its exit status means."""

from __future__ import annotations

import pytest

from tests.unit.test_docs_drift import _commands

DESCRIBED = {
    # command: words its help must hold (what it does; how it ends)
    "conformance": ("HRP conformance suite", "Exit status 0", "docs/conformance.md"),
    "bench": ("figures", "docs/load-and-capacity.md"),
    "faults": ("fault kinds", "docs/faults-and-tokens.md"),
    "faults kinds": ("every fault kind",),
    "faults schedule": ("which connections", "--faults", "exit status 2"),
    "journal": ("timeline", "exit status", "docs/operations.md"),
    "record": ("relaying proxy", "docs/record-replay.md"),
}


@pytest.mark.parametrize("command", sorted(DESCRIBED))
def test_each_commands_help_says_what_it_does(command: str) -> None:
    parser = _commands()[command]
    assert parser.description, f"mockengine {command} --help has no description"
    text = " ".join(parser.format_help().split())
    for words in DESCRIBED[command]:
        assert words in text, (command, words, text[:400])


def test_the_control_token_help_says_loopback_callers_need_it_too() -> None:
    # It said "token that opens /mockengine/* to non-loopback clients"; with a token set, loopback
    # callers without it are refused (403) as well.
    text = " ".join(_commands()["serve"].format_help().split())
    assert "token that opens /mockengine/* to non-loopback clients" not in text
    assert "loopback callers too" in text


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["serve", "--port", "abc"], "mockengine serve: error: argument --port: invalid int value: 'abc'"),
        (["serve", "--bogus"], "mockengine serve: error: unrecognized arguments: --bogus"),
        (["conformance"], "mockengine conformance: error: the following arguments are required: --url"),
        (["faults", "schedule", "--count", "x"], "mockengine faults schedule: error: argument --count"),
        (["journal"], "mockengine journal: error: the following arguments are required: path"),
        (["nope"], "mockengine: error: argument COMMAND: invalid choice: 'nope'"),
    ],
)
def test_a_usage_mistake_is_one_line_naming_the_command(argv: list[str], said: str, capsys) -> None:
    # command-line.md: "Every command refuses a usage mistake … with one line and exit status 2". argparse
    # printed the command's whole usage first (41 lines for serve), and an unknown option of a command
    # was put down to `mockengine` itself ("mockengine: error: unrecognized arguments: --bogus").
    from mockengine.cli import main

    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(said), lines
    assert "--help" in lines[0]  # where the options are
