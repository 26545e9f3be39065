"""Gaps left from the last stop (brain5): a card's expiry as two integers, a fee asked of a menu lookup, a
farewell under ``tool_choice: "required"``, a dictated line and then a fact to tell, "open a ticket"
beside a lookup, and a card stated with no request. Each test failed on the code before it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ToolSpec
from tests.brain_calls import calls, conversation_replies, spoken, tool

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
MONTH = {"type": "integer", "minimum": 1, "maximum": 12}


def called(reply: Any) -> list[tuple[str, Any]]:
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


# -- 1. a card's expiry as two parameters


@pytest.mark.parametrize(
    "year",
    [
        INTEGER,
        {"type": "integer", "minimum": 2024},
        {"type": "integer", "minimum": 2024, "maximum": 2100},
        {"type": "integer", "description": "Four-digit expiry year"},
    ],
)
@pytest.mark.parametrize(
    "said",
    [
        "Pay with my card. My card is 4242 4242 4242 4242, expires 04/28, CVC 123",
        "Pay with card 4242 4242 4242 4242, expires 04/2028, CVC 123",
        "Pay with card 4242 4242 4242 4242, expires April 2028, CVC 123",
        "Pay by card, 4242 4242 4242 4242, expiry oh four twenty-eight, security code 123",
    ],
)
def test_an_expiry_declared_as_month_and_year_fills_both(year: dict[str, Any], said: str) -> None:
    """``exp_month`` / ``exp_year`` integers (Stripe's card fields) were read as plain numbers: the
    month took the 4 of "04/28" and the year asked "What exp year would you like?" (with a minimum of
    2024), or took 28, or 4242 of the card's number under a forced call."""
    pay = tool(
        "pay",
        "Pay for the order by card",
        {"card_number": STRING, "exp_month": MONTH, "exp_year": year, "cvc": STRING},
    )
    assert calls([pay], said) == [
        ("pay", {"card_number": "4242424242424242", "exp_month": 4, "exp_year": 2028, "cvc": "123"})
    ]


@pytest.mark.parametrize(
    "year",
    [
        {"type": "integer", "minimum": 24, "maximum": 99},
        {"type": "integer", "description": "Two-digit year, e.g. 28"},
        {"type": "string", "maxLength": 2},
        {"type": "string", "pattern": r"^\d{2}$"},
    ],
)
def test_an_expiry_year_is_two_digits_when_its_schema_says_so(year: dict[str, Any]) -> None:
    pay = tool("charge_card", "Charge a card", {"card_number": STRING, "expMonth": INTEGER, "expYear": year})
    [(_, arguments)] = calls([pay], "Charge my card 4242 4242 4242 4242, expires 04/28")
    assert arguments["expMonth"] == 4 and arguments["expYear"] in (28, "28")


def test_expiry_parts_as_strings_are_written_as_digits() -> None:
    pay = tool("pay", "Pay by card", {"card_number": STRING, "exp_month": STRING, "exp_year": STRING})
    assert calls([pay], "Pay with card 4242 4242 4242 4242, expires 4/28") == [
        ("pay", {"card_number": "4242424242424242", "exp_month": "04", "exp_year": "2028"})
    ]


def test_a_forced_call_splits_the_expiry_too() -> None:
    from mockengine.brain.model import ForcedTool

    year = {"type": "integer", "minimum": 2024, "maximum": 2100}
    pay = tool(
        "pay", "Pay by card", {"card_number": STRING, "exp_month": INTEGER, "exp_year": year, "cvc": STRING}
    )
    said = "My card is 4242 4242 4242 4242, expires 04/28, CVC 123"
    [reply] = conversation_replies([pay], [said], choice=ForcedTool("pay"))  # type: ignore[arg-type]
    assert called(reply) == [
        ("pay", {"card_number": "4242424242424242", "exp_month": 4, "exp_year": 2028, "cvc": "123"})
    ]


def test_a_card_number_is_not_read_back_while_paying() -> None:
    pay = tool(
        "pay",
        "Pay for the order by card",
        {"card_number": STRING, "exp_month": MONTH, "exp_year": INTEGER, "cvc": STRING},
    )
    [reply] = conversation_replies([pay], ["Pay with card 4242 4242 4242 4242, expires 04/28, CVC 123"])
    assert reply.tool_calls and "4242" not in (reply.text or "")


# -- 6. a card stated with no request

PAY = tool(
    "pay",
    "Pay for the order by card",
    {"card_number": STRING, "exp_month": MONTH, "exp_year": INTEGER, "cvc": STRING},
)
PAID = {"card_number": "4242424242424242", "exp_month": 4, "exp_year": 2028, "cvc": "123"}


@pytest.mark.parametrize(
    "said",
    [
        "My card is 4242 4242 4242 4242, expires 04/28, CVC 123",
        "My card number is 4242 4242 4242 4242, expiry 04/28, security code 123.",
        "It's 4242 4242 4242 4242, expires 04/28, CVC 123",
        "Sure, here's my Visa: 4242 4242 4242 4242, exp 04/28, CVV 123",
    ],
)
def test_a_whole_card_stated_is_given_to_the_tool_that_takes_it(said: str) -> None:
    """ "My card is 4242 …, expires 04/28, CVC 123" with a payment tool declared called nothing ("You said
    my card is … Tell me more."): the request gate read the statement as telling."""
    assert calls([PAY], said) == [("pay", PAID)]
    for name in ("charge_card", "add_payment_method"):
        other = tool(name, "A card", dict(PAY.parameters["properties"]))
        assert calls([other], said) == [(name, PAID)]


def test_a_card_number_stated_alone_asks_for_the_rest_one_at_a_time() -> None:
    replies = conversation_replies([PAY], ["My card number is 4242 4242 4242 4242", "04/28", "123"])
    assert [r.text for r in replies[:2]] == [
        "What's the expiry date on the card?",
        "What's the security code on the back of the card?",
    ]
    assert not replies[0].tool_calls and not replies[1].tool_calls
    assert called(replies[2]) == [("pay", PAID)]


@pytest.mark.parametrize(
    "said",
    [
        "I lost my card 4242 4242 4242 4242 yesterday.",
        "Don't charge my card 4242 4242 4242 4242.",
        "My old card was 4242 4242 4242 4242, never mind.",
    ],
)
def test_a_card_told_of_is_given_to_no_tool(said: str) -> None:
    assert isinstance(calls([PAY], said), str)


def test_a_card_stated_reaches_no_tool_without_a_card_number() -> None:
    order = tool("lookup_order", "Look up an order", {"order_id": STRING})
    assert isinstance(calls([order], "My card number is 4242 4242 4242 4242"), str)


# -- 3. a farewell with a tool that ends the call

END_CALL = tool("end_call", "End the call when the user says goodbye", {})
ORDER = tool("lookup_order", "Look up an order", {"order_id": STRING})


@pytest.mark.parametrize("said", ["Goodbye!", "Bye, thanks", "Okay, thanks, bye!", "talk to you later"])
@pytest.mark.parametrize("choice", ["required", "auto"])
def test_a_farewell_calls_the_tool_that_ends_the_call(said: str, choice: str) -> None:
    """ "Goodbye!" under ``tool_choice: "required"`` with ``end_call`` ("End the call when the user says
    goodbye") and ``lookup_order`` declared called ``lookup_order {"order_id": "Goodbye"}``; under
    ``auto`` it said goodbye and called nothing. The farewell is said while the call goes out."""
    for tools in ([END_CALL, ORDER], [ORDER, END_CALL]):
        [reply] = conversation_replies(tools, [said], choice)
        assert called(reply) == [("end_call", {})]
        assert reply.text == "Goodbye, talk to you soon."


@pytest.mark.parametrize(
    "ending",
    [
        tool("end_call", "End the call", {}),
        tool("hang_up", "Hang up the phone", {}),
        tool("endConversation", "", {}),
    ],
)
def test_a_tool_named_for_ending_the_call_is_called_on_goodbye(ending: ToolSpec) -> None:
    [reply] = conversation_replies([ORDER, ending], ["Goodbye!"], "required")
    assert called(reply) == [(ending.name, {})]


@pytest.mark.parametrize("said", ["Thanks.", "Thank you so much!", "Can you call me back later?"])
def test_thanks_alone_ends_no_call(said: str) -> None:
    [reply] = conversation_replies([ORDER, END_CALL], [said])
    assert not reply.tool_calls


@pytest.mark.parametrize(
    ("said", "wanted"),
    [
        ("This is ridiculous, I'm so angry!", "escalate"),
        ("I want to complain, I'm really frustrated", "escalate"),
    ],
)
def test_under_required_a_description_naming_the_words_beats_a_garbled_argument(
    said: str, wanted: str
) -> None:
    """ "This is ridiculous, I'm so angry!" under ``required`` called ``lookup_order {"order_id":
    "ridiculous"}`` beside ``escalate`` "Use when the user is angry or frustrated"."""
    escalate = tool("escalate", "Use when the user is angry or frustrated", {})
    for tools in ([ORDER, escalate], [escalate, ORDER]):
        [reply] = conversation_replies(tools, [said], "required")
        assert [name for name, _ in called(reply)] == [wanted]


# -- 5. "open a ticket" beside a lookup

TICKET = tool("create_ticket", "Create a support ticket", {"description": STRING})


@pytest.mark.parametrize(
    ("said", "description"),
    [
        ("Open a ticket, my screen is broken", "my screen is broken"),
        ("Can you open a support ticket? My laptop won't turn on", "My laptop won't turn on"),
        ("Please open a new ticket: the printer is jammed", "the printer is jammed"),
    ],
)
def test_open_a_ticket_makes_one_beside_a_lookup(said: str, description: str) -> None:
    """ "Open a ticket, my screen is broken" called ``lookup_order {"order_id": "ticket"}`` beside
    ``create_ticket {description}``: "open" and "look" share a concept, and "open" was a verb
    create_ticket does not declare."""
    for tools in ([ORDER, TICKET], [TICKET, ORDER]):
        assert calls(tools, said) == [("create_ticket", {"description": description})]


def test_opening_a_thing_there_is_still_looks_at_it() -> None:
    assert calls([ORDER, TICKET], "Open order 12345") == [("lookup_order", {"order_id": "12345"})]
    view = tool("view_ticket", "Show a support ticket", {"ticket_id": STRING})
    assert calls([TICKET, view], "Open the ticket T-4410") == [("view_ticket", {"ticket_id": "T-4410"})]


# -- 2. a fee asked of a lookup of items


@pytest.mark.parametrize(
    "said",
    [
        "How much does shipping cost?",
        "How much is the delivery charge?",
        "What does the service charge cost?",
        "How much is the booking fee?",
        "How much is tax?",
    ],
)
@pytest.mark.parametrize(
    ("name", "description", "parameter"),
    [
        ("get_menu_item", "Look up a menu item", "item"),
        ("get_price", "Get the price of a menu item", "item"),
        ("lookup_product", "Look up a product in the catalogue", "product"),
    ],
)
def test_a_fee_asked_is_no_item_to_look_up(said: str, name: str, description: str, parameter: str) -> None:
    """ "How much does shipping cost?" with ``get_menu_item {item}`` declared called ``get_menu_item
    {"item": "shipping"}``: a fee or a charge is no item sold."""
    assert isinstance(calls([tool(name, description, {parameter: STRING})], said), str)


def test_a_fee_a_tool_declares_is_asked_of_it() -> None:
    menu = tool("get_menu_item", "Look up a menu item", {"item": STRING})
    shipping = tool("get_shipping_cost", "Shipping cost for a destination", {"destination": STRING})
    assert calls([menu, shipping], "How much does shipping cost to Leeds?") == [
        ("get_shipping_cost", {"destination": "Leeds"})
    ]
    assert calls([menu, shipping], "How much is a Margherita?") == [("get_menu_item", {"item": "Margherita"})]


# -- 4. a dictated line, then a fact to tell

HOURS = "You are the receptionist at Acme Dental.\nOpening hours: Monday to Friday, 9am to 5pm.\nBe brief."


@pytest.mark.parametrize(
    ("own", "instructions", "said"),
    [
        (
            "Say: welcome, then tell them the hours",
            HOURS,
            "Welcome. Our opening hours are Monday to Friday, 9am to 5pm.",
        ),
        (
            "Say: welcome to Acme, then tell the caller our opening hours.",
            "You are Acme's receptionist. We're open 9 to 5 on weekdays.",
            "Welcome to Acme. We're open 9 to 5 on weekdays.",
        ),
        ("Tell the user the hours.", HOURS, "Our opening hours are Monday to Friday, 9am to 5pm."),
        (
            "Say: welcome, then tell them the hours",
            "You are a receptionist.",
            "Welcome. I'm afraid I don't have the hours to hand.",
        ),
        (
            "Say: welcome, then tell them the hours",
            "If asked about the hours, use the get_hours tool.",
            "Welcome. I'm afraid I don't have the hours to hand.",
        ),
        (
            "Tell the user their balance.",
            "You are a bank's assistant.",
            "I'm afraid I don't have your balance to hand.",
        ),
    ],
)
def test_a_thing_to_tell_is_said_from_what_the_instructions_know(
    own: str, instructions: str, said: str
) -> None:
    """ "Say: welcome, then tell them the hours" said "Welcome. The hours.": the thing's name said back as
    a sentence. A model reads the hours off its instructions, or says it does not have them."""
    assert spoken(own, instructions) == said


def test_a_clause_to_tell_is_still_said_as_it_is() -> None:
    assert spoken("Tell the user their table is booked.", HOURS) == "Your table is booked."
    assert (
        spoken("Say: welcome to Acme, then ask for their name")
        == "Welcome to Acme. Could you tell me your name?"
    )


def test_a_dictation_draws_from_the_response_generator() -> None:
    """``phrases.dictated`` fell back to ``random.Random(0)`` when no generator was passed: a dictation
    drew apart from the response's seeded draw. The generator is now required."""
    import inspect

    from mockengine.brain import phrases

    assert inspect.signature(phrases.dictated).parameters["rng"].default is inspect.Parameter.empty
    assert spoken("Say: welcome, then tell them the hours", HOURS) == spoken(
        "Say: welcome, then tell them the hours", HOURS
    )


def test_a_question_heard_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``facts.misheard_answer`` looked the words up again after its only caller had (``known_answer``
    twice on the same words); the reply looks them up once, then once per swap."""
    import random

    from mockengine.brain import facts, phrases

    looked_up: list[str] = []
    real = facts.known_answer

    def counted(words: str, persona: str, covered: frozenset[str] = frozenset()) -> str | None:
        looked_up.append(words)
        return real(words, persona, covered)

    monkeypatch.setattr(facts, "known_answer", counted)
    heard = "What is the capital on France?"
    reply = phrases.reply_to_words(heard, random.Random(3), "Sam")
    assert reply.endswith("Paris is the capital of France.")
    assert looked_up.count(heard) == 1
