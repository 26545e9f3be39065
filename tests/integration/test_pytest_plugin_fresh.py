"""A fresh project with mockengine installed runs its tests without warnings from the plugin's set-up."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a fresh pytest in a subprocess, twice


def _pytest_in(project: Path) -> subprocess.CompletedProcess[str]:
    """pytest run in ``project`` as its developers would, every warning an error."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", str(project)],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )


def test_a_fresh_project_gets_no_deprecation_warning(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing(mockengine_settings):\n    assert True\n")
    result = _pytest_in(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stdout.lower(), result.stdout


def test_a_project_that_sets_the_loop_scope_keeps_its_own(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = module\n")
    (tmp_path / "test_scope.py").write_text(
        "def test_scope(pytestconfig):\n"
        "    assert pytestconfig.getini('asyncio_default_fixture_loop_scope') == 'module'\n"
    )
    result = _pytest_in(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
