"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): brain9's
new rules where they did what a real model would not (brk7). Each failed on brain9's head: "flight 1234
updates please" looked up flight "1234 updates"; "Can you update me on order 12345?" said it could not
update that; "Can I get a menu?" ordered a drink "menu"; "Take me to 40 Elm Rd, Leeds" beside a ride
changed the shipping address; "Page a nurse" paged the ICU."""

from __future__ import annotations

from tests.integration.test_brain7_sdk import realtime_calls
from tests.own_tools import STRING, Chat, chat_client, chat_tool

FLIGHT = chat_tool("get_flight_status", "Get a flight's status", {"flight_number": STRING})
ORDER_STATUS = chat_tool("get_order_status", "Get the status of an order", {"order_id": STRING})
DRINK = chat_tool("order_drink", "Order a drink", {"drink": STRING})
SHIPPING = chat_tool(
    "update_shipping_address",
    "Update the shipping address",
    {"street": STRING, "city": STRING, "postal_code": STRING},
    ["street", "city"],
)
RIDE = chat_tool("book_ride", "Book a ride", {"pickup": STRING, "dropoff": STRING})
NURSE = chat_tool(
    "page_nurse",
    "Page a nurse to a hospital unit",
    {"unit": {"type": "string", "enum": ["ICU", "ER", "Pediatrics"]}},
)


async def test_a_flight_number_before_updates_over_chat_is_the_number(engine) -> None:
    chat = Chat(chat_client(await engine()), [FLIGHT])
    made, _ = await chat.say("flight 1234 updates please")
    assert made == [("get_flight_status", {"flight_number": "1234"})]


async def test_update_me_on_an_order_over_realtime_looks_it_up(engine) -> None:
    made, _ = await realtime_calls(await engine(), [ORDER_STATUS], "Can you update me on order 12345?")
    assert made == [("get_order_status", {"order_id": "12345"})]


async def test_a_menu_asked_for_over_realtime_orders_nothing(engine) -> None:
    made, _ = await realtime_calls(await engine(), [DRINK], "Can I get a menu?")
    assert made == []


async def test_a_ride_to_an_address_over_chat_changes_no_shipping_address(engine) -> None:
    chat = Chat(chat_client(await engine()), [SHIPPING, RIDE])
    made, _ = await chat.say("Take me to 40 Elm Rd, Leeds")
    assert all(name != "update_shipping_address" for name, _ in made)


async def test_a_hospital_unit_over_chat_is_asked_for(engine) -> None:
    chat = Chat(chat_client(await engine()), [NURSE])
    made, said = await chat.say("Page a nurse please")
    assert made == []
    assert said is not None and said.startswith("Which unit")
