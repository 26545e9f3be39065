"""A written reply (``output_modalities: ["text"]``) streams its ``response.output_text.delta`` events at
``text_tokens_per_s``, as the live model writes, on the session's clock (here the virtual one): they all
came at once, so a client's ``response.cancel`` (an Agents SDK output guardrail's) always found the reply
done and got ``response_cancel_not_active``."""

from __future__ import annotations

from typing import Any

from mockengine.engines.tokens import TokenCounter
from mockengine.protocol import client_events as ce
from mockengine.realtime.response import Pacing
from tests.conftest import make_driver

LINE = "Please recite the whole of the long poem about the quiet harbour and the seven grey boats."


def _paced(rate: float, first_delta_delay_ms: int = 0) -> Pacing:
    return Pacing(pace=0.0, first_delta_delay_ms=first_delta_delay_ms, delta_ms=200, text_tokens_per_s=rate)


def _ask(rate: float, seed: int = 7, first_delta_delay_ms: int = 0, **response: Any):
    driver = make_driver(seed=seed, pacing=_paced(rate, first_delta_delay_ms))
    driver.send(ce.SessionUpdate({"type": "realtime", "output_modalities": ["text"]}))
    content = [{"type": "input_text", "text": LINE}]
    driver.send(ce.ConversationItemCreate({"type": "message", "role": "user", "content": content}))
    driver.send(ce.ResponseCreate(response))
    return driver


def _timed(driver, kind: str) -> list[tuple[float, dict[str, Any]]]:
    return [(t, e) for t, e in driver.events if e["type"] == kind]


def test_the_deltas_go_out_a_word_at_a_time_at_the_rate() -> None:
    driver = _ask(50.0)
    driver.run_until_idle()
    deltas = _timed(driver, "response.output_text.delta")
    assert len(deltas) > 5
    tokens = TokenCounter(None)
    for (before, previous), (at, _) in zip(deltas, deltas[1:], strict=False):
        # Each next delta its predecessor's tokens later: 20 ms a token at 50 tokens a second.
        assert at - before == max(1, tokens.count(previous["delta"])) * 20.0
    (done_at, done), *_ = _timed(driver, "response.done")
    assert done_at == deltas[-1][0]  # the message closes and the response ends with its last word
    assert done["response"]["status"] == "completed"
    assert done["response"]["output"][0]["content"][0]["text"] == "".join(e["delta"] for _, e in deltas)


def test_only_the_timing_depends_on_the_rate() -> None:
    """Same seed and input, paced or all at once (0): the same events, content, ids and order."""
    paced, unpaced = _ask(50.0), _ask(0.0)
    paced.run_until_idle()
    unpaced.run_until_idle()
    assert [e for _, e in paced.events] == [e for _, e in unpaced.events]
    times = [t for t, e in unpaced.events if e["type"].startswith("response.")]
    assert times and max(times) == min(times)  # unpaced: the whole reply at once
    paced_deltas = [t for t, _ in _timed(paced, "response.output_text.delta")]
    assert paced_deltas[-1] - paced_deltas[0] >= 20.0 * (len(paced_deltas) - 1)


def test_a_cancel_while_the_text_streams_cuts_it_and_keeps_what_was_written() -> None:
    driver = _ask(50.0)
    driver.advance(driver.now_ms + 70)  # the first few words
    written = [e["delta"] for _, e in _timed(driver, "response.output_text.delta")]
    assert 0 < len(written) < 10
    since = len(driver.events)
    driver.send(ce.ResponseCancel())
    driver.run_until_idle()
    after = [e for _, e in driver.events[since:]]
    assert [e for e in after if e["type"] == "error"] == []
    assert [e for e in after if e["type"] == "response.output_text.delta"] == []
    text = "".join(written)
    (done,) = [e for e in after if e["type"] == "response.done"]
    response = done["response"]
    assert (response["status"], response["status_details"]) == (
        "cancelled",
        {"type": "cancelled", "reason": "client_cancelled"},
    )
    (message,) = response["output"]
    assert message["status"] == "incomplete"
    assert message["content"] == [{"type": "output_text", "text": text}]
    text_done = next(e for e in after if e["type"] == "response.output_text.done")
    assert text_done["text"] == text
    assert response["usage"]["output_token_details"]["text_tokens"] == TokenCounter(None).count(text)


def test_max_output_tokens_still_cuts_a_paced_reply() -> None:
    driver = _ask(50.0, max_output_tokens=4)
    driver.run_until_idle()
    deltas = _timed(driver, "response.output_text.delta")
    (_, done), *_ = _timed(driver, "response.done")
    assert done["response"]["status"] == "incomplete"
    assert done["response"]["status_details"] == {"type": "incomplete", "reason": "max_output_tokens"}
    assert done["response"]["usage"]["output_token_details"]["text_tokens"] <= 4
    assert len({t for t, _ in deltas}) == len(deltas)  # still paced: one delta at a time


def test_a_second_response_create_while_the_text_streams_is_refused() -> None:
    """As live: one response at a time, and a written reply under way is one."""
    driver = _ask(50.0)
    since = len(driver.events)
    driver.send(ce.ResponseCreate({}))
    errors = [e for _, e in driver.events[since:] if e["type"] == "error"]
    assert [e["error"]["code"] for e in errors] == ["conversation_already_has_active_response"]
    driver.run_until_idle()
    assert len(_timed(driver, "response.done")) == 1


def test_the_first_word_waits_the_first_delta_delay_as_audio_does() -> None:
    """A written reply started at once: a client's time to first token was 0 where the live model's (and
    our spoken replies') is ``first_delta_delay_ms``. The message is announced with its first word."""
    driver = _ask(50.0, first_delta_delay_ms=300)
    driver.run_until_idle()
    ((created_at, _),) = _timed(driver, "response.created")
    (added_at, _), *_ = _timed(driver, "response.output_item.added")
    (first_at, _), *_ = _timed(driver, "response.output_text.delta")
    assert first_at - created_at == 300.0
    assert added_at == first_at


def test_a_cancel_before_the_first_word_adds_no_message() -> None:
    driver = _ask(50.0, first_delta_delay_ms=300)
    driver.advance(driver.now_ms + 100)
    assert _timed(driver, "response.output_item.added") == []
    driver.send(ce.ResponseCancel())
    driver.run_until_idle()
    (_, done), *_ = _timed(driver, "response.done")
    assert done["response"]["status"] == "cancelled"
    assert done["response"]["output"] == [] and done["response"]["usage"]["total_tokens"] == 0
    assert _timed(driver, "response.output_text.delta") == []


def test_unpaced_text_ignores_the_first_delta_delay() -> None:
    """``text_tokens_per_s == 0`` (tests' unpaced output) writes the whole reply at once, as ``pace == 0``
    sends audio as soon as it is made."""
    driver = _ask(0.0, first_delta_delay_ms=300)
    driver.run_until_idle()
    ((created_at, _),) = _timed(driver, "response.created")
    (first_at, _), *_ = _timed(driver, "response.output_text.delta")
    assert first_at == created_at
