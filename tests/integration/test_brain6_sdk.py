"""Over the wire, with the official ``openai`` SDK (Chat Completions and the Realtime WebSocket): brain6's
gaps as a developer writing their own app met them (docs/tools.md). Each failed on the old code: a refund
after an order lookup asked the order number again, "open a new account" looked up an account called
"new", "Goodbye!" left an ``end_call`` with a reason enum uncalled, the hours a system prompt gives were
not said, and "Hello!" under ``required`` escalated to a human."""

from __future__ import annotations

from tests.own_tools import STRING, Chat, chat_client, chat_tool, realtime_turn

STATUS = chat_tool("get_order_status", "Get an order's status", {"order_id": STRING})
REFUND = chat_tool("request_refund", "Refund an order", {"order_id": STRING, "reason": STRING}, ["order_id"])
LOOKUP = chat_tool("lookup_account", "Look up an account", {"account_id": STRING})
ESCALATE = chat_tool("escalate", "Escalate to a human", {})
REASON = {"type": "string", "enum": ["user_goodbye", "agent_done", "escalated"]}
END_CALL = chat_tool("end_call", "End the call", {"reason": REASON})


async def test_a_refund_after_a_lookup_carries_the_order_id(engine) -> None:
    chat = Chat(chat_client(await engine()), [STATUS, REFUND])
    calls, _ = await chat.say("Where is my order A12345?")
    assert calls == [("get_order_status", {"order_id": "A12345"})]
    await chat.say("Thanks.")  # the output answered; the conversation goes on
    calls, _ = await chat.say("I want a refund")
    assert calls == [("request_refund", {"order_id": "A12345"})]


async def test_a_new_account_is_no_account_called_new(engine) -> None:
    calls, text = await Chat(chat_client(await engine()), [LOOKUP]).say("I'd like to open a new account")
    assert calls == [] and text


async def test_the_hours_the_system_prompt_gives_are_said(engine) -> None:
    chat = Chat(chat_client(await engine()), [STATUS])
    prompt = "You are Acme's assistant. If asked about the hours, tell them we're open 9 to 5."
    chat.messages.append({"role": "system", "content": prompt})
    assert await chat.say("What are your hours?") == ([], "We're open 9 to 5.")


async def test_hello_under_required_escalates_no_one(engine) -> None:
    chat = Chat(chat_client(await engine()), [ESCALATE, STATUS], tool_choice="required")
    calls, _ = await chat.say("Hello!")
    assert [name for name, _ in calls] == ["get_order_status"]


async def test_goodbye_over_realtime_ends_the_call_with_its_reason(engine) -> None:
    calls, words = await realtime_turn(await engine(), [STATUS, END_CALL], "ok bye then")
    assert calls == [("end_call", {"reason": "user_goodbye"})]
    assert words == "Goodbye, talk to you soon."
