"""Over the wire, with the official ``openai`` SDK (the Realtime WebSocket and Chat Completions): brain10's
new rules where they did what a real model would not (brk8). Each failed on brain10's head: "Can I get a
bento box?" ordered nothing (any "… box" was packaging); "A fork please" ordered the food "fork"; "Send
the order 12345 to 40 Elm Rd" cancelled order 12345; "Send my order to 12 Baker Street" changed order
"12"'s street to "Baker"; "Okay, I have to renew my passport" made the task "passport"."""

from __future__ import annotations

from tests.integration.test_brain7_sdk import realtime_calls
from tests.own_tools import CANCEL_ORDER, STRING, Chat, chat_client, chat_tool
from tests.own_tools import UPDATE_SHIPPING as SHIPPING

FOOD = chat_tool("order_food", "Order food", {"item": STRING})
TASK = chat_tool("create_task", "Create a to-do task", {"title": STRING})


async def test_a_bento_box_over_chat_is_ordered(engine) -> None:
    chat = Chat(chat_client(await engine()), [FOOD])
    made, _ = await chat.say("Can I get a bento box?")
    assert made == [("order_food", {"item": "bento box"})]


async def test_a_fork_asked_for_over_realtime_orders_nothing(engine) -> None:
    made, _ = await realtime_calls(await engine(), [FOOD], "A fork please")
    assert made == []


async def test_the_order_sent_to_an_address_over_chat_updates_its_shipping_address(engine) -> None:
    chat = Chat(chat_client(await engine()), [CANCEL_ORDER, SHIPPING])
    made, _ = await chat.say("Send the order 12345 to 40 Elm Rd")
    assert made == [("update_shipping_address", {"order_id": "12345", "street": "40 Elm Rd"})]


async def test_my_order_sent_to_a_street_over_realtime_asks_for_the_order(engine) -> None:
    made, response = await realtime_calls(
        await engine(), [CANCEL_ORDER, SHIPPING], "Send my order to 12 Baker Street"
    )
    assert made == []
    texts = [
        p.text for i in response.output if i.type == "message" for p in i.content if p.type == "output_text"
    ]
    assert texts == ["What's the order ID?"]


async def test_a_task_opened_by_okay_over_chat_keeps_its_verb(engine) -> None:
    chat = Chat(chat_client(await engine()), [TASK])
    made, _ = await chat.say("Okay, I have to renew my passport")
    assert made == [("create_task", {"title": "renew my passport"})]
