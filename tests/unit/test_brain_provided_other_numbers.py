"""A tool "Called when the user provides their phone number" (LiveKit's restaurant example) is not called
on another number of ten digits: "My order number is 5551234567" gave update_phone that order number."""

from __future__ import annotations

import pytest

from mockengine.brain import ToolSpec
from tests.brain_calls import calls

PHONE = ToolSpec(
    "update_phone",
    "Called when the user provides their phone number.",
    {"type": "object", "properties": {"phone": {"type": "string"}}, "required": ["phone"]},
)


@pytest.mark.parametrize(
    "text",
    [
        "My order number is 5551234567",
        "My account number is 555-123-4567.",
        "The tracking number is 1Z99912345678",
        "My confirmation number is five five five one two three four five six seven",
        "Card number 4111 1111 1111 1111",
    ],
)
def test_another_number_is_no_phone_given(text: str) -> None:
    assert isinstance(calls([PHONE], text), str)


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("My number is 555-123-4567.", "555-123-4567"),
        ("You can reach me at 5551234567", "5551234567"),
        ("My cell is 555 123 4567", "555 123 4567"),
    ],
)
def test_a_phone_given_is_still_given(text: str, phone: str) -> None:
    assert calls([PHONE], text) == [("update_phone", {"phone": phone})]
