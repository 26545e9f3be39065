"""pytest plugin: a real mockengine for your project's tests (entry point ``pytest11: mockengine``).

Installed with mockengine, it needs no ``conftest.py``::

    import openai, pytest

    @pytest.mark.mockengine(scenario="questionnaire", seed=7)
    def test_agent_answers(mockengine_server):
        client = openai.OpenAI(base_url=mockengine_server.openai_base_url, api_key=mockengine_server.api_key)
        ...
        url = mockengine_server.realtime_url(role="B")   # ws://127.0.0.1:PORT/v1/realtime?model=...

Fixtures:

- ``mockengine_server`` — an engine started for the test on a free loopback port, stopped after it; yields
  ``mockengine.testing.EngineInfo`` (``base_url``, ``openai_base_url``, ``websocket_base_url``,
  ``realtime_url()``, ``api_key``, ``settings``). Its settings are the defaults with
  ``--mockengine-seed`` applied, overridden by the keyword arguments of ``@pytest.mark.mockengine(...)``
  (any ``Settings`` field: ``scenario`` as a packaged name or a file, ``seed``, ``audio_pace``, ``api_key``…),
  every such marker that applies (module ``pytestmark``, class, test) merged field by field, the closest
  winning (a positional argument is a ``UsageError``),
  overridden in turn by a ``mockengine_settings`` fixture the project may define.
- ``mockengine_models`` (session scope) — the models, loaded once per test run (a few seconds) and shared
  by every server.

Options: ``--mockengine-seed N`` (default 0: tests are deterministic unless they ask otherwise).

pytest-asyncio (which async tests of the ``openai`` SDK usually bring) warns in every project that
leaves ``asyncio_default_fixture_loop_scope`` unset; nothing in this plugin depends on that option, so
where the project has not set it that warning is not shown: a fresh project runs without warnings.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import types
import typing
import warnings
from collections.abc import Generator, Iterator
from typing import Any

import pytest

from mockengine.brain.scenario import ScenarioError
from mockengine.faults.spec import FaultSpecError
from mockengine.near_miss import did_you_mean
from mockengine.recordings.format import RecordingError
from mockengine.server.resources import Resources, load_resources
from mockengine.settings import Settings, SettingsError
from mockengine.testing import EngineInfo, EngineThread

MARKER = "mockengine"


LOOP_SCOPE_OPTION = "asyncio_default_fixture_loop_scope"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Before pytest-asyncio's own configure: where the project leaves its loop-scope option unset, the
    deprecation warning about it is not shown (this plugin's fixtures are synchronous: nothing here
    depends on that option)."""
    config.addinivalue_line(
        "markers", f"{MARKER}(**settings): settings of the mockengine_server fixture (scenario, seed, ...)"
    )
    if importlib.util.find_spec("pytest_asyncio") is None:
        return
    try:
        if config.getini(LOOP_SCOPE_OPTION):
            return
    except ValueError:  # pytest-asyncio is installed but not loaded (-p no:asyncio)
        return
    warnings.filterwarnings(
        "ignore", message=f'The configuration option "{LOOP_SCOPE_OPTION}" is unset', category=Warning
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A marker mistake's report is its message alone: the traceback pytest shows for an error in a
    fixture was ~40 lines of this plugin's source and pytest-asyncio's hook wrapper around the one line
    that matters."""
    report = yield
    error = call.excinfo.value if call.excinfo is not None else None
    if isinstance(error, pytest.UsageError) and str(error).startswith(f"@pytest.mark.{MARKER}"):
        report.longrepr = f"UsageError: {error}"  # the summary line shows it too
    return report


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mockengine")
    group.addoption(
        "--mockengine-seed", type=int, default=0, help="seed of mockengine servers started by fixtures"
    )


def type_problem(name: str, value: Any) -> str | None:
    """Why ``value`` cannot be the ``Settings`` field ``name`` (None: it can). A field's type as declared,
    checked by pydantic in strict mode: an ``int`` field takes no ``bool``, ``float`` or ``str``, a
    ``float`` field also an ``int``, a ``str`` field no ``Path`` (``scenarios_dir=Path(…)`` failed inside
    the loader: ``str(path)``), a ``dict[str, …]`` only string keys; ``None`` only where the field's
    default may be ``None``. A ``tuple[str, ...]`` field also takes a list of strings (as a marker's
    ``api_keys=["sk-a"]`` is written). The message names the field's type and the value, and where in
    a list or dict the wrong part is."""
    from pydantic import TypeAdapter, ValidationError  # here: the plugin loads in every pytest run

    hint = typing.get_type_hints(Settings)[name]
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    takes_tuple = any(typing.get_origin(kind) is tuple for kind in allowed)
    checked = tuple(value) if takes_tuple and isinstance(value, list) else value
    try:
        TypeAdapter(hint).validate_python(checked, strict=True)
    except ValidationError as exc:
        errors = exc.errors()
        where = ""
        if len(allowed) == 1 and len(errors) == 1 and errors[0]["loc"]:
            loc = errors[0]["loc"]
            part = f"key {loc[0]!r}" if loc[-1] == "[key]" else f"item {loc[0]!r}"
            where = f" ({part}: {errors[0]['msg']})"
        names = " or ".join(
            "None" if k is type(None) else str(k) if typing.get_origin(k) else k.__name__ for k in allowed
        )
        return f"{name} must be {names}, not {type(value).__name__} {value!r}{where}"
    return None


@pytest.fixture(scope="session")
def mockengine_models(pytestconfig: pytest.Config) -> Iterator[Resources]:
    """Whisper, piper and the packaged scenarios, loaded once for the test run."""
    resources = load_resources(Settings(seed=pytestconfig.getoption("--mockengine-seed")))
    yield resources
    resources.close()


@pytest.fixture
def mockengine_settings() -> dict[str, Any]:
    """Override in a project to change every server's settings (a dict of ``Settings`` fields)."""
    return {}


@pytest.fixture
def mockengine_server(
    request: pytest.FixtureRequest, mockengine_models: Resources, mockengine_settings: dict[str, Any]
) -> Iterator[EngineInfo]:
    """A running engine for one test; see the module docstring."""
    overrides: dict[str, Any] = {"seed": request.config.getoption("--mockengine-seed"), "port": 0}
    # Every marker that applies (module `pytestmark`, class, test), merged field by field, the closest
    # winning: reading only the closest one let a test's `seed=3` drop its module's `scenario=…`.
    for marker in reversed(list(request.node.iter_markers(MARKER))):
        if marker.args:  # `mockengine("pizza")` was ignored: the test ran on the default scenario
            raise pytest.UsageError(
                f"@pytest.mark.mockengine takes settings by name (scenario={marker.args[0]!r}, seed=7), "
                f"not positional arguments: {marker.args!r}"
            )
        overrides.update(marker.kwargs)
    overrides.update(mockengine_settings)
    fields = {field.name for field in dataclasses.fields(Settings)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        # `sead=3`, `faults="…"`: each with its near miss, before the list of every field (it is long)
        named = ", ".join(f"{name!r}{did_you_mean(name, fields)}" for name in unknown)
        raise pytest.UsageError(f"@pytest.mark.mockengine: unknown settings {named}; known: {sorted(fields)}")
    wrong = [problem for name, value in overrides.items() if (problem := type_problem(name, value))]
    if wrong:  # seed="x" started an engine, to fail later or never
        raise pytest.UsageError(f"@pytest.mark.mockengine: {'; '.join(wrong)}")
    settings = dataclasses.replace(mockengine_models.settings, **overrides)
    engine = EngineThread(settings, mockengine_models)
    try:
        info = engine.start()
    except (ScenarioError, FaultSpecError, RecordingError, SettingsError) as exc:
        # A setting the engine refuses at start-up is the marker's mistake: one line, as for an unknown
        # setting, not the loader's traceback.
        raise pytest.UsageError(f"@pytest.mark.mockengine: {exc}") from exc
    try:
        yield info
    finally:
        engine.stop()
