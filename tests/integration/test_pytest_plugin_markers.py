"""The `mockengine` marker as a QA engineer stacks it: settings for a whole module (`pytestmark`) or class
plus a test's own. Only the closest marker was read, so a test's `seed=3` silently dropped the module's
`scenario=…` (the test then ran against the default participant); and a positional argument,
`@pytest.mark.mockengine("pizza")`, was ignored without a word. Now the markers merge field by field,
the closest winning, and a positional argument is a one-line UsageError."""

from __future__ import annotations

import pytest

pytest_plugins = ("pytester",)
pytestmark = pytest.mark.models

STACKED = """
import json
import urllib.request

import pytest

pytestmark = pytest.mark.mockengine(scenario="hyperstudy_rating", seed=5)


def health(server):
    return json.load(urllib.request.urlopen(server.base_url + "/healthz"))


@pytest.mark.mockengine(seed=3)
def test_module_scenario_kept(mockengine_server):
    assert health(mockengine_server)["models"]["scenario"] == "hyperstudy_rating"


@pytest.mark.mockengine(scenario="face_rating")
class TestClass:
    def test_class_wins_over_module(self, mockengine_server):
        assert health(mockengine_server)["models"]["scenario"] == "face_rating"

    @pytest.mark.mockengine(scenario="questionnaire")
    def test_own_wins_over_class(self, mockengine_server):
        assert health(mockengine_server)["models"]["scenario"] == "questionnaire"
"""

POSITIONAL = """
import pytest


@pytest.mark.mockengine("questionnaire")
def test_positional(mockengine_server):
    pass
"""


def test_markers_merge_the_closest_winning(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_stacked=STACKED)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_a_positional_argument_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_positional=POSITIONAL)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*UsageError: @pytest.mark.mockengine takes settings by name (scenario='questionnaire', "
            "seed=7), not positional arguments: ('questionnaire',)*"
        ]
    )


def test_a_marker_mistake_is_reported_without_the_plugins_traceback(pytester: pytest.Pytester) -> None:
    """conformance.md promises one ``UsageError: @pytest.mark.mockengine: …`` line; the error section
    showed ~40 lines of the fixture's own source and pytest-asyncio's hook wrapper around it."""
    pytester.makepyfile(test_positional=POSITIONAL)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "def mockengine_server" not in out and "pytest_fixture_setup" not in out, out
    errors = out.split("ERROR at setup of test_positional", 1)[1].split("short test summary")[0]
    lines = [line for line in errors.splitlines() if line.strip() and not line.strip().startswith(("=", "_"))]
    assert len(lines) == 1, errors
    assert lines[0].startswith("UsageError: @pytest.mark.mockengine takes settings by name"), lines
    # the summary line still names it
    result.stdout.fnmatch_lines(
        ["ERROR test_positional.py::test_positional - UsageError: @pytest.mark.mock*"]
    )
