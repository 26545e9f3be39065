"""Found by a framework user (stop brk30) declaring their own tools in LiveKit's and Pipecat's shapes.

"Add two bagels and a coffee to my cart" to ``add_to_cart(items: [{name, quantity}])`` dropped the coffee
(its article said one, but the cart's words followed it); "Find a cheap Italian place in Soho" to a search
with an optional ``cuisine`` left the cuisine out once the place filled ``location``; "Switch my language
to Spanish and turn off notifications" to ``update_preferences(preferences: {language, notifications})``
made no call (the tool's words inside its object parameter were never read as its own)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import Reply, ToolSpec

MONDAY = date(2026, 12, 7)
STRING = {"type": "string"}
INTEGER = {"type": "integer"}


def _tool(name: str, description: str, properties: dict[str, object], required: list[str]) -> ToolSpec:
    return ToolSpec(name, description, {"type": "object", "properties": properties, "required": required})


def _reply(history: tuple[TurnView, ...], tools: tuple[ToolSpec, ...]) -> Reply:
    request = ReplyRequest("", tools, "auto", ("text",), history, 0)
    return ScriptedBrain(load_scenario(None), 3, today=MONDAY).reply(request)


def _calls(reply: Reply) -> list[tuple[str | None, dict[str, object]]]:
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


def _said(words: str, tools: tuple[ToolSpec, ...]) -> Reply:
    return _reply((TurnView("u1", "user_text", words),), tools)


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
