"""A scenario file or directory named by a relative path (`serve --scenario scenarios/pizza.yaml`,
`--scenarios-dir scenarios`, the plugin marker's `scenario=…`) is read from the working directory; run
from elsewhere (a CI step in another directory, pytest from a sub-folder) it is not found, and the
message said only "No such file or directory: 'scenarios/pizza.yaml'". Now it names the directory it
was looked in. `mockengine serve` run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def serve(cwd: Path, *args: str) -> str:
    """``mockengine serve ARGS`` in ``cwd``: its stderr, once it refused to start (status 2)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "mockengine", "serve", "--port", "0", *args]
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    return result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--scenario", "scenarios/pizza.yaml"), "scenarios/pizza.yaml: cannot read scenario file"),
        (("--scenarios-dir", "scenarios"), "scenarios: not a directory of scenario files"),
    ],
)
def test_a_relative_path_not_found_names_the_working_directory(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    stderr = serve(tmp_path, *args)
    assert said in stderr, stderr
    assert f"(a relative path: looked for in the working directory {tmp_path})" in stderr, stderr


def test_an_absolute_path_gets_no_such_note(tmp_path: Path) -> None:
    stderr = serve(tmp_path, "--scenario", str(tmp_path / "x.yaml"))
    assert "cannot read scenario file" in stderr and "working directory" not in stderr, stderr
