"""What the participant says around a voice app's own tools (docs/tools.md, "What is said"), from two
apps a developer wrote against the engine (a restaurant host on the Python Agents SDK, a shop's support
agent on the JS one). Each sentence was off before: an order number read as a recipient ("I've updated
the shipping address to B55510."), a zip code as the thing acted on ("Updating 62704 —"), a new booking
or refund ID never read back ("It's confirmed." with ``booking_id`` B-1042; "Done: R 77."), and the
state said twice ("I've canceled the booking. It's cancelled.")."""

from __future__ import annotations

import json
import random

from mockengine.brain.narration import clause, grounding

ADDRESS = {"order_number": "B55510", "street": "12 Oak Street", "city": "Springfield", "postal_code": "62704"}
BOOKING = {"name": "Dana", "date": "2026-03-03", "time": "19:00", "party_size": 4, "phone": "555 0134"}


def test_a_new_address_is_said_back_not_the_order_number() -> None:
    said = grounding(json.dumps({"ok": True}), "update_shipping_address", json.dumps(ADDRESS))
    assert said == "I've updated the shipping address to 12 Oak Street, Springfield 62704."
    assert clause("update_shipping_address", ADDRESS, random.Random(1)).startswith(
        "Updating shipping address"
    )


def test_an_order_number_is_no_recipient() -> None:
    said = grounding(json.dumps({"ok": True}), "send_receipt", json.dumps({"order_number": "A12345"}))
    assert said == "I've sent the receipt."
    # a phone number still is: "to 555 0100"
    sent = grounding(json.dumps({"ok": True}), "send_sms", json.dumps({"phone_number": "555 0100"}))
    assert sent == "I've sent the text to 555 0100."  # brk30: a text, not "the sms"


def test_a_new_id_in_the_output_is_read_back() -> None:
    booked = grounding(
        json.dumps({"booking_id": "B-1042", "status": "confirmed"}), "book_table", json.dumps(BOOKING)
    )
    # brk31: the day and time booked are said too
    assert booked == (
        "I've booked the table for Dana on Tuesday, March 3 at 7 pm. It's confirmed, and the booking ID is "
        "B-1042."
    )
    refunded = grounding(
        json.dumps({"refund_id": "R-77", "amount": "$42.50"}),
        "request_refund",
        json.dumps({"order_number": "A12345", "reason": "late"}),
    )
    assert refunded == "I've requested the refund. The refund ID is R-77."


def test_the_state_the_action_names_is_not_said_again() -> None:
    said = grounding(
        json.dumps({"booking_id": "B1042", "status": "cancelled"}),
        "cancel_booking",
        '{"booking_id": "B1042"}',
    )
    assert said == "I've canceled the booking."
