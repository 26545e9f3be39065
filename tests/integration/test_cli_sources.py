"""Start-up mistakes found past the settings' own checks (a file that does not load, a package that is
not installed) name where the value came from, as those checks do: ``MOCKENGINE_X (--x)`` when the
environment set it, ``--x`` when the command line did. ``MOCKENGINE_FAULT=nope`` said only "unknown fault
kind 'nope'", ``MOCKENGINE_VOICES_FILE`` a "voice catalogue" with no option at all, and a bad
``MOCKENGINE_TLS_CERT`` a "--tls-cert" the command line never held. Each is one line and exit status 2,
before the models load."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from mockengine.settings import env_variable


@dataclass(frozen=True)
class Case:
    values: dict[str, str]  # field → value; {tmp} is the test's directory
    said: Callable[[Callable[[str], str]], str]  # the line, from a label of each field
    flags: tuple[str, ...] = ()  # given on the command line in both runs (not what is being named)


def _option(field: str) -> str:
    return {"faults_file": "--faults"}.get(field, "--" + field.replace("_", "-"))


CASES = {
    "api-keys-file": Case(  # not UTF-8: the codec's message alone, no file, no option
        {"api_keys_file": "{tmp}/keys.bin"},
        lambda label: (
            f"{label('api_keys_file')} {{tmp}}/keys.bin: 'utf-8' codec can't decode byte 0xff "
            "in position 0: invalid start byte"
        ),
    ),
    "tls-cert": Case(
        {"tls_cert": "{tmp}/nope.pem", "tls_key": "{tmp}/nope.key"},
        lambda label: (
            f"cannot load {label('tls_cert')} {{tmp}}/nope.pem with {label('tls_key')} "
            "{tmp}/nope.key: No such file or directory"
        ),
    ),
    "tls-dir": Case(
        {"tls_dir": "{tmp}/a-file/tls"},
        lambda label: (
            f"{label('tls_dir')} {{tmp}}/a-file/tls: cannot keep the generated CA there (Not a directory)"
        ),
        flags=("--tls",),
    ),
    "loop": Case(
        {"loop": "uvloop"},
        lambda label: f"{label('loop')} uvloop needs the uvloop package (pip install uvloop)",
    ),
    "fault": Case(  # the known kinds follow
        {"fault": "close_after_audio_dleta:3"},
        lambda label: (
            f"{label('fault')} 'close_after_audio_dleta:3': unknown fault kind "
            "'close_after_audio_dleta' (did you mean 'close_after_audio_delta'?)"
        ),
    ),
    "faults-file": Case(
        {"faults_file": "{tmp}/faults.yaml"},
        lambda label: (
            f"{label('faults_file')} {{tmp}}/faults.yaml: cannot read fault profile: "
            "[Errno 2] No such file or directory: '{tmp}/faults.yaml'"
        ),
    ),
    "voices-file": Case(
        {"voices_file": "{tmp}/voices.yaml"},
        lambda label: (
            f"{label('voices_file')} {{tmp}}/voices.yaml: cannot read: "
            "[Errno 2] No such file or directory: '{tmp}/voices.yaml'"
        ),
    ),
    "scenario": Case(
        {"scenario": "{tmp}/pizza.yaml"},
        lambda label: (
            f"{label('scenario')} {{tmp}}/pizza.yaml: cannot read scenario file: "
            "[Errno 2] No such file or directory: '{tmp}/pizza.yaml'"
        ),
    ),
    "scenarios-dir": Case(
        {"scenarios_dir": "{tmp}/scenarios"},
        lambda label: f"{label('scenarios_dir')} {{tmp}}/scenarios: not a directory of scenario files",
    ),
    "scenario-keys": Case(
        {"scenario_keys": "{tmp}/keys.yaml"},
        lambda label: (
            f"{label('scenario_keys')} {{tmp}}/keys.yaml: cannot read the key → scenario map: "
            "[Errno 2] No such file or directory: '{tmp}/keys.yaml'"
        ),
    ),
}


def _serve(tmp: Path, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # No uvloop here, whatever this machine has: a module of that name that fails to import.
    (tmp / "no-uvloop").mkdir(exist_ok=True)
    (tmp / "no-uvloop" / "uvloop.py").write_text("raise ImportError('no uvloop here')\n")
    path = os.pathsep.join(p for p in (str(tmp / "no-uvloop"), os.environ.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "mockengine", "serve", "--port", "0", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": path, **env},
    )


@pytest.mark.slow  # mockengine subprocesses
@pytest.mark.parametrize("source", ["flag", "environment"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_start_up_mistake_names_where_its_value_came_from(tmp_path, name: str, source: str) -> None:
    case = CASES[name]
    (tmp_path / "a-file").write_text("")
    (tmp_path / "keys.bin").write_bytes(b"\xff\xfe\n")
    values = {field: value.replace("{tmp}", str(tmp_path)) for field, value in case.values.items()}
    if source == "flag":
        argv = [*case.flags, *(arg for field, value in values.items() for arg in (_option(field), value))]
        result = _serve(tmp_path, argv, {})
        said = case.said(_option)
    else:
        result = _serve(tmp_path, list(case.flags), {env_variable(f): v for f, v in values.items()})
        said = case.said(lambda field: f"{env_variable(field)} ({_option(field)})")
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"mockengine: {said.replace('{tmp}', str(tmp_path))}"), line
    assert "loading the models" not in result.stderr


def _mockengine(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mockengine", *argv],
        capture_output=True,
        text=True,
        timeout=120,  # --workers 2 spawned both workers before either said the port was taken
        env={**os.environ, **env},
    )


@pytest.mark.slow  # mockengine subprocesses
@pytest.mark.parametrize("held_by", ["server", "workers"])
@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("source", ["flag", "environment"])
def test_a_taken_port_names_where_it_came_from(source: str, workers: str, held_by: str) -> None:
    """A taken port is one line naming the setting as it was given, with or without workers. With
    ``--workers 2`` each worker said "… choose another --port" (``MOCKENGINE_PORT`` set it), then
    the parent "mockengine-worker-1 exited with 2; stopping", after spawning both: three lines, 30 s in.
    A port another engine's workers hold (``SO_REUSEPORT``) was no mistake at all: these workers joined
    theirs, and the kernel shared the connections between the two engines."""
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, int(held_by == "workers"))
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        argv = ["serve", "--workers", workers, *(("--port", port) if source == "flag" else ())]
        result = _mockengine(argv, {"MOCKENGINE_PORT": port})
    named = "--port" if source == "flag" else "MOCKENGINE_PORT (--port)"
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"mockengine: cannot listen on 127.0.0.1:{port}: address already in use "
        f"(another server? choose another {named})"
    ]


@pytest.mark.slow  # mockengine subprocesses
@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("source", ["flag", "environment"])
def test_a_host_that_does_not_resolve_names_where_it_came_from(source: str, workers: str) -> None:
    """``MOCKENGINE_HOST=nohost.invalid`` said "cannot listen on nohost.invalid:…: name or service not
    known", naming no setting: the command line held no --host."""
    host = "nohost.invalid"  # .invalid never resolves (RFC 2606)
    port = "19310"  # --workers takes no --port 0; nothing binds it (the host does not resolve)
    argv = ["serve", "--port", port, "--workers", workers, *(("--host", host) if source == "flag" else ())]
    result = _mockengine(argv, {"MOCKENGINE_HOST": host})
    named = "--host" if source == "flag" else "MOCKENGINE_HOST (--host)"
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"mockengine: cannot listen on {host}:{port}: "), line
    assert line.endswith(f" (no such host? choose another {named})"), line
