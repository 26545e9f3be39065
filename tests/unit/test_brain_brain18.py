"""brain18: seven cases a new user found read as no model would (each failed on b3fd23bf): a statement
of hobbies to a tool that saves them left uncalled, "Save my hobbies, I love …" asked for, a
``json_schema`` ``name`` nobody said filled with the reply's sentence, "Add eggs and milk to my
groceries list" asked for its items, an image alone not heard, a forced city taken from small talk, and
instructions it cannot follow after an answer answered with the last answer again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import ForcedTool, ImageFacts, ToolChoice, ToolSpec
from tests.brain_calls import TODAY, calls, tool
from tests.own_tools import structured_answer

STRING = {"type": "string"}
LIST = {"type": "array", "items": STRING}
SAVE_HOBBIES = tool("save_hobbies", "Save the user's hobbies", {"hobbies": LIST})


def reply(
    history: list[TurnView], tools: tuple[ToolSpec, ...] = (), choice: ToolChoice = "auto", own: str = ""
):
    """The brain's reply to ``history`` (default scenario, seed 3, ``TODAY``)."""
    return ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest("", tools, choice, ("text",), tuple(history), 1, response_instructions=own)
    )


# -- 1. a statement of what a tool keeps is kept


@pytest.mark.parametrize(
    "description",
    ["Save the user's hobbies", "Remember the user's hobbies and preferences when they mention them"],
)
@pytest.mark.parametrize(
    ("said", "hobbies"),
    [
        ("My hobbies are chess and hiking", ["chess", "hiking"]),  # "You said my hobbies are …"
        ("I love chess and hiking", ["chess", "hiking"]),
        ("I really enjoy chess, hiking and painting", ["chess", "hiking", "painting"]),
    ],
)
def test_a_statement_of_what_a_tool_keeps_is_kept(description: str, said: str, hobbies: list[str]) -> None:
    save = tool("save_hobbies", description, {"hobbies": LIST})
    assert calls([save], said) == [("save_hobbies", {"hobbies": hobbies})]


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        ([SAVE_HOBBIES], "My hobbies are not chess and hiking"),  # denied
        ([SAVE_HOBBIES], "I don't like chess and hiking"),
        ([SAVE_HOBBIES], "Are my hobbies chess and hiking?"),  # asked
        (
            [tool("get_hobby_ideas", "Suggest new hobbies", {"hobbies": LIST})],
            "My hobbies are chess and hiking",
        ),
        ([tool("save_contact", "Save a contact", {"contact_name": STRING})], "I love chess and hiking"),
        ([tool("find_store", "Find a store near the user", {"city": STRING})], "My city is Paris"),  # a noun
    ],
)
def test_what_no_tool_keeps_is_talked_of(tools: list[ToolSpec], said: str) -> None:
    assert isinstance(calls(tools, said), str)


def test_a_value_stated_to_a_tool_not_named_for_it() -> None:
    # what follows "my hobbies are", not "are chess"
    update = tool("update_profile", "Use this tool to store the user's hobbies", {"hobbies": LIST})
    assert calls([update], "My hobbies are chess and hiking") == [
        ("update_profile", {"hobbies": ["chess", "hiking"]})
    ]
    save_name = tool("save_user_name", "Save the user's name", {"name": STRING})
    assert calls([save_name], "My name is John") == [("save_user_name", {"name": "John"})]


# -- 2. a comma before the speaker's verb of liking gives the things, as a colon does


@pytest.mark.parametrize(
    "said",
    [
        "Save my hobbies, I love chess and hiking",  # asked "What hobbies would you like?"
        "Save my hobbies, I like chess and hiking",
        "Please save my hobbies, we really enjoy chess and hiking",
    ],
)
def test_a_comma_before_what_the_speaker_likes(said: str) -> None:
    assert calls([SAVE_HOBBIES], said) == [("save_hobbies", {"hobbies": ["chess", "hiking"]})]


# -- 3. a json_schema name nobody said


def _profile(name: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"name": name, "hobbies": LIST},
        "required": ["name", "hobbies"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("name", "written"),
    [
        (STRING, "unknown"),  # was the reply's sentence
        ({"type": ["string", "null"]}, None),  # kept
    ],
)
def test_a_name_nobody_said(name: Any, written: Any) -> None:
    answer = structured_answer("I like chess and hiking", _profile(name))
    assert answer == {"name": written, "hobbies": ["chess", "hiking"]}


def test_a_field_for_the_reply_keeps_its_words_and_a_name_said_is_taken() -> None:
    schema = {
        "type": "object",
        "properties": {"answer": STRING, "city": STRING, "email": STRING},
        "required": ["answer", "city", "email"],
    }
    said = structured_answer("hello", schema, reply="Hi there.")
    assert said == {"answer": "Hi there.", "city": "unknown", "email": "unknown"}
    assert structured_answer("I'm Ana, I like chess", _profile(STRING))["name"] == "Ana"


# -- 4. the things added to a list the request names by its role


@pytest.mark.parametrize(
    ("properties", "required", "arguments"),
    [
        ({"list_name": STRING, "items": LIST}, None, {"list_name": "groceries", "items": ["eggs", "milk"]}),
        ({"items": LIST, "list_name": STRING}, None, {"items": ["eggs", "milk"], "list_name": "groceries"}),
        ({"items": LIST}, None, {"items": ["eggs", "milk"]}),
    ],
)
def test_things_added_to_a_named_list(properties: dict[str, Any], required: Any, arguments: Any) -> None:
    add = tool("add_to_list", "Add items to a list", properties, required)
    # "What items would you like?" where ``list_name`` came first
    assert calls([add], "Add eggs and milk to my groceries list") == [("add_to_list", arguments)]


def test_a_booking_for_a_day_still_asks_for_the_name() -> None:  # kept: "for Friday" is no name
    book = tool("book_table", "Book a table at a restaurant.", {"restaurant": STRING, "name": STRING})
    assert isinstance(calls([book], "Book a table for Friday at Luigi's"), str)


# -- 5. an image alone


@pytest.mark.parametrize(
    ("rgb_facts", "said"),
    [
        (ImageFacts(40, 30, "red", 0.9, 0.5), "I can see an image, mostly red."),
        (ImageFacts(40, 30, "blue", 0.9, 0.1), "I can see a dark image, mostly blue."),
        (ImageFacts(40, 30, "white", 0.9, 0.95), "I can see a bright image, mostly white."),
    ],
)
def test_an_image_alone_is_described(rgb_facts: ImageFacts, said: str) -> None:
    # was "Sorry, I didn't catch that. Could you say it again?"
    answer = reply([TurnView("u", "user_text", "", images=(rgb_facts,))])
    assert answer.text == f"{said} What would you like to know about it?"
    assert answer.rule == "builtin.image_shown"


def test_words_with_an_image_are_still_answered() -> None:  # kept
    red = ImageFacts(40, 30, "red", 0.9, 0.5)
    assert reply([TurnView("u", "user_text", "What colour is this?", images=(red,))]).text in (
        "It's red.",
        "The image is red.",
    )
    assert reply([TurnView("u", "user_text", "")]).rule == "builtin.not_heard"  # no image, no words


# -- 6. a forced city after small talk


WEATHER = tool("get_weather", "Get the current weather for a city", {"city": STRING})


@pytest.mark.parametrize("choice", [ForcedTool("get_weather"), "required"])
@pytest.mark.parametrize(
    ("earlier", "city"),
    [
        ("I'm Sam", "London"),  # was "Sam": the documented plausible city instead
        ("I love my dog", "London"),  # was "love my dog"
        ("I like pizza", "London"),  # was "pizza"
        ("My sister lives in Berlin", "Berlin"),  # kept: a place said
        ("what's the weather in Paris?", "Paris"),  # kept: asked of the tool
        ("Paris", "Paris"),  # kept: a city given alone
        ("I'm in Tromsø this week", "Tromsø"),  # kept: said as a place
    ],
)
def test_a_forced_city_after_small_talk(choice: ToolChoice, earlier: str, city: str) -> None:
    history = [
        TurnView("u0", "user_text", earlier),
        TurnView("a0", "assistant", "Nice."),
        TurnView("u1", "user_text", "how are you?"),
    ]
    [call] = reply(history, (WEATHER,), choice).tool_calls
    assert json.loads(call.arguments) == {"city": city}


def test_a_forced_city_said_now_is_no_person() -> None:
    [call] = reply([TurnView("u", "user_text", "I'm Sam")], (WEATHER,), "required").tool_calls
    assert json.loads(call.arguments) == {"city": "London"}  # was "Sam"


# -- 7. a response's own instructions after an answer


ANSWERED = [
    TurnView("u", "user_text", "What is the capital of France?"),
    TurnView("a", "assistant", "Paris is the capital of France."),
]


@pytest.mark.parametrize(
    ("own", "said"),
    [
        ("Say hello to the user in French", "Bonjour ! Je suis Sam. Comment puis-je vous aider ?"),
        ("Greet the user in Spanish.", "¡Hola! Soy Sam. ¿En qué puedo ayudarte?"),
        ("Do the thing we discussed", "Sure. What else can I help you with?"),  # said the answer again
        ("Handle it.", "Sure. What else can I help you with?"),
    ],
)
def test_own_instructions_after_an_answer(own: str, said: str) -> None:
    assert reply(ANSWERED, own=own).text == said


@pytest.mark.parametrize("own", ["Be brief.", "Speak like a pirate.", "Respond in a friendly tone."])
def test_instructions_that_only_shape_the_reply_keep_the_answer(own: str) -> None:  # kept
    assert "Paris" in (reply(ANSWERED, own=own).text or "")


def test_instructions_before_anything_was_said_shape_the_opening() -> None:  # kept
    assert reply([], own="Do the thing we discussed").rule != "instructions.acknowledged"
