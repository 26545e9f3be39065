"""`mockengine bench`'s shared options: bad numbers are argparse errors naming the option, and a load run in
which no session connected exits non-zero (a fresh user saw tracebacks, and exit status 0 for a load test
that measured nothing)."""

from __future__ import annotations

import socket
import subprocess
import sys

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
        (("--levels", "a,b"), "--levels"),
        (("--levels", "10,0"), "--levels"),
        (("--levels", ","), "--levels"),
        (("--level-duration", "0"), "--level-duration"),
        (("--workers", "0"), "--workers"),
        (("--minutes", "0"), "--minutes"),
        (("--minutes", "-2"), "--minutes"),
        (("--minutes", "inf"), "--minutes"),
        (("--duration", "nan"), "--duration"),
        (("--wave-s", "0"), "--wave-s"),
        (("--session-duration", "-1"), "--session-duration"),
        (("--webrtc-levels", "ten"), "--webrtc-levels"),
        (("--webrtc-turns", "0"), "--webrtc-turns"),
        (("--webrtc-sessions", "0"), "--webrtc-sessions"),
        (("--webrtc-seconds", "0"), "--webrtc-seconds"),
        (("--webrtc-calls-per-driver", "0"), "--webrtc-calls-per-driver"),
        (("--webrtc-level-seconds", "0"), "--webrtc-level-seconds"),
        (("--webrtc-driver", "go"), "--webrtc-driver"),
        (("--webrtc-media-plane", "pion,libwebrtc"), "--webrtc-media-plane"),
        (("--webrtc-media-plane", "pion,pion"), "--webrtc-media-plane"),
        (("--webrtc-media-plane", ","), "--webrtc-media-plane"),
    ],
)
def test_a_bad_number_is_an_error_naming_its_option(argv, named, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["bench", "--only", "load", *argv])
    assert exited.value.code == 2 and named in capsys.readouterr().err
    options = build_parser().parse_args(["bench", "--sessions", "1", "--duration", "0.5", "--barge-in", "0"])
    assert (options.sessions, options.duration, options.barge_in) == (1, 0.5, 0.0)


@pytest.mark.parametrize(("value", "said"), [("1e3", "a whole number"), ("x", "a whole number")])
def test_a_count_that_is_no_whole_number_says_a_whole_number_is_wanted(value, said, capsys) -> None:
    # "--sessions 1e3" said "expected a number" of what is a number: the count must be whole
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--only", "load", "--sessions", value])
    assert f"expected {said}, got '{value}'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--only", "load", "--duration", "ten"])
    assert "expected a number, got 'ten'" in capsys.readouterr().err


def test_a_bad_value_is_one_line_on_the_real_command_line() -> None:
    """Through the installed entry point, as a user types it: exit 2, one usage line and one error line
    naming the option, no traceback (``--levels a,b`` was a ValueError traceback once the engine had
    started; ``--only soak --minutes 0`` printed a table of None)."""
    for argv in (["--only", "capacity", "--levels", "a,b"], ["--only", "soak", "--minutes", "0"]):
        run = subprocess.run(
            [sys.executable, "-m", "mockengine", "bench", *argv], capture_output=True, text=True, timeout=60
        )
        lines = run.stderr.strip().splitlines()
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        assert lines[-1].startswith("mockengine bench: error: argument") and argv[-2] in lines[-1]
        assert run.stdout == ""


def test_the_levels_and_their_defaults_parse_to_whole_numbers() -> None:
    options = build_parser().parse_args(["bench", "--levels", " 10, 25 ,50", "--minutes", "0.4"])
    assert (options.levels, options.minutes, options.webrtc_levels) == ([10, 25, 50], 0.4, [10, 50, 100, 150])


def test_the_webrtc_capacity_options_and_their_defaults() -> None:
    """Without --webrtc-driver / --webrtc-media-plane the bench chooses by what is built (None here)."""
    options = build_parser().parse_args(["bench"])
    assert (options.webrtc_driver, options.webrtc_media_plane, options.webrtc_level_seconds) == (
        None,
        None,
        60.0,
    )
    options = build_parser().parse_args(
        [
            "bench",
            "--webrtc-driver",
            "aiortc",
            "--webrtc-media-plane",
            " aiortc , pion",
            "--webrtc-level-seconds",
            "5",
        ]
    )
    assert (options.webrtc_driver, options.webrtc_media_plane, options.webrtc_level_seconds) == (
        "aiortc",
        ["aiortc", "pion"],
        5.0,
    )


@pytest.mark.slow
def test_a_load_run_where_no_session_connected_exits_1(capsys) -> None:
    # The port stays bound without listening for the whole run: a closed one could be taken by another
    # test's server under pytest-xdist, and the driver would then connect.
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        argv = ["bench", "--only", "load", "--url", f"ws://127.0.0.1:{port}/v1/realtime?model=gpt-realtime"]
        assert main([*argv, "--sessions", "1", "--duration", "1", "--no-progress"]) == 1
    assert "no session connected" in capsys.readouterr().err


@pytest.mark.parametrize("url", ["ftp://127.0.0.1:8765", "http://", "127.0.0.1:8765"])
def test_a_url_that_names_no_realtime_endpoint_is_refused_before_anything_runs(url, capsys) -> None:
    """`--url ftp://x` ran the whole load section and its baseline (40 s and more), then said 'no session
    connected'; it is refused at once, as conformance refuses it."""
    assert main(["bench", "--only", "load", "--url", url, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mockengine bench: --url {url}: expected ws://"), err


def test_a_base_url_is_completed_as_conformance_completes_it(monkeypatch) -> None:
    """`--url http://127.0.0.1:8765` (what conformance takes) drives the Realtime endpoint."""
    import dataclasses

    import mockengine.bench.runner as runner

    driven: list[str] = []
    real_sections = runner.sections

    def load_only_notes_its_url():
        found = real_sections()
        found["load"] = dataclasses.replace(found["load"], run=lambda ctx: driven.append(ctx.args.url))
        return found

    monkeypatch.setattr(runner, "sections", load_only_notes_its_url)
    assert main(["bench", "--only", "load", "--url", "http://127.0.0.1:8765", "--no-progress"]) == 0
    assert driven == ["ws://127.0.0.1:8765/v1/realtime?model=gpt-realtime"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--only", "tools", "--json", "{missing}/figures.json"],
        ["--only", "capacity", "--plot", "{missing}/capacity.png"],
        ["--only", "soak", "--soak-plot", "{missing}/soak.png"],
    ],
)
def test_an_output_file_in_a_missing_directory_is_refused_before_anything_runs(
    argv, tmp_path, capsys
) -> None:
    """`--json /no/such/dir/x.json` ran the whole section (the tools section: minutes), then ended in a
    FileNotFoundError traceback with the figures lost; it is one line and status 2 at once."""
    missing = tmp_path / "no-such-dir"
    argv = [arg.format(missing=missing) for arg in argv]
    assert main(["bench", *argv, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"mockengine bench: {argv[2]} {argv[3]}: no such directory"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--soak-waves", "5,2"], "mockengine bench: --soak-waves needs --soak-transport webrtc"),
        (
            ["--soak-transport", "webrtc", "--url", "ws://127.0.0.1:9/v1/realtime"],
            "mockengine bench: --soak-transport webrtc soaks the engine the bench starts; leave out --url",
        ),
    ],
)
def test_a_webrtc_soak_asked_wrongly_is_refused_before_anything_runs(argv, said, capsys) -> None:
    """The WebRTC soak reads the RSS of the engine it started, so it cannot drive ``--url``; its waves
    mean nothing to the WebSocket soak."""
    assert main(["bench", "--only", "soak", *argv, "--no-progress"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [said]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--webrtc-media-plane", "aiortc", "--url", "ws://127.0.0.1:9/v1/realtime"],
            "mockengine bench: --webrtc-media-plane starts engines of its own; leave out --url",
        ),
        (["--webrtc-driver", "pion"], "mockengine bench: --webrtc-driver pion: {missing}: build it with "),
        (
            ["--webrtc-media-plane", "pion"],
            "mockengine bench: --webrtc-media-plane pion: the pion media plane ",
        ),
    ],
)
def test_a_webrtc_capacity_that_cannot_run_is_refused_before_anything_runs(
    argv, said, capsys, monkeypatch, tmp_path
) -> None:
    """A driver or plane asked for but not built (or planes with --url) was found only when the webrtc
    section reached its climb, after the sections before it had run: one line and status 2 at once."""
    missing = tmp_path / "not-built"
    monkeypatch.setenv("MOCKENGINE_PION_DRIVER", str(missing))
    monkeypatch.setenv("MOCKENGINE_PION_BIN", str(missing))
    assert main(["bench", "--only", "audio,webrtc", *argv, "--no-progress"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(said.format(missing=missing)), line


@pytest.mark.parametrize("waves", ["a,b", "5,0", ",", "5,inf"])
def test_soak_waves_are_minutes_above_zero(waves, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["bench", "--only", "soak", "--soak-waves", waves])
    assert exited.value.code == 2 and "--soak-waves" in capsys.readouterr().err
    options = build_parser().parse_args(["bench", "--soak-transport", "webrtc", "--soak-waves", " 35, 4.5"])
    assert (options.soak_transport, options.soak_waves) == ("webrtc", [35.0, 4.5])


@pytest.mark.parametrize(
    ("engine_args", "said"),
    [
        ("--nope 1", "unrecognized arguments: --nope 1"),
        ("--audio-delta-ms 5000", "--audio-delta-ms must be between 1 and 2000"),
        ("--port x", "argument --port: invalid"),
        # serve refuses these before its models load; the bench started the engine and ended in a
        # traceback (RuntimeError: server exited with 2), status 1
        ("--fault nope", "--fault 'nope': unknown fault kind 'nope'"),
        ("--faults /nonexistent/f.yaml", "--faults /nonexistent/f.yaml: cannot read fault profile"),
        ("--scenario no_such_scenario", "no_such_scenario"),
    ],
)
def test_engine_args_serve_refuses_are_refused_before_anything_runs(engine_args, said, capsys) -> None:
    """An option the engine's `serve` refuses was a traceback (RuntimeError: server exited with 2) once
    the first section started the engine: a usage mistake is one line and status 2."""
    argv = ["bench", "--only", "session", "--engine-args", engine_args, "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mockengine bench: --engine-args {engine_args!r}: ")
    assert said in err[0]


def test_without_the_go_driver_and_sidecar_the_climb_says_so_and_uses_aiortc(
    capsys, monkeypatch, tmp_path
) -> None:
    """`make bench` on a machine without Go: the capacity climbs the aiortc plane with aiortc clients,
    and says how to build the Go driver and the sidecar; whatever is built (or asked) is used."""
    from mockengine.bench.webrtc import choose_driver_and_planes

    monkeypatch.setenv("MOCKENGINE_PION_DRIVER", str(tmp_path / "no-driver"))
    monkeypatch.setenv("MOCKENGINE_PION_BIN", str(tmp_path / "no-sidecar"))
    assert choose_driver_and_planes(build_parser().parse_args(["bench"])) == ("aiortc", ["aiortc"])
    notes = capsys.readouterr().out
    assert "`make pion-driver`" in notes and "`make pion`" in notes
    on_url = build_parser().parse_args(["bench", "--url", "ws://127.0.0.1:9/v1/realtime"])
    assert choose_driver_and_planes(on_url)[1] == ["url"]
    capsys.readouterr()
    for built in ("no-driver", "no-sidecar"):
        (tmp_path / built).write_text("#!/bin/sh\n")
        (tmp_path / built).chmod(0o755)
    assert choose_driver_and_planes(build_parser().parse_args(["bench"])) == ("pion", ["pion", "aiortc"])
    assert capsys.readouterr().out == ""
    asked = build_parser().parse_args(["bench", "--webrtc-driver", "aiortc", "--webrtc-media-plane", "pion"])
    assert choose_driver_and_planes(asked) == ("aiortc", ["pion"])
