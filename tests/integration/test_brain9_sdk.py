"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): misses of
the scripted brain when apps declare their own tools (brain9). Each failed before its fix: "12 Main St St
Louis 63101" shipped to the city "Louis"; "Springfield Illinois 62704" asked for the state; "Look up
reservation for 4 people" looked up reservation "4"; "… and I want to cancel it" with only a lookup looked
the reservation up; "Add buy milk to my to-do list" added "list"; "Can I get a latte?" ordered nothing;
"Send it to 40 Elm Rd., Leeds" called nothing; a required unit of metric or imperial was asked for."""

from __future__ import annotations

from tests.integration.test_brain7_sdk import ADDRESS, realtime_calls
from tests.own_tools import STRING, Chat, chat_client, chat_tool

RESERVATION = chat_tool("get_reservation", "Look up a reservation", {"reservation_id": STRING})
ADDRESS_WITH_STATE = chat_tool(
    "update_shipping_address",
    "Update the shipping address",
    {"street": STRING, "city": STRING, "state": STRING, "postal_code": STRING},
)
SHIPPING = chat_tool(
    "update_shipping_address",
    "Update the shipping address",
    {"street": STRING, "city": STRING, "postal_code": STRING},
    ["street", "city"],
)
TODO = chat_tool("add_todo", "Add a todo", {"task": STRING})
DRINK = chat_tool("order_drink", "Order a drink", {"drink": STRING})
WEATHER = chat_tool(
    "get_weather",
    "Get the weather",
    {"city": STRING, "unit": {"type": "string", "enum": ["metric", "imperial"]}},
)


def _texts(response: object) -> list[str]:
    return [
        p.text
        for i in response.output  # type: ignore[attr-defined]
        if i.type == "message"
        for p in i.content
        if p.type == "output_text"
    ]


async def test_saint_louis_after_a_street_over_realtime_is_the_city(engine) -> None:
    made, _ = await realtime_calls(await engine(), [ADDRESS], "Ship it to 12 Main St St Louis 63101")
    assert made == [
        ("update_shipping_address", {"street": "12 Main St", "city": "St Louis", "postal_code": "63101"})
    ]


async def test_a_state_named_after_the_town_over_chat_fills_the_state(engine) -> None:
    chat = Chat(chat_client(await engine()), [ADDRESS_WITH_STATE])
    made, _ = await chat.say("Ship it to 12 Main St Springfield Illinois 62704")
    expected = {"street": "12 Main St", "city": "Springfield", "state": "Illinois", "postal_code": "62704"}
    assert made == [("update_shipping_address", expected)]


async def test_a_count_of_people_over_chat_is_no_reservation_id(engine) -> None:
    chat = Chat(chat_client(await engine()), [RESERVATION])
    assert await chat.say("Look up reservation for 4 people") == ([], "What's the reservation ID?")


async def test_a_cancel_only_a_lookup_reaches_over_realtime_is_out_of_reach(engine) -> None:
    said = "my confirmation number is kq7rt and I want to cancel it"
    made, response = await realtime_calls(await engine(), [RESERVATION], said)
    assert made == []
    assert _texts(response) == ["Sorry, I can't cancel that here."]


async def test_a_task_for_the_to_do_list_over_chat_is_the_task(engine) -> None:
    chat = Chat(chat_client(await engine()), [TODO])
    made, _ = await chat.say("Add buy milk to my to-do list")
    assert made == [("add_todo", {"task": "buy milk"})]


async def test_a_latte_asked_for_over_realtime_is_ordered(engine) -> None:
    made, _ = await realtime_calls(await engine(), [DRINK], "Can I get a latte?")
    assert made == [("order_drink", {"drink": "latte"})]


async def test_an_address_alone_over_chat_is_shipped_to(engine) -> None:
    chat = Chat(chat_client(await engine()), [SHIPPING])
    made, _ = await chat.say("Send it to 40 Elm Rd., Leeds")
    assert made == [("update_shipping_address", {"street": "40 Elm Rd", "city": "Leeds"})]


async def test_a_required_unit_not_said_over_realtime_is_the_first_option(engine) -> None:
    made, _ = await realtime_calls(await engine(), [WEATHER], "What's the weather in Paris?")
    assert made == [("get_weather", {"city": "Paris", "unit": "metric"})]
