"""A ``tool_choice`` that cannot be obeyed is an ``error`` where it is given (``session.update`` or
``response.create``), not an empty or failed reply later; the session keeps what it had."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.protocol import client_events as ce
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.session_config import validate_tool_choice
from tests.conftest import make_driver

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
FORCED_NOPE = {"type": "function", "name": "nope"}


def _user(text: str) -> ce.ConversationItemCreate:
    return ce.ConversationItemCreate(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )


def _errors_of(driver, event: ce.ClientEvent) -> list[dict[str, Any]]:
    since = len(driver.events)
    driver.send(event)
    return [e["error"] for _, e in driver.events[since:] if e["type"] == "error"]


@pytest.mark.parametrize(
    ("session", "message"),
    [
        ({"tool_choice": FORCED_NOPE}, "the function 'nope' is not among the declared tools of the session"),
        ({"tools": [WEATHER], "tool_choice": FORCED_NOPE}, "the function 'nope' is not among"),
        ({"tool_choice": "required"}, "'required' is only allowed when tools are specified"),
    ],
)
def test_a_session_update_with_an_unobeyable_tool_choice_is_rejected_whole(session, message) -> None:
    driver = make_driver()
    before = dict(driver.session.config)
    (error,) = _errors_of(
        driver, ce.SessionUpdate({"type": "realtime", "instructions": "Be brief.", **session}, event_id="u1")
    )
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error",
        "invalid_value",
        "session.tool_choice",
    )
    assert message in error["message"] and error["event_id"] == "u1"
    assert driver.session.config == before  # nothing of the update applied
    driver.send(_user("What is the capital of France?"))
    driver.send(ce.ResponseCreate({"output_modalities": ["text"]}))
    driver.run_until_idle()
    assert driver.of_type("response.done")[0]["response"]["status"] == "completed"


def test_dropping_the_forced_tool_is_rejected_and_declaring_both_at_once_accepted() -> None:
    driver = make_driver()
    assert not _errors_of(
        driver, ce.SessionUpdate({"type": "realtime", "tools": [WEATHER], "tool_choice": "required"})
    )
    (error,) = _errors_of(driver, ce.SessionUpdate({"type": "realtime", "tools": []}))
    assert error["param"] == "session.tool_choice"
    assert [t["name"] for t in driver.session.config["tools"]] == ["get_weather"]
    forced = {"type": "function", "name": "get_weather"}
    assert not _errors_of(driver, ce.SessionUpdate({"type": "realtime", "tool_choice": forced}))
    assert not _errors_of(driver, ce.SessionUpdate({"type": "realtime", "tools": [], "tool_choice": "auto"}))


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ({"tool_choice": FORCED_NOPE}, "the function 'nope' is not among the declared tools."),
        ({"tool_choice": "required"}, "'required' is only allowed when tools are specified"),
        ({"tools": [], "tool_choice": {"type": "function", "name": "get_weather"}}, "'get_weather'"),
    ],
)
def test_a_response_create_with_an_unobeyable_tool_choice_is_rejected(response, message) -> None:
    driver = make_driver()
    driver.send(ce.SessionUpdate({"type": "realtime", "output_modalities": ["text"]}))
    driver.send(_user("What is the capital of France?"))
    (error,) = _errors_of(driver, ce.ResponseCreate(response, event_id="r1"))
    assert (error["code"], error["param"]) == ("invalid_value", "response.tool_choice")
    assert error["event_id"] == "r1"
    assert message in error["message"]
    assert not driver.of_type("response.created")  # no response was started
    driver.send(ce.ResponseCreate({}))  # the user's item is still there to be answered
    driver.run_until_idle()
    assert "paris" in driver.of_type("response.output_text.done")[0]["text"].lower()


def test_response_tools_can_make_the_session_s_choice_unobeyable() -> None:
    driver = make_driver()
    driver.send(ce.SessionUpdate({"type": "realtime", "tools": [WEATHER], "tool_choice": "required"}))
    (error,) = _errors_of(driver, ce.ResponseCreate({"tools": []}))
    assert error["param"] == "session.tool_choice"


def test_the_check_itself() -> None:
    validate_tool_choice("auto", [], "session")
    validate_tool_choice("none", [], "response")
    validate_tool_choice("required", [WEATHER], "session")
    validate_tool_choice({"type": "function", "name": "get_weather"}, [WEATHER], "response")
    with pytest.raises(ProtocolError, match="'required' is only allowed"):
        validate_tool_choice("required", (), "response")
