"""Where brain5's rules fired on words a real app sends (review of brk3): a card mentioned in passing
taken as a card given, a description's words met by accident under ``tool_choice: "required"`` choosing a
tool that pays or ends the call, a card's question asked of a tool that takes no card. Each test failed
on the code before it."""

from __future__ import annotations

import pytest

from mockengine.brain import ToolSpec
from tests.brain_calls import calls, conversation_replies, spoken, tool
from tests.unit.test_brain_brain5 import END_CALL, INTEGER, ORDER, PAY, STRING, called


@pytest.mark.parametrize(
    "said",
    [
        "My card 4242 4242 4242 4242 was declined",
        "My card is 4242 4242 4242 4242 but it was declined",
        "That's my card 4242 4242 4242 4242 that got stolen",
        "Is 4242 4242 4242 4242 still on my account?",
    ],
)
def test_a_card_told_of_in_a_sentence_is_no_payment(said: str) -> None:
    """ "My card 4242 … was declined" with ``pay`` declared answered "What's the expiry date on the
    card?": the words before the number read as giving it, and what followed was not looked at."""
    reply = calls([ORDER, PAY], said)
    assert isinstance(reply, str) and "expiry" not in reply


def test_a_card_given_with_its_details_is_still_taken() -> None:
    said = "My card is 4242 4242 4242 4242, expires 04/28, CVC 123, thanks"
    assert calls([ORDER, PAY], said) == [
        ("pay", {"card_number": "4242424242424242", "exp_month": 4, "exp_year": 2028, "cvc": "123"})
    ]


@pytest.mark.parametrize(
    "said",
    [
        "Say goodbye to your old phone plan, I want to upgrade",
        "I said goodbye to her yesterday",
        "Goodbye? No wait, I have another question",
    ],
)
def test_under_required_a_farewell_word_in_passing_does_not_end_the_call(said: str) -> None:
    """Under ``required`` "I said goodbye to her yesterday" called ``end_call`` ("End the call when the
    user says goodbye"): its description's word outranked how much ending the call does."""
    for tools in ([ORDER, END_CALL], [END_CALL, ORDER]):
        [reply] = conversation_replies(tools, [said], "required")
        assert [name for name, _ in called(reply)] == ["lookup_order"]


@pytest.mark.parametrize("said", ["My card was declined", "Don't use the 4242 card"])
def test_under_required_a_card_word_does_not_pay(said: str) -> None:
    """Under ``required`` "My card was declined" called ``pay {"card_number": "Card number", …}``: the
    description "Pay for the order by card" named "card"."""
    for tools in ([ORDER, PAY], [PAY, ORDER]):
        [reply] = conversation_replies(tools, [said], "required")
        assert [name for name, _ in called(reply)] == ["lookup_order"]


def test_an_expiry_month_of_no_card_is_not_asked_as_a_card() -> None:
    """``expiry_month`` of a subscriptions tool was asked "What's the expiry date on the card?"."""
    expiring = tool("get_expiring", "Subscriptions expiring in a month", {"expiry_month": INTEGER})
    reply = calls([expiring], "Which subscriptions expire soon?")
    assert isinstance(reply, str) and "card" not in reply
    membership = tool("renew", "Renew a membership", {"member_id": STRING, "expiry_date": STRING})
    reply = calls([membership], "Renew membership M-1234")
    assert isinstance(reply, str) and "card" not in reply


# -- a thing to tell, read off the session's instructions


@pytest.mark.parametrize(
    ("own", "instructions", "said"),
    [
        (
            "Tell the user their balance.",
            "You are a bank agent. Balance lookups require a PIN.",
            "I'm afraid I don't have your balance to hand.",
        ),
        (
            "Say: hi, then tell them the hours",
            "You are a helpful assistant.\n# Hours\nWe're open 9am to 5pm on weekdays.\nParking: free.",
            "Hi. We're open 9am to 5pm on weekdays.",
        ),
        (
            "Tell the user the hours.",
            "Opening hours: see the website.",
            "For our opening hours, see the website.",
        ),
    ],
)
def test_a_thing_to_tell_is_said_only_from_a_sentence_that_says_it(
    own: str, instructions: str, said: str
) -> None:
    """ "Tell the user their balance" said "Balance lookups require a PIN." (a sentence that names the
    balance but says nothing of it), a Markdown heading "# Hours" was said as "# Hours.", and "Opening
    hours: see the website." became "Our opening hours are see the website."."""
    assert spoken(own, instructions) == said


# -- a farewell and a tool described by what the user wants to do


@pytest.mark.parametrize(
    "other",
    [
        tool("checkout", "Use when the user wants to go to the checkout", {}),
        tool("cancel_subscription", "Call when the customer wants to stop their subscription", {}),
        tool("pause_music", "Use when the user wants to stop the music", {}),
        tool("finish_order", "Call when the user is ready to finish their order", {}),
        tool("leave_queue", "Use when the caller wants to leave the queue", {}),
    ],
)
def test_a_farewell_calls_no_tool_for_wanting_to_stop_something_else(other: ToolSpec) -> None:
    """ "Goodbye!" called ``cancel_subscription`` ("Call when the customer wants to stop their
    subscription"): "wants to stop" was read as wanting to end the conversation, whatever was stopped."""
    for choice in ("auto", "required"):
        [reply] = conversation_replies([ORDER, other], ["Goodbye!"], choice)
        assert other.name not in [name for name, _ in called(reply)]


@pytest.mark.parametrize(
    "description",
    [
        "Use when the user wants to end the conversation",
        "Call this when the caller wants to hang up",
        "Use when the user wants to leave.",
        "Call when the user is ready to end the call or says goodbye",
    ],
)
def test_a_farewell_still_calls_a_tool_described_for_leaving(description: str) -> None:
    ending = tool("wrap_up", description, {})
    [reply] = conversation_replies([ORDER, ending], ["Goodbye!"], "required")
    assert called(reply) == [("wrap_up", {})]
