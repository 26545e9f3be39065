"""A client item's ``status`` (``conversation.item.create``): openai-python types it on every item the client
creates (``completed`` / ``incomplete`` / ``in_progress``, "Has no effect on the conversation"), so the
item is echoed with the one the client sent (``completed`` when it sent none); another value is refused
at the parse boundary with ``invalid_value``, param ``item.status``, and the session goes on."""

from __future__ import annotations

import json

import pytest

from mockengine.protocol.client_events import parse_client_event
from mockengine.protocol.errors import ProtocolError
from tests.conftest import make_driver

CALL = {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}


def _create(driver, item: dict, event_id: str = "c1") -> list[dict]:
    before = len(driver.events)
    raw = json.dumps({"type": "conversation.item.create", "event_id": event_id, "item": item})
    try:
        driver.send(parse_client_event(raw))
    except ProtocolError as exc:
        driver._apply(driver.session.error(exc))
    return [event for _, event in driver.events[before:]]


@pytest.mark.parametrize("status", ["incomplete", "in_progress", "completed", None])
def test_a_function_call_output_is_echoed_with_the_status_the_client_sent(status: str | None) -> None:
    driver = make_driver()
    _create(driver, CALL)
    item = {"type": "function_call_output", "call_id": "call_1", "output": "{}"}
    if status is not None:
        item["status"] = status
    added, done = _create(driver, item)
    expected = status or "completed"
    assert added["item"]["status"] == done["item"]["status"] == expected
    driver.send(
        parse_client_event(json.dumps({"type": "conversation.item.retrieve", "item_id": added["item"]["id"]}))
    )
    assert driver.events[-1][1]["item"]["status"] == expected


@pytest.mark.parametrize(
    "item",
    [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi."}]},
        {**CALL, "call_id": "call_2"},
    ],
)
def test_the_clients_other_items_keep_their_status_too(item: dict) -> None:
    driver = make_driver()
    added, done = _create(driver, {**item, "status": "incomplete"})
    assert added["item"]["status"] == done["item"]["status"] == "incomplete"
    added, _ = _create(driver, {**item, "id": "item_plain"})
    assert added["item"]["status"] == "completed"


def test_an_unknown_status_is_refused_and_the_session_goes_on() -> None:
    driver = make_driver()
    _create(driver, CALL)
    (error,) = _create(
        driver, {"type": "function_call_output", "call_id": "call_1", "output": "{}", "status": "done"}
    )
    assert error["error"] == {
        "type": "invalid_request_error",
        "code": "invalid_value",
        "message": (
            "Invalid value: 'done'. Supported values are: 'completed', 'incomplete', and 'in_progress'."
        ),
        "param": "item.status",
        "event_id": "c1",
    }
    added, _ = _create(driver, {"type": "function_call_output", "call_id": "call_1", "output": "{}"})
    assert added["type"] == "conversation.item.added"
