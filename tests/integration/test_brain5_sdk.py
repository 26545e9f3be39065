"""Over the wire, with the official ``openai`` SDK (Chat Completions and the Realtime WebSocket): brain5's
gaps as a user meets them (docs/tools.md, "Gaps from the last stop (brain5)"). Each failed on the old
code: a card stated with its expiry as two integers called nothing, then asked for the year; "Goodbye!"
under ``tool_choice: "required"`` looked up an order called "Goodbye"; "open a ticket" looked up an
order; a shipping fee was looked up as a menu item."""

from __future__ import annotations

from tests.own_tools import STRING, Chat, chat_client, chat_tool, realtime_turn

MONTH = {"type": "integer", "minimum": 1, "maximum": 12}
YEAR = {"type": "integer", "minimum": 2024, "maximum": 2100}
PAY = chat_tool(
    "pay",
    "Pay for the order by card",
    {"card_number": STRING, "exp_month": MONTH, "exp_year": YEAR, "cvc": STRING},
)
END_CALL = chat_tool("end_call", "End the call when the user says goodbye", {})
ORDER = chat_tool("lookup_order", "Look up an order", {"order_id": STRING})
TICKET = chat_tool("create_ticket", "Create a support ticket", {"description": STRING})
MENU = chat_tool("get_menu_item", "Look up a menu item", {"item": STRING})
PAID = {"card_number": "4242424242424242", "exp_month": 4, "exp_year": 2028, "cvc": "123"}


async def test_a_card_stated_is_paid_with_its_expiry_split(engine) -> None:
    chat = Chat(chat_client(await engine()), [PAY])
    calls, _ = await chat.say("My card is 4242 4242 4242 4242, expires 04/28, CVC 123")
    assert calls == [("pay", PAID)]


async def test_a_card_number_alone_asks_for_the_rest(engine) -> None:
    chat = Chat(chat_client(await engine()), [PAY])
    assert await chat.say("My card number is 4242 4242 4242 4242") == (
        [],
        "What's the expiry date on the card?",
    )
    assert await chat.say("04/28") == ([], "What's the security code on the back of the card?")
    calls, _ = await chat.say("123")
    assert calls == [("pay", PAID)]


async def test_goodbye_under_required_ends_the_call(engine) -> None:
    chat = Chat(chat_client(await engine()), [ORDER, END_CALL], tool_choice="required")
    calls, _ = await chat.say("Goodbye!")
    assert calls == [("end_call", {})]


async def test_open_a_ticket_and_a_fee_over_chat(engine) -> None:
    client = chat_client(await engine())
    calls, _ = await Chat(client, [ORDER, TICKET]).say("Open a ticket, my screen is broken")
    assert calls == [("create_ticket", {"description": "my screen is broken"})]
    calls, text = await Chat(client, [MENU]).say("How much does shipping cost?")
    assert calls == [] and text and "shipping" in text


async def test_goodbye_over_realtime_is_said_while_the_call_goes_out(engine) -> None:
    calls, words = await realtime_turn(await engine(), [ORDER, END_CALL], "Goodbye!")
    assert calls == [("end_call", {})]
    assert words == "Goodbye, talk to you soon."
