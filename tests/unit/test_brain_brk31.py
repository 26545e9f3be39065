"""Leftovers of brk30 and a framework user's next own tools (stop brk31).

"Turn off notifications" alone to ``update_preferences(preferences: {language, notifications})`` made no
call (a switch said of a boolean the tool declares was read only for an on/off enum)."""

from __future__ import annotations

import json
from functools import partial

import pytest

from mockengine.brain import TurnView
from mockengine.brain.model import ToolSpec
from tests.brain_calls import MONDAY, calls_made, reply_to, said, tool

_tool, _calls = tool, calls_made
_said = partial(said, today=MONDAY)

STRING = {"type": "string"}
BOOLEAN = {"type": "boolean"}


# 1. A switch said of a boolean the tool declares (nested or flat) sets it, alone as in a two-part request.
LANGUAGE = {"type": "string", "enum": ["English", "Spanish", "French", "German"]}
PREFERENCES = {"type": "object", "properties": {"language": LANGUAGE, "notifications": BOOLEAN}}
UPDATE_PREFERENCES = _tool(
    "update_preferences", "Update the user's preferences.", {"preferences": PREFERENCES}, ["preferences"]
)
FLAT_PREFERENCES = _tool(
    "update_preferences",
    "Update the user's preferences.",
    {"language": LANGUAGE, "notifications": BOOLEAN},
    [],
)
SET_NOTIFICATIONS = _tool("set_notifications", "Turn notifications on or off.", {"enabled": BOOLEAN})


@pytest.mark.parametrize(
    ("words", "on"),
    [
        ("Turn off notifications", False),
        ("Turn off my notifications", False),
        ("Turn notifications off", False),
        ("Please turn on notifications", True),
        ("Disable notifications", False),
        ("Enable notifications", True),
    ],
)
def test_a_switch_of_a_declared_boolean_sets_it(words: str, on: bool) -> None:
    assert _calls(_said(words, (UPDATE_PREFERENCES,))) == [
        ("update_preferences", {"preferences": {"notifications": on}})
    ]
    assert _calls(_said(words, (FLAT_PREFERENCES,))) == [("update_preferences", {"notifications": on})]
    assert _calls(_said(words, (SET_NOTIFICATIONS,))) == [("set_notifications", {"enabled": on})]


def test_a_switch_of_something_else_is_no_preference() -> None:
    # neighbouring behaviour: the lights are no notifications; nothing else is asked of the tool
    assert _said("Turn off the lights", (UPDATE_PREFERENCES,)).tool_calls == ()
    assert _said("Turn off the lights", (FLAT_PREFERENCES,)).tool_calls == ()
    assert _said("What are notifications?", (FLAT_PREFERENCES,)).tool_calls == ()


# 2. A ``transfer_to_<x>`` tool: the Agents SDK's handoff (its description "Handoff to the … agent", its
# output ``{"assistant": …}``) gives the conversation to the new agent, which takes up the words; an app's
# own transfer (a phone transfer, "Transfer the caller to the billing department.") is said done.
def _answered(words: str, tool: ToolSpec, output: str, tools: tuple[ToolSpec, ...] = ()) -> str | None:
    history = (
        TurnView("u0", "user_text", words),
        TurnView("c0", "function_call", "{}", name=tool.name, call_id="c0"),
        TurnView("o0", "function_call_output", output, call_id="c0"),
    )
    return reply_to(history, tools or (tool,), today=MONDAY).text


TO_BILLING = _tool("transfer_to_billing", "Transfer the caller to the billing department.", {})
TO_HUMAN = _tool("transfer_to_human", "Transfer the call to a human agent.", {})
TO_SUPPORT = _tool("transfer_to_support", "Transfer the user to support.", {})
BILLING_HANDOFF = _tool(
    "transfer_to_billing_agent",
    "Handoff to the Billing Agent agent to handle the request. Refunds and billing questions.",
    {},
)


@pytest.mark.parametrize(
    ("words", "tool", "output", "said"),
    [
        (
            "Transfer me to billing",
            TO_BILLING,
            '{"status": "transferred"}',
            "I've transferred you to billing.",
        ),
        (
            "I have a question about my bill",
            TO_BILLING,
            '{"result": "success"}',
            "I've transferred you to billing.",
        ),
        ("Can I speak to a human?", TO_HUMAN, '{"success": true}', "I've transferred you to a human agent."),
        ("Transfer me to support", TO_SUPPORT, '{"ok": true}', "I've transferred you to support."),
    ],
)
def test_an_apps_own_transfer_is_said_done(words: str, tool: ToolSpec, output: str, said: str) -> None:
    # was the new agent's greeting ("Hi, you're through to the billing agent. How can I help?") or the
    # words echoed ("You said I have a question about my bill. Tell me more.")
    assert _answered(words, tool, output) == said


@pytest.mark.parametrize(
    "words", ["I want a refund", "I have a question about my bill", "I was charged twice this month"]
)
def test_a_handoffs_new_agent_takes_up_the_words(words: str) -> None:
    # was "You said I want a refund. Tell me more."
    for output in ('{"assistant": "Billing Agent"}', '{"status": "ok"}'):
        said = _answered(words, BILLING_HANDOFF, output)
        assert said is not None and said.startswith(
            ("Hi, you're through to the billing agent.", "This is the billing agent.")
        ), said
        assert "You said" not in said and words.lower() not in said.lower()


def test_a_handoff_asked_for_alone_is_greeted_as_before() -> None:
    said = _answered("Transfer me to billing", BILLING_HANDOFF, '{"assistant": "Billing Agent"}')
    assert said in (
        "Hi, you're through to the billing agent. How can I help?",
        "This is the billing agent. What can I do for you?",
    )


# 3. A booking on a day says the day and time it is for, as a model says it (brk30's availability does).
DATE = {"type": "string", "format": "date"}
BOOK_TABLE = _tool(
    "book_table",
    "Book a table at the restaurant.",
    {"date": DATE, "time": STRING, "party_size": {"type": "integer"}},
)
BOOK_APPOINTMENT = _tool("book_appointment", "Book an appointment.", {"date": DATE, "time": STRING})
BOOK_FOR_NAME = _tool(
    "book_table", "Book a table.", {"name": STRING, "date": DATE, "time": STRING}, ["name", "date", "time"]
)
SCHEDULE = _tool(
    "schedule_appointment",
    "Schedule an appointment.",
    {"datetime": {"type": "string", "format": "date-time"}},
)


@pytest.mark.parametrize(
    ("tool", "arguments", "output", "said"),
    [
        (
            BOOK_TABLE,
            {"date": "2026-12-12", "time": "19:00", "party_size": 4},
            '{"status": "confirmed"}',
            "I've booked the table for Saturday, December 12 at 7 pm. It's confirmed.",
        ),
        (
            BOOK_APPOINTMENT,
            {"date": "2026-12-11", "time": "10:30"},
            '{"success": true}',
            "I've booked the appointment for Friday, December 11 at 10:30 am.",
        ),
        (
            BOOK_APPOINTMENT,
            {"date": "2026-12-15", "time": "15:00"},
            '{"status": "confirmed", "confirmation": "R-123"}',
            "I've booked the appointment for Tuesday, December 15 at 3 pm. It's confirmed, and the "
            "confirmation is R-123.",
        ),
        (
            BOOK_FOR_NAME,
            {"name": "Smith", "date": "2026-12-12", "time": "12:00"},
            '{"status": "confirmed"}',
            "I've booked the table for Smith on Saturday, December 12 at 12 pm. It's confirmed.",
        ),
        (
            SCHEDULE,
            {"datetime": "2026-12-10T09:00:00"},
            '{"status": "scheduled"}',
            "I've scheduled the appointment for Thursday, December 10 at 9 am.",
        ),
    ],
)
def test_a_booking_says_its_day(tool: ToolSpec, arguments: dict[str, object], output: str, said: str) -> None:
    # was "I've booked the table. It's confirmed.", the day left out
    history = (
        TurnView("u0", "user_text", "Book it"),
        TurnView("c0", "function_call", json.dumps(arguments), name=tool.name, call_id="c0"),
        TurnView("o0", "function_call_output", output, call_id="c0"),
    )
    assert reply_to(history, (tool,), today=MONDAY).text == said


def test_a_booking_made_by_the_words_says_its_day() -> None:
    reply = _said("Book a table for 4 on Saturday at 7pm", (BOOK_TABLE,))
    assert calls_made(reply) == [("book_table", {"date": "2026-12-12", "time": "19:00", "party_size": 4})]


# 5. A framework user's own tools from the SDKs' examples.
# The Agents SDK's airline example: a policy question ("How many bags can I bring …") is the FAQ's, not a
# question about the assistant (it said "I can faq lookup tool for you.").
FAQ = _tool("faq_lookup_tool", "Lookup frequently asked questions.", {"question": STRING})


@pytest.mark.parametrize(
    "words",
    [
        "How many bags can I bring on the plane?",
        "How much luggage can I take on board?",
        "Is it safe to bring a power bank on the plane?",
    ],
)
def test_a_policy_question_goes_to_the_faq(words: str) -> None:
    assert _calls(_said(words, (FAQ,))) == [("faq_lookup_tool", {"question": words})]


@pytest.mark.parametrize("words", ["What can you do?", "How does this work?", "What are you?"])
def test_a_question_about_the_assistant_is_still_answered_so(words: str) -> None:
    assert _said(words, (FAQ,)).tool_calls == ()


# LiveKit's examples: a level set is said with its value; a light switched says what was switched.
SET_VOLUME = _tool(
    "set_volume", "Set the speaker volume.", {"volume": {"type": "integer", "minimum": 0, "maximum": 100}}
)
TOGGLE_LIGHT = _tool("toggle_light", "Turn a light on or off.", {"room": STRING, "on": BOOLEAN})


@pytest.mark.parametrize(
    ("words", "tool", "output", "said"),
    [
        # was "I've set the volume."
        ("Turn the volume up to 80", SET_VOLUME, '{"volume": 80}', "I've set the volume to 80."),
        # was "Done: kitchen."
        ("Turn off the kitchen light", TOGGLE_LIGHT, '{"ok": true}', "I've turned off the kitchen light."),
        ("Switch the bedroom light on", TOGGLE_LIGHT, '{"ok": true}', "I've turned on the bedroom light."),
    ],
)
def test_a_setting_done_says_what_it_set(words: str, tool: ToolSpec, output: str, said: str) -> None:
    reply = _said(words, (tool,))
    (call,) = reply.tool_calls
    history = (
        TurnView("u0", "user_text", words),
        TurnView("c0", "function_call", call.arguments, name=call.name, call_id="c0"),
        TurnView("o0", "function_call_output", output, call_id="c0"),
    )
    assert reply_to(history, (tool,), today=MONDAY).text == said
