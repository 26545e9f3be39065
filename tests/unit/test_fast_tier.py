"""The fast tier (``make test-fast``) skips importing modules whose every test needs the models."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import _runs_models, pytest_ignore_collect

TESTS = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("markexpr", "runs"),
    [
        ("", True),
        ("models", True),
        ("not models", False),
        ("not models and not slow", False),
        ("not (models or slow)", False),
        ("slow", True),  # a models test may be marked slow too
        ("not slow", True),
        ("models or slow", True),
        ("models(kind='x')", True),  # forms it does not judge count as selecting
    ],
)
def test_which_marker_expressions_may_select_a_models_test(markexpr: str, runs: bool) -> None:
    assert _runs_models(markexpr) is runs


def _config(markexpr: str) -> SimpleNamespace:
    return SimpleNamespace(getoption=lambda name: markexpr)


def test_only_whole_models_modules_are_left_uncollected() -> None:
    whole = TESTS / "integration" / "compat" / "test_livekit.py"
    mixed = TESTS / "unit" / "test_session_flow.py"
    assert "\npytestmark = pytest.mark.models\n" in whole.read_text()
    assert pytest_ignore_collect(whole, _config("not models and not slow")) is True
    assert pytest_ignore_collect(whole, _config("")) is None
    assert pytest_ignore_collect(mixed, _config("not models and not slow")) is None
    assert pytest_ignore_collect(TESTS / "conftest.py", _config("not models")) is None
