"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): misses of
the scripted brain when apps declare their own tools (brain8). Each failed before its fix: "12 Main St
Springfield 62704" (no comma) was all the street and the city asked for; "my confirmation number is
kq7rt" and "Look up reservation XYZ" called no lookup; "Can I get a refund for my booking AB12?" to an app
that only books and cancels tables started a table booking; "How do I get a refund for order A12345?"
looked the order up beside request_refund."""

from __future__ import annotations

from tests.integration.test_brain7_sdk import ADDRESS, REFUND, STATUS, realtime_calls
from tests.own_tools import STRING, Chat, chat_client, chat_tool

RESERVATION = chat_tool("get_reservation", "Look up a reservation", {"reservation_id": STRING})
BOOK_TABLE = chat_tool("book_table", "Book a table", {"party_size": {"type": "integer"}, "time": STRING})
CANCEL_BOOKING = chat_tool("cancel_booking", "Cancel a booking", {"booking_id": STRING})
BOOKING = chat_tool("lookup_booking", "Look up a booking", {"confirmation_code": STRING})


async def test_an_address_without_commas_over_realtime_fills_street_city_and_code(engine) -> None:
    made, _ = await realtime_calls(await engine(), [ADDRESS], "Ship it to 12 Main St Springfield 62704")
    expected = {"street": "12 Main St", "city": "Springfield", "postal_code": "62704"}
    assert made == [("update_shipping_address", expected)]


async def test_an_address_without_commas_over_chat_fills_street_city_and_code(engine) -> None:
    chat = Chat(chat_client(await engine()), [ADDRESS])
    made, _ = await chat.say("Ship it to 40 Elm Rd Leeds LS1 4AP")
    assert made == [
        ("update_shipping_address", {"street": "40 Elm Rd", "city": "Leeds", "postal_code": "LS1 4AP"})
    ]


async def test_a_confirmation_number_given_over_realtime_is_looked_up(engine) -> None:
    made, _ = await realtime_calls(await engine(), [RESERVATION], "my confirmation number is kq7rt")
    assert made == [("get_reservation", {"reservation_id": "kq7rt"})]


async def test_a_reservation_in_capitals_over_chat_is_looked_up(engine) -> None:
    chat = Chat(chat_client(await engine()), [BOOKING])
    made, _ = await chat.say("Look up reservation XYZ")
    assert made == [("lookup_booking", {"confirmation_code": "XYZ"})]


async def test_a_refund_no_tool_gives_over_realtime_is_said_to_be_out_of_reach(engine) -> None:
    tools = [BOOK_TABLE, CANCEL_BOOKING]
    made, response = await realtime_calls(await engine(), tools, "Can I get a refund for my booking AB12?")
    assert made == []
    texts = [
        p.text for i in response.output if i.type == "message" for p in i.content if p.type == "output_text"
    ]
    assert texts == ["Sorry, I can't help with a refund here."]


async def test_how_to_get_a_refund_over_chat_asks_for_the_refund(engine) -> None:
    chat = Chat(chat_client(await engine()), [STATUS, REFUND])
    made, _ = await chat.say("How do I get a refund for order A12345?")
    assert made == [("request_refund", {"order_id": "A12345"})]
