"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): misses of
the scripted brain when apps declare their own tools (brain8). Each failed before its fix: "12 Main St
Springfield 62704" (no comma) was all the street and the city asked for."""

from __future__ import annotations

from tests.integration.test_brain7_sdk import ADDRESS, realtime_calls
from tests.own_tools import Chat, chat_client


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
