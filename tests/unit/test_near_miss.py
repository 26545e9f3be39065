"""The one near-miss helper (mockengine/near_miss.py) every refusal of a misspelt name uses."""

from __future__ import annotations

import ast
from pathlib import Path

import mockengine
from mockengine.near_miss import did_you_mean, nearest

ROOT = Path(mockengine.__file__).parent


def test_the_nearest_choice_and_its_one_shape() -> None:
    assert nearest("stauts", ["status", "code"]) == "status"
    assert did_you_mean("stauts", ["status", "code"]) == " (did you mean 'status'?)"
    assert did_you_mean("nope", ["status", "code"]) == ""
    assert nearest("Pizza", ["pizza", "quiz"]) == "pizza"  # without case


def test_a_shared_prefix_alone_makes_no_near_miss() -> None:
    """``MOCKENGINE_FOO`` is 80 % alike ``MOCKENGINE_LOOP`` by its prefix alone: no near miss of it."""
    variables = ["MOCKENGINE_LOOP", "MOCKENGINE_SEED", "MOCKENGINE_PORT"]
    assert nearest("MOCKENGINE_FOO", variables) == "MOCKENGINE_LOOP"  # what the prefix does
    assert nearest("MOCKENGINE_FOO", variables, prefix="MOCKENGINE_") is None
    assert nearest("MOCKENGINE_SEDD", variables, prefix="MOCKENGINE_") == "MOCKENGINE_SEED"
    assert nearest("mockengine_port", variables, prefix="MOCKENGINE_") == "MOCKENGINE_PORT"


def test_no_module_but_the_helper_calls_difflib() -> None:
    """One helper, one message shape: the near misses of faults, scenarios, the control endpoint, the
    pytest marker and the command line each called difflib and said it their own way."""
    callers = []
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                if "difflib" in names:
                    callers.append(path.relative_to(ROOT).as_posix())
    assert callers == ["near_miss.py"]
