"""Defects users declaring their own tools found (brain7): "can I get a refund" sent to the status lookup,
a plain-string ``unit`` not filled from "in celsius", ids made of ordinary words ("my second order" →
``order_id: "second"``), a typed address with "St." left half filled, a standing answer's topic matched
inside another phrase and its "you" said as "I" for the business, the agent's own goodbye taken as the
user's, a Chat system prompt's classification read as a standing rule, British doubled-l spellings
missing, and tasks' own copies of the question and greeting readers. Each test failed on the code before
its fix; the near misses beside each pin what must not misfire."""

from __future__ import annotations

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, lexicon, load_scenario, phrases
from mockengine.brain.model import Reply
from tests.brain_calls import TODAY, calls, tool

STRING = {"type": "string"}


def reply(tools: list[ToolSpec], words: str, instructions: str = "", channel: str = "realtime") -> Reply:
    """The reply to ``words`` with ``tools`` declared and the app's ``instructions``, asked over
    ``channel`` (default scenario, seed 3, ``TODAY``)."""
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    history = (TurnView("u0", "user_text", words),)
    request = ReplyRequest(instructions, tuple(tools), "auto", ("text",), history, 0, channel=channel)  # type: ignore[arg-type]
    return brain.reply(request)


STATUS = tool("get_order_status", "Get an order's status", {"order_id": STRING})
REFUND = tool("request_refund", "Refund an order", {"order_id": STRING, "reason": STRING}, ["order_id"])
REFUND_STATUS = tool("get_refund_status", "Get the status of a refund", {"order_id": STRING})

# -- 1. "can I get a refund" asks for the refund, not a look at the order


@pytest.mark.parametrize(
    "said",
    [
        "Can I get a refund for order A12345?",
        "Could you get me a refund for order A12345?",
        "Can I have a refund for order A12345?",
    ],
)
def test_getting_a_refund_asks_for_the_refund(said: str) -> None:
    assert calls([STATUS, REFUND], said) == [("request_refund", {"order_id": "A12345"})]


def test_getting_a_refund_beside_a_refund_status_lookup_asks_for_the_refund() -> None:
    made = calls([REFUND_STATUS, REFUND], "Can I get a refund for order A12345?")
    assert made == [("request_refund", {"order_id": "A12345"})]


@pytest.mark.parametrize(
    "said",
    [
        "Can I get the status of order A12345?",
        "Can I get an update on order A12345?",
        "Where is order A12345?",
        "Has my refund for order A12345 gone through?",
    ],
)
def test_a_look_at_the_order_still_looks(said: str) -> None:
    assert calls([STATUS, REFUND], said) == [("get_order_status", {"order_id": "A12345"})]


def test_the_status_of_a_refund_is_still_a_look() -> None:
    made = calls([REFUND_STATUS, REFUND], "What's the status of my refund for A12345?")
    assert made == [("get_refund_status", {"order_id": "A12345"})]


# -- 2. a plain-string unit filled from the unit said

WEATHER = tool(
    "get_weather",
    "Get the weather",
    {"city": STRING, "unit": {"type": "string", "description": "celsius or fahrenheit"}},
)
WEATHER_CF = tool(
    "get_weather", "Get the weather", {"city": STRING, "unit": {"type": "string", "description": "C or F"}}
)


@pytest.mark.parametrize(
    ("said", "unit"),
    [
        ("What's the weather in Paris in celsius?", "celsius"),
        ("Weather in Paris in Fahrenheit please", "fahrenheit"),
        ("In celsius, what's the weather in Paris?", "celsius"),
    ],
)
def test_a_unit_said_fills_a_plain_string_unit(said: str, unit: str) -> None:
    assert calls([WEATHER], said) == [("get_weather", {"city": "Paris", "unit": unit})]


def test_a_unit_is_spelled_as_the_description_spells_it() -> None:
    made = calls([WEATHER_CF], "What's the weather in Paris in celsius?")
    assert made == [("get_weather", {"city": "Paris", "unit": "C"})]


@pytest.mark.parametrize(
    "said",
    [
        "What's the weather in Paris for the next 5 days?",
        "Weather in Paris in 2 hours",
        "weather in Kelvin please, for Paris",
        "What's the weather in Paris?",
    ],
)
def test_no_unit_of_the_description_said_fills_none(said: str) -> None:
    assert calls([WEATHER], said) == "Which unit do you mean?"


# -- 3. a record's id is a token that looks like one, not an ordinary word

BOOKING = tool("get_booking", "Look up a booking", {"booking_ref": STRING})


@pytest.mark.parametrize(
    "said", ["What's the status of my second order?", "Where's my order for my mother?", "Where's my order?"]
)
def test_an_order_named_by_ordinary_words_is_asked_for(said: str) -> None:
    assert calls([STATUS], said) == "What's the order ID?"


def test_a_booking_for_someone_is_asked_for() -> None:
    assert calls([BOOKING], "Look up the booking for my mother") == "What's the booking ref?"


@pytest.mark.parametrize(
    ("said", "order"),
    [
        ("Where's order 4471?", "4471"),
        ("Check order ORD-ABC", "ORD-ABC"),
        ("Where is order XKCDQ?", "XKCDQ"),
        ("What's the status of order A12345?", "A12345"),
    ],
)
def test_an_id_that_looks_like_one_is_taken(said: str, order: str) -> None:
    assert calls([STATUS], said) == [("get_order_status", {"order_id": order})]


def test_ids_of_other_things_may_be_words() -> None:
    user = tool("get_user", "Look up a user", {"user_id": STRING})
    coupon = tool("apply_coupon", "Apply a coupon", {"coupon_code": STRING})
    assert calls([user], "Look up user alice") == [("get_user", {"user_id": "alice"})]
    assert calls([coupon], "Apply the coupon FREESHIP") == [("apply_coupon", {"coupon_code": "FREESHIP"})]


# -- 4. a typed address with abbreviations and a city and postal code after the comma

ADDRESS = tool("update_shipping_address", "Update the shipping address", {"street": STRING, "city": STRING})
ADDRESS.parameters["properties"]["postal_code"] = STRING
ADDRESS.parameters["required"].append("postal_code")


@pytest.mark.parametrize(
    ("said", "street", "city", "code"),
    [
        ("Ship it to 12 Main St., Springfield 62704", "12 Main St", "Springfield", "62704"),
        ("Change my address to 5 Oak Ave., Portland 97201", "5 Oak Ave", "Portland", "97201"),
        ("Update my address to 40 Elm Rd., Leeds LS1 4AP", "40 Elm Rd", "Leeds", "LS1 4AP"),
    ],
)
def test_a_typed_address_fills_street_city_and_code(said: str, street: str, city: str, code: str) -> None:
    expected = {"street": street, "city": city, "postal_code": code}
    assert calls([ADDRESS], said) == [("update_shipping_address", expected)]


def test_the_words_before_the_street_are_no_part_of_it() -> None:
    address = tool("set_address", "Set the delivery address", {"street_address": STRING, "city": STRING})
    made = calls([address], "My new address is 12 Main St. in Springfield")
    assert made == [("set_address", {"street_address": "12 Main St", "city": "Springfield"})]


@pytest.mark.parametrize(
    "said", ["Ship it to 12 Main Street, Springfield 62704", "Ship it to 12 Main St, Springfield 62704"]
)
def test_an_address_without_periods_is_filled_as_before(said: str) -> None:
    made = calls([ADDRESS], said)
    assert isinstance(made, list) and made[0][1]["city"] == "Springfield"
    assert made[0][1]["postal_code"] == "62704"


# -- 5. a standing answer: the topic asked about, and the business's "we"

HOURS = "If asked about the hours, tell them we're open 9 to 5."


@pytest.mark.parametrize(
    "said",
    [
        "how many hours did my order take to ship",
        "I waited for hours, where's my order?",
        "It's been two hours, where is my order?",
        "How many hours of battery does it have?",
    ],
)
def test_a_topic_word_inside_another_question_is_no_question_of_it(said: str) -> None:
    assert reply([], said, HOURS).text != "We're open 9 to 5."


@pytest.mark.parametrize(
    "said", ["What are your hours?", "What hours are you open?", "Are your hours different on Sunday?"]
)
def test_the_topic_asked_about_is_answered(said: str) -> None:
    assert reply([], said, HOURS).text == "We're open 9 to 5."


@pytest.mark.parametrize(
    ("fact", "expected"),
    [
        ("tell them you ship worldwide", "We ship worldwide."),
        ("tell them you don't ship to Canada", "We don't ship to Canada."),
        ("tell them you're open 9 to 5", "We're open 9 to 5."),
        ("tell them you accept all major cards", "We accept all major cards."),
        ("tell them you don't know", "I don't know."),
        ("say you can't share it", "I can't share it."),
        ("tell them you're not able to quote prices", "I'm not able to quote prices."),
        ("tell them you're happy to help", "I'm happy to help."),
    ],
)
def test_you_is_we_for_the_business_and_i_for_the_assistant(fact: str, expected: str) -> None:
    instructions = f"If asked about shipping, {fact}."
    assert reply([], "Tell me about shipping.", instructions).text == expected


# -- 6. the user's goodbye among an ending tool's reasons


def end_call(options: list[str]) -> ToolSpec:
    return tool("end_call", "End the call", {"reason": {"type": "string", "enum": options}})


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (["goodbye_message_played", "user_goodbye", "error"], "user_goodbye"),
        (["goodbye_message_played", "customer_ended", "error"], "customer_ended"),
        (["agent_goodbye", "caller_said_bye"], "caller_said_bye"),
        (["goodbye", "timeout"], "goodbye"),
    ],
)
def test_the_goodbye_reason_is_the_users(options: list[str], reason: str) -> None:
    assert calls([end_call(options)], "Goodbye!") == [("end_call", {"reason": reason})]


@pytest.mark.parametrize(
    "options", [["goodbye_message_played", "timeout"], ["completed", "goodbye_message_played"]]
)
def test_only_the_agents_goodbye_is_no_reason_made_up(options: list[str]) -> None:
    assert isinstance(calls([end_call(options)], "Goodbye!"), str)  # the farewell said, no call


# -- 8. a Chat system message that sets a task answers it


@pytest.mark.parametrize(
    ("instructions", "said", "expected"),
    [
        ("Classify the user's message as billing or technical.", "My card was charged twice", "billing"),
        (
            "Classify the user's message as billing or technical.",
            "The app crashes when I log in",
            "technical",
        ),
        (
            "You are a support router. Classify each message into billing, technical or other.",
            "Hello there",
            "other",
        ),
        (
            "Generate a short title for this conversation.",
            "Tell me a long story about a dragon.",
            "Long Story about a Dragon",
        ),
    ],
)
def test_a_chat_system_message_that_sets_a_task_is_answered(
    instructions: str, said: str, expected: str
) -> None:
    assert reply([], said, instructions, channel="chat").text == expected


@pytest.mark.parametrize(
    "instructions",
    [
        "You are a helpful assistant. Summarize your answers briefly.",
        "When the user asks, summarize the conversation.",
        "Don't classify the message as billing or technical; just answer.",
        "You are a concise assistant. Give your answer a friendly title.",
    ],
)
def test_an_ordinary_chat_system_message_is_no_task(instructions: str) -> None:
    made = reply([], "What is the capital of France?", instructions, channel="chat")
    assert made.rule == "builtin.heard" and "Paris" in (made.text or "")


def test_a_chat_classification_beside_tools_is_a_standing_rule() -> None:
    instructions = "Classify the user's message as billing or technical."
    made = reply([STATUS], "Where is order A12345?", instructions, channel="chat")
    assert [c.name for c in made.tool_calls] == ["get_order_status"]


# -- 9. British doubled-l forms


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("channelled", "channeled"),
        ("tunnelled", "tunneled"),
        ("travelling", "traveling"),
        ("traveller", "traveler"),
        ("cancelling", "canceling"),
        ("marvelled", "marveled"),
        ("quarrelled", "quarreled"),
    ],
)
def test_british_doubled_l_is_spelled_alike(british: str, american: str) -> None:
    assert lexicon.spelled_alike(british, american)


@pytest.mark.parametrize(("one", "other"), [("filled", "filed"), ("called", "caled"), ("spelled", "sped")])
def test_a_doubled_l_of_its_own_is_no_british_form(one: str, other: str) -> None:
    assert not lexicon.spelled_alike(one, other)


# -- 10. one question reader, one greeting reader


@pytest.mark.parametrize(
    "said",
    ["what's the time", "whats up", "who's there", "how's it going", "Isn't it late", "Don't you like it"],
)
def test_contracted_openers_ask(said: str) -> None:
    assert phrases.is_question(said)


@pytest.mark.parametrize(
    "said", ["Don't forget the milk", "Had a rough day", "Whatsapp me later", "Whoever wins"]
)
def test_no_question_is_read_into_an_order_or_a_statement(said: str) -> None:
    assert not phrases.is_question(said)


@pytest.mark.parametrize(
    ("said", "greets"), [("Greetings!", True), ("greetings, friend", True), ("Greetings from Paris!", False)]
)
def test_greetings_greets_unless_it_is_sent(said: str, greets: bool) -> None:
    assert phrases.greets(said) is greets


@pytest.mark.parametrize(
    ("said", "label"),
    [("what's the weather", "question"), ("Greetings!", "greeting"), ("Turn on the lights", "request")],
)
def test_a_classification_reads_questions_and_greetings_as_phrases_does(said: str, label: str) -> None:
    instructions = "Classify the user's message as question, request or greeting."
    assert reply([], said, instructions, channel="chat").text == label


# -- found on the way: a tool named or described for a card asks a card's expiry (the pattern held two
# backspace characters where its word boundaries were meant, so no name or description ever matched)


@pytest.mark.parametrize(
    ("name", "description"), [("pay_by_card", "Pay by card"), ("pay", "Pay with a card")]
)
def test_a_tool_about_a_card_asks_the_cards_expiry(name: str, description: str) -> None:
    payment = tool(name, description, {"expiry": STRING})
    assert calls([payment], "I want to pay by card") == "What's the expiry date on the card?"


def test_a_word_holding_card_is_no_card() -> None:
    pile = tool("set_discard_pile", "Set the discard pile", {"expiry": STRING})
    assert calls([pile], "set the discard pile") == "Which expiry do you mean?"
