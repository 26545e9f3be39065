"""A response cut before its first output (``response.cancel``, a barge-in) leaves nothing behind: the live
service ends it with ``output: []`` and usage all zeros, and no assistant item (reference §3.6)."""

from __future__ import annotations

from typing import Any

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.protocol import client_events as ce
from mockengine.realtime.response import Pacing
from tests.conftest import make_driver

# A spoken reply's first delta is due 300 ms after response.created (the live service: ~480 ms).
PACED = Pacing(pace=1.0, first_delta_delay_ms=300, delta_ms=100)
ITEM_EVENTS = ("response.output_item.added", "conversation.item.added", "response.content_part.added")


def _user(text: str) -> ce.ConversationItemCreate:
    return ce.ConversationItemCreate(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )


def _kinds(driver, since: int) -> list[str]:
    return [event["type"] for _, event in driver.events[since:]]


def _zero_usage(usage: dict[str, Any]) -> bool:
    details = usage["input_token_details"]
    return (
        usage["total_tokens"] == usage["input_tokens"] == usage["output_tokens"] == 0
        and details["text_tokens"] == details["audio_tokens"] == details["image_tokens"] == 0
        and usage["output_token_details"] == {"text_tokens": 0, "audio_tokens": 0}
    )


def test_a_cancel_before_the_first_audio_delta_leaves_no_item_and_bills_nothing() -> None:
    driver = make_driver(pacing=PACED)
    driver.send(_user("Tell me a story"))
    since = len(driver.events)
    driver.send(ce.ResponseCreate({}))
    driver.advance(driver.now_ms + 100)  # the reply is decided and its speech made; no delta is due yet
    driver.send(ce.ResponseCancel())
    driver.run_until_idle()
    assert _kinds(driver, since) == ["response.created", "response.done", "rate_limits.updated"]
    done = driver.of_type("response.done")[0]["response"]
    assert done["status"] == "cancelled" and done["output"] == []
    assert done["status_details"] == {"type": "cancelled", "reason": "client_cancelled"}
    assert _zero_usage(done["usage"])
    assert driver.of_type("rate_limits.updated")[-1]["rate_limits"][0]["remaining"] == 15_000_000
    assert [item.role for item in driver.session.conversation] == ["user"]


def test_a_barge_in_before_the_first_audio_delta_leaves_no_item() -> None:
    driver = make_driver(pacing=PACED)
    driver.send(_user("Tell me a story"))
    since = len(driver.events)
    driver.send(ce.ResponseCreate({}))
    driver.stream(synthetic_voiced_pcm16(600))  # speech starts within the first 300 ms
    driver.stream_silence(800)
    first_done = driver.of_type("response.done")[0]["response"]
    assert first_done["status_details"] == {"type": "cancelled", "reason": "turn_detected"}
    assert first_done["output"] == [] and _zero_usage(first_done["usage"])
    kinds = _kinds(driver, since)
    assert not [kind for kind in kinds[: kinds.index("response.done")] if kind in ITEM_EVENTS]
    assert [item.role for item in driver.session.conversation][:2] == ["user", "user"]


def test_a_cancel_after_the_first_delta_keeps_the_incomplete_item_and_its_usage() -> None:
    """The other side of the line: once audio went out, the item is announced, kept and billed."""
    driver = make_driver(pacing=PACED)
    driver.send(_user("Tell me a story"))
    driver.send(ce.ResponseCreate({}))
    driver.advance(driver.now_ms + 450)
    assert driver.of_type("response.output_audio.delta")
    driver.send(ce.ResponseCancel())
    done = driver.of_type("response.done")[0]["response"]
    assert [item["status"] for item in done["output"]] == ["incomplete"]
    assert done["usage"]["input_tokens"] > 0 and done["usage"]["output_token_details"]["audio_tokens"] > 0
    assert [item.role for item in driver.session.conversation] == ["user", "assistant"]


def test_the_item_is_announced_with_its_first_audio_in_the_live_order() -> None:
    driver = make_driver(pacing=PACED)
    driver.send(_user("Hello there"))
    since = len(driver.events)
    driver.send(ce.ResponseCreate({}))
    driver.run_until_idle()
    kinds = [k for k in _kinds(driver, since) if k != "response.output_audio_transcript.delta"]
    assert kinds[:5] == ["response.created", *ITEM_EVENTS, "response.output_audio.delta"]
    first_delta_ms = driver.first("response.output_audio.delta")
    added_ms = driver.first("response.output_item.added")
    assert first_delta_ms is not None and added_ms is not None and first_delta_ms[0] == added_ms[0]
