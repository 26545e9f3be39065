"""Shared fixtures: fake-engine sessions for fast core tests, and the real models loaded once."""

from __future__ import annotations

import pytest

from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.replay import Replay

UNPACED = Pacing(pace=0.0, first_delta_delay_ms=0, delta_ms=200)


def make_session(seed: int = 7, pacing: Pacing = UNPACED) -> RealtimeSession:
    return RealtimeSession(
        SessionOptions(model="gpt-realtime", pacing=pacing, created_at_s=1_700_000_000),
        brain=ScriptedBrain(load_scenario(None), seed=seed),
        ids=IdFactory(seed),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )


def make_replay(
    transcript: str = "What is the capital of France?", seed: int = 7, pacing: Pacing = UNPACED
) -> Replay:
    replay = Replay(make_session(seed, pacing), FakeTranscriber(default=transcript), FakeSynthesizer())
    replay.start()
    return replay


@pytest.fixture
def replay() -> Replay:
    return make_replay()
