"""The pytest plugin as a downstream project uses it: a test file with ``mockengine_server`` and the
``mockengine`` marker, run by pytest itself (pytester), talking to the engine with the ``openai`` SDK."""

from __future__ import annotations

import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)
pytestmark = pytest.mark.models

EXAMPLE = """
import json
import urllib.request

import openai
import pytest


@pytest.mark.mockengine(scenario="hyperstudy_rating", seed=7)
def test_rating_study(mockengine_server):
    health = json.load(urllib.request.urlopen(mockengine_server.base_url + "/healthz"))
    assert health["models"]["scenario"] == "hyperstudy_rating"
    client = openai.OpenAI(
        api_key=mockengine_server.api_key, websocket_base_url=mockengine_server.websocket_base_url
    )
    value = {"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"]}
    tool = {"type": "function", "name": "answer_scale", "parameters": value}
    with client.realtime.connect(model="gpt-realtime") as connection:
        connection.session.update(session={"type": "realtime", "tools": [tool]})
        question = '[context] {"event":"question","tool":"answer_scale","question":"How warm? 0 to 100."}'
        connection.conversation.item.create(
            item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": question}]}
        )
        connection.response.create(response={"output_modalities": ["text"]})
        for event in connection:
            if event.type == "response.done":
                break
    call = event.response.output[0]
    assert (call.name, json.loads(call.arguments)) == ("answer_scale", {"value": 72})


def test_default_server(mockengine_server):
    assert mockengine_server.realtime_url(role="B").startswith("ws://127.0.0.1:")
    assert "role=B" in mockengine_server.realtime_url(role="B")
    listing = urllib.request.Request(
        mockengine_server.openai_base_url + "/models",
        headers={"Authorization": f"Bearer {mockengine_server.api_key}"},
    )
    models = json.load(urllib.request.urlopen(listing))
    assert models["object"] == "list"


@pytest.mark.mockengine(no_such_setting=1)
def test_bad_marker(mockengine_server):
    pass


@pytest.mark.mockengine(scenario="no_such_scenario")
def test_unknown_scenario(mockengine_server):
    pass


@pytest.mark.mockengine(fault="no_such_fault")
def test_bad_fault(mockengine_server):
    pass


def test_no_engine_left_running():
    import threading

    assert not [t for t in threading.enumerate() if t.name == "mockengine-server"]
"""


def plugin_is_installed() -> bool:
    return any(e.value == "mockengine.pytest_plugin" for e in entry_points(group="pytest11"))


def test_the_plugin_is_declared_as_a_pytest11_entry_point() -> None:
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"mockengine": "mockengine.pytest_plugin"}


def test_a_downstream_test_file_uses_the_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_downstream=EXAMPLE)
    # An installed mockengine loads the plugin by its entry point; an editable checkout installed before
    # the entry point existed needs it named.
    args = [] if plugin_is_installed() else ["-p", "mockengine.pytest_plugin"]
    args += ["-o", "asyncio_default_fixture_loop_scope=function"]
    result = pytester.runpytest_inprocess(*args, "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=3)
    result.stdout.fnmatch_lines(["*UsageError: @pytest.mark.mockengine: unknown settings*no_such_setting*"])
    # What the engine refuses at start-up is a one-line usage error too (it was the loader's traceback),
    # and the engine that failed to start is not left running (the fault's was).
    result.stdout.fnmatch_lines(["*UsageError: @pytest.mark.mockengine: no_such_scenario: no scenario file*"])
    result.stdout.fnmatch_lines(["*UsageError: @pytest.mark.mockengine: unknown fault kind 'no_such_fault'*"])
