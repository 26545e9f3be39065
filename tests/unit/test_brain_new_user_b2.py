"""A new user's gaps (round b2): a thanks or farewell word inside a request answered as small talk, and
a sort order said in words ("the cheapest first") not picked from the tool's enum."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.phrases import reply_to_words
from tests.brain_calls import calls


def said(text: str) -> str:
    return reply_to_words(text, random.Random(1), "Ada")


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("Thanks, see you tomorrow!", "You're welcome."),
        ("Thank you so much for your help!", "You're welcome."),
        ("Great, thanks Ana. Have a nice day!", "You're welcome."),
        ("thanks, that's really cool", "You're welcome."),
        ("Thanks, that is enough.", "You're welcome."),
        ("ok bye", "Goodbye, talk to you soon."),
        ("See you later!", "Goodbye, talk to you soon."),
    ],
)
def test_a_message_that_is_only_thanks_or_a_farewell_is_answered_as_one(text: str, reply: str) -> None:
    assert said(text) == reply


@pytest.mark.parametrize(
    "text",
    [
        "Can you thank Ana for the notes and see you if she replies",
        "Please tell the team thanks for the help",
        "I will see you later if the weather holds",
        "Say thanks to Bob",
    ],
)
def test_thanks_or_see_you_inside_a_request_is_no_small_talk(text: str) -> None:
    """ "Can you thank Ana for the notes and see you if she replies" got "Goodbye, talk to you soon.": a
    "see you" or "thanks" anywhere in unmatched words was taken for the whole message's meaning."""
    assert said(text) not in (
        "You're welcome.",
        "No problem at all.",
        "Goodbye, talk to you soon.",
        "Bye for now.",
    )


SORT = {"type": "string", "enum": ["price_asc", "price_desc", "rating", "distance"]}
HOTELS = [
    ToolSpec(
        "search_hotels",
        "Search hotels in a city.",
        {"type": "object", "properties": {"city": {"type": "string"}, "sort": SORT}, "required": ["city"]},
    )
]


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("Find hotels in Lisbon, show me the cheapest first", "price_asc"),
        ("Find hotels in Lisbon, most expensive first", "price_desc"),
        ("Find the best rated hotels in Lisbon", "rating"),
        ("Find the closest hotels in Lisbon", "distance"),
        ("Find hotels in Lisbon sorted by price from high to low", "price_desc"),
    ],
)
def test_a_sort_order_said_in_words_picks_the_enum_option(text: str, order: str) -> None:
    """ "Show me the cheapest first" left ``sort`` out: no word of "price_asc" was said."""
    assert calls(HOTELS, text) == [("search_hotels", {"city": "Lisbon", "sort": order})]


def test_no_order_said_leaves_the_sort_out() -> None:
    assert calls(HOTELS, "Find hotels in Lisbon") == [("search_hotels", {"city": "Lisbon"})]


TEXT = {"type": "string"}
PERSON = {"type": "object", "properties": {"name": TEXT, "phone": TEXT, "email": TEXT}, "required": ["name"]}


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("Add a contact Ana Silva, phone 555-123-4567", "555-123-4567"),
        ("Add Ana Silva to my contacts, her number is 555 123 4567", "555 123 4567"),
        ("Add Ana Silva, phone number +1 415 555 0100", "+1 415 555 0100"),
    ],
)
@pytest.mark.parametrize("nested", [True, False])
def test_a_phone_number_said_fills_the_phone(text: str, phone: str, nested: bool) -> None:
    """``add_contact {contact: {name, phone, email}}`` from "Add a contact Ana Silva, phone 555-123-4567"
    was ``{"contact": {"name": "Ana Silva"}}``: an optional phone (nested or not) took no number."""
    if nested:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"contact": PERSON},
            "required": ["contact"],
        }
        expected: dict[str, Any] = {"contact": {"name": "Ana Silva", "phone": phone}}
    else:
        schema, expected = PERSON, {"name": "Ana Silva", "phone": phone}
    assert calls([ToolSpec("add_contact", "Add a contact.", schema)], text) == [("add_contact", expected)]


def test_a_year_or_a_price_is_no_phone_number() -> None:
    from mockengine.brain.addresses import address_for

    assert address_for("born in 1984, paid $1,250,000.00 at 10:30", "phone") is None
    assert address_for("call me on 07700 900123 tonight", "phone").value == "07700 900123"  # type: ignore[union-attr]


EMAIL = ToolSpec(
    "send_email",
    "Send an email.",
    {
        "type": "object",
        "properties": {"to": TEXT, "subject": TEXT, "body": TEXT},
        "required": ["to", "body"],
    },
)


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("Email bob@example.com the meeting moved", "the meeting moved"),
        ("email bob@example.com that the meeting moved to 3pm", "the meeting moved to 3pm"),
        ("Email bob@example.com: the meeting moved", "the meeting moved"),
        ("Send an email to bob@example.com saying the meeting moved", "the meeting moved"),
    ],
)
def test_a_message_dictated_after_the_recipient_is_sent(text: str, body: str) -> None:
    """ "Email bob@example.com the meeting moved" matched no tool (its own "moved" was taken for another
    action); with a colon the message went to the optional ``subject`` declared first, and a ``to`` with
    no ``format`` was read as words ("bob example")."""
    from mockengine.brain import intent

    assert intent.best(text, [EMAIL]) is not None
    assert calls([EMAIL], text) == [("send_email", {"to": "bob@example.com", "body": body})]


def test_a_message_to_a_named_person_is_sent() -> None:
    text_tool = ToolSpec(
        "send_text",
        "Send a text message.",
        {"type": "object", "properties": {"to": TEXT, "message": TEXT}, "required": ["to", "message"]},
    )
    assert calls([text_tool], "Text Ana I'm running ten minutes late") == [
        ("send_text", {"to": "Ana", "message": "I'm running ten minutes late"})
    ]


@pytest.mark.parametrize(
    "text",
    ["Email Bob about the budget", "Text Ana and Raj", "Message Ana tomorrow", "Email the report to Bob"],
)
def test_words_after_the_recipient_that_are_no_message_are_not_dictated(text: str) -> None:
    from mockengine.brain.verbatim import DICTATED_AFTER_RECIPIENT

    assert DICTATED_AFTER_RECIPIENT.search(text) is None


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Which drink?\nCoffee\nTea", ("Coffee", "Tea")),
        ("Which drink? Coffee, Tea or Juice", ("Coffee", "Tea", "Juice")),
        ("Which colours do you like?\nRed\nGreen\nBlue", ("Red", "Green", "Blue")),
        ("Did you enjoy it? Yes or no", ("Yes", "no")),
    ],
)
def test_options_after_the_question_mark_are_read(question: str, options: tuple[str, ...]) -> None:
    """HyperStudy's "Which drink?\\nCoffee\\nTea" or "Which drink? Coffee, Tea or Juice" had no options,
    and a forced ``answer_choices`` then answered "yes, please"."""
    from mockengine.brain.context import parse_choices

    assert parse_choices(question) == options


@pytest.mark.parametrize(
    "question",
    [
        "Question: How warm was your partner?\nThis is a visual analog rating scale from 0 to 100.\n"
        "Respond with a number between 0 and 100.",
        "How did it go? Take your time, then answer.",
        "What is your name? Type it below.",
        "How warm was it? 0 to 100",
        "How are you? I hope well, or at least ok",
        "Which drink?\nCoffee",
    ],
)
def test_a_sentence_after_the_question_is_no_options(question: str) -> None:
    from mockengine.brain.context import parse_choices

    assert parse_choices(question) == ()


@pytest.mark.parametrize("tool", ["answer_choice", "answer_choices"])
@pytest.mark.parametrize(
    "question", ["Which drink?\nCoffee\nTea\nJuice", "Which drink? Coffee, Tea or Juice"]
)
def test_a_forced_choice_picks_one_of_the_options_after_the_question(tool: str, question: str) -> None:
    from mockengine.brain.hrp import HRP_TOOLS
    from mockengine.brain.model import ForcedTool

    item = TurnView(
        "c", "context", "[context] " + json.dumps({"event": "question", "tool": tool, "question": question})
    )
    reply = ScriptedBrain(load_scenario(None), 5).reply(
        ReplyRequest("You are a participant.", HRP_TOOLS, ForcedTool(tool), ("text",), (item,), 0)
    )
    [call] = reply.tool_calls
    (value,) = json.loads(call.arguments).values()
    picked = value if isinstance(value, list) else [value]
    assert picked and set(picked) <= {"Coffee", "Tea", "Juice"}, value


@pytest.mark.parametrize("text", ["Thanks, see you tomorrow!", "see you later", "Thanks a lot, bye"])
def test_thanks_or_a_farewell_calls_no_tool(text: str) -> None:
    """ "Thanks, see you tomorrow!" to an app with ``search_hotels`` asked "Which city do you mean?": its
    "see" was taken for a search."""
    assert calls(HOTELS, text) in (
        "You're welcome.",
        "No problem at all.",
        "Goodbye, talk to you soon.",
        "Bye for now.",
    )
