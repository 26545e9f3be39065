"""Apps' own tools as a real model acts on them (round 13): a contact saved, a phone number spoken as
words, an instruction line between a question and its options, a structured event's ``name``; then
requests written for tool declarations read in public agent code (OpenAI's realtime-agents demo, LiveKit
and Pipecat examples, the Agents SDK's examples, the cookbook's function-calling notebooks)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ToolSpec
from mockengine.brain.context import parse_choices
from mockengine.brain.model import Reply
from mockengine.chat.request import parse_request
from mockengine.chat.shaping import fit_choice
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from tests.brain_calls import calls

STRING = {"type": "string"}
PHONE = {"type": "string", "description": "Phone number"}


def contact_tool(name: str, phone: str, phone_schema: dict[str, Any] | None = None) -> list[ToolSpec]:
    schema = {
        "type": "object",
        "properties": {"name": STRING, phone: phone_schema or PHONE},
        "required": ["name", phone],
    }
    verb = name.split("_")[0].capitalize()
    return [ToolSpec(name, f"{verb} a contact to the address book.", schema)]


@pytest.mark.parametrize("tool", ["save_contact", "add_contact", "create_contact", "store_contact"])
@pytest.mark.parametrize(
    "text",
    [
        "Save Ana Silva's number 555-123-4567",
        "Save Ana Silva's number, 555-123-4567.",
        "Add Ana Silva, her number is 555-123-4567.",
        "Can you save Ana Silva's number? It's 555-123-4567.",
    ],
)
def test_a_contact_saved_or_added_reaches_the_contact_tool(tool: str, text: str) -> None:
    """ "Save Ana Silva's number 555-123-4567" to ``add_contact`` matched no tool ("save" was only a
    favourite), "Add Ana Silva, …" matched no ``save_contact``, and the name kept "'s number"."""
    assert calls(contact_tool(tool, "phone_number"), text) == [
        (tool, {"name": "Ana Silva", "phone_number": "555-123-4567"})
    ]


@pytest.mark.parametrize(
    ("said", "phone"),
    [
        ("five five five one two three four five six seven", "555-123-4567"),
        ("five five five, one two three, four five six seven", "555-123-4567"),
        ("oh seven seven double nine one two three four five six", "07799123456"),
        ("oh two oh, seven nine four six, triple oh one", "02079460001"),
        ("plus four four seven seven double nine one two three four five six", "+447799123456"),
    ],
)
def test_a_phone_number_spoken_as_words_is_written_as_digits(said: str, phone: str) -> None:
    """A phone spoken as words ("oh seven seven double nine …") was not filled for a ``phone`` with no
    ``pattern``: only written digits were read (the transcript of a call says them as words)."""
    text = f"Save Ana Silva's number, {said}."
    assert calls(contact_tool("save_contact", "phone"), text) == [
        ("save_contact", {"name": "Ana Silva", "phone": phone})
    ]


def test_a_few_numbers_said_are_no_phone_number() -> None:
    """A count and a time are no phone: seven digits at least, said one by one."""
    from mockengine.brain.addresses import address_for

    assert address_for("book two tables for four at seven thirty", "phone") is None
    assert address_for("call me on one two three", "phone") is None


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Which drink?\nSelect one.\nCoffee\nTea", ("Coffee", "Tea")),
        ("Which drink?\nPlease choose one:\nCoffee\nTea\nJuice", ("Coffee", "Tea", "Juice")),
        ("Which drink?\nCoffee\nTea\nSelect one.", ("Coffee", "Tea")),
        ("Which colours do you like?\nChoose all that apply.\nRed\nGreen\nBlue", ("Red", "Green", "Blue")),
    ],
)
def test_an_instruction_line_before_the_options_is_no_option(question: str, options: tuple[str, ...]) -> None:
    """ "Which drink?\\nSelect one.\\nCoffee\\nTea" had no options: every line after the question had to
    be one, and "Select one." is an instruction."""
    assert parse_choices(question) == options


@pytest.mark.parametrize(
    "question",
    [
        "Which drink?\nSelect one.\nCoffee",  # one option is no list
        "How warm was it?\nThis is a scale from 0 to 100.\nRespond with a number.",
    ],
)
def test_instruction_lines_alone_are_no_options(question: str) -> None:
    assert parse_choices(question) == ()


EVENT = {
    "type": "object",
    "properties": {
        "name": STRING,
        "date": STRING,
        "participants": {"type": "array", "items": STRING},
    },
    "required": ["name", "date", "participants"],
    "additionalProperties": False,
}


def structured(said: str, schema: dict[str, Any] = EVENT) -> dict[str, Any]:
    body = {
        "model": "gpt-4o-2024-08-06",
        "messages": [
            {"role": "system", "content": "Extract the event information."},
            {"role": "user", "content": said},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "e", "schema": schema, "strict": True},
        },
    }
    request = parse_request(json.dumps(body).encode())
    choice = fit_choice(Reply(f"You said {said}"), request, 0, IdFactory(1), TokenCounter(None))
    return json.loads(choice.text or "")


@pytest.mark.parametrize(
    ("said", "name", "participants"),
    [
        ("Alice and Bob are going to a science fair on Friday.", "science fair", ["Alice", "Bob"]),
        ("Alice and Bob are going to the Science Fair on Friday.", "Science Fair", ["Alice", "Bob"]),
        ("Team standup with Raj and Mia tomorrow at 9.", "Team standup", ["Raj", "Mia"]),
        ("I'm meeting Priya for coffee next Tuesday.", "coffee", ["Priya"]),
        (
            "Ana is hosting a book club meeting on March 3 with Tom and Lee.",
            "book club meeting",
            ["Ana", "Tom", "Lee"],
        ),
        ("Lunch with Dana and Omar at noon on Thursday.", "Lunch", ["Dana", "Omar"]),
    ],
)
def test_a_structured_events_name_is_the_event_never_the_sentence(
    said: str, name: str, participants: list[str]
) -> None:
    """OpenAI's Structured Outputs ``CalendarEvent`` (``name``, ``date``, ``participants``) from "Alice
    and Bob are going to a science fair on Friday." had ``name: "You said Alice and Bob are going to a
    science fair on Friday."``: ``name`` was read as a person's, and an event's lower-case words were
    no name, so the reply's echo stayed."""
    value = structured(said)
    assert (value["name"], value["participants"]) == (name, participants)


def test_a_persons_name_is_still_the_person() -> None:
    person = {
        "type": "object",
        "properties": {"name": STRING, "age": {"type": "integer"}, "city": STRING},
        "required": ["name", "age", "city"],
        "additionalProperties": False,
    }
    assert structured("John Smith is 42 and lives in Berlin.", person) == {
        "name": "John Smith",
        "age": 42,
        "city": "Berlin",
    }


# OpenAI's realtime-agents demo, customerServiceRetail (returns.ts, sales.ts): the tools as declared.
def strict(name: str, description: str, properties: dict[str, Any]) -> ToolSpec:
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    return ToolSpec(name, description, schema)


RETURNS = [
    strict(
        "lookupOrders",
        "Retrieve detailed order information by using the user's phone number, including shipping status "
        "and item details.",
        {"phoneNumber": {"type": "string", "description": "The user's phone number tied to their order(s)."}},
    ),
    strict(
        "retrievePolicy",
        "Retrieve and present the store's policies, including eligibility for returns.",
        {
            "region": {"type": "string", "description": "The region where the user is located."},
            "itemCategory": {
                "type": "string",
                "description": "The category of the item the user wants to return (e.g., shoes).",
            },
        },
    ),
]
SALES = [
    strict(
        "lookupNewSales",
        "Checks for current promotions, discounts, or special deals. Respond with available offers relevant "
        "to the user's query.",
        {
            "category": {
                "type": "string",
                "enum": ["snowboard", "apparel", "boots", "accessories", "any"],
                "description": "The product category or general area the user is interested in (optional).",
            }
        },
    ),
    strict(
        "addToCart",
        "Adds an item to the user's shopping cart.",
        {"item_id": {"type": "string", "description": "The ID of the item to add to the cart."}},
    ),
    strict(
        "checkout",
        "Initiates a checkout process with the user's selected items.",
        {
            "item_ids": {"type": "array", "items": STRING},
            "phone_number": {
                "type": "string",
                "description": "User's phone number used for verification. Formatted like '(111) 222-3333'",
                "pattern": "^\\(\\d{3}\\) \\d{3}-\\d{4}$",
            },
        },
    ),
]


@pytest.mark.parametrize(
    "text",
    [
        "What's your return policy for boots? I'm in California.",
        "I'm in California, what's your return policy for boots?",
        "What is the return policy on boots in California?",
    ],
)
def test_a_question_of_the_stores_policy_asks_the_policy_tool(text: str) -> None:
    """ "What's your return policy for boots?" was a question for the participant ("your") and got "I
    don't know that one"; with a region said first, "boots" went to ``region`` or to nothing."""
    assert calls(RETURNS, text) == [("retrievePolicy", {"region": "California", "itemCategory": "boots"})]


def test_a_phone_spoken_in_groups_looks_the_orders_up() -> None:
    text = "Can you check my orders? My number is two oh six, five five five, one two three four."
    assert calls(RETURNS, text) == [("lookupOrders", {"phoneNumber": "206-555-1234"})]


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Are there any deals on snowboards right now?", "snowboard"),
        ("Any deals on snowboards?", "snowboard"),
        ("Any sales going on?", "any"),
        ("What promotions do you have on boots?", "boots"),
    ],
)
def test_a_catch_all_option_is_taken_only_when_no_other_is_said(text: str, category: str) -> None:
    """ "Any deals on snowboards?" took the determiner "any" for the option ``any`` (and dropped it as
    vague, asking which category); "Any sales going on?" asked instead of the catch-all a model sends."""
    assert calls(SALES, text) == [("lookupNewSales", {"category": category})]


@pytest.mark.parametrize(
    "said",
    ["(206) 555-1234", "206 555 1234", "206-555-1234", "two oh six five five five one two three four"],
)
def test_a_phone_is_written_in_the_form_its_pattern_gives(said: str) -> None:
    """``checkout``'s ``phone_number`` (pattern ``^\\(\\d{3}\\) \\d{3}-\\d{4}$``) got nothing from "(206)
    555-1234" (the parenthesis was cut as punctuation) nor from "206 555 1234": a model writes the
    number in the declared form."""
    text = f"I'd like to check out with items 101 and 201, my phone is {said}."
    assert calls(SALES, text) == [
        ("checkout", {"item_ids": ["101", "201"], "phone_number": "(206) 555-1234"})
    ]


# LiveKit's examples/voice_agents/restaurant_agent.py: tools declared by when they are called.
def livekit(name: str, description: str, properties: dict[str, Any]) -> ToolSpec:
    return strict(name, description, properties)


UPDATE_NAME = livekit(
    "update_name",
    "Called when the user provides their name.\nConfirm the spelling with the user before calling "
    "the function.",
    {"name": {"type": "string", "description": "The customer's name"}},
)
UPDATE_PHONE = livekit(
    "update_phone",
    "Called when the user provides their phone number.\nConfirm the spelling with the user before calling "
    "the function.",
    {"phone": {"type": "string", "description": "The customer's phone number"}},
)
TO_GREETER = livekit(
    "to_greeter",
    "Called when user asks any unrelated questions or requests\nany other services not in your job "
    "description.",
    {},
)
RESERVATION = [
    UPDATE_NAME,
    UPDATE_PHONE,
    TO_GREETER,
    livekit(
        "update_reservation_time",
        "Called when the user provides their reservation time.\nConfirm the time with the user "
        "before calling the function.",
        {"time": {"type": "string", "description": "The reservation time"}},
    ),
    livekit("confirm_reservation", "Called when the user confirms the reservation.", {}),
]
CHECKOUT = [
    UPDATE_NAME,
    UPDATE_PHONE,
    TO_GREETER,
    livekit(
        "confirm_expense",
        "Called when the user confirms the expense.",
        {"expense": {"type": "number", "description": "The expense of the order"}},
    ),
    livekit("confirm_checkout", "Called when the user confirms the checkout.", {}),
    livekit("to_takeaway", "Called when the user wants to update their order.", {}),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My name is John Smith.", [("update_name", {"name": "John Smith"})]),
        ("It's under Maria Lopez.", [("update_name", {"name": "Maria Lopez"})]),
        ("My number is 555 123 4567.", [("update_phone", {"phone": "555 123 4567"})]),
        (
            "You can reach me at five five five, one two three, four five six seven.",
            [("update_phone", {"phone": "555-123-4567"})],
        ),
        ("Seven thirty tonight, please.", [("update_reservation_time", {"time": "19:30"})]),
        ("Can we do 7:30 pm?", [("update_reservation_time", {"time": "19:30"})]),
        (
            "My name is Sam Lee and my number is 555-987-6543.",
            [("update_name", {"name": "Sam Lee"}), ("update_phone", {"phone": "555-987-6543"})],
        ),
    ],
)
def test_a_tool_called_when_the_user_gives_a_value_is_called_on_a_statement(
    text: str, expected: list[tuple[str, Any]]
) -> None:
    """LiveKit's ``update_name`` ("Called when the user provides their name.") got "Nice to meet you,
    John Smith." and ``update_phone`` "You said my number is …": a statement that gives the value asked
    for no call, and "five five five …" was no phone."""
    assert calls(RESERVATION, text) == expected


@pytest.mark.parametrize(
    "text", ["Do you have parking?", "I'm not sure yet.", "My name is hard to spell.", "Never mind."]
)
def test_a_statement_that_gives_no_value_calls_nothing(text: str) -> None:
    assert isinstance(calls(RESERVATION, text), str)


def test_the_users_verb_in_called_when_is_the_tools_trigger() -> None:
    """ "Wait, I want to change my order." at LiveKit's checkout called ``confirm_checkout`` (a checkout is
    an order): ``to_takeaway`` is "Called when the user wants to update their order."."""
    assert calls(CHECKOUT, "Wait, I want to change my order.") == [("to_takeaway", {})]


# A restaurant's function definitions (public LangChain course code): a review left, a question put.
PIZZA = [
    ToolSpec(
        "create_review",
        "Create a review for the restaurant",
        {
            "type": "object",
            "properties": {"review_text": {"type": "string", "description": "The text of the review"}},
            "required": ["review_text"],
        },
    ),
    ToolSpec(
        "ask_vector_db",
        "Ask any question related to our restaurant. This can include queries about our opening hours, menu "
        "items, ingredients used, special dietary accommodations, ongoing promotions, or health and safety "
        "measures in place.",
        {
            "type": "object",
            "properties": {"question": {"type": "string", "description": "The question to ask"}},
            "required": ["question"],
        },
    ),
]


def test_a_review_left_is_written() -> None:
    """ "I want to leave a review: …" called nothing: "leave" was an ending, no review written."""
    assert calls(PIZZA, "I want to leave a review: the pizza was amazing!") == [
        ("create_review", {"review_text": "the pizza was amazing"})
    ]


def test_a_question_parameter_takes_the_question_as_asked() -> None:
    """ "What are your opening hours?" asked back "Which question do you mean?" (and "your" made it a
    question for the participant): the tool takes the user's question as asked."""
    assert calls(PIZZA, "What are your opening hours?") == [
        ("ask_vector_db", {"question": "What are your opening hours?"})
    ]


# The Agents SDK's customer_service example (airline): an FAQ lookup and a seat change.
AIRLINE = [
    strict(
        "faq_lookup_tool", "Lookup frequently asked questions.", {"question": {"title": "Question", **STRING}}
    ),
    strict(
        "update_seat",
        "Update the seat for a given confirmation number.",
        {
            "confirmation_number": {"description": "The confirmation number for the flight.", **STRING},
            "new_seat": {"description": "The new seat to update to.", **STRING},
        },
    ),
]


@pytest.mark.parametrize(
    "text",
    ["Can I bring my dog on the plane?", "Is there wifi on the plane?", "What's the baggage allowance?"],
)
def test_a_question_no_tool_names_goes_to_the_faq_tool_as_asked(text: str) -> None:
    """ "Is there wifi on the plane?" to the airline's ``faq_lookup_tool`` got "I don't know that one":
    no word of the question is the tool's, yet the tool is there to answer questions."""
    assert calls(AIRLINE, text) == [("faq_lookup_tool", {"question": text})]


def test_an_identifier_said_after_its_label_is_that_one() -> None:
    """ "… my seat to 14C, my confirmation number is ABC123." gave ``confirmation_number: "14C"`` (the
    first code said) and asked for the seat."""
    text = "I want to change my seat to 14C, my confirmation number is ABC123."
    assert calls(AIRLINE, text) == [("update_seat", {"confirmation_number": "ABC123", "new_seat": "14C"})]


@pytest.mark.parametrize("text", ["What can you do?", "The flight was great.", "Change my seat."])
def test_the_faq_tool_takes_no_request_nor_remark(text: str) -> None:
    assert isinstance(calls(AIRLINE, text), str)
