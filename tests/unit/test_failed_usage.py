"""A response that fails before any output bills nothing (``output: []``, usage all zeros, as a cancelled
one does); one that fails after output bills what was read and sent."""

from __future__ import annotations

from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import Synthesize
from mockengine.realtime.response import Pacing, Usage
from tests.conftest import make_recording_driver


def _ask(driver, text: str = "Tell me about the weather in Lisbon today. And tomorrow too.") -> None:
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    driver.send(ce.ConversationItemCreate(item))
    driver.send(ce.ResponseCreate({}))


def test_a_response_whose_speech_fails_before_any_output_bills_nothing() -> None:
    driver = make_recording_driver()
    driver.fixed_latency_ms = 10_000.0  # the speech is still being made when it fails
    _ask(driver)
    key = next(e.key for e in driver.effects if isinstance(e, Synthesize))
    driver._apply(driver.session.on_speech_failed(key, "engine down", driver.now_ms))
    (done,) = driver.of_type("response.done")
    response = done["response"]
    assert response["status"] == "failed"
    assert response["status_details"]["error"]["code"] == "speech_synthesis_failed"
    assert response["output"] == [] and response["usage"] == Usage().wire()
    assert driver.of_type("rate_limits.updated")[-1]["rate_limits"][0]["remaining"] == 15_000_000


def test_a_response_that_fails_after_output_bills_what_was_read_and_sent() -> None:
    driver = make_recording_driver(pacing=Pacing(pace=1.0, first_delta_delay_ms=100, delta_ms=100))
    _ask(driver)
    driver.advance(driver.now_ms + 300)
    assert driver.of_type("response.output_audio.delta")
    response_id = driver.of_type("response.created")[0]["response"]["id"]
    driver._apply(driver.session.fail_response(response_id, {"code": None, "message": "boom"}, driver.now_ms))
    response = driver.of_type("response.done")[0]["response"]
    assert response["status"] == "failed" and response["output"][0]["status"] == "incomplete"
    usage = response["usage"]
    assert usage["input_tokens"] > 0 and usage["output_token_details"]["audio_tokens"] > 0
