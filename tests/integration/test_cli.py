"""The command line's first minute: mistakes fail at once with one line, before the models load."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from mockengine import __version__
from mockengine.cli import build_parser


def _run(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mockengine", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=None if env is None else {**os.environ, **env},
    )


@pytest.mark.slow  # a mockengine subprocess
def test_a_bad_value_from_the_environment_is_named_by_its_variable() -> None:
    """It said "--max-sessions must be at least 0, not -1" to someone whose command line held no
    --max-sessions: the value came from MOCKENGINE_MAX_SESSIONS."""
    result = _run("serve", "--port", "0", env={"MOCKENGINE_MAX_SESSIONS": "-1"})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        "mockengine: MOCKENGINE_MAX_SESSIONS (--max-sessions) must be at least 0, not -1"
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


@pytest.mark.slow  # a mockengine subprocess
def test_a_reader_that_goes_away_is_no_traceback() -> None:
    """``mockengine faults kinds | head``: the pipe is closed before anything is written."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mockengine", "faults", "kinds"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # long before the interpreter has started
    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 1
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr


@pytest.mark.slow  # a Python subprocess, for a clean sys.modules
def test_the_parser_imports_no_subcommand_module_until_that_subcommand_is_used() -> None:
    script = (
        "import sys\n"
        "from mockengine.cli import build_parser\n"
        "parser = build_parser()\n"
        "parser.format_help()\n"
        "heavy = ('mockengine.bench', 'mockengine.conformance', 'mockengine.turn_corpus',\n"
        "         'mockengine.record')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
        "args = parser.parse_args(['conformance', '--url', 'ws://x'])\n"
        "print(args.url, 'mockengine.conformance.runner' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "ws://x True"]


def test_each_subcommand_help_still_lists_its_own_options() -> None:
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert "--only" in commands["bench"].format_help()
    assert "--url" in commands["conformance"].format_help()
    assert "schedule" in commands["faults"].format_help()
    serve_help = re.sub(r"-\n\s+", "-", commands["serve"].format_help())  # argparse wraps at hyphens
    assert "(docs/faults-and-tokens.md)" in serve_help and "(README" not in serve_help


@pytest.mark.slow  # a mockengine subprocess (it loads the models before it reads the scenarios' recordings)
def test_a_recording_scenario_without_a_recording_stops_the_server_with_one_line(tmp_path) -> None:
    (tmp_path / "bug.yaml").write_text("name: bug\nkind: recording\nrecording: not_recorded_yet\nrules: []\n")
    result = _run("serve", "--port", "0", "--scenarios-dir", str(tmp_path))
    assert result.returncode == 2 and "listening" not in result.stdout
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("mockengine: ")]
    assert f"{tmp_path / 'bug.yaml'}: line 3: at $.recording: " in line and "no recording.json" in line


@pytest.mark.slow  # a mockengine subprocess
def test_a_schedule_too_long_to_print_is_refused_with_one_line() -> None:
    """`faults schedule --count 99999999` worked out the whole table before printing anything: minutes."""
    result = _run("faults", "schedule", "--fault", "close_after_audio_delta:3", "--count", "99999999")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == ["mockengine: --count must be at most 100000, not 99999999"]
    longest = _run("faults", "schedule", "--fault", "close_after_audio_delta:3", "--count", "100000")
    assert longest.returncode == 0 and longest.stdout.splitlines()[-1].endswith("of 100000 hit")


@pytest.mark.parametrize("count", ["-3", "0"])
def test_a_schedule_of_no_ordinals_is_refused_with_one_line(count: str) -> None:
    """`faults schedule --count -3` printed "ordinals 1..-3", no rows and "0 of -3 hit", with status 0."""
    result = _run("faults", "schedule", "--fault", "close_after_audio_delta:3", "--count", count)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [f"mockengine: --count must be at least 1, not {count}"]


@pytest.mark.slow  # a mockengine subprocess
def test_a_bad_fault_for_the_schedule_is_one_line_on_stderr() -> None:
    result = _run("faults", "schedule", "--fault", "nope")
    assert result.returncode == 2 and result.stdout == ""  # the refusal went to stdout, under the table's
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("mockengine: unknown fault kind")


@pytest.mark.slow  # a mockengine subprocess
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["bench", "--only", "nope"], "mockengine bench: unknown section(s) nope; choose from "),
        (["bench", "--only", "tools", "--plot", "x.png"], "mockengine bench: --plot is an option of the "),
    ],
)
def test_a_bench_usage_mistake_is_status_2_as_elsewhere(argv: list[str], said: str) -> None:
    """Both exited 1, the status of a bench whose load connected nothing, not 2 as every other usage
    mistake of the command line."""
    result = _run(*argv)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(said)


@pytest.mark.slow  # a mockengine subprocess
def test_a_journal_path_that_does_not_exist_is_a_usage_mistake(tmp_path) -> None:
    """A missing PATH exited 1, as an empty journal directory does, where every other command's missing
    file or directory is status 2; a directory holding no journal is no mistake (a --journal-dir no
    session wrote to yet): it said so on stderr with status 1, and now says so on stdout with 0."""
    missing = _run("journal", str(tmp_path / "missing"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.splitlines() == [
        f"mockengine journal: {tmp_path / 'missing'}: no such file or directory"
    ]
    empty = _run("journal", str(tmp_path))
    assert empty.returncode == 0 and empty.stderr == ""
    assert empty.stdout.splitlines() == [f"no journals in {tmp_path}"]


@pytest.mark.slow  # a mockengine subprocess
@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("passwd", b"root:x:0:0:root:/root:/bin/bash\n", "no line of it is a JSON object"),
        ("a.wav", b"RIFF\xff\xfe\x00WAVE", "not text"),
    ],
)
def test_a_file_that_is_no_journal_is_a_usage_mistake(
    tmp_path, name: str, content: bytes, reason: str
) -> None:
    """`journal /etc/passwd` printed "== session etc" and exited 0; a binary file was a traceback."""
    path = tmp_path / name
    path.write_bytes(content)
    result = _run("journal", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"mockengine journal: {path}: not a journal's events.jsonl ({reason})"
    ]


@pytest.mark.slow  # mockengine subprocesses
def test_a_schedule_previews_the_layer_the_profile_acts_on() -> None:
    """`faults schedule --fault http_quota,rate=0.5` previewed WebSocket connections (the default
    `--layer ws`), which an http kind never touches: "0 of 20 hit", as if the fault would never fire.
    Without `--layer` it now previews the layer the profile's faults act on (ws when it has both), and a
    `--layer` none of them acts on says so under the table."""
    result = _run("faults", "schedule", "--fault", "http_quota,rate=0.5", "--seed", "3", "--count", "20")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "seed 3, http ordinals 1..20"
    assert not lines[-1].startswith("0 of"), lines[-1]
    both = _run("faults", "schedule", "--fault", "http_quota", "--fault", "slow_drip", "--count", "2")
    assert both.stdout.splitlines()[0].endswith("ws ordinals 1..2")
    asked = _run("faults", "schedule", "--fault", "http_quota", "--layer", "ws", "--count", "2")
    assert asked.returncode == 0
    assert asked.stdout.splitlines()[-2:] == [
        "0 of 2 hit",
        "no fault of this profile acts on ws connections (http_quota: http); --layer http previews requests",
    ]


def _own_environment(**variables: str) -> dict[str, str]:
    """This run's environment without its MOCKENGINE_* variables and PYTHONMALLOC (so `serve` restarts
    itself on malloc, as it does for a user), plus ``variables``."""
    kept = {
        k: v for k, v in os.environ.items() if not k.upper().startswith("MOCKENGINE_") and k != "PYTHONMALLOC"
    }
    return {**kept, **variables}


@pytest.mark.slow  # mockengine subprocesses
def test_a_misspelt_variable_is_warned_of_once_at_start_up(tmp_path) -> None:
    """`MOCKENGINE_SEDD=3 mockengine serve` ran unseeded with no word of the variable. It is one warning
    line with its near miss, said once (not again by the process `serve` restarts itself as), then
    start-up goes on: here to a scenario file that is not there."""
    missing = tmp_path / "missing.yaml"
    result = subprocess.run(
        [sys.executable, "-m", "mockengine", "serve", "--port", "0", "--scenario", str(missing)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_own_environment(MOCKENGINE_SEDD="3", MOCKENGINE_FUZZ_SEED="7"),  # the test suite's: no warning
    )
    assert (result.returncode, result.stdout) == (2, "")
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "mockengine: warning: unknown environment variable MOCKENGINE_SEDD (did you mean "
        "'MOCKENGINE_SEED'?): ignored"
    )
    assert len(lines) == 2 and lines[1].startswith(f"mockengine: --scenario {missing}: cannot read"), lines


@pytest.mark.slow  # a mockengine subprocess
def test_record_warns_of_a_misspelt_variable_too(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mockengine", "record", "--upstream", "wss://api.openai.com"]
        + ["--out", str(tmp_path / "rec")],
        capture_output=True,
        text=True,
        timeout=60,
        env=_own_environment(MOCKENGINE_PORTT="9000", MOCKENGINE_PORT="99999"),
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        "mockengine record: warning: unknown environment variable MOCKENGINE_PORTT (did you mean "
        "'MOCKENGINE_PORT'?): ignored",
        "mockengine record: MOCKENGINE_PORT (--port) must be between 0 and 65535, not 99999",
    ]


@pytest.mark.slow  # a mockengine subprocess
def test_a_misspelt_option_names_its_near_miss() -> None:
    result = _run("serve", "--prot", "8000")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [
        "mockengine serve: error: unrecognized arguments: --prot (did you mean '--port'?) 8000 "
        "(`mockengine serve --help` lists the options)"
    ]


BAD_RULE_FAULT = (
    "name: flaky\nrules:\n  - id: story\n    when: {heard_contains: story}\n    say: Once upon a time.\n"
    "    fault: {kind: response_failed, kk: 1}\n"
)


@pytest.mark.slow  # mockengine subprocesses
@pytest.mark.parametrize("given", ["--scenario", "--scenarios-dir", "MOCKENGINE_SCENARIOS_DIR", "--workers"])
def test_a_bad_fault_of_a_scenario_rule_is_refused_before_the_models_load(tmp_path, given: str) -> None:
    """A misspelt fault parameter in a scenario rule was reported once the models had loaded, seconds
    in (and by every worker with --workers): now at once, with the setting, file, line, rule and what
    is wrong."""
    (tmp_path / "flaky.yaml").write_text(BAD_RULE_FAULT)
    argv, env, named = ["serve", "--port", "0"], {}, f"--scenarios-dir {tmp_path}/flaky.yaml"
    if given == "--scenario":
        argv += ["--scenario", str(tmp_path / "flaky.yaml")]
        named = f"--scenario {tmp_path}/flaky.yaml"
    elif given == "--scenarios-dir":
        argv += ["--scenarios-dir", str(tmp_path)]
    elif given == "--workers":
        argv = ["serve", "--port", "23201", "--workers", "2", "--scenarios-dir", str(tmp_path)]
    else:
        env = {"MOCKENGINE_SCENARIOS_DIR": str(tmp_path)}
        named = f"MOCKENGINE_SCENARIOS_DIR (--scenarios-dir) {tmp_path}/flaky.yaml"
    result = _run(*argv, env=env)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines() == [  # no "loading the models" line before it
        f"mockengine: {named}: line 6: at $.rules[0].fault: rule 'story': fault response_failed: unknown "
        "parameter 'kk' (did you mean 'k'?); it takes k, rate, times"
    ]
