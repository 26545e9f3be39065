"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions):
brain11's misreadings, each failed on main before its fix. "I'd like a latte, no wait, a mocha" ordered
the latte; "a latte and a mocha" ordered nothing; "Send order 12345 to Leeds" cancelled the order; "Add a
task, renew my passport" made the task "Add"; "Text John: I need to leave early" asked for the recipient;
"Weather in Paris, Texas" sent "Paris"; "Weather in Denver, not celsius" asked which unit; a weather
lookup answered ``{"status": "ok"}`` was read back "The status in Paris is ok."."""

from __future__ import annotations

from tests.integration.test_brain7_sdk import realtime_calls
from tests.own_tools import CANCEL_ORDER, STRING, Chat, chat_client, chat_tool
from tests.own_tools import CREATE_TASK as TASK
from tests.own_tools import ORDER_DRINK as DRINK
from tests.own_tools import UPDATE_SHIPPING as SHIPPING
from tests.own_tools import WEATHER_WITH_UNIT as WEATHER

SEND_TEXT = chat_tool("send_text", "Send a text message", {"recipient": STRING, "message": STRING})
ROOM_SERVICE = chat_tool("order_room_service", "Order food from room service", {"item": STRING})
HOUSEKEEPING = chat_tool(
    "request_housekeeping", "Request housekeeping items or cleaning", {"request": STRING}
)


async def test_a_drink_taken_back_over_realtime_orders_the_other(engine) -> None:
    made, _ = await realtime_calls(await engine(), [DRINK], "I'd like a latte, no wait, a mocha")
    assert made == [("order_drink", {"drink": "mocha"})]


async def test_two_drinks_over_realtime_are_two_calls_in_one_response(engine) -> None:
    made, response = await realtime_calls(await engine(), [DRINK], "Can I get a latte and a mocha?")
    assert made == [("order_drink", {"drink": "latte"}), ("order_drink", {"drink": "mocha"})]
    assert response.status == "completed"


async def test_an_order_sent_to_a_town_over_chat_asks_the_street_then_updates(engine) -> None:
    chat = Chat(chat_client(await engine()), [CANCEL_ORDER, SHIPPING])
    made, said = await chat.say("Send order 12345 to Leeds")
    assert made == [] and said == "Which street do you mean?"
    made, _ = await chat.say("40 Elm Rd")
    assert made == [
        ("update_shipping_address", {"order_id": "12345", "street": "40 Elm Rd", "city": "Leeds"})
    ]


async def test_a_task_after_a_comma_over_realtime_is_its_words(engine) -> None:
    made, _ = await realtime_calls(await engine(), [TASK], "Add a task, renew my passport")
    assert made == [("create_task", {"task": "renew my passport"})]


async def test_a_message_after_a_colon_over_chat_is_sent(engine) -> None:
    chat = Chat(chat_client(await engine()), [SEND_TEXT])
    made, _ = await chat.say("Text John: I need to leave early")
    assert made == [("send_text", {"recipient": "John", "message": "I need to leave early"})]


async def test_an_extra_pillow_over_realtime_is_housekeepings(engine) -> None:
    made, _ = await realtime_calls(await engine(), [ROOM_SERVICE, HOUSEKEEPING], "Can I get an extra pillow?")
    assert made == [("request_housekeeping", {"request": "extra pillow"})]


async def test_paris_texas_over_chat_keeps_its_state(engine) -> None:
    chat = Chat(chat_client(await engine()), [WEATHER])
    made, _ = await chat.say("Weather in Paris, Texas")
    assert made == [("get_weather", {"location": "Paris, TX", "unit": "fahrenheit"})]


async def test_a_unit_refused_over_realtime_sends_the_other(engine) -> None:
    made, _ = await realtime_calls(await engine(), [WEATHER], "Weather in Denver, not celsius")
    assert made == [("get_weather", {"location": "Denver", "unit": "fahrenheit"})]


async def test_an_acknowledgement_alone_over_chat_tells_no_weather(engine) -> None:
    client = chat_client(await engine())
    chat = Chat(client, [WEATHER])
    made, _ = await chat.say("What's the weather in Paris?")
    assert made == [("get_weather", {"location": "Paris", "unit": "celsius"})]
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=chat.messages, tools=chat.tools
    )
    assert (
        completion.choices[0].message.content == "I checked the weather in Paris, but no details came back."
    )
