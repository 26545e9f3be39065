"""The reliability and security options map onto settings (CLI and environment)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mockengine.cli import build_parser, settings_from_args
from mockengine.settings import Settings, SettingsError, from_env


def parse(*argv: str) -> Settings:
    return settings_from_args(build_parser().parse_args(["serve", *argv]))


def test_repeated_api_key_and_limits_and_tls(monkeypatch):
    monkeypatch.delenv("MOCKENGINE_TLS", raising=False)
    settings = parse(
        "--api-key", "sk-a", "--api-key", "sk-b", "--max-sessions", "3", "--auth-failure", "http",
        "--tls-cert", "c.pem", "--tls-key", "k.pem", "--journal-dir", "j",
    )  # fmt: skip
    assert settings.api_keys == ("sk-a", "sk-b")
    assert (settings.max_sessions, settings.auth_failure, settings.journal_dir) == (3, "http", "j")
    assert settings.tls and settings.tls_cert == "c.pem"
    assert not parse().tls


def test_environment_lists_and_flags():
    settings = from_env(environ={"MOCKENGINE_API_KEYS": "sk-a, sk-b,", "MOCKENGINE_TLS": "1"})
    assert settings.api_keys == ("sk-a", "sk-b") and settings.tls


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("MOCKENGINE_WEBRTC_DTX", "maybe", "MOCKENGINE_WEBRTC_DTX (--webrtc-dtx) must be a flag"),
        ("MOCKENGINE_AUDIO_PACE", "abc", "MOCKENGINE_AUDIO_PACE (--audio-pace) must be a number, not 'abc'"),
        ("MOCKENGINE_REPLAY_SPEED", "x", "MOCKENGINE_REPLAY_SPEED (--replay-speed) must be a number"),
    ],
)
def test_a_variable_not_of_its_type_is_named_with_the_option_it_stands_for(variable, value, said):
    """command-line.md: a value from a variable is named by it and the option it stands for; a value
    out of range was, one not of its type named the variable alone."""
    with pytest.raises(SettingsError) as refused:
        from_env(environ={variable: value})
    assert str(refused.value).startswith(said)


def test_bad_auth_failure_mode_is_refused(monkeypatch):
    monkeypatch.setenv("MOCKENGINE_AUTH_FAILURE", "teapot")
    with pytest.raises(SystemExit):
        parse()


def test_version(capsys):
    from mockengine import __version__
    from mockengine.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.strip() == f"mockengine {__version__}"


@pytest.fixture
def models_must_not_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` failing if it gets as far as building the app (where the models load) or starting workers
    (each loads them): "refused before the models load" checked as such, not as a wall-clock bound that a
    loaded machine's imports alone could pass."""
    from mockengine.server import app, resources, workers

    def must_not_run(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("serve went on to load the models")

    monkeypatch.setattr(app, "create_app", must_not_run)
    monkeypatch.setattr(resources, "load_resources", must_not_run)
    monkeypatch.setattr(workers, "serve_workers", must_not_run)


def test_a_taken_port_is_one_line_at_once_and_nothing_claims_to_listen(capsys, models_must_not_load):
    """It printed "mockengine listening on …" after loading the models, then a 20-line OSError traceback."""
    import socket

    from mockengine.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2  # before the models
    out, err = capsys.readouterr()
    assert "listening" not in out and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and str(port) in err and err.startswith("mockengine: ")


def test_a_bad_fault_is_refused_before_the_models_load(capsys, models_must_not_load):
    from mockengine.cli import main

    assert main(["serve", "--port", "0", "--fault", "nonsense"]) == 2
    assert "unknown fault kind 'nonsense'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ("--port", "70000"),
        ("--port", "-1"),
        ("--session-max-s", "0"),
        ("--session-max-s", "-5"),
        ("--heartbeat-s", "-1"),
    ],
)
def test_out_of_range_numbers_are_refused_by_name(argv: tuple[str, str], capsys) -> None:
    """--port 70000 served on port 4464; --session-max-s -5 ended every session at once."""
    with pytest.raises(SystemExit):
        parse(*argv)
    assert argv[0] in capsys.readouterr().err
    assert parse("--port", "0", "--heartbeat-s", "0", "--session-max-s", "1").port == 0


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--session-max-s", "0"], "--session-max-s"),
        (["--heartbeat-s", "-1"], "--heartbeat-s"),
        (["--audio-delta-ms", "0"], "--audio-delta-ms"),
        (["--port", "70000"], "--port"),
    ],
)
def test_a_setting_out_of_range_is_one_line_and_status_2(argv, named, capsys):
    """As a taken port or a bad fault spec (operations.md): `serve --session-max-s 0` exited 1 with a bare
    message, where the docs promise every start-up mistake one `mockengine:` line and status 2."""
    with pytest.raises(SystemExit) as exited:
        parse(*argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mockengine: ") and named in err[0]


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--admission-max-queue", "-1"], "--admission-max-queue"),  # refused every session
        (["--admission-max-loop-lag-ms", "-1"], "--admission-max-loop-lag-ms"),  # the same
        (["--tts-cache-mb", "-1"], "--tts-cache-mb"),  # a traceback once the models had loaded
        (["--stt-cache-mb", "-0.5"], "--stt-cache-mb"),
        (["--tts-threads", "0"], "--tts-threads"),  # quietly one thread
        (["--workers", "0"], "--workers"),  # quietly one process
        (["--max-sessions", "-1"], "--max-sessions"),  # quietly no limit
        (["--audio-pace", "-2"], "--audio-pace"),  # quietly unpaced
        (["--text-tokens-per-s", "-1"], "--text-tokens-per-s"),  # quietly unpaced
        (["--replay-speed", "-1"], "--replay-speed"),
        (["--reclaim-interval-s", "-5"], "--reclaim-interval-s"),
        (["--log-level", "loud"], "--log-level"),  # a ValueError traceback from logging.basicConfig
        (["--max-frame-bytes", "10"], "--max-frame-bytes"),  # every session closed 1009 on its first event
        (["--max-frame-bytes", "65535"], "--max-frame-bytes"),
        (["--max-send-backlog-bytes", "1"], "--max-send-backlog-bytes"),  # every session closed 1008
        (["--max-send-backlog-bytes", "65535"], "--max-send-backlog-bytes"),
    ],
)
def test_a_value_the_engine_would_misuse_is_one_line_and_status_2(argv, named, capsys):
    with pytest.raises(SystemExit) as exited:
        parse(*argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mockengine: ") and named in err[0], err


FLOAT_OPTIONS = (
    "--audio-pace", "--text-tokens-per-s", "--heartbeat-s", "--mcp-timeout-s", "--shutdown-grace-s",
    "--audio-memory-s", "--reclaim-interval-s", "--tts-cache-mb", "--stt-cache-mb",
)  # fmt: skip


@pytest.mark.parametrize("value", ["nan", "inf"])
@pytest.mark.parametrize("named", FLOAT_OPTIONS)
def test_a_number_that_is_not_finite_is_one_line_and_status_2(named, value, capsys):
    """`--shutdown-grace-s inf` was served, and the stop then ended in an OverflowError traceback (a
    thread's wait past time_t); `--heartbeat-s nan` passed the range check (nan < 0 is false)."""
    with pytest.raises(SystemExit) as exited:
        parse(named, value)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mockengine: ") and named in err[0], err
    assert "finite" in err[0]


def test_a_number_that_is_not_finite_in_the_environment_names_its_variable(monkeypatch, capsys):
    monkeypatch.setenv("MOCKENGINE_HEARTBEAT_S", "nan")
    with pytest.raises(SystemExit) as exited:
        parse()
    assert exited.value.code == 2
    assert (
        "MOCKENGINE_HEARTBEAT_S (--heartbeat-s) must be a finite number, not nan" in capsys.readouterr().err
    )


def test_the_documented_special_values_still_parse():
    """0 turns a bound or a cache off, `--audio-memory-s -1` keeps all item audio in memory."""
    settings = parse(
        "--max-sessions", "0", "--tts-cache-mb", "0", "--stt-cache-mb", "0", "--admission-max-queue", "0",
        "--admission-max-loop-lag-ms", "0", "--reclaim-interval-s", "0", "--replay", "rec",
        "--replay-speed", "0", "--audio-memory-s", "-1", "--log-level", "debug", "--unpaced",
        "--max-frame-bytes", "65536", "--max-send-backlog-bytes", "65536",
    )  # fmt: skip
    assert (settings.max_sessions, settings.audio_memory_s, settings.audio_pace) == (0, -1, 0)
    assert settings.max_frame_bytes == settings.max_send_backlog_bytes == 64 * 1024


@pytest.mark.parametrize(
    "origin", ["nope", "example.com", "https://app.example.com/page", "localhost:3000", "https://"]
)
def test_a_cors_origin_no_browser_can_send_is_one_line_and_status_2(origin, capsys):
    """`--cors-origin nope` was taken: an Origin header is scheme://host[:port], so no page matched."""
    with pytest.raises(SystemExit) as exited:
        parse("--cors-origin", "https://ok.example", "--cors-origin", origin)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mockengine: --cors-origin ") and repr(origin) in err[0], err


def test_a_bad_cors_origin_in_the_environment_is_refused_too(monkeypatch, capsys):
    monkeypatch.setenv("MOCKENGINE_CORS_ORIGINS", "https://ok.example,nope")
    with pytest.raises(SystemExit) as exited:
        parse()
    assert exited.value.code == 2 and "'nope'" in capsys.readouterr().err


def test_cors_origins_a_browser_sends_are_taken():
    origins = (
        "*",
        "null",
        "https://app.example.com",
        "http://localhost:5173",
        "http://[::1]:8080",
        "http://a.b/",
    )
    settings = parse(*(arg for origin in origins for arg in ("--cors-origin", origin)))
    assert settings.cors_origins == origins


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--replay-speed", "2"], "--replay-speed"),
        (["--replay-speed", "1"], "--replay-speed"),  # the default, but asked for: still no recording
        (["--replay-strict"], "--replay-strict"),
    ],
)
def test_a_replay_option_without_replay_is_one_line_and_status_2(argv, named, capsys):
    """They were taken silently and shaped nothing: the engine served its scenario."""
    with pytest.raises(SystemExit) as exited:
        parse(*argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mockengine: {named} ") and "--replay DIR" in err[0], err


def test_a_replay_variable_without_a_replay_dir_is_refused_too(monkeypatch, capsys):
    monkeypatch.setenv("MOCKENGINE_REPLAY_STRICT", "1")
    with pytest.raises(SystemExit) as exited:
        parse()
    assert exited.value.code == 2 and "--replay-strict" in capsys.readouterr().err
    monkeypatch.setenv("MOCKENGINE_REPLAY_DIR", "rec")
    assert parse("--replay-speed", "2").replay_strict


def test_replay_options_with_replay_are_taken():
    settings = parse("--replay", "rec", "--replay-speed", "2", "--replay-strict")
    assert (settings.replay_dir, settings.replay_speed, settings.replay_strict) == ("rec", 2.0, True)


def _not_a_recording(tmp_path, kind: str) -> str:
    if kind == "missing":
        return str(tmp_path / "no" / "such" / "dir")
    if kind == "file":
        (tmp_path / "notes.txt").write_text("x")
        return str(tmp_path / "notes.txt")
    if kind == "torn":
        (tmp_path / "recording.json").write_text("{not json")
    return str(tmp_path)  # "empty": a directory without recording.json


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("missing", "no such directory"),
        ("file", "a file, not a recording directory"),
        ("empty", "no recording.json"),
        ("torn", "not JSON"),
    ],
)
def test_a_replay_dir_that_is_no_recording_is_refused_before_anything_loads(
    kind, says, tmp_path, monkeypatch, capsys
):
    """`serve --replay /nonexistent/dir` loaded the models (seconds) and only then said there was no
    recording.json. Now it is one line naming the path, status 2, before the port or the models."""
    from mockengine.cli import main
    from mockengine.server import app, lifecycle, workers

    def must_not_run(*_args, **_kwargs):
        raise AssertionError("serve went on past a --replay that is no recording")

    for module, name in ((app, "create_app"), (lifecycle, "bind"), (workers, "serve_workers")):
        monkeypatch.setattr(module, name, must_not_run)
    path = _not_a_recording(tmp_path, kind)
    for workers_n in ("1", "2"):
        assert main(["serve", "--port", "0", "--replay", path, "--workers", workers_n]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"mockengine: --replay {path}") and says in err[0], err


def test_the_test_engine_refuses_a_replay_dir_that_is_no_recording_before_loading_models(
    tmp_path, monkeypatch
):
    """EngineThread (and so the pytest marker) loaded the models first, then failed in its thread."""
    import mockengine.testing as testing
    from mockengine.settings import SettingsError

    def must_not_run(*_args, **_kwargs):
        raise AssertionError("models loaded for a replay_dir that is no recording")

    monkeypatch.setattr(testing, "load_resources", must_not_run)
    thread = testing.EngineThread(Settings(replay_dir=str(tmp_path / "missing")))
    with pytest.raises(SettingsError, match=r"^replay_dir .*missing: no such directory"):
        thread.start()


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("MOCKENGINE_PORT", "abc"),  # a ValueError traceback from int()
        ("MOCKENGINE_SEED", "seven"),
        ("MOCKENGINE_AUDIO_PACE", "fast"),
        ("MOCKENGINE_TLS", "maybe"),  # quietly off
        ("MOCKENGINE_LOOP", "trio"),  # a traceback after the models had loaded
    ],
)
def test_a_bad_environment_variable_is_one_line_naming_it(variable, value, monkeypatch, capsys):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as exited:
        parse()
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mockengine: "), err
    assert variable in err[0] or variable.removeprefix("MOCKENGINE_").lower() in err[0], err


def test_an_unreadable_voices_file_is_one_line_before_the_models_load(tmp_path, capsys, models_must_not_load):
    """`--voices-file` with a missing or broken file ended in a VoiceCatalogError traceback once whisper
    had loaded."""
    from mockengine.cli import main

    broken = tmp_path / "voices.yaml"
    broken.write_text("voices: [\n")
    for path in (str(tmp_path / "missing.yaml"), str(broken)):
        assert main(["serve", "--port", "0", "--voices-file", path]) == 2  # before the models
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"mockengine: --voices-file {path}: "), err


def test_record_on_a_taken_port_is_one_line_and_status_2(tmp_path, capsys, monkeypatch):
    """`mockengine record` on a taken port ended in aiohttp's OSError traceback (after creating --out)."""
    import socket

    from mockengine.cli import main

    out = tmp_path / "rec"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["record", "--upstream", "http://127.0.0.1:9/v1", "--out", str(out), "--port", str(port)]
        assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"mockengine record: cannot listen on 127.0.0.1:{port}: address already in use "
        "(another server? choose another --port)"
    ]
    assert not out.exists()
    monkeypatch.setenv("MOCKENGINE_PORT", "abc")
    assert main(["record", "--upstream", "http://127.0.0.1:9/v1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "mockengine record: MOCKENGINE_PORT (--port) must be an integer, not 'abc'"


@pytest.mark.parametrize(
    ("option", "make", "said"),
    [
        ("--api-keys-file", lambda tmp: tmp / "missing-keys.txt", "No such file"),
        ("--journal-dir", lambda tmp: _a_file(tmp), "a file, not a directory"),
        ("--trace-dir", lambda tmp: _a_file(tmp), "a file, not a directory"),
        ("--journal-dir", lambda tmp: _a_file(tmp) / "under-a-file", "cannot create the directory"),
        ("--audio-spill-dir", lambda tmp: tmp / "missing-dir", "cannot make a file there"),
    ],
)
def test_an_unusable_path_is_one_line_naming_its_option(option, make, said, tmp_path, capsys):
    """`--api-keys-file`, `--journal-dir` and `--trace-dir` said only "[Errno 2] …" / "[Errno 17] File
    exists" without the option; a missing `--audio-spill-dir` was accepted and failed inside a session
    once it held more than --audio-memory-s of audio. Each is refused before the models load."""
    from mockengine.cli import main

    path = str(make(tmp_path))
    assert main(["serve", "--port", "0", option, path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mockengine: {option} {path}: ") and said in err[0], err


def _a_file(directory):
    path = directory / "a-file"
    path.write_text("x")
    return path


def test_a_missing_turn_whisper_model_names_its_own_option():
    """It named --whisper-model / MOCKENGINE_WHISPER_MODEL, which were fine."""
    from mockengine.engines.errors import ModelNotFound
    from mockengine.server.resources import _turn_transcriber
    from mockengine.settings import Settings

    with pytest.raises(ModelNotFound) as caught:
        _turn_transcriber(Settings(turn_whisper_model="/nonexistent/turn-whisper"))
    message = str(caught.value)
    assert (
        "--turn-whisper-model / MOCKENGINE_TURN_WHISPER_MODEL" in message
        and "/nonexistent/turn-whisper" in message
    )
    assert "--whisper-model /" not in message


def test_faults_without_its_subcommand_names_the_choices(capsys):
    """It said "the following arguments are required: faults_command", an internal name."""
    from mockengine.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["faults"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "required: {kinds,schedule}" in err and "faults_command" not in err


RECORDING_SCENARIO = "name: bug_1234\nkind: recording\nrecording: rec/\nrules: []\n"


@pytest.mark.parametrize("how", ["--scenarios-dir", "--scenario"])
def test_replay_options_with_a_recording_scenario_are_taken(how, tmp_path):
    """A `kind: recording` scenario replays with `--replay-speed` and `--replay-strict`
    (docs/record-replay.md) but they were refused without `--replay`: such a scenario could only replay
    paced and lenient."""
    (tmp_path / "bug.yaml").write_text(RECORDING_SCENARIO)
    where = str(tmp_path) if how == "--scenarios-dir" else str(tmp_path / "bug.yaml")
    settings = parse(how, where, "--replay-speed", "0", "--replay-strict")
    assert (settings.replay_speed, settings.replay_strict) == (0.0, True)


def test_replay_options_with_only_scripted_scenarios_are_still_refused(tmp_path, capsys):
    (tmp_path / "mine.yaml").write_text("name: mine\nrules: []\n")
    with pytest.raises(SystemExit) as exited:
        parse("--scenarios-dir", str(tmp_path), "--replay-strict")
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "--replay DIR or a scenario of kind: recording" in err, err


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("MOCKENGINE_MAX_SESSIONS", "-1", "must be at least 0, not -1"),
        ("MOCKENGINE_AUDIO_DELTA_MS", "5000", "must be between 1 and 2000"),
        ("MOCKENGINE_LOG_LEVEL", "LOUD", "must be one of DEBUG"),
        ("MOCKENGINE_PYTHON_MALLOC", "jemalloc", "must be one of malloc, pymalloc"),
        ("MOCKENGINE_MAX_FRAME_BYTES", "10", "must be at least 65536"),
        ("MOCKENGINE_CORS_ORIGINS", "nope", "must be '*' or an origin"),
        ("MOCKENGINE_REPLAY_SPEED", "2", "applies only with --replay DIR"),
    ],
)
def test_a_value_from_the_environment_is_named_by_its_variable(variable, value, said, monkeypatch, capsys):
    """`MOCKENGINE_MAX_SESSIONS=-1` said "--max-sessions must be at least 0", an option the command line
    never held: a person looked for it there. The variable is named, with the option it stands for."""
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as exited:
        parse()
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mockengine: {variable} (--"), err
    assert said in err[0], err


def test_a_flag_over_the_environment_is_named_as_the_flag(monkeypatch, capsys):
    monkeypatch.setenv("MOCKENGINE_MAX_SESSIONS", "5")
    with pytest.raises(SystemExit):
        parse("--max-sessions", "-2")
    assert capsys.readouterr().err.strip() == "mockengine: --max-sessions must be at least 0, not -2"


@pytest.mark.parametrize(
    ("variable", "make", "said"),
    [
        ("MOCKENGINE_API_KEYS_FILE", lambda tmp: tmp / "missing-keys.txt", "No such file"),
        ("MOCKENGINE_JOURNAL_DIR", lambda tmp: _a_file(tmp), "a file, not a directory"),
        ("MOCKENGINE_AUDIO_SPILL_DIR", lambda tmp: tmp / "missing-dir", "cannot make a file there"),
        ("MOCKENGINE_REPLAY_DIR", lambda tmp: tmp / "no-recording", "no such directory"),
    ],
)
def test_an_unusable_path_from_the_environment_names_its_variable(
    variable, make, said, tmp_path, monkeypatch, capsys, models_must_not_load
):
    from mockengine.cli import main

    path = str(make(tmp_path))
    monkeypatch.setenv(variable, path)
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mockengine: {variable} (--"), err
    assert f" {path}: " in err[0] and said in err[0], err


def test_a_half_given_certificate_pair_from_the_environment_names_its_variable(tmp_path, monkeypatch, capsys):
    """`MOCKENGINE_TLS=1 MOCKENGINE_TLS_CERT=cert.pem` (no key) said "--tls-cert and --tls-key go
    together": options the command line never held (review of the edges branch)."""
    monkeypatch.setenv("MOCKENGINE_TLS", "1")
    monkeypatch.setenv("MOCKENGINE_TLS_CERT", str(tmp_path / "cert.pem"))
    with pytest.raises(SystemExit) as exited:
        parse()
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mockengine: MOCKENGINE_TLS_CERT (--tls-cert) and --tls-key go together"], err


def test_a_users_scenarios_load_once_before_the_models(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--scenario FILE`` loaded the scenario library twice: once to report a bad one before the models
    load, then again with the models (~0.2 s). The library checked is the one served."""
    from mockengine.brain import selection
    from mockengine.cli import main
    from mockengine.server import lifecycle, resources
    from mockengine.server.state import RESOURCES

    loaded: list[selection.ScenarioLibrary] = []

    def counted(*args: object, **kwargs: object) -> selection.ScenarioLibrary:
        loaded.append(load_library(*args, **kwargs))  # type: ignore[arg-type]
        return loaded[-1]

    class NoModel:  # whisper and piper, neither of which this test is about
        model_path = "none"

        def __init__(self, *_args: object, **_kwargs: object) -> None:
            pass

        def token_counter(self) -> None:
            return None

        def preload(self) -> None:
            pass

    served: list[object] = []

    async def serve_until_stopped(app: object, sock: object, **_kwargs: object) -> None:
        sock.close()  # type: ignore[attr-defined]
        served.append(app[RESOURCES].scenarios)  # type: ignore[index]

    load_library = selection.load_library
    monkeypatch.setattr(selection, "load_library", counted)
    monkeypatch.setattr(resources, "load_library", counted)
    monkeypatch.setattr(resources, "WhisperTranscriber", NoModel)
    monkeypatch.setattr(resources, "PiperSynthesizer", NoModel)
    monkeypatch.setattr(lifecycle, "serve_until_stopped", serve_until_stopped)
    scenario = tmp_path / "pizza.yaml"
    scenario.write_text((Path(selection.__file__).parent / "scenarios" / "intro_chat.yaml").read_text())
    assert main(["serve", "--port", "0", "--turn-whisper-model", "same", "--scenario", str(scenario)]) == 0
    assert len(loaded) == 1 and served == loaded


def test_workers_without_a_fixed_port_name_where_the_port_came_from(monkeypatch, capsys) -> None:
    """``MOCKENGINE_PORT=0`` with ``--workers 2`` said "--workers needs a fixed --port"."""
    from mockengine.cli import main

    monkeypatch.setenv("MOCKENGINE_PORT", "0")
    assert main(["serve", "--workers", "2"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "mockengine: --workers needs a fixed MOCKENGINE_PORT (--port) (each worker binds it)"
    ]


@pytest.mark.parametrize(("flag", "value"), [("--audio-pace", "2"), ("--text-tokens-per-s", "20")])
def test_unpaced_with_a_nonzero_pace_is_one_line_and_status_2(capsys, flag: str, value: str):
    """`serve --unpaced --audio-pace 2` started silently unpaced (--unpaced won): two flags asking for two
    paces is a usage mistake, refused as one line naming both. So is a text rate beside it."""
    with pytest.raises(SystemExit) as exited:
        parse("--unpaced", flag, value)
    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        f"mockengine: --unpaced and {flag} {value} contradict each other "
        "(--unpaced is --audio-pace 0 --text-tokens-per-s 0); give one\n"
    )


def test_unpaced_agrees_with_audio_pace_0_and_wins_over_the_variable(monkeypatch):
    """`--unpaced --audio-pace 0` say the same; MOCKENGINE_AUDIO_PACE=2 is overridden by the flag, as any
    variable by its option."""
    assert parse("--unpaced", "--audio-pace", "0").audio_pace == 0
    monkeypatch.setenv("MOCKENGINE_AUDIO_PACE", "2")
    monkeypatch.setenv("MOCKENGINE_TEXT_TOKENS_PER_S", "20")
    settings = parse("--unpaced")
    assert (settings.audio_pace, settings.text_tokens_per_s) == (0, 0)
    assert parse("--text-tokens-per-s", "0").text_tokens_per_s == 0
