"""``session.update``'s ``reasoning: null`` and ``model`` on the session core (docs/realtime-protocol.md).

- ``reasoning: null`` clears a reasoning setting, as ``turn_detection: null`` turns turn detection off
  (openai-python's ``SessionUpdateEvent``: "To clear a field like ``turn_detection``, pass ``null``"): the
  null survives the parse boundary (``nulls.MEANINGFUL_NULLS``) and the echoed session has no
  ``reasoning`` again, as before one was set. It is taken on a model without reasoning too.
- ``model`` cannot change after the session opens ("any field except for ``voice`` and ``model``"): an
  update naming another one is taken and the session keeps its model, so ``reasoning`` is judged against
  that; a refusal says which model the session has and that the update's did not change it.
"""

from __future__ import annotations

import json

from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol.client_events import parse_client_event
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.virtual_time import VirtualTimeDriver
from tests.conftest import FAKE_TRANSCRIPT, UNPACED

LOW = {"effort": "low"}


def _driver(model: str) -> VirtualTimeDriver:
    session = RealtimeSession(
        SessionOptions(model=model, pacing=UNPACED, created_at_s=1_700_000_000),
        brain=ScriptedBrain(load_scenario(None), seed=7),
        ids=IdFactory(7),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )
    driver = VirtualTimeDriver(session, FakeTranscriber(default=FAKE_TRANSCRIPT), FakeSynthesizer())
    driver.start()
    return driver


def _update(driver: VirtualTimeDriver, event_id: str = "upd", **session) -> dict:
    """Send a session.update as the wire carries it (the parse boundary included); the answer."""
    raw = json.dumps(
        {"type": "session.update", "event_id": event_id, "session": {"type": "realtime", **session}}
    )
    driver.send(parse_client_event(raw))
    return driver.events[-1][1]


def test_reasoning_null_clears_the_setting() -> None:
    driver = _driver("gpt-realtime-2")
    assert "reasoning" not in driver.events[0][1]["session"]
    assert _update(driver, reasoning=LOW)["session"]["reasoning"] == LOW
    cleared = _update(driver, reasoning=None)
    assert cleared["type"] == "session.updated"
    assert "reasoning" not in cleared["session"]
    assert cleared["session"] == driver.events[0][1]["session"]
    # Set again after the clear, and an update that leaves it out keeps it.
    _update(driver, reasoning={"effort": "high"})
    assert _update(driver, instructions="Be brief.")["session"]["reasoning"] == {"effort": "high"}


def test_reasoning_null_is_taken_on_a_model_without_reasoning() -> None:
    driver = _driver("gpt-realtime")
    updated = _update(driver, reasoning=None, instructions="Be brief.")
    assert updated["type"] == "session.updated", updated
    assert "reasoning" not in updated["session"] and updated["session"]["instructions"] == "Be brief."


def test_an_update_naming_another_model_keeps_the_sessions_model_and_reasoning() -> None:
    driver = _driver("gpt-realtime-2")
    _update(driver, reasoning=LOW)
    updated = _update(driver, model="gpt-realtime", instructions="Be brief.")
    assert updated["type"] == "session.updated", updated
    session = updated["session"]
    assert (session["model"], session["reasoning"], session["instructions"]) == (
        "gpt-realtime-2",
        LOW,
        "Be brief.",
    )
    # The same with the reasoning in the same update.
    again = _update(driver, model="gpt-realtime", reasoning={"effort": "medium"})
    assert again["session"]["model"] == "gpt-realtime-2" and again["session"]["reasoning"] == {
        "effort": "medium"
    }


def test_reasoning_refused_on_the_sessions_model_says_the_updates_model_did_not_switch_it() -> None:
    driver = _driver("gpt-realtime")
    error = _update(driver, "e1", model="gpt-realtime-2", reasoning=LOW)["error"]
    assert (error["code"], error["param"], error["event_id"]) == (
        "unsupported_parameter",
        "session.reasoning.effort",
        "e1",
    )
    assert error["message"] == (
        "Unsupported parameter: 'session.reasoning.effort' is not supported with this model. The "
        "session's model is 'gpt-realtime': the 'session.model' of a session.update ('gpt-realtime-2') "
        "does not change it."
    )
    # Without a model in the update the wording is the plain one; the session goes on unchanged.
    error = _update(driver, "e2", reasoning=LOW)["error"]
    assert (
        error["message"]
        == "Unsupported parameter: 'session.reasoning.effort' is not supported with this model."
    )
    assert _update(driver, model="gpt-realtime")["session"]["model"] == "gpt-realtime"
