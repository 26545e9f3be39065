"""A fresh project with mockengine installed runs its tests without warnings from the plugin's set-up."""

import subprocess
import sys
from pathlib import Path


def test_a_fresh_project_gets_no_deprecation_warning(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing(mockengine_settings):\n    assert True\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stdout.lower(), result.stdout


def test_a_project_that_sets_the_loop_scope_keeps_its_own(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = module\n")
    (tmp_path / "test_scope.py").write_text(
        "def test_scope(pytestconfig):\n"
        "    assert pytestconfig.getini('asyncio_default_fixture_loop_scope') == 'module'\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
