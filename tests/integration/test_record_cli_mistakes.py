"""`mockengine record` refuses a usage mistake with one line and exit status 2, as every command does
(docs/command-line.md): `--port 99999` listened on port 34463 (99999 − 65536: the socket layer wraps it)
and said so only in passing, and `--api-keys-file` naming no file started a recorder that refused every
client's key. Run as a user runs it; a recorder that starts instead is stopped and the test fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def record(*args: str, out: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mockengine", "record", "--upstream", "http://127.0.0.1:9/v1"]
    command += ["--out", str(out), *args]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=60)
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
