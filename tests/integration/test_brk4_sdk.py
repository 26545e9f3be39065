"""Over the wire, with the official ``openai`` SDK (Chat Completions and the Realtime WebSocket): brain6's
rules as an app's users broke them (brk4). Each failed before its fix: a system prompt's "tell them you
don't know" said "You don't know.", its "…; then ask which plan they want" said aloud, "My manager told me
to check order A12345" under ``required`` escalated to a human, and a month enum took "May" from a
budget of "5/10"."""

from __future__ import annotations

from tests.own_tools import STRING, Chat, chat_client, chat_tool, realtime_turn

STATUS = chat_tool("get_order_status", "Get an order's status", {"order_id": STRING})
ESCALATE = chat_tool("escalate", "Escalate to a human", {})
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September"]
MONTHS += ["October", "November", "December"]
TRIP = chat_tool("book_trip", "Book a trip", {"month": {"type": "string", "enum": MONTHS}})


async def test_a_standing_answer_is_the_assistants_own_and_only_the_fact(engine) -> None:
    chat = Chat(chat_client(await engine()), [STATUS])
    prompt = "You are Acme's assistant. If asked about the weather, tell them you don't know. "
    prompt += "If asked about pricing, tell them we offer three plans; then ask which plan they want."
    chat.messages.append({"role": "system", "content": prompt})
    assert await chat.say("What's the weather like?") == ([], "I don't know.")
    assert await chat.say("What's your pricing?") == ([], "We offer three plans.")


async def test_a_manager_named_in_passing_under_required_is_no_hand_over(engine) -> None:
    chat = Chat(chat_client(await engine()), [ESCALATE, STATUS], tool_choice="required")
    calls, _ = await chat.say("My manager told me to check order A12345")
    assert calls == [("get_order_status", {"order_id": "A12345"})]


async def test_a_month_over_realtime_is_the_one_named_not_a_fraction(engine) -> None:
    asked = "Book a trip, my budget is 5/10 of last year's, in September"
    calls, words = await realtime_turn(await engine(), [TRIP], asked)
    assert calls == [("book_trip", {"month": "September"})]
    assert words == "Booking trip —"  # the preamble before the call, as a model says one
