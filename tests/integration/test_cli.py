"""The command line's first minute: mistakes fail at once with one line, before the models load."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from mockengine import __version__
from mockengine.cli import build_parser


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mockengine", *argv], capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow  # a mockengine subprocess
def test_a_taken_port_is_one_line_and_exit_status_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _run("serve", "--port", str(port))
    assert result.returncode == 2
    assert result.stdout == ""  # never "listening on"
    assert result.stderr.splitlines() == [
        f"mockengine: cannot listen on 127.0.0.1:{port}: address already in use "
        "(another server? choose another --port)"
    ]


@pytest.mark.slow  # a mockengine subprocess
def test_a_bad_fault_is_refused_before_the_models_load() -> None:
    result = _run("serve", "--port", "0", "--fault", "close_after_audio_delta:k=-1")
    assert result.returncode == 2
    assert "models loaded" not in result.stderr and "listening" not in result.stdout
    assert result.stderr.startswith("mockengine: ") and "close_after_audio_delta" in result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.slow  # a mockengine subprocess
def test_version() -> None:
    assert _run("--version").stdout.strip() == f"mockengine {__version__}"


def test_help_describes_every_command_and_the_environment() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    helps = {choice.dest: choice.help for choice in commands._choices_actions}
    assert set(helps) == set(commands.choices)
    assert all(help_text and len(help_text) > 20 for help_text in helps.values()), helps
    serve_help = commands.choices["serve"].format_help()
    assert "MOCKENGINE_PORT" in serve_help and "--shutdown-grace-s" in serve_help
