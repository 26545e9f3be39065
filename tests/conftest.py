"""Shared fixtures: fake-engine sessions and servers for fast tests, and the guard that keeps the
``models`` marker true: a test without it cannot load whisper or piper (the fast tier,
``make test-fast``, runs the tests without it that are not marked ``slow`` either, and does not even
import a module marked ``models`` as a whole)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field

import pytest

from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FAKE_TRANSCRIPT, FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.realtime.effects import Effect, Step
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.server.resources import Resources, make_fake_resources
from mockengine.settings import Settings
from mockengine.virtual_time import VirtualTimeDriver
from tests.rates import TEST_TEXT_TOKENS_PER_S

# Audio as soon as it is synthesized, a written reply's text at once (as `serve --unpaced`).
UNPACED = Pacing(pace=0.0, first_delta_delay_ms=0, delta_ms=200, text_tokens_per_s=0.0)


def make_session(seed: int = 7, pacing: Pacing = UNPACED) -> RealtimeSession:
    return RealtimeSession(
        SessionOptions(model="gpt-realtime", pacing=pacing, created_at_s=1_700_000_000),
        brain=ScriptedBrain(load_scenario(None), seed=seed),
        ids=IdFactory(seed),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )


def make_driver(
    transcript: str = "What is the capital of France?", seed: int = 7, pacing: Pacing = UNPACED
) -> VirtualTimeDriver:
    driver = VirtualTimeDriver(
        make_session(seed, pacing), FakeTranscriber(default=transcript), FakeSynthesizer()
    )
    driver.start()
    return driver


@pytest.fixture
def driver() -> VirtualTimeDriver:
    return make_driver()


@dataclass
class RecordingDriver(VirtualTimeDriver):
    """A driver that also keeps every effect the session asked for (to answer one by hand)."""

    effects: list[Effect] = field(default_factory=list)

    def _apply(self, step: Step) -> None:
        self.effects.extend(step.effects)
        super()._apply(step)


def make_recording_driver(seed: int = 7, pacing: Pacing = UNPACED) -> RecordingDriver:
    driver = RecordingDriver(
        make_session(seed, pacing), FakeTranscriber(default=FAKE_TRANSCRIPT), FakeSynthesizer()
    )
    driver.start()
    return driver


# What the fake transcriber hears in every turn: a question the default scenario answers.
@pytest.fixture(scope="session")
def fake_resources() -> Iterator[Resources]:
    settings = Settings(seed=3, text_tokens_per_s=TEST_TEXT_TOKENS_PER_S)
    with closing(make_fake_resources(settings)) as resources:
        yield resources


def _needs_the_models_marker(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("this test loads a model: mark it @pytest.mark.models (or use the fakes)")


@pytest.fixture(autouse=True)
def models_marker_is_true(request, monkeypatch) -> None:
    """A test not marked ``models`` may not load whisper or piper, nor use the loaded ones."""
    if request.node.get_closest_marker("models"):
        return
    if "real_resources" in request.fixturenames:
        _needs_the_models_marker()
    monkeypatch.setattr("faster_whisper.WhisperModel.__init__", _needs_the_models_marker)
    monkeypatch.setattr("piper.PiperVoice.load", _needs_the_models_marker)


_WHOLE_MODULE_NEEDS_MODELS = "\npytestmark = pytest.mark.models\n"


def _runs_models(markexpr: str) -> bool:
    """Whether ``-m markexpr`` may select a test marked ``models`` (whatever else it is marked: the other
    markers are tried all absent and all present). Only the plain ``not`` / ``and`` / ``or`` /
    parentheses form is judged; anything else counts as selecting."""
    if not markexpr:
        return True
    try:
        code = compile(markexpr, "-m", "eval")
    except SyntaxError:
        return True
    try:
        return any(
            eval(code, {"__builtins__": {}}, {name: name == "models" or others for name in code.co_names})
            for others in (False, True)
        )
    except Exception:  # keyword arguments, attributes: pytest's richer forms
        return True


def pytest_ignore_collect(collection_path, config) -> bool | None:
    """A run that deselects ``models`` (the fast tier) does not even import a module marked ``models`` as
    a whole: the agent frameworks those import (LiveKit, Pipecat, the Agents SDK) cost seconds."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    if _runs_models(config.getoption("markexpr")):
        return None
    return True if _WHOLE_MODULE_NEEDS_MODELS in collection_path.read_text() else None
