"""Over the wire, with the official ``openai`` SDK (Chat Completions and the Realtime WebSocket): near
misses of brain8's rules (brk6). Each failed before its fix: an order number given in answer to "What's
the order ID?" for a refund looked the order up instead; "I'm not happy" was classified positive."""

from __future__ import annotations

import json

from openai import AsyncOpenAI

from tests.own_tools import STRING, Chat, chat_client, chat_tool, turn

STATUS = chat_tool("get_order_status", "Get an order's status", {"order_id": STRING})
REFUND = chat_tool("request_refund", "Refund an order", {"order_id": STRING, "reason": STRING}, ["order_id"])
RESERVATION = chat_tool("get_reservation", "Look up a reservation", {"reservation_id": STRING})
CANCEL = chat_tool("cancel_reservation", "Cancel a reservation", {"reservation_id": STRING})


async def test_an_order_number_given_after_a_question_over_chat_asks_for_the_refund(engine) -> None:
    chat = Chat(chat_client(await engine()), [STATUS, REFUND])
    made, asked = await chat.say("I want a refund")
    assert (made, asked) == ([], "What's the order ID?")
    made, _ = await chat.say("My order number is A12345")
    assert made == [("request_refund", {"order_id": "A12345"})]


async def test_a_confirmation_number_given_after_a_question_over_realtime_cancels(engine) -> None:
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    declared = [{"type": "function", **t["function"]} for t in (RESERVATION, CANCEL)]
    async with client.realtime.connect(model="gpt-realtime") as conn:
        await conn.session.update(
            session={"type": "realtime", "output_modalities": ["text"], "tools": declared}
        )
        first = await turn(conn, "I want to cancel my reservation")
        assert [i.type for i in first.output] == ["message"]
        second = await turn(conn, "my confirmation number is kq7rt")
    made = [(i.name, json.loads(i.arguments)) for i in second.output if i.type == "function_call"]
    assert made == [("cancel_reservation", {"reservation_id": "kq7rt"})]


async def test_a_sentiment_said_with_not_over_chat_is_negative(engine) -> None:
    client = chat_client(await engine())
    completion = await client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": 'Classify the sentiment as "positive", "negative" or "neutral".'},
            {"role": "user", "content": "I'm not happy with the service."},
        ],
    )
    assert completion.choices[0].message.content == "negative"
