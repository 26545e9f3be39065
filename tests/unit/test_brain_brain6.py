"""Gaps a developer writing their own app hit (brain6): an order id established by a lookup and then asked
again for a refund, "open a new account" as an account called "new", an ending tool's goodbye reason, a
month enum of month names, a demanded call on "Hello!" handed to a human, and a forced ``comment`` filled
"Comment". Each test failed on the code before it; the negative ones pin what must not misfire."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.acting import ends_the_conversation
from mockengine.brain.scalars import enum_for
from tests.brain_calls import TODAY, conversation_calls, tool

STRING = {"type": "string"}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September"]
MONTHS += ["October", "November", "December"]
SHORT = [m[:3] for m in MONTHS]


STATUS = tool("get_order_status", "Get an order's status", {"order_id": STRING})
REFUND = tool("request_refund", "Refund an order", {"order_id": STRING, "reason": STRING}, ["order_id"])


# -- a. an id the conversation established


def test_a_refund_after_a_lookup_takes_its_order_id() -> None:
    made = conversation_calls([STATUS, REFUND], ["Where is my order A12345?", "I want a refund"])
    assert made[1] == [("request_refund", {"order_id": "A12345"})]


def test_a_refund_two_turns_after_the_lookup_takes_its_order_id() -> None:
    weather = tool("get_weather", "Get the weather", {"city": STRING})
    turns = ["Where is my order A12345?", "What's the weather in Paris?", "I want a refund"]
    made = conversation_calls([STATUS, REFUND, weather], turns)
    assert made[2] == [("request_refund", {"order_id": "A12345"})]


def test_a_refund_of_another_order_takes_the_one_named() -> None:
    made = conversation_calls(
        [STATUS, REFUND], ["Where is my order A12345?", "I want a refund for order B99999"]
    )
    assert made[1] == [("request_refund", {"order_id": "B99999"})]


def test_a_refund_of_the_other_order_asks_which() -> None:
    made = conversation_calls(
        [STATUS, REFUND], ["Where is my order A12345?", "I want a refund for my other order"]
    )
    assert made[1] == []


def test_an_id_of_another_kind_is_not_carried() -> None:
    ticket = tool("close_ticket", "Close a support ticket", {"ticket_id": STRING})
    made = conversation_calls([STATUS, ticket], ["Where is my order A12345?", "Close my ticket"])
    assert made[1] == []


def test_a_bare_id_is_not_carried() -> None:
    delete = tool("delete_note", "Delete a note", {"id": STRING})
    made = conversation_calls([STATUS, delete], ["Where is my order A12345?", "Delete a note"])
    assert made[1] == []


def test_an_id_the_schema_refuses_is_not_carried() -> None:
    refund = tool(
        "request_refund", "Refund an order", {"order_id": {"type": "string", "pattern": "^[0-9]+$"}}
    )
    made = conversation_calls([STATUS, refund], ["Where is my order A12345?", "I want a refund"])
    assert made[1] == []


# -- b. "open a new X"

LOOKUP = tool("lookup_account", "Look up an account", {"account_id": STRING})


def test_open_a_new_account_is_no_account_called_new() -> None:
    assert conversation_calls([LOOKUP], ["I'd like to open a new account"]) == [[]]


def test_open_a_new_account_goes_to_the_creating_tool() -> None:
    create = tool(
        "create_account", "Create a new account", {"account_type": {"enum": ["checking", "savings"]}}
    )
    made = conversation_calls([LOOKUP, create], ["Open a new savings account"])
    assert made == [[("create_account", {"account_type": "savings"})]]


def test_new_as_a_real_value_is_kept() -> None:
    status = tool("set_status", "Set a ticket's status", {"status": {"enum": ["new", "open", "closed"]}})
    assert conversation_calls([status], ["Set the ticket status to new"]) == [
        [("set_status", {"status": "new"})]
    ]


def test_the_new_york_account_is_looked_up() -> None:
    made = conversation_calls([LOOKUP], ["Look up account NY-2231"])
    assert made == [[("lookup_account", {"account_id": "NY-2231"})]]


def test_a_new_account_of_a_kind_goes_to_the_creating_tool_named_for_it() -> None:
    create = tool("open_account", "Open a bank account", {"account_type": {"enum": ["checking", "savings"]}})
    made = conversation_calls([LOOKUP, create], ["I'd like to open a new checking account please"])
    assert made == [[("open_account", {"account_type": "checking"})]]


def test_a_creating_tool_asks_for_a_name_it_was_not_given() -> None:
    create = tool("create_account", "Create a new account", {"name": STRING})
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    history = (TurnView("u0", "user_text", "I'd like to open a new account"),)
    reply = brain.reply(ReplyRequest("", (LOOKUP, create), "auto", ("text",), history, 0))
    assert reply.tool_calls == () and reply.text and reply.text.endswith("?")


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("Create a new playlist called Road Trip", ("create_playlist", {"name": "Road Trip"})),
        ("Add a new task: call the plumber", ("add_task", {"title": "call the plumber"})),
    ],
)
def test_a_new_thing_with_its_name_is_made_with_it(said: str, expected: tuple[str, Any]) -> None:
    playlist = tool("create_playlist", "Create a playlist", {"name": STRING})
    task = tool("add_task", "Add a task to the to-do list", {"title": STRING})
    assert conversation_calls([playlist, task], [said]) == [[expected]]


# -- c. an ending tool's reason, farewells

END = tool("end_call", "End the call", {"reason": {"type": "string", "enum": ["user_goodbye", "agent_done"]}})


@pytest.mark.parametrize("said", ["Goodbye!", "ok bye then", "alright, bye!", "thanks, bye"])
def test_a_farewell_ends_the_call_with_the_goodbye_reason(said: str) -> None:
    assert conversation_calls([STATUS, END], [said]) == [[("end_call", {"reason": "user_goodbye"})]]


@pytest.mark.parametrize(
    "said",
    ["I said goodbye to her, where is order A12345?", "bye the way, where is order A12345?", "Thanks!"],
)
def test_no_farewell_ends_nothing(said: str) -> None:
    assert [name for name, _ in conversation_calls([STATUS, END], [said])[0]] != ["end_call"]


def test_a_reason_with_no_goodbye_option_is_not_made_up() -> None:
    other = tool("end_call", "End the call", {"reason": {"enum": ["agent_done", "escalated"]}})
    assert conversation_calls([STATUS, other], ["Goodbye!"]) == [[]]


def test_an_ending_of_a_verification_ends_no_call() -> None:
    assert not ends_the_conversation(tool("end_phone_verification", "End phone verification", {}))
    assert ends_the_conversation(tool("end_phone_call", "End it", {}))
    assert ends_the_conversation(tool("hang_up", "", {}))
    assert conversation_calls(
        [STATUS, tool("end_phone_verification", "End phone verification", {})], ["Goodbye!"]
    ) == [[]]


# -- d. a month enum


@pytest.mark.parametrize("options", [MONTHS, SHORT, [m.lower() for m in SHORT]])
@pytest.mark.parametrize("said", ["in March", "03/2028", "3/28", "2028-03", "Mar.", "march please"])
def test_a_month_enum_is_filled_from_the_month_said(options: list[str], said: str) -> None:
    found = enum_for(said, options, "month")
    assert found is not None and found.value == options[2]


@pytest.mark.parametrize("said", ["the 12/03/2028 flight", "3 nights", "I march on"])
def test_no_month_said_fills_no_month(said: str) -> None:
    found = enum_for(said, SHORT, "month")
    assert found is None or (said == "I march on" and found.value == "Mar")


def test_a_months_full_name_before_a_short_one_that_may_be_a_name() -> None:
    assert enum_for("a trip with Jan in March", SHORT, "month").value == "Mar"  # type: ignore[union-attr]


def test_may_as_a_month_and_as_a_modal() -> None:
    assert enum_for("book it in may", MONTHS, "month").value == "May"  # type: ignore[union-attr]
    assert enum_for("book it in May", MONTHS, "month").value == "May"  # type: ignore[union-attr]
    assert enum_for("may I book", MONTHS, "month") is None


def test_a_booking_in_a_month_of_short_names() -> None:
    trip = tool("book_trip", "Book a trip", {"month": {"type": "string", "enum": SHORT}})
    assert conversation_calls([trip], ["Book a trip in March"]) == [[("book_trip", {"month": "Mar"})]]


# -- e. a menu item whose name holds a fee word (already looked up; pinned so a wider fee list keeps it)

MENU = tool("get_menu_item", "Look up a menu item", {"item": STRING})


@pytest.mark.parametrize(
    "said", ["What's the price of the {}?", "How much is the {}?", "How much does the {} cost?"]
)
@pytest.mark.parametrize("item", ["delivery pizza", "tip of the day"])
def test_a_menu_item_named_with_a_fee_word_is_looked_up(said: str, item: str) -> None:
    assert conversation_calls([MENU], [said.format(item)]) == [[("get_menu_item", {"item": item})]]


@pytest.mark.parametrize("fee", ["tip", "delivery", "service charge", "delivery fee"])
def test_a_fee_is_still_no_menu_item(fee: str) -> None:
    assert conversation_calls([MENU], [f"What's the price of the {fee}?"]) == [[]]


# -- f. a standing order in the instructions to answer a topic a given way

HOURS = "You are Acme's shop assistant. If asked about the hours, tell them we're open 9 to 5."


def said_to(instructions: str, words: str, tools: tuple[ToolSpec, ...] = ()) -> str | None:
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    history = (TurnView("u0", "user_text", words),)
    return brain.reply(ReplyRequest(instructions, tools, "auto", ("text",), history, 0)).text


@pytest.mark.parametrize(
    "words", ["What are your hours?", "what are the opening hours", "Tell me your hours."]
)
def test_the_hours_asked_are_said_as_the_instructions_say(words: str) -> None:
    assert said_to(HOURS, words) == "We're open 9 to 5."


def test_the_hours_asked_beside_a_tool_are_said_too() -> None:
    assert said_to(HOURS, "What are your hours?", (STATUS,)) == "We're open 9 to 5."


def test_a_quoted_answer_is_said_without_its_quotes_and_to_the_user() -> None:
    parking = "When the user asks about parking, say 'There's free parking behind the building.'"
    assert said_to(parking, "Is there parking?") == "There's free parking behind the building."
    booking = "If a customer asks about the tasting menu, tell them that they need to book a day ahead."
    assert said_to(booking, "Do you have a tasting menu?") == "You need to book a day ahead."


@pytest.mark.parametrize(
    ("instructions", "words"),
    [
        (HOURS, "What's the weather like?"),  # another topic
        (HOURS, "I hate working these hours"),  # no question
        ("If asked about the hours, use get_hours.", "What are your hours?"),  # an order, no fact
        ("If asked about the hours, tell them to call the front desk.", "What are your hours?"),
        ("If asked about the return policy, say 'Thirty days.'", "What's your policy on pets?"),
    ],
)
def test_no_standing_answer_is_said_out_of_place(instructions: str, words: str) -> None:
    said = said_to(instructions, words)
    assert said not in ("We're open 9 to 5.", "Thirty days.") and "front desk" not in (said or "")


# -- g. a demanded call on words that ask for none

ESCALATE = tool("escalate", "Escalate to a human", {})


def test_hello_under_required_hands_no_one_to_a_human() -> None:
    made = conversation_calls([ESCALATE, STATUS], ["Hello!"], choice="required")
    assert [name for name, _ in made[0]] == ["get_order_status"]


def test_asking_for_a_human_under_required_escalates() -> None:
    made = conversation_calls([ESCALATE, STATUS], ["I want to talk to a human"], choice="required")
    assert made == [[("escalate", {})]]


def test_a_demanded_feedback_comment_takes_the_words() -> None:
    feedback = tool("leave_feedback", "Leave feedback", {"comment": STRING})
    made = conversation_calls([feedback], ["The staff were lovely"], choice="required")
    assert made == [[("leave_feedback", {"comment": "The staff were lovely"})]]


# -- read-through mends


def test_a_garbled_id_is_found_in_a_schema_of_parts() -> None:
    from mockengine.brain.participant import _garbled

    parts = {"allOf": [{"type": "object", "properties": {"order_id": STRING}, "required": ["order_id"]}]}
    assert _garbled(ToolSpec("lookup_order", "", parts), {"order_id": "Goodbye"}) == ["order_id"]
    assert _garbled(ToolSpec("lookup_order", "", parts), {"order_id": "A12345"}) == []


@pytest.mark.parametrize(
    ("parameter", "postal"),
    [("zip", True), ("zipCode", True), ("postal_code", True), ("post_code", True), ("postcode", True)]
    + [("post_title", False), ("blog_post", False), ("city", False)],
)
def test_one_reading_of_a_postal_code_parameter(parameter: str, postal: bool) -> None:
    from mockengine.brain.addresses import names_postal_code

    assert names_postal_code(parameter) is postal


@pytest.mark.parametrize(
    ("value", "street"),
    [("12 Oak Street", True), ("221B Baker Street", True), ("5 Old Mill Rd", True)]
    + [("12 Oak", False), ("Oak Street", False), ("12 Oak Street, Springfield", False)],
)
def test_one_reading_of_a_street_with_its_number(value: str, street: bool) -> None:
    from mockengine.brain.addresses import is_street_with_number

    assert is_street_with_number(value) is street


def test_a_post_code_is_no_thing_changed_in_the_clause() -> None:
    import random

    from mockengine.brain.narration import clause

    assert clause("update_address", {"post_code": "62704"}, random.Random(1)) == "Updating address —"


@pytest.mark.parametrize(
    ("first", "second", "alike"),
    [("cancelled", "canceled", True), ("Labelled", "labeled", True), ("colour", "color", True)]
    + [("open", "opened", False), ("called", "caled", False), ("deleted", "removed", False)],
)
def test_a_word_in_either_spelling_is_one_word(first: str, second: str, alike: bool) -> None:
    from mockengine.brain.lexicon import spelled_alike

    assert spelled_alike(first, second) is alike
