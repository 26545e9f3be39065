"""The pytest plugin's marker checks its values' types before an engine starts (mockengine/pytest_plugin.py):
``seed="x"`` started one. Run by pytest itself (pytester), the models fixture stood in for: the check comes
before any engine is made."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from mockengine.pytest_plugin import type_problem

pytest_plugins = ("pytester",)

CONFTEST = """
import pytest
from mockengine.settings import Settings


class Models:  # what the plugin reads of the loaded models before it starts an engine
    settings = Settings()


@pytest.fixture(scope="session")
def mockengine_models():
    return Models()
"""

EXAMPLE = """
import pytest


@pytest.mark.mockengine(seed="x")
def test_a_seed_of_text(mockengine_server):
    pass


@pytest.mark.mockengine(audio_pace="fast", api_keys="sk-a")
def test_two_wrong(mockengine_server):
    pass
"""


def test_a_marker_value_of_the_wrong_type_is_a_one_line_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_downstream=EXAMPLE)
    # An installed mockengine loads the plugin by its entry point (naming it again is an error); an
    # editable checkout installed before the entry point existed needs it named.
    installed = any(e.value == "mockengine.pytest_plugin" for e in entry_points(group="pytest11"))
    args = [] if installed else ["-p", "mockengine.pytest_plugin"]
    args += ["-o", "asyncio_default_fixture_loop_scope=function"]
    result = pytester.runpytest_inprocess(*args, "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    errors = [line for line in result.stdout.lines if line.startswith("E ") and "UsageError" in line]
    assert [line.split("UsageError: ", 1)[1] for line in errors] == [
        "@pytest.mark.mockengine: seed must be int or None, not str 'x'",
        "@pytest.mark.mockengine: audio_pace must be float, not str 'fast'; "
        "api_keys must be tuple[str, ...], not str 'sk-a'",
    ]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("seed", 7),
        ("seed", None),
        ("audio_pace", 0),  # an int for a float
        ("scenario", "questionnaire"),
        ("api_keys", ["sk-a", "sk-b"]),
        ("tls", False),
        ("extra", {}),
    ],
)
def test_values_of_the_declared_types_are_taken(name: str, value: object) -> None:
    assert type_problem(name, value) is None


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("port", True, "port must be int, not bool True"),  # a bool is an int to Python, not to a port
        ("host", None, "host must be str, not NoneType None"),
        ("scenarios_dir", Path("s"), "scenarios_dir must be str or None, not PosixPath PosixPath('s')"),
        ("tls", "yes", "tls must be bool, not str 'yes'"),
        ("api_keys", ["sk-a", 3], "api_keys must be tuple[str, ...], not list ['sk-a', 3]"),
    ],
)
def test_values_of_other_types_are_named(name: str, value: object, said: str) -> None:
    assert type_problem(name, value) == said
