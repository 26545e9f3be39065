"""Over the wire, with the official ``openai`` SDK (Chat Completions on a real engine on loopback): stop
brk31's breaks, a framework user's own tools (LiveKit's and Pipecat's shapes, the OpenAI Agents SDK's
handoffs), each failed on its base (73f174c5) before its fix."""

from __future__ import annotations

from datetime import date

from tests.own_tools import INTEGER, PREFERENCES, STRING, call_and_answer, chat_tool


async def test_notifications_turned_off_alone_are_updated(engine) -> None:
    # was no call: "You said Turn off notifications. Tell me more."
    call, _ = await call_and_answer(engine, [PREFERENCES], "Turn off my notifications", '{"updated": true}')
    assert call == ("update_preferences", {"preferences": {"notifications": False}})


TO_BILLING = chat_tool("transfer_to_billing", "Transfer the caller to the billing department.", {})


async def test_an_apps_own_transfer_is_said_done(engine) -> None:
    # was the new agent's greeting: "Hi, you're through to the billing agent. How can I help?"
    call, said = await call_and_answer(
        engine, [TO_BILLING], "Transfer me to billing", '{"status": "transferred"}'
    )
    assert (call, said) == (("transfer_to_billing", {}), "I've transferred you to billing.")


BOOK_TABLE = chat_tool(
    "book_table",
    "Book a table at the restaurant.",
    {"date": {"type": "string", "format": "date"}, "time": STRING, "party_size": INTEGER},
)


async def test_a_booking_says_its_day(engine) -> None:
    # was "I've booked the table. It's confirmed.", the day left out
    words = "Book a table for 4 on Saturday at 7pm"
    (name, arguments), said = await call_and_answer(engine, [BOOK_TABLE], words, '{"status": "confirmed"}')
    day = date.fromisoformat(arguments["date"])  # the engine's today decides which Saturday
    assert (name, day.strftime("%A"), arguments["time"], arguments["party_size"]) == (
        "book_table",
        "Saturday",
        "19:00",
        4,
    )
    assert said == f"I've booked the table for Saturday, {day:%B} {day.day} at 7 pm. It's confirmed."


FAQ = chat_tool("faq_lookup_tool", "Lookup frequently asked questions.", {"question": STRING})
TOGGLE_LIGHT = chat_tool(
    "toggle_light", "Turn a light on or off.", {"room": STRING, "on": {"type": "boolean"}}
)


async def test_a_policy_question_goes_to_the_faq(engine) -> None:
    # was no call: "I can faq lookup tool for you."
    words = "How many bags can I bring on the plane?"
    answer = '"You are allowed to bring one bag on the plane."'
    call, said = await call_and_answer(engine, [FAQ], words, answer)
    assert (call, said) == (
        ("faq_lookup_tool", {"question": words}),
        "You are allowed to bring one bag on the plane.",
    )


async def test_a_light_switched_says_what_was_switched(engine) -> None:
    # was "Done: kitchen."
    call, said = await call_and_answer(engine, [TOGGLE_LIGHT], "Turn off the kitchen light", '{"ok": true}')
    assert (call, said) == (
        ("toggle_light", {"room": "kitchen", "on": False}),
        "I've turned off the kitchen light.",
    )
