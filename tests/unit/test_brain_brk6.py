"""Near misses of brain8's rules that misfired (brk6): a record's id given in answer to a question for a
cancel or a refund looked the record up instead; a unit refused with nothing after it ("Weather in Paris.
Not fahrenheit") filled as the one wanted; a sentiment said with "not" read as its opposite. Each test
failed before its fix; the near misses beside each pin what must not change."""

from __future__ import annotations

import pytest

from tests.brain_calls import calls, conversation_calls, tool

STRING = {"type": "string"}
RESERVATION = tool("get_reservation", "Look up a reservation", {"reservation_id": STRING})
CANCEL_RESERVATION = tool("cancel_reservation", "Cancel a reservation", {"reservation_id": STRING})
BOOK_TABLE = tool("book_table", "Book a table", {"party_size": {"type": "integer"}, "time": STRING})
ORDER_STATUS = tool("get_order_status", "Get an order's status", {"order_id": STRING})
REFUND = tool("request_refund", "Refund an order", {"order_id": STRING, "reason": STRING}, ["order_id"])

# -- 1. an id given in answer to a question completes the call the question waited on


@pytest.mark.parametrize(
    ("tools", "turns", "expected"),
    [
        (
            [RESERVATION, CANCEL_RESERVATION],
            ["I want to cancel my reservation", "my confirmation number is kq7rt"],
            ("cancel_reservation", {"reservation_id": "kq7rt"}),
        ),
        (
            [ORDER_STATUS, REFUND],
            ["I want a refund", "My order number is A12345"],
            ("request_refund", {"order_id": "A12345"}),
        ),
        (
            [ORDER_STATUS, REFUND],
            ["How do I get a refund?", "my order number is A12345"],
            ("request_refund", {"order_id": "A12345"}),
        ),
    ],
)
def test_an_id_given_after_a_question_completes_the_waiting_call(
    tools: list[object], turns: list[str], expected: tuple[str, object]
) -> None:
    assert conversation_calls(tools, turns)[-1] == [expected]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tools", "turns", "expected"),
    [
        (
            [RESERVATION, CANCEL_RESERVATION],
            ["Can you look up my reservation?", "my confirmation number is kq7rt"],
            ("get_reservation", {"reservation_id": "kq7rt"}),
        ),
        (  # nothing waits: the id given alone is still looked up
            [RESERVATION, BOOK_TABLE],
            ["Hi there", "my confirmation number is kq7rt"],
            ("get_reservation", {"reservation_id": "kq7rt"}),
        ),
    ],
)
def test_an_id_given_with_no_other_call_waiting_is_looked_up(
    tools: list[object], turns: list[str], expected: tuple[str, object]
) -> None:
    assert conversation_calls(tools, turns)[-1] == [expected]  # type: ignore[arg-type]


def test_an_id_given_alone_is_still_looked_up() -> None:
    made = calls([RESERVATION, CANCEL_RESERVATION], "my confirmation number is kq7rt")
    assert made == [("get_reservation", {"reservation_id": "kq7rt"})]
