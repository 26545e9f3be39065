"""`mockengine bench`'s shared options: bad numbers are argparse errors naming the option, and a load run in
which no session connected exits non-zero (a fresh user saw tracebacks, and exit status 0 for a load test
that measured nothing)."""

from __future__ import annotations

import socket

import pytest

from mockengine.cli import build_parser, main


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (("--sessions", "0"), "--sessions"),
        (("--sessions", "-3"), "--sessions"),
        (("--sessions", "x"), "--sessions"),
        (("--duration", "-1"), "--duration"),
        (("--turn-every", "0"), "--turn-every"),
        (("--barge-in", "5"), "--barge-in"),
    ],
)
def test_a_bad_number_is_an_error_naming_its_option(argv, named, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["bench", "--only", "load", *argv])
    assert exited.value.code == 2 and named in capsys.readouterr().err
    options = build_parser().parse_args(["bench", "--sessions", "1", "--duration", "0.5", "--barge-in", "0"])
    assert (options.sessions, options.duration, options.barge_in) == (1, 0.5, 0.0)


@pytest.mark.slow
def test_a_load_run_where_no_session_connected_exits_1(capsys) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    argv = ["bench", "--only", "load", "--url", f"ws://127.0.0.1:{port}/v1/realtime?model=gpt-realtime"]
    assert main([*argv, "--sessions", "1", "--duration", "1", "--no-progress"]) == 1
    assert "no session connected" in capsys.readouterr().err
