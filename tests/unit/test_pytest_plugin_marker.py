"""The pytest plugin's marker checks its values' types before an engine starts (mockengine/pytest_plugin.py):
``seed="x"`` started one. Run by pytest itself (pytester), the models fixture stood in for: the check comes
before any engine is made."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from mockengine.pytest_plugin import type_problem
from mockengine.settings import Settings, SettingsError
from mockengine.testing import EngineThread

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
    errors = [line for line in result.stdout.lines if line.startswith("UsageError: ")]  # the one line
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
        ("extra", {"k": [1, None]}),
        ("api_keys", ("sk-a",)),
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
        (
            "api_keys",
            ["sk-a", 3],
            "api_keys must be tuple[str, ...], not list ['sk-a', 3] (item 1: Input should be a valid string)",
        ),
        ("audio_pace", "2", "audio_pace must be float, not str '2'"),  # no coercion from a string
        ("seed", 7.0, "seed must be int or None, not float 7.0"),
        (
            "extra",
            {1: "x"},
            "extra must be dict[str, typing.Any], not dict {1: 'x'} (key 1: Input should be a valid string)",
        ),
    ],
)
def test_values_of_other_types_are_named(name: str, value: object, said: str) -> None:
    assert type_problem(name, value) == said


OUT_OF_RANGE = """
import pytest


@pytest.mark.mockengine(audio_delta_ms=5000)
def test_deltas_past_the_cap(mockengine_server):
    pass


@pytest.mark.mockengine(cors_origins=["nope"], seed=3)
def test_an_origin_no_page_sends(mockengine_server):
    pass


@pytest.mark.mockengine(replay_speed=2.0)
def test_a_replay_speed_without_a_recording(mockengine_server):
    pass


@pytest.mark.mockengine(log_level="verbose")
def test_an_unknown_log_level(mockengine_server):
    pass
"""


def test_a_marker_value_serve_refuses_is_a_one_line_usage_error(pytester: pytest.Pytester) -> None:
    """Values of the right type that ``serve`` refuses at start-up (out of range, not one of the choices)
    were served: an engine with 5 s audio deltas (HRP caps them at 2000 ms), CORS for no page, a replay
    speed with nothing to replay. They are refused, named by field, before any engine is made (the
    stand-in models here have no ``with_settings``: an engine started would fail otherwise)."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_downstream=OUT_OF_RANGE)
    installed = any(e.value == "mockengine.pytest_plugin" for e in entry_points(group="pytest11"))
    args = [] if installed else ["-p", "mockengine.pytest_plugin"]
    args += ["-o", "asyncio_default_fixture_loop_scope=function"]
    result = pytester.runpytest_inprocess(*args, "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=4)
    errors = [line for line in result.stdout.lines if line.startswith("UsageError: ")]  # the one line
    assert [line.split("UsageError: ", 1)[1] for line in errors] == [
        "@pytest.mark.mockengine: audio_delta_ms must be between 1 and 2000 (HRP maxAudioDeltaMs)",
        "@pytest.mark.mockengine: cors_origins must be '*' or an origin, scheme://host[:port] "
        "(e.g. https://app.example.com:8443), not 'nope'",
        "@pytest.mark.mockengine: replay_speed applies only with replay_dir or a scenario of kind: recording "
        "(a recording to answer from)",
        "@pytest.mark.mockengine: log_level must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, "
        "not 'verbose'",
    ]


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        (Settings(audio_delta_ms=0), "audio_delta_ms must be between 1 and 2000 (HRP maxAudioDeltaMs)"),
        (Settings(tts_threads=0), "tts_threads must be at least 1, not 0"),
        (
            Settings(replay_strict=True),
            "replay_strict applies only with replay_dir or a scenario of kind: recording "
            "(a recording to answer from)",
        ),
    ],
)
def test_an_engine_thread_refuses_what_serve_refuses(settings: Settings, said: str) -> None:
    """``EngineThread`` (the fixture's engine, and the documented way outside pytest) checks as ``serve``
    does, before any model loads: ``tts_threads=0`` quietly meant one thread."""
    with pytest.raises(SettingsError) as refused:
        EngineThread(settings).start()
    assert str(refused.value) == said


MISSPELT = """
import pytest


@pytest.mark.mockengine(sead=3, faults="http_quota")
def test_misspelt(mockengine_server):
    pass


@pytest.mark.mockengine(zzz_nothing_like_it=1)
def test_unlike_any(mockengine_server):
    pass
"""


def test_a_misspelt_setting_is_named_with_its_near_miss(pytester: pytest.Pytester) -> None:
    """``sead=3`` got the list of all 57 fields and no hint which one was meant."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_downstream=MISSPELT)
    installed = any(e.value == "mockengine.pytest_plugin" for e in entry_points(group="pytest11"))
    args = [] if installed else ["-p", "mockengine.pytest_plugin"]
    args += ["-o", "asyncio_default_fixture_loop_scope=function"]
    result = pytester.runpytest_inprocess(*args, "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=2)
    errors = [line for line in result.stdout.lines if line.startswith("UsageError: ")]  # the one line
    assert (
        errors[0]
        .split("UsageError: ", 1)[1]
        .startswith(
            "@pytest.mark.mockengine: unknown settings 'faults' (did you mean 'fault'?), 'sead' (did you "
            "mean 'seed'?); known: "
        )
    )
    assert "did you mean" not in errors[1]
    assert "unknown settings 'zzz_nothing_like_it'; known: " in errors[1]
