"""brain9's new rules where they did what a real model would not (brk7). Each test failed on brain9's
head; the near misses beside each pin what brain9 fixed and must stay fixed."""

from __future__ import annotations

import pytest

from tests.brain_calls import calls, tool

STRING = {"type": "string"}

# -- 1. a number before a word ending in "s" is a count only after "for" / "of" / "with", and short

ORDER_STATUS = tool("get_order_status", "Get the status of an order", {"order_id": STRING})
TRACK = tool("track_package", "Track a package", {"tracking_number": STRING})
FLIGHT = tool("get_flight_status", "Get a flight's status", {"flight_number": STRING})
PRESCRIPTION = tool("get_prescription", "Look up a prescription", {"prescription_number": STRING})
RESERVATION = tool("get_reservation", "Look up a reservation", {"reservation_id": STRING})
SHIPPING = tool(
    "update_shipping_address",
    "Update the shipping address",
    {"street": STRING, "city": STRING, "postal_code": STRING},
    ["street", "city"],
)


@pytest.mark.parametrize(
    ("tools", "said", "expected"),
    [
        ([TRACK], "track 784512 details", ("track_package", {"tracking_number": "784512"})),
        ([FLIGHT], "flight 1234 updates please", ("get_flight_status", {"flight_number": "1234"})),
        (
            [PRESCRIPTION],
            "Check prescription 55102 refills",
            ("get_prescription", {"prescription_number": "55102"}),
        ),
        (
            [SHIPPING, ORDER_STATUS],
            "My order 12345 was sent to 40 Elm Rd, Leeds by mistake",
            ("get_order_status", {"order_id": "12345"}),
        ),
    ],
)
def test_an_id_before_a_word_ending_in_s_is_no_count(
    tools: list[object], said: str, expected: object
) -> None:
    assert calls(tools, said) == [expected]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "said", ["Look up reservation for 4 people", "Look up my reservation for 2 guests tonight"]
)
def test_a_count_of_people_is_still_no_id(said: str) -> None:
    assert calls([RESERVATION], said) == "What's the reservation ID?"
