"""Known gaps from the last stop (brain4): a dictated line followed by a further instruction, a question
misheard on a phone line, a name followed by a pronoun, a contact saved with a bare ``phone``, spoken
digits after a colon, a price asked of a menu, a card read out, and ``tool_choice: "required"`` with
nothing asked for. Each test failed on the code before it."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from tests.brain_calls import TODAY, calls, spoken, tool

STRING = {"type": "string"}


@pytest.mark.parametrize(
    ("own", "said"),
    [
        ("Say: welcome to Acme, then ask for their name", "Welcome to Acme. Could you tell me your name?"),
        ("Say: welcome to Acme, then ask for their name.", "Welcome to Acme. Could you tell me your name?"),
        (
            "Say: Welcome to Acme. Then ask the caller for their name.",
            "Welcome to Acme. Could you tell me your name?",
        ),
        (
            "Say: thanks for calling; then ask them if they are a member.",
            "Thanks for calling. Are you a member?",
        ),
        (
            "Tell the user: welcome to Acme, and then ask for their order number.",
            "Welcome to Acme. Could you tell me your order number?",
        ),
    ],
)
def test_a_dictated_line_stops_where_a_further_instruction_starts(own: str, said: str) -> None:
    """ "Say: welcome to Acme, then ask for their name" said the whole line, the instruction too."""
    assert spoken(own) == said


@pytest.mark.parametrize(
    ("own", "said"),
    [
        ("Say: we open at nine, then we close at five.", "we open at nine, then we close at five."),
        ("Say: first the good news, then the bad news.", "first the good news, then the bad news."),
    ],
)
def test_a_dictated_then_that_is_part_of_the_words_is_said(own: str, said: str) -> None:
    assert spoken(own) == said


def answered(text: str) -> str:
    return str(calls([], text))


@pytest.mark.parametrize(
    ("heard", "answer"),
    [
        ("What is the capital on France?", "Paris is the capital of France."),
        ("what is the capital in Japan", "Tokyo is the capital of Japan."),
        ("What is the capital off Germany?", "Berlin is the capital of Germany."),
        ("What colour is a sky?", "The sky is blue on a clear day."),
    ],
)
def test_a_question_with_one_function_word_misheard_is_answered(heard: str, answer: str) -> None:
    """Over 8 kHz μ-law whisper tiny.en hears "What is the capital on France?": it was "I don't know that
    one"; the question meant is answered and echoed as meant."""
    reply = answered(heard)
    assert reply.endswith(answer), reply
    echo = reply.split(".")[0]
    assert " on " not in echo and " in Japan" not in echo and " a capital" not in echo, reply


@pytest.mark.parametrize(
    "heard",
    [
        "What is the capital on Mars?",  # the words swapped make no known question
        "What colour on a sky?",  # two words away
        "What is the capital gain on France?",  # a content word differs
        "What is the capital on my loan?",
    ],
)
def test_a_question_more_than_one_function_word_away_is_not_answered(heard: str) -> None:
    reply = answered(heard)
    assert reply.endswith(
        ("I'm not sure, to be honest.", "I don't know that one, sorry.", "Hmm, I'd have to think.")
    ), reply


def test_a_question_heard_right_is_answered_as_heard() -> None:
    """A known question heard as said is never swapped for another."""
    from mockengine.brain.facts import misheard_answer

    assert misheard_answer("What is the capital of France?", "Sam") is None
    assert answered("What is the capital of Spain?").endswith("Madrid is the capital of Spain.")


CONTACT = {"name": STRING, "street": STRING, "city": STRING, "zip": STRING}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Update Bob and his zip is 90210", "Bob"),
        ("update bob his zip is 90210", "bob"),
        ("Change Ana and Raj Silva and their zip is 90210", "Ana and Raj Silva"),
        ("Update Bob, his zip is 90210", "Bob"),
    ],
)
def test_a_name_followed_by_a_possessive_is_the_name(text: str, name: str) -> None:
    """ "Update Bob and his zip is 90210" filled ``name: "Bob and his"``."""
    for tool_name, description in (
        ("update_contact", "Update a contact"),
        ("update_address", "Update an address"),
    ):
        assert calls([tool(tool_name, description, CONTACT, ["name"])], text) == [
            (tool_name, {"name": name, "zip": "90210"})
        ]


ADD_CONTACT = [tool("add_contact", "Add a contact", {"name": STRING, "phone": STRING})]


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("Save Alice's number, it's 555 123 4567", "555 123 4567"),
        ("Save Alice's number: 555 123 4567", "555 123 4567"),
        ("Save Alice's number, five five five one two three four five six seven.", "555-123-4567"),
    ],
)
def test_a_phone_number_heard_fits_a_tool_that_takes_one(text: str, phone: str) -> None:
    """``add_contact`` declared only as "Add a contact" with a bare ``phone`` was not reached: "save"
    alone scored below the bar. A phone number heard fits a tool with a phone parameter, as a day
    fits one with a date."""
    assert calls(ADD_CONTACT, text) == [("add_contact", {"name": "Alice", "phone": phone})]


@pytest.mark.parametrize(
    "text",
    ["I called 555 123 4567 yesterday.", "My old number was 555 123 4567.", "Is 555 123 4567 your number?"],
)
def test_a_phone_number_alone_asks_for_no_call(text: str) -> None:
    assert isinstance(calls(ADD_CONTACT, text), str)


E164 = {"type": "string", "pattern": r"^\+?[0-9]{7,15}$"}


@pytest.mark.parametrize(
    "text",
    [
        "My number: oh seven seven double nine one two three four five six",
        "My number is oh seven seven double nine one two three four five six.",
        "oh seven seven, double nine one, two three four five six",
    ],
)
def test_a_spoken_phone_is_read_whole_for_a_phone_pattern(text: str) -> None:
    """A phone whose ``pattern`` is digits got "9123456": the code reader took only the digits said one
    by one after "double nine"; "oh" and "double" are read as a phone is."""
    provided = tool("update_phone", "Called when the user provides their phone number.", {"phone": E164})
    assert calls([provided], text) == [("update_phone", {"phone": "07799123456"})]


@pytest.mark.parametrize(
    ("said", "phone"),
    [
        ("five five five one two three four five six seven", "555-123-4567"),
        ("oh seven seven double nine one two three four five six", "07799123456"),
    ],
)
def test_spoken_digits_after_a_colon_are_the_phone_not_the_name(said: str, phone: str) -> None:
    """ "Add Bob, number: five five five …" took the digits after the colon as the contact's name (only
    written digits were no name), then dropped it: it asked "Which name do you mean?"."""
    assert calls(ADD_CONTACT, f"Add Bob, number: {said}") == [
        ("add_contact", {"name": "Bob", "phone": phone})
    ]


@pytest.mark.parametrize(
    "text",
    [
        "What does a Margherita cost?",
        "How much is a Margherita?",
        "How much does the Margherita cost?",
        "What's the price of a Margherita?",
    ],
)
@pytest.mark.parametrize(
    ("name", "description", "parameter"),
    [
        ("get_price", "Get the price of a menu item", "item"),
        ("get_menu_item", "Look up a menu item", "name"),
        ("lookup_product", "Look up a product in the catalogue", "product"),
    ],
)
def test_a_price_asked_reaches_the_price_or_item_lookup(
    text: str, name: str, description: str, parameter: str
) -> None:
    """ "What does a Margherita cost?" with a price or menu lookup declared called nothing ("I don't know
    that one"): a price asked without the word is a price, and a price reaches a lookup of the item."""
    assert calls([tool(name, description, {parameter: STRING})], text) == [(name, {parameter: "Margherita"})]


@pytest.mark.parametrize(
    "text", ["How much does it cost?", "How much is it all coming to?", "What did that cost me?"]
)
def test_a_price_of_nothing_named_looks_no_item_up(text: str) -> None:
    reply = calls([tool("get_menu_item", "Look up a menu item", {"name": STRING})], text)
    assert isinstance(reply, str) or reply[0][1].get("name") not in ("it", "that", "price")


def required(tools: list[ToolSpec], text: str) -> tuple[str, str]:
    request = ReplyRequest("", tuple(tools), "required", ("text",), (TurnView("u", "user_text", text),), 0)
    reply = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request)
    assert len(reply.tool_calls) == 1
    return reply.tool_calls[0].name, reply.rule


TICKET = tool("submit_ticket", "Submit a support ticket", {"subject": STRING, "body": STRING})
ORDER = tool("lookup_order", "Look up an order", {"order_id": STRING})


@pytest.mark.parametrize("text", ["Hello!", "Hi there, how are you?", "Thanks."])
def test_under_required_a_greeting_files_nothing(text: str) -> None:
    """A greeting under ``tool_choice: "required"`` with no tool that delivers the reply called
    ``submit_ticket`` with made-up arguments: "submit" counted as ending the turn. The tool a model
    reaches for then only reads."""
    assert required([TICKET, ORDER], text)[0] == "lookup_order"
    assert required([ORDER, TICKET], text)[0] == "lookup_order"


def test_under_required_the_words_that_ask_still_choose() -> None:
    assert required([TICKET, ORDER], "Submit a ticket saying my screen is broken")[0] == "submit_ticket"
    assert required([TICKET, ORDER], "Where is order 12345?")[0] == "lookup_order"


@pytest.mark.parametrize(
    ("name", "ends"),
    [
        ("final_answer", True),
        ("final_result", True),
        ("submit_answer", True),
        ("respond", True),
        ("reply_to_user", True),
        ("send_response", True),
        ("finish", True),
        ("submit_ticket", False),
        ("submit_order", False),
        ("get_result", False),
        ("check_answer", False),
        ("search_results", False),
        ("answer_call", False),
    ],
)
def test_a_tool_ends_the_turn_only_when_it_delivers_the_reply(name: str, ends: bool) -> None:
    from mockengine.brain.participant import ends_the_turn

    assert ends_the_turn(name) is ends


CARD = {"card_number": STRING, "expiry": STRING, "cvv": STRING}
PAID = {"card_number": "4242424242424242", "expiry": "04/28", "cvv": "123"}


@pytest.mark.parametrize(
    "text",
    [
        "Pay with card 4242 4242 4242 4242, expires oh four twenty-eight, CVC 123",
        "Pay by card: 4242424242424242, exp 04/28, cvv 123",
        "Pay with my card, 4242-4242-4242-4242, expiry 04/28, security code 123.",
        "Pay by card, four two four two, four two four two, four two four two, four two four two,"
        " expiry oh four twenty eight, security code one two three",
    ],
)
def test_a_card_read_out_fills_its_number_expiry_and_security_code(text: str) -> None:
    """A card said in groups, its expiry ("oh four twenty-eight", "04/28") and "security code"/"CVC" for
    ``cvv`` were not read: the call asked for the expiry and the code, or took the wrong digits."""
    assert calls([tool("pay_by_card", "Pay the order by card", CARD)], text) == [("pay_by_card", PAID)]


def test_a_card_is_read_in_the_form_its_parameters_ask() -> None:
    schema = {
        "card_number": STRING,
        "expiry_date": {"type": "string", "description": "Expiry, MM/YYYY"},
        "security_code": STRING,
    }
    said = "Pay with card 4242 4242 4242 4242, expiry April 2028, security code 4 5 6"
    assert calls([tool("pay_by_card", "Pay the order by card", schema)], said) == [
        ("pay_by_card", {"card_number": "4242424242424242", "expiry_date": "04/2028", "security_code": "456"})
    ]


def test_a_forced_card_call_reads_a_card_stated() -> None:
    from mockengine.brain.model import ForcedTool

    pay = tool("pay_by_card", "Pay the order by card", CARD)
    said = "My card is 4242 4242 4242 4242, expiry 04/28, security code 123"
    request = ReplyRequest(
        "", (pay,), ForcedTool("pay_by_card"), ("text",), (TurnView("u", "user_text", said),), 0
    )
    reply = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request)
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [("pay_by_card", PAID)]
