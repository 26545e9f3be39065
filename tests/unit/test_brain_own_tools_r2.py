"""A developer's own tools, as a second user tried them: a doctor's title kept with the name ("Dr. Lee",
not "Dr"), a stay's nights counted when the sentence starts with its verb ("Book 3 nights …") or names no
verb at all ("3 nights at the Hilton from Friday"), enum options read from their synonyms ("something
cheap" → ``$``, "outside" → ``outdoor``), every item of a list said, questions for a missing argument
worded as a model words them, and greeting rules in the session's instructions."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from tests.unit.made_up_apps import STRING, TODAY, tool

INTEGER = {"type": "integer"}
DATE = {"type": "string", "format": "date"}

APPOINTMENT = tool(
    "book_appointment",
    "Book an appointment with a doctor",
    {"doctor": STRING, "date": DATE, "time": STRING},
    ("doctor", "date", "time"),
)


def hotel(nights: str = "nights", description: str = "") -> ToolSpec:
    count = {"type": "integer", "description": description} if description else INTEGER
    return tool(
        "book_hotel",
        "Book a hotel room",
        {"hotel": STRING, "check_in": DATE, nights: count},
        ("hotel", "check_in", nights),
    )


def reply(
    tools: tuple[ToolSpec, ...], *said: str, instructions: str = ""
) -> tuple[list[tuple[str, Any]], str]:
    """The calls and words of the reply to the last of ``said``; the ones before it were answered as
    the brain answered them (its words, or its calls with ``{"status": "ok"}`` as their outputs)."""
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    items: list[TurnView] = []
    calls: list[tuple[str, Any]] = []
    text = ""
    for index, words in enumerate(said):
        items.append(TurnView(f"u{index}", "user_text", words))
        got = brain.reply(ReplyRequest(instructions, tools, "auto", ("text",), tuple(items), len(items) - 1))
        schemas = {t.name: t.parameters for t in tools}
        calls = []
        for number, call in enumerate(got.tool_calls):
            arguments = json.loads(call.arguments)
            jsonschema.validate(arguments, schemas[call.name])
            calls.append((call.name, arguments))
            call_id = f"call_{index}_{number}"
            items.append(
                TurnView(
                    f"c{index}{number}", "function_call", call.arguments, name=call.name, call_id=call_id
                )
            )
            items.append(
                TurnView(f"o{index}{number}", "function_call_output", '{"status": "ok"}', call_id=call_id)
            )
        text = got.text or ""
        if text:
            items.append(TurnView(f"a{index}", "assistant", text))
    return calls, text


@pytest.mark.parametrize(
    ("words", "doctor"),
    [
        ("Book me with Dr. Lee tomorrow at 3pm", "Dr. Lee"),
        ("Book me in with Dr. Sarah Lee tomorrow at 3pm", "Dr. Sarah Lee"),
        ("book an appointment with Mrs. Jones tomorrow at 3pm", "Mrs. Jones"),
        ("Book me with Dr Lee tomorrow at 3pm", "Dr Lee"),
    ],
)
def test_a_titled_name_keeps_its_title_and_name(words: str, doctor: str) -> None:
    """A title's full stop ended the phrase: the doctor was "Dr" (or "Mrs")."""
    calls, _ = reply((APPOINTMENT,), words)
    assert calls == [("book_appointment", {"doctor": doctor, "date": "2026-03-03", "time": "15:00"})]


@pytest.mark.parametrize(
    ("nights", "description", "words"),
    [
        ("nights", "Number of nights", "Book 3 nights at the Hilton from Friday"),
        ("num_nights", "", "Book 3 nights at the Hilton from Friday"),
        ("nights", "", "3 nights at the Hilton from Friday"),
        ("number_of_nights", "", "I'd like to stay 3 nights at the Hilton from Friday"),
    ],
)
def test_a_stay_counted_in_nights_fills_the_nights(nights: str, description: str, words: str) -> None:
    """ "Book 3" at the sentence's start read as a name's number ("Platform 9") and the nights were asked
    for; with no verb the count of the tool's own thing was no request at all."""
    calls, text = reply((hotel(nights, description),), words)
    assert calls == [("book_hotel", {"hotel": "Hilton", "check_in": "2026-03-06", nights: 3})], text


def test_a_number_that_ends_a_name_is_still_no_count() -> None:
    """ "Terminal 5" mid-sentence stays a name's part: no count of anything."""
    pickup = tool("book_ride", "Book a ride", {"pickup": STRING, "passengers": INTEGER}, ("pickup",))
    calls, _ = reply((pickup,), "book a ride from Heathrow Terminal 5")
    assert calls == [("book_ride", {"pickup": "Heathrow Terminal 5"})]


def first_words(instructions: str) -> str:
    """What the assistant says first, asked to speak with nothing said yet (an app's first
    ``response.create``)."""
    got = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest(instructions, (), "auto", ("text",), (), 0)
    )
    return got.text or ""


@pytest.mark.parametrize(
    ("instructions", "greeting"),
    [
        ("You are Sakura's host. Always greet the user with 'Welcome to Sakura!'", "Welcome to Sakura!"),
        (
            'You are the front desk. Always start by saying "Hello, thanks for calling Sakura." Then help.',
            "Hello, thanks for calling Sakura.",
        ),
        (
            "Begin every call with 'Thanks for calling Acme.' and ask for the order number.",
            "Thanks for calling Acme.",
        ),
        ("Your first message should be: 'Hi there! Ready to order?'", "Hi there! Ready to order?"),
        (
            "When the call starts, greet callers with 'Good evening, Sakura speaking.'",
            "Good evening, Sakura speaking.",
        ),
    ],
)
def test_a_greeting_rule_in_the_instructions_is_followed(instructions: str, greeting: str) -> None:
    """Only "Greet the user with '…'" opening a sentence was read: with "Always" before it, or "start by
    saying", the assistant said "Hi, I'm Sam." """
    assert first_words(instructions) == greeting


@pytest.mark.parametrize(
    "instructions",
    [
        "Always answer in English.",
        "Always say 'Goodbye' when the user leaves.",
        "Start by asking for their name.",
    ],
)
def test_other_rules_are_no_greeting(instructions: str) -> None:
    assert first_words(instructions) in ("Hi, I'm Sam.", "Hello, I'm Sam.")


RESTAURANTS = tool(
    "find_restaurant",
    "Find a restaurant",
    {
        "cuisine": STRING,
        "price": {"type": "string", "enum": ["$", "$$", "$$$"]},
        "seating": {"type": "string", "enum": ["indoor", "outdoor"]},
    },
    ("cuisine", "price", "seating"),
)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (
            "Find me something cheap, Italian, and we want to sit outside",
            {"cuisine": "Italian", "price": "$", "seating": "outdoor"},
        ),
        (
            "find a fancy french place with indoor seating",
            {"cuisine": "french", "price": "$$$", "seating": "indoor"},
        ),
        (
            "find a mid-range thai place, we'd like to sit inside",
            {"cuisine": "thai", "price": "$$", "seating": "indoor"},
        ),
        (
            "find an Italian restaurant on the patio, nothing fancy",
            {"cuisine": "Italian", "price": "$", "seating": "outdoor"},
        ),
    ],
)
def test_enum_options_are_read_from_their_synonyms(words: str, expected: dict[str, str]) -> None:
    """ "cheap" / "fancy" / "mid-range" said no ``$`` option and "outside" / "inside" no seating: the
    price was asked for, or the seating; "a french place" was the cuisine "french place", and "something
    cheap, Italian" the cuisine "something and Italian"."""
    calls, text = reply((RESTAURANTS,), words)
    assert len(calls) == 1, text
    name, arguments = calls[0]
    assert name == "find_restaurant"
    assert {k: arguments[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("words", "options", "expected"),
    [
        ("it's urgent, the checkout is down", ["low", "medium", "high"], "high"),
        ("it's urgent, the checkout is down", ["low", "normal", "high", "urgent"], "urgent"),
        ("not urgent, the logo is a bit off", ["low", "medium", "high"], "low"),
        ("a big pizza with olives", ["small", "medium", "large"], "large"),
    ],
)
def test_a_scale_word_picks_the_option_at_its_place(words: str, options: list[str], expected: str) -> None:
    level = tool(
        "file_ticket",
        "File a support ticket or order",
        {"summary": STRING, "level": {"type": "string", "enum": options}},
        ("summary", "level"),
    )
    calls, text = reply((level,), f"file a ticket: {words}")
    assert calls and calls[0][1]["level"] == expected, text


def test_words_that_place_nothing_on_the_scale_leave_the_option_to_be_asked() -> None:
    """ "the light in the small room" sets no level; no option outside the enum is ever sent."""
    fan = tool(
        "set_fan",
        "Set a fan's speed",
        {"room": STRING, "speed": {"type": "string", "enum": ["low", "medium", "high"]}},
        ("room", "speed"),
    )
    calls, text = reply((fan,), "set the fan in the bedroom")
    assert calls == [] and "low, medium or high" in text


TABLE = tool(
    "book_table",
    "Book a table at the restaurant",
    {"party_size": INTEGER, "date": DATE, "time": STRING, "name": STRING},
    ("party_size", "date", "time", "name"),
)


def test_a_missing_party_size_is_asked_for_as_a_model_asks() -> None:
    """It was "Which party size do you mean?"."""
    assert reply((TABLE,), "book a table tomorrow at 8pm under Tom") == (
        [],
        "How many people will be in your party?",
    )


@pytest.mark.parametrize(
    ("parameter", "schema", "question"),
    [
        ("nights", INTEGER, "How many nights?"),
        ("num_guests", INTEGER, "How many guests?"),
        ("check_in", DATE, "What check-in date would you like?"),
        ("start_time", STRING, "What start time would you like?"),
        (
            "seating",
            {"type": "string", "enum": ["indoor", "outdoor"]},
            "Which seating would you like: indoor or outdoor?",
        ),
        ("order_id", STRING, "What's the order ID?"),
        ("guest_name", STRING, "What's the guest's name?"),
        ("attendees", {"type": "array", "items": STRING}, "Who should I include?"),
        ("restaurant", STRING, "Which restaurant do you mean?"),
    ],
)
def test_questions_are_worded_by_what_the_parameter_holds(parameter: str, schema: Any, question: str) -> None:
    """Every question was "Which <parameter's words> do you mean?" ("Which num guests do you mean?"),
    dates and times "What date should I use?"."""
    booking = tool("reserve", "Reserve it", {parameter: schema}, (parameter,))
    assert reply((booking,), "reserve it please") == ([], question)


def test_the_answer_to_the_party_size_question_completes_the_call() -> None:
    calls, _ = reply((TABLE,), "book a table tomorrow at 8pm under Tom", "four")
    assert calls == [("book_table", {"party_size": 4, "date": "2026-03-03", "time": "20:00", "name": "Tom"})]


ORDER = tool(
    "place_order",
    "Order food for delivery",
    {"items": {"type": "array", "items": STRING}, "address": STRING},
    ("items",),
)
INVITE = tool(
    "send_invite", "Invite people to the meeting", {"people": {"type": "array", "items": STRING}}, ("people",)
)


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (("order pasta and a salad",), {"items": ["pasta", "salad"]}),
        (("order pasta, a salad and two cokes",), {"items": ["pasta", "salad", "two cokes"]}),
        (("I'd like to order food", "pasta and a salad"), {"items": ["pasta", "salad"]}),
        (
            ("order a burger and fries to 12 Main Street",),
            {"items": ["burger", "fries"], "address": "12 Main Street"},
        ),
        (("order salt and vinegar chips",), {"items": ["salt and vinegar chips"]}),
    ],
)
def test_a_list_parameter_holds_every_thing_said(said: tuple[str, ...], expected: dict[str, Any]) -> None:
    """An ``items`` array took only the first thing ("pasta"): its name said one thing a call; "two
    cokes" after single words was read as the end of one name ("salt and vinegar chips"); the address
    after "to" was asked for."""
    calls, text = reply((ORDER,), *said)
    assert calls == [("place_order", expected)], text


@pytest.mark.parametrize(
    "said",
    [("invite Bob, Alice and Carol",), ("send an invite", "Bob, Alice and Carol")],
)
def test_people_said_as_a_list_are_all_invited(said: tuple[str, ...]) -> None:
    calls, text = reply((INVITE,), *said)
    assert calls == [("send_invite", {"people": ["Bob", "Alice", "Carol"]})], text


def test_a_parameter_of_one_thing_is_still_a_call_per_thing() -> None:
    add = tool("add_item", "Add an item to the shopping list", {"item": STRING}, ("item",))
    calls, _ = reply((add,), "add eggs and bread")
    assert calls == [("add_item", {"item": "eggs"}), ("add_item", {"item": "bread"})]


ROOMS = ["living_room", "kitchen", "bedroom", "bathroom", "office"]
HOME = tool(
    "control_device",
    "Control a smart home device",
    {
        "room": {"type": "string", "enum": ROOMS},
        "device": {"type": "string", "enum": ["lights", "thermostat", "fan", "tv", "blinds"]},
        "state": {"type": "string", "enum": ["on", "off"]},
        "level": {
            "type": "integer",
            "minimum": 0,
            "maximum": 100,
            "description": "Brightness or speed in percent",
        },
    },
    ("room", "device", "state"),
)


def test_an_enums_options_are_said_as_words_and_the_answer_completes_the_call() -> None:
    """The options were said as written ("living_room"); an on/off state was "Which state …: on or off?"."""
    assert reply((HOME,), "turn the lights off") == (
        [],
        "Which room would you like: living room, kitchen, bedroom, bathroom or office?",
    )
    calls, _ = reply((HOME,), "turn the lights off", "the living room")
    assert calls == [("control_device", {"room": "living_room", "device": "lights", "state": "off"})]
    assert reply((HOME,), "do something with the bedroom fan")[1] == "Should I turn it on or off?"


CREATE_TICKET = tool(
    "create_ticket",
    "Create a support ticket",
    {
        "priority": {"type": "string", "enum": ["low", "medium", "high", "urgent"]},
        "category": {"type": "string", "enum": ["billing", "technical", "account", "shipping", "other"]},
        "summary": STRING,
        "email": {"type": "string", "format": "email"},
    },
    ("priority", "category", "summary", "email"),
)
ORDER_ID = {"type": "string", "pattern": "^ORD-[0-9]{5}$"}
LOOKUP = tool("lookup_order", "Look up an order by its ID", {"order_id": ORDER_ID}, ("order_id",))
REFUND = tool(
    "request_refund",
    "Request a refund for an order",
    {"order_id": ORDER_ID, "reason": STRING},
    ("order_id", "reason"),
)
DESK = (CREATE_TICKET, LOOKUP, REFUND)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (
            "open a ticket: I can't log in to my account, email bob@example.com, high priority",
            {
                "priority": "high",
                "category": "account",
                "summary": "I can't log in to my account",
                "email": "bob@example.com",
            },
        ),
        (
            "my package never arrived, please open a ticket, not urgent, sam@example.org",
            {
                "priority": "low",
                "category": "shipping",
                "summary": "my package never arrived",
                "email": "sam@example.org",
            },
        ),
        (
            "I was charged twice this month, it's urgent, my email is jane@example.com",
            {
                "priority": "urgent",
                "category": "billing",
                "summary": "charged twice this month",
                "email": "jane@example.com",
            },
        ),
    ],
)
def test_a_support_ticket_takes_each_value_from_its_own_words(words: str, expected: dict[str, str]) -> None:
    """The text after the colon swallowed the email (asked for again); "not urgent" was a value taken
    back (the priority asked for), then ``urgent``; "charged" named no billing; the summary was "never"."""
    assert reply(DESK, words)[0] == [("create_ticket", expected)]


@pytest.mark.parametrize(
    "words", ["can you check order ORD 12345", "check order number 12345", "where's my order ORD-12345?"]
)
def test_an_order_id_is_written_as_its_pattern_asks(words: str) -> None:
    """ "ORD 12345" and "12345" fit no ``^ORD-[0-9]{5}$``: the order ID was asked for."""
    assert reply(DESK, words)[0] == [("lookup_order", {"order_id": "ORD-12345"})]


def test_the_reason_for_a_request_asks_for_no_other_tool() -> None:
    """ "arrived" of the reason was read as another action (shipping's): the ticket tool was picked and
    its priority asked for."""
    calls, _ = reply(DESK, "I want a refund for ORD-33333 because it arrived broken")
    assert calls == [("request_refund", {"order_id": "ORD-33333", "reason": "arrived broken"})]


def test_a_missing_summary_asks_for_the_problem() -> None:
    assert reply(DESK, "create a ticket, high priority, billing, bob@example.com") == (
        [],
        "Could you briefly describe the problem?",
    )


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("put the office fan on full", {"room": "office", "device": "fan", "state": "on", "level": 100}),
        (
            "dim the bedroom lights to 30 percent",
            {"room": "bedroom", "device": "lights", "state": "on", "level": 30},
        ),
        (
            "turn the fan on in the office at half speed",
            {"room": "office", "device": "fan", "state": "on", "level": 50},
        ),
    ],
)
def test_a_level_said_in_words_is_set(words: str, expected: dict[str, Any]) -> None:
    """ "on full" set no level (only "at full" / "to full" did)."""
    assert reply((HOME,), words)[0] == [("control_device", expected)]


def test_a_strict_mode_optional_number_is_still_read_as_a_number() -> None:
    """The Agents SDK's ``level: int | None`` is ``anyOf [integer, null]``: it was read as a string, so
    "at 40 percent" set no level (``null``)."""
    home = ToolSpec(
        "control_device",
        "Control a smart home device",
        {
            "type": "object",
            "properties": {
                "device": {"type": "string", "enum": ["lights", "fan"]},
                "state": {"type": "string", "enum": ["on", "off"]},
                "level": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Level"},
            },
            "required": ["device", "state", "level"],
            "additionalProperties": False,
        },
    )
    assert reply((home,), "put the fan on at 40 percent")[0] == [
        ("control_device", {"device": "fan", "state": "on", "level": 40})
    ]
    assert reply((home,), "turn the fan on")[0] == [
        ("control_device", {"device": "fan", "state": "on", "level": None})
    ]


@pytest.mark.parametrize(
    "words",
    [
        "can I get an appointment with Dr. Patel tomorrow at 9?",
        "could I have an appointment with Dr. Patel tomorrow at 9?",
    ],
)
def test_asking_to_be_given_something_is_a_request(words: str) -> None:
    """ "can I get …?" was a question, not a request: it was answered "I don't know that one, sorry"."""
    assert reply((APPOINTMENT,), words)[0] == [
        ("book_appointment", {"doctor": "Dr. Patel", "date": "2026-03-03", "time": "09:00"})
    ]


@pytest.mark.parametrize(
    ("instructions", "words", "greeting"),
    [
        (
            "You are Sakura's host. Always greet the user with 'Welcome to Sakura!'",
            "hi",
            "Welcome to Sakura!",
        ),
        ("Always start by saying 'Thanks for calling Sakura.'", "Hello?", "Thanks for calling Sakura."),
    ],
)
def test_a_user_who_greets_first_gets_the_instructed_greeting(
    instructions: str, words: str, greeting: str
) -> None:
    """The caller spoke first ("Hello?"): the reply was "Hi, I'm Sam. Nice to meet you."."""
    assert reply((), words, instructions=instructions) == ([], greeting)


def test_later_greetings_and_sessions_without_a_rule_are_as_before() -> None:
    assert reply((), "hi")[1] in ("Hi, I'm Sam. Nice to meet you.", "Hello! I'm Sam, good to hear you.")
    rule = "Always greet the user with 'Welcome to Sakura!'"
    assert reply((), "hi", "hello again", instructions=rule)[1] != "Welcome to Sakura!"


SHIRT = tool(
    "order_shirt",
    "Order a t-shirt",
    {
        "size": {"type": "string", "enum": ["S", "M", "L", "XL"]},
        "color": {"type": "string", "enum": ["black", "white", "navy"]},
    },
    ("size", "color"),
)


@pytest.mark.parametrize(
    ("words", "size"),
    [
        ("order a black t-shirt in medium", "M"),
        ("order a black t-shirt, extra large", "XL"),
        ("a black one in large please, order it", "L"),
    ],
)
def test_a_size_said_by_its_name_picks_its_letters(words: str, size: str) -> None:
    """ "medium" named no ``M``: the size was asked for, its options said as "s, m, l or xl"."""
    assert reply((SHIRT,), words)[0] == [("order_shirt", {"size": size, "color": "black"})]


def test_letter_options_keep_their_case_in_the_question() -> None:
    assert reply((SHIRT,), "order a black t-shirt") == ([], "Which size would you like: S, M, L or XL?")


@pytest.mark.parametrize(
    ("answer", "slot"), [("the first one", "morning"), ("the last one", "evening"), ("second", "afternoon")]
)
def test_an_option_chosen_by_its_place_in_the_question(answer: str, slot: str) -> None:
    """ "the first one" answering "Which slot would you like: morning, afternoon or evening?" was heard
    as words to echo."""
    slots = tool(
        "book_slot",
        "Book a delivery slot",
        {"slot": {"type": "string", "enum": ["morning", "afternoon", "evening"]}},
        ("slot",),
    )
    assert (
        reply((slots,), "book a delivery slot")[1]
        == "Which slot would you like: morning, afternoon or evening?"
    )
    assert reply((slots,), "book a delivery slot", answer)[0] == [("book_slot", {"slot": slot})]
