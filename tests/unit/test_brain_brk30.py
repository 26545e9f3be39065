"""Found by a framework user (stop brk30) declaring their own tools in LiveKit's and Pipecat's shapes.

"Add two bagels and a coffee to my cart" to ``add_to_cart(items: [{name, quantity}])`` dropped the coffee
(its article said one, but the cart's words followed it); "Find a cheap Italian place in Soho" to a search
with an optional ``cuisine`` left the cuisine out once the place filled ``location``; "Switch my language
to Spanish and turn off notifications" to ``update_preferences(preferences: {language, notifications})``
made no call (the tool's words inside its object parameter were never read as its own)."""

from __future__ import annotations

import json
from functools import partial

import pytest

from mockengine.brain import TurnView
from mockengine.brain.model import ToolSpec
from tests.brain_calls import MONDAY, calls_made, reply_to, said, tool

_tool, _calls = tool, calls_made
_reply = partial(reply_to, today=MONDAY)
_said = partial(said, today=MONDAY)

STRING = {"type": "string"}
INTEGER = {"type": "integer"}


# 1. An array of objects: a thing said by its article is one of it, wherever the sentence goes on.
ITEM = {
    "type": "object",
    "properties": {"name": STRING, "quantity": INTEGER},
    "required": ["name", "quantity"],
}
CART = _tool(
    "add_to_cart", "Add items to the shopping cart.", {"items": {"type": "array", "items": ITEM}}, ["items"]
)


@pytest.mark.parametrize(
    ("words", "items"),
    [
        (
            "Add two bagels and a coffee to my cart",
            [{"name": "bagels", "quantity": 2}, {"name": "coffee", "quantity": 1}],
        ),
        (
            "Put a coffee and two bagels in my cart please",
            [{"name": "coffee", "quantity": 1}, {"name": "bagels", "quantity": 2}],
        ),
        (
            "Add three apples, two pears and a large coffee to the cart",
            [
                {"name": "apples", "quantity": 3},
                {"name": "pears", "quantity": 2},
                {"name": "large coffee", "quantity": 1},
            ],
        ),
    ],
)
def test_a_thing_said_by_its_article_is_one_of_the_list(words: str, items: list[dict[str, object]]) -> None:
    assert _calls(_said(words, (CART,))) == [("add_to_cart", {"items": items})]


def test_a_list_ending_with_its_article_is_unchanged() -> None:
    # neighbouring behaviour: the article at the sentence's end was already read
    assert _calls(_said("Add two bagels and a coffee", (CART,))) == [
        ("add_to_cart", {"items": [{"name": "bagels", "quantity": 2}, {"name": "coffee", "quantity": 1}]})
    ]


# 2. The kind of place said before its vague head ("a cheap Italian place") once the place filled
# ``location``: a search's cuisine (optional or required), and the price by its word.
PRICE_SIGNS = {"type": "string", "enum": ["$", "$$", "$$$", "$$$$"]}
PRICE_WORDS = {"type": "string", "enum": ["cheap", "moderate", "expensive"]}


def _restaurants(required: list[str], **more: object) -> ToolSpec:
    properties = {"location": STRING, "cuisine": STRING, **more}
    return _tool("search_restaurants", "Search for restaurants.", properties, required)


@pytest.mark.parametrize(
    ("words", "tool", "arguments"),
    [
        (
            "Find a cheap Italian place in Soho",
            _restaurants(["location"], price_range=PRICE_SIGNS),
            {"location": "Soho", "cuisine": "Italian", "price_range": "$"},
        ),
        (
            "Find a cheap Italian place in Soho",
            _restaurants(["location"], price_range=PRICE_WORDS),
            {"location": "Soho", "cuisine": "Italian", "price_range": "cheap"},
        ),
        (
            "Find an Italian restaurant in Soho",
            _restaurants(["location"]),
            {"location": "Soho", "cuisine": "Italian"},
        ),
        ("Find Italian food in Soho", _restaurants(["location"]), {"location": "Soho", "cuisine": "Italian"}),
        (
            "Find an Italian restaurant in Soho",
            _restaurants(["location", "cuisine"]),
            {"location": "Soho", "cuisine": "Italian"},
        ),
        ("Find a Thai place in Soho", _restaurants([]), {"location": "Soho", "cuisine": "Thai"}),
    ],
)
def test_the_kind_of_place_said_fills_its_cuisine(
    words: str, tool: ToolSpec, arguments: dict[str, object]
) -> None:
    assert _calls(_said(words, (tool,))) == [("search_restaurants", arguments)]


@pytest.mark.parametrize(
    ("words", "tool", "arguments"),
    [
        # neighbouring behaviour: no kind said, none sent; a required cuisine declared alone is read as before
        ("Find a restaurant in Soho", _restaurants(["location"]), {"location": "Soho"}),
        (
            "Find a cheap place in Soho",
            _restaurants(["location"], price_range=PRICE_SIGNS),
            {"location": "Soho", "price_range": "$"},
        ),
        (
            "find a fancy french place",
            _tool(
                "find_restaurant",
                "Find a restaurant",
                {"cuisine": STRING, "price": {"type": "string", "enum": ["$", "$$", "$$$"]}},
                ["cuisine", "price"],
            ),
            {"cuisine": "french", "price": "$$$"},
        ),
    ],
)
def test_no_kind_said_is_none_sent(words: str, tool: ToolSpec, arguments: dict[str, object]) -> None:
    assert _calls(_said(words, (tool,))) == [(tool.name, arguments)]


def test_a_nice_hotel_names_no_guest() -> None:
    # an open required string that is no kind of the thing takes no adjective of it
    hotel = _tool(
        "book_hotel", "Book a hotel.", {"city": STRING, "guest_name": STRING}, ["city", "guest_name"]
    )
    assert _said("Book a nice hotel in Paris", (hotel,)).tool_calls == ()


# 3. A tool whose parameters sit in one object (``preferences: {language, notifications}``) is asked
# for by them as by its own flat ones.
LANGUAGE = {"type": "string", "enum": ["English", "Spanish", "French", "German"]}
PREFERENCES = {"type": "object", "properties": {"language": LANGUAGE, "notifications": {"type": "boolean"}}}
UPDATE_PREFERENCES = _tool(
    "update_preferences", "Update the user's preferences.", {"preferences": PREFERENCES}, ["preferences"]
)
FLAT_PREFERENCES = _tool(
    "update_preferences",
    "Update the user's preferences.",
    {"language": LANGUAGE, "notifications": {"type": "boolean"}},
    [],
)


@pytest.mark.parametrize(
    ("words", "preferences"),
    [
        (
            "Switch my language to Spanish and turn off notifications",
            {"language": "Spanish", "notifications": False},
        ),
        ("Set my language to French", {"language": "French"}),
        ("Change my language to Spanish", {"language": "Spanish"}),
    ],
)
def test_parameters_inside_an_object_are_the_tools_own(words: str, preferences: dict[str, object]) -> None:
    assert _calls(_said(words, (UPDATE_PREFERENCES,))) == [
        ("update_preferences", {"preferences": preferences})
    ]
    assert _calls(_said(words, (FLAT_PREFERENCES,))) == [("update_preferences", preferences)]


def test_an_objects_parameters_do_not_take_another_tools_request() -> None:
    weather = _tool("get_weather", "Get the weather in a city.", {"city": STRING}, ["city"])
    assert _calls(_said("What's the weather in Madrid?", (UPDATE_PREFERENCES, weather))) == [
        ("get_weather", {"city": "Madrid"})
    ]
    assert _said("Tell me a joke", (UPDATE_PREFERENCES,)).tool_calls == ()


# 5. A phone number written with its area code in parentheses is the number, as said, and no sum.
SMS = _tool(
    "send_sms",
    "Send a text message.",
    {"to": {"type": "string", "description": "Phone number"}, "message": STRING},
    ["to", "message"],
)


@pytest.mark.parametrize(
    "words",
    ["Text (415) 555-0199 that I'm running late", "Text (415)555-0199 that I'm running late"],
)
def test_a_number_with_its_area_code_in_parentheses_is_texted(words: str) -> None:
    to = words.split(" that")[0].removeprefix("Text ")
    assert _calls(_said(words, (SMS,))) == [("send_sms", {"to": to, "message": "I'm running late"})]


@pytest.mark.parametrize(
    ("words", "said"), [("what is 12 - 5", "12 - 5 is 7."), ("what's 555-199?", "555 - 199 is 356.")]
)
def test_a_sum_is_still_a_sum(words: str, said: str) -> None:
    assert _said(words, ()).text.endswith(said)


def test_a_number_with_its_country_code_is_texted() -> None:
    words = "Text +44 7700 900123 that I'm running late"
    assert _calls(_said(words, (SMS,))) == [
        ("send_sms", {"to": "+44 7700 900123", "message": "I'm running late"})
    ]


# 4. What is said once the tool's output is in, as a model says it.
def _answered(words: str, tool: ToolSpec, arguments: dict[str, object], output: str) -> str | None:
    history = (
        TurnView("u0", "user_text", words),
        TurnView("c0", "function_call", json.dumps(arguments), name=tool.name, call_id="c0"),
        TurnView("o0", "function_call_output", output, call_id="c0"),
    )
    return _reply(history, (tool,)).text


DEPARTMENT = {"type": "string", "enum": ["sales", "billing", "support"]}
TRANSFER = _tool(
    "transfer_call", "Transfer the call to another department.", {"department": DEPARTMENT}, ["department"]
)
FLIGHT = _tool(
    "book_flight",
    "Book a flight.",
    {"origin": STRING, "destination": STRING, "date": {"type": "string", "format": "date"}},
    ["origin", "destination", "date"],
)


@pytest.mark.parametrize(
    ("words", "tool", "arguments", "output", "said"),
    [
        (
            "Transfer me to billing",
            TRANSFER,
            {"department": "billing"},
            '{"success": true}',
            "I've transferred the call to billing.",
        ),
        (
            "Forward the call to extension 204",
            _tool("forward_call", "Forward the call to an extension.", {"extension": STRING}, ["extension"]),
            {"extension": "204"},
            '{"status": "ok"}',
            "I've forwarded the call to 204.",
        ),
        (
            "Book a flight from Boston to Denver",
            FLIGHT,
            {"origin": "Boston", "destination": "Denver", "date": "2026-12-14"},
            '{"confirmation": "ABC123"}',
            # brk31: the day booked is said too
            "I've booked the flight from Boston to Denver on Monday, December 14. The confirmation is "
            "ABC123.",
        ),
        (
            "Send an SMS to 415 555 0199 saying I'm running late",
            SMS,
            {"to": "415 555 0199", "message": "I'm running late"},
            '{"status": "sent"}',
            "I've sent the text to 415 555 0199.",
        ),
    ],
)
def test_an_action_done_is_said_as_a_model_says_it(
    words: str, tool: ToolSpec, arguments: dict[str, object], output: str, said: str
) -> None:
    assert _answered(words, tool, arguments, output) == said


CONVERT = _tool(
    "convert_currency",
    "Convert an amount between currencies.",
    {"amount": {"type": "number"}, "from_currency": STRING, "to_currency": STRING},
    ["amount", "from_currency", "to_currency"],
)


@pytest.mark.parametrize(
    ("output", "said"),
    [
        (
            '{"amount": 100, "from": "USD", "to": "EUR", "result": 92.5, "rate": 0.925}',
            "100 USD is 92.5 EUR.",
        ),
        ('{"converted_amount": 92.5, "rate": 0.925}', "100 USD is 92.5 EUR."),
        ("92.5", "100 USD is 92.5 EUR."),
    ],
)
def test_a_conversion_says_the_amount_in_both_currencies(output: str, said: str) -> None:
    arguments = {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}
    assert _answered("Convert 100 dollars to euros", CONVERT, arguments, output) == said


@pytest.mark.parametrize(
    ("words", "source", "target"),
    [
        ("How much is 100 USD in EUR?", "USD", "EUR"),
        ("What's 100 GBP in dollars?", "GBP", "USD"),
        ("How much is 100 dollars in euros?", "USD", "EUR"),
    ],
)
def test_an_amount_asked_by_its_currency_code_is_converted(words: str, source: str, target: str) -> None:
    # was no call: "You asked how much is 100 USD in EUR. I don't know that one, sorry."
    assert _calls(_said(words, (CONVERT,))) == [
        ("convert_currency", {"amount": 100, "from_currency": source, "to_currency": target})
    ]


def test_a_price_asked_is_still_no_conversion() -> None:
    assert _said("How much is 100 USD in EUR?", ()).tool_calls == ()


# 5b. A location its description asks as "city and state" ("e.g. San Francisco, CA") is sent with the
# state of a well-known US city, as a model writes it; the reply names the city as a model says it.
CITY_AND_STATE = {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}
COOKBOOK_WEATHER = _tool(
    "get_current_weather", "Get the current weather", {"location": CITY_AND_STATE}, ["location"]
)
PLAIN_WEATHER = _tool(
    "get_current_weather",
    "Get the current weather",
    {"location": {"type": "string", "description": "The city"}},
    ["location"],
)


@pytest.mark.parametrize(
    ("words", "location"),
    [
        ("What's the weather in San Francisco?", "San Francisco, CA"),
        ("What's the weather in Chicago?", "Chicago, IL"),
        ("What's the weather in Austin, Texas?", "Austin, TX"),
        # an ambiguous town, or one abroad, is sent as said
        ("What's the weather in Springfield?", "Springfield"),
        ("What's the weather in Paris?", "Paris"),
    ],
)
def test_a_city_and_state_location_gets_the_state(words: str, location: str) -> None:
    assert _calls(_said(words, (COOKBOOK_WEATHER,))) == [("get_current_weather", {"location": location})]


def test_a_location_that_asks_no_state_is_sent_as_said() -> None:
    assert _calls(_said("What's the weather in San Francisco?", (PLAIN_WEATHER,))) == [
        ("get_current_weather", {"location": "San Francisco"})
    ]


def test_the_state_added_is_not_said_back() -> None:
    said = _answered(
        "What's the weather in San Francisco?",
        COOKBOOK_WEATHER,
        {"location": "San Francisco, CA"},
        '{"temperature": 61, "description": "foggy"}',
    )
    assert said == "It's 61 degrees and foggy in San Francisco."


# 4b. An availability lookup on a day: the day said as a model says it, not its ISO date read back.
AVAILABILITY = _tool(
    "check_availability",
    "Check appointment availability for a date.",
    {"date": {"type": "string", "format": "date"}},
    ["date"],
)


@pytest.mark.parametrize(
    ("words", "output", "said"),
    [
        (
            "Are there any openings on Saturday?",
            '{"date": "2026-12-12", "available": true, "slots": ["10:00", "14:00"]}',
            "Saturday, December 12 is available and there are 2 slots: 10:00 and 14:00.",
        ),
        (
            "Is Saturday available?",
            '{"available": true, "slots": ["10:00", "14:00"]}',
            "Saturday, December 12 is available and there are 2 slots: 10:00 and 14:00.",
        ),
    ],
)
def test_an_availability_on_a_day_says_the_day(words: str, output: str, said: str) -> None:
    assert _answered(words, AVAILABILITY, {"date": "2026-12-12"}, output) == said
