"""`mockengine record` refuses a usage mistake with one line and exit status 2, as every command does
(docs/command-line.md): `--port 99999` listened on port 34463 (99999 − 65536: the socket layer wraps it)
and said so only in passing, and `--api-keys-file` naming no file started a recorder that refused every
client's key. Run as a user runs it; a recorder that starts instead is stopped and the test fails."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def record(*args: str, out: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mockengine", "record", "--upstream", "http://127.0.0.1:9/v1"]
    command += ["--out", str(out), *args]
    try:
        return subprocess.run(
            command, capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})}
        )
    except subprocess.TimeoutExpired as exc:  # it started serving
        pytest.fail(f"`mockengine record {' '.join(args)}` started instead of refusing: {exc.stdout!r}")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--port", "99999"), "mockengine record: --port must be between 0 and 65535, not 99999"),
        (("--port", "-1"), "mockengine record: --port must be between 0 and 65535, not -1"),
        (
            ("--port", "0", "--api-keys-file", "/no/such/keys.txt"),
            "mockengine record: --api-keys-file /no/such/keys.txt: No such file or directory",
        ),
    ],
)
def test_a_usage_mistake_is_one_line_and_status_2(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    result = record(*args, out=tmp_path / "rec")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip() == said, result.stderr
    assert not (tmp_path / "rec").exists()  # nothing made for a run that did not start


@pytest.mark.parametrize(
    ("env", "args", "said"),
    [
        (
            {"MOCKENGINE_PORT": "99999"},
            (),
            "mockengine record: MOCKENGINE_PORT (--port) must be between 0 and 65535, not 99999",
        ),
        (
            {"MOCKENGINE_API_KEYS_FILE": "/no/such/keys.txt"},
            ("--port", "0"),
            "mockengine record: MOCKENGINE_API_KEYS_FILE (--api-keys-file) /no/such/keys.txt: "
            "No such file or directory",
        ),
        (  # the command line wins over the variable, and is named as such
            {"MOCKENGINE_PORT": "99999", "MOCKENGINE_API_KEYS_FILE": "/no/such/keys.txt"},
            ("--port", "0", "--api-keys-file", "/no/such/other.txt"),
            "mockengine record: --api-keys-file /no/such/other.txt: No such file or directory",
        ),
        (
            {"MOCKENGINE_PORT": "abc"},
            (),
            "mockengine record: MOCKENGINE_PORT (--port) must be an integer, not 'abc'",
        ),
    ],
)
def test_a_mistake_from_the_environment_is_named_as_serve_names_it(
    tmp_path: Path, env: dict[str, str], args: tuple[str, ...], said: str
) -> None:
    """The options `record` shares with `serve` read the same variables, and a bad value is named by
    where it came from, as `serve` names it: `MOCKENGINE_PORT=99999` was reported as a bad `--port`."""
    result = record(*args, out=tmp_path / "rec", env=env)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip() == said, result.stderr
    assert not (tmp_path / "rec").exists()


@pytest.mark.parametrize("source", ["flag", "environment"])
def test_a_taken_port_names_where_it_came_from(tmp_path: Path, source: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        if source == "flag":
            result, named = record("--port", port, out=tmp_path / "rec"), "--port"
        else:
            result = record(out=tmp_path / "rec", env={"MOCKENGINE_PORT": port})
            named = "MOCKENGINE_PORT (--port)"
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip() == (
        f"mockengine record: cannot listen on 127.0.0.1:{port}: address already in use "
        f"(another server? choose another {named})"
    )


def test_a_keys_file_that_is_not_utf8_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    keys = tmp_path / "keys.bin"
    keys.write_bytes(b"\xff\xfe\n")
    result = record(out=tmp_path / "rec", env={"MOCKENGINE_PORT": "0", "MOCKENGINE_API_KEYS_FILE": str(keys)})
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip() == (
        f"mockengine record: MOCKENGINE_API_KEYS_FILE (--api-keys-file) {keys}: 'utf-8' codec can't decode "
        "byte 0xff in position 0: invalid start byte"
    )
