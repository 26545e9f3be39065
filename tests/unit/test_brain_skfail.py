"""skfail: tool outputs the fail11 read-back read wrong. Each failed before its fix: "Error: None" and a
tally "Failed: 0, Passed: 12" were the tool's failure ("I couldn't …: none."); an error code looked up by
``lookup_error_code`` was "I couldn't look up the error code: E42."; an empty ``error``/``errors`` field
beside the answer was read out ("it's not error", "there are no errors"); an amount in cents was read
as that many dollars ("12,345.00 US dollars")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain.narration import grounding

PARIS = {"city": "Paris"}


def said(name: str, arguments: dict[str, Any], output: Any) -> str:
    text = output if isinstance(output, str) else json.dumps(output)
    return grounding(text, name, json.dumps(arguments))


@pytest.mark.parametrize("output", ["Error: None", "error: null", "Failed: 0, Passed: 12", "Errors: 0"])
def test_an_error_line_that_says_none_is_no_failure(output: str) -> None:
    assert "couldn't" not in said("get_weather", PARIS, output)


def test_an_error_line_with_a_reason_is_still_a_failure() -> None:
    assert said("get_weather", PARIS, "Error: city not found") == (
        "I couldn't get the weather in Paris: city not found."
    )


@pytest.mark.parametrize(
    ("name", "output", "answer"),
    [
        ("lookup_error_code", {"error": "E42", "meaning": "disk full"}, "E42"),
        ("get_recent_errors", {"errors": [{"message": "disk full", "at": "09:00"}]}, "disk full"),
    ],
)
def test_a_tool_that_looks_up_errors_answers_with_them(
    name: str, output: dict[str, Any], answer: str
) -> None:
    text = said(name, {"code": "E42"}, output)
    assert "couldn't" not in text and answer in text


@pytest.mark.parametrize(
    "output",
    [
        {"temperature": 18, "error": False},
        {"temperature": 18, "error": 0},
        {"temperature": 18, "errors": []},
        {"temperature": 18, "errors": 0},
    ],
)
def test_an_empty_error_field_beside_the_answer_goes_unsaid(output: dict[str, Any]) -> None:
    assert said("get_weather", PARIS, output) == "It's 18 degrees in Paris."


@pytest.mark.parametrize(
    ("output", "amount"),
    [
        ({"balance_cents": 12345, "currency": "USD"}, "123.45 US dollars"),
        ({"amount_minor": -1500, "currency": "GBP"}, "-15.00 British pounds"),
        ({"total_in_cents": 999, "currency": "EUR"}, "9.99 euros"),
    ],
)
def test_an_amount_in_cents_is_said_in_its_currency(output: dict[str, Any], amount: str) -> None:
    text = said("get_balance", {"account": "x"}, output)
    assert amount in text and "cents" not in text and "minor" not in text


@pytest.mark.parametrize(
    ("name", "arguments", "output", "expected"),
    [
        (
            "get_payment",
            {"payment_id": "P-7"},
            {"status": "failed", "reason": "card declined"},
            "The status for P-7 is failed and the reason is card declined.",
        ),
        ("get_job", {"job_id": "7"}, {"status": "failed"}, "The status for 7 is failed."),
    ],
)
def test_a_record_looked_up_by_id_that_failed_is_its_state(
    name: str, arguments: dict[str, Any], output: dict[str, Any], expected: str
) -> None:
    assert said(name, arguments, output) == expected


@pytest.mark.parametrize(
    ("name", "arguments", "output"),
    [
        ("cancel_order", {"order_id": "12"}, {"status": "failed", "message": "already shipped"}),
        ("get_order", {"order_id": "12"}, {"status": "error", "message": "database timeout"}),
        ("get_weather", PARIS, {"status": "failed", "message": "upstream timeout"}),
    ],
)
def test_a_failed_action_or_an_error_status_is_still_the_tools_failure(
    name: str, arguments: dict[str, Any], output: dict[str, Any]
) -> None:
    assert "I couldn't" in said(name, arguments, output)
