"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket, Chat Completions and
Responses): brain10's misses, each failed on main before its fix. "Can I get a box for leftovers?" ordered
a drink "box"; "I'd like a flat white" ordered nothing; "Send order 12345 to 40 Elm Rd" cancelled the
order; "I have a reservation for 4 people at 7" looked up reservation "7"; "Create a task: I have to renew
my passport" made the task "todo renew my passport"; "weather in Denver" came in celsius; "Weather in
Paris. Not fahrenheit" filled fahrenheit; ``responses.parse(text_format=City)`` of "Lyon in France" gave
city "France"."""

from __future__ import annotations

from pydantic import BaseModel

from tests.integration.test_brain7_sdk import realtime_calls
from tests.own_tools import CANCEL_ORDER, STRING, Chat, chat_client, chat_tool
from tests.own_tools import CREATE_TASK as TASK
from tests.own_tools import ORDER_DRINK as DRINK
from tests.own_tools import UPDATE_SHIPPING as SHIPPING
from tests.own_tools import WEATHER_WITH_UNIT as WEATHER

RESERVATION = chat_tool("lookup_reservation", "Look up a reservation", {"reservation_id": STRING})


class City(BaseModel):
    city: str
    country: str


async def test_a_box_for_leftovers_over_realtime_orders_nothing(engine) -> None:
    made, _ = await realtime_calls(await engine(), [DRINK], "Can I get a box for leftovers?")
    assert made == []


async def test_a_flat_white_liked_over_realtime_is_ordered(engine) -> None:
    made, _ = await realtime_calls(await engine(), [DRINK], "I'd like a flat white")
    assert made == [("order_drink", {"drink": "flat white"})]


async def test_an_order_sent_to_an_address_over_chat_updates_its_shipping_address(engine) -> None:
    chat = Chat(chat_client(await engine()), [CANCEL_ORDER, SHIPPING])
    made, _ = await chat.say("Send order 12345 to 40 Elm Rd")
    assert made == [("update_shipping_address", {"order_id": "12345", "street": "40 Elm Rd"})]


async def test_a_reservation_at_a_time_over_chat_asks_for_its_id(engine) -> None:
    chat = Chat(chat_client(await engine()), [RESERVATION])
    made, said = await chat.say("I have a reservation for 4 people at 7")
    assert made == [] and said == "What's the reservation ID?"


async def test_a_task_said_as_a_need_over_realtime_is_its_doing(engine) -> None:
    made, _ = await realtime_calls(await engine(), [TASK], "Create a task: I have to renew my passport")
    assert made == [("create_task", {"task": "renew my passport"})]


async def test_a_us_towns_weather_over_realtime_is_in_fahrenheit(engine) -> None:
    made, _ = await realtime_calls(await engine(), [WEATHER], "What's the weather in Denver?")
    assert made == [("get_weather", {"location": "Denver", "unit": "fahrenheit"})]


async def test_a_refused_unit_over_chat_is_not_filled(engine) -> None:
    chat = Chat(chat_client(await engine()), [WEATHER])
    made, _ = await chat.say("Weather in Paris. Not fahrenheit")
    assert ("get_weather", {"location": "Paris", "unit": "fahrenheit"}) not in made


async def test_a_town_in_its_country_over_responses_parse(engine) -> None:
    client = chat_client(await engine())
    response = await client.responses.parse(model="gpt-4o-mini", input="Lyon in France", text_format=City)
    assert response.output_parsed == City(city="Lyon", country="France")


async def test_a_town_in_its_country_over_chat_parse(engine) -> None:
    client = chat_client(await engine())
    completion = await client.chat.completions.parse(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Lyon in France"}], response_format=City
    )
    assert completion.choices[0].message.parsed == City(city="Lyon", country="France")
