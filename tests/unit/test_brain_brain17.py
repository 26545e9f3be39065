"""brain17: five cases the scripted participant read as no model would (each failed on 267f230c): a
table asked of ``make_reservation`` / ``book_restaurant`` left uncalled, a list of hobbies after "Save my
hobbies: I like …" asked for, a forced hobbies tool sent its name's word, a ``json_schema`` ``age``
nobody said drawn at random, and "Remind me to make a booking" asked what to remind of."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import ForcedTool, ToolSpec
from tests.brain_calls import TODAY, calls, tool
from tests.own_tools import structured_answer

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
HOBBIES = {"type": "array", "items": STRING}
TABLE = {"party_size": INTEGER, "time": STRING}


def forced(spec: ToolSpec, text: str) -> dict[str, Any]:
    """The arguments of the call ``tool_choice`` forces to ``spec`` for ``text`` (seed 3)."""
    items = (TurnView("u", "user_text", text),)
    reply = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest("", (spec,), ForcedTool(spec.name), ("text",), items, 0)
    )
    [call] = reply.tool_calls
    return dict(json.loads(call.arguments))


# -- 1. a table asked of a tool whose description says it reserves one


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("make_reservation", "Reserve a table at a restaurant"),  # "table" was a plain description word
        ("book_restaurant", "Reserve a table at a restaurant"),
        ("book_restaurant", "Book a restaurant"),  # a table asked for where no tool has one: a restaurant's
        ("book_table", "Book a table"),  # kept
    ],
)
@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        ("Can I get a table for four tonight at 8?", {"party_size": 4, "time": "20:00"}),
        ("I'd like a table for two at 7", {"party_size": 2, "time": "19:00"}),
    ],
)
def test_a_table_asked_of_a_tool_that_reserves_one(
    name: str, description: str, said: str, arguments: dict[str, Any]
) -> None:
    assert calls([tool(name, description, TABLE)], said) == [(name, arguments)]


def test_a_table_goes_to_the_tool_that_reserves_it_among_others() -> None:
    tools = [
        tool("get_menu", "Get today's menu", {}),
        tool("cancel_reservation", "Cancel a reservation", {"reservation_id": STRING}),
        tool("make_reservation", "Reserve a table at a restaurant", TABLE),
    ]
    assert calls(tools, "Can I get a table for four tonight at 8?") == [
        ("make_reservation", {"party_size": 4, "time": "20:00"})
    ]


def test_the_thing_a_leaving_tool_names_asks_for_no_leaving() -> None:
    # only a verb that makes or gets a thing: "get me into the call" is no "Leave the call"
    leave = tool("leave_meeting", "Leave the call. The host can end it for everyone.", {})
    assert isinstance(calls([leave], "get me into the call would you"), str)


# -- 2. "Save my hobbies: I like chess and hiking"


SAVE_HOBBIES = tool("save_hobbies", "Save the user's hobbies", {"hobbies": HOBBIES})


@pytest.mark.parametrize(
    ("said", "hobbies"),
    [
        ("Save my hobbies: I like chess and hiking", ["chess", "hiking"]),  # asked "What hobbies …?"
        ("Save my hobbies: I really enjoy chess, hiking and painting", ["chess", "hiking", "painting"]),
        ("Save my hobbies: chess and hiking", ["chess", "hiking"]),  # kept
    ],
)
def test_a_list_after_a_colon_and_a_verb_of_liking(said: str, hobbies: list[str]) -> None:
    assert calls([SAVE_HOBBIES], said) == [("save_hobbies", {"hobbies": hobbies})]


def test_a_list_after_a_colon_follows_the_phrases_before_it() -> None:
    # was ["shopping list eggs", "milk"] on 267f230c, then ["shopping list", "milk"] with the colon alone
    add = tool("add_items", "Add items to the shopping list", {"items": HOBBIES})
    assert calls([add], "Add to my shopping list: eggs and milk") == [
        ("add_items", {"items": ["eggs", "milk"]})
    ]


# -- 3. a forced hobbies tool takes the hobbies said, not its name's word


@pytest.mark.parametrize(
    "said",
    [
        "My hobbies are chess and hiking",  # was ["Hobbies"]
        "I like chess and hiking",  # was ["Hobbies"]
        "Save my hobbies: I like chess and hiking",
    ],
)
def test_a_forced_hobbies_tool_takes_the_hobbies_said(said: str) -> None:
    assert forced(SAVE_HOBBIES, said) == {"hobbies": ["chess", "hiking"]}


def test_a_forced_list_with_nothing_said_is_still_filled() -> None:  # kept: a value it must have
    assert forced(SAVE_HOBBIES, "hello there") == {"hobbies": ["Hobbies"]}


# -- 4. a json_schema field nobody said


def test_an_age_nobody_said_is_neutral_or_null() -> None:
    required = {
        "type": "object",
        "properties": {"name": STRING, "age": INTEGER},
        "required": ["name", "age"],
        "additionalProperties": False,
    }
    assert structured_answer("I'm Ana", required) == {"name": "Ana", "age": 0}  # was a drawn 1 or 6
    nullable = {**required, "properties": {"name": STRING, "age": {"type": ["integer", "null"]}}}
    assert structured_answer("I'm Ana", nullable) == {"name": "Ana", "age": None}
    adult = {**required, "properties": {"name": STRING, "age": {"type": "integer", "minimum": 18}}}
    assert structured_answer("I'm Ana", adult) == {"name": "Ana", "age": 18}  # the bound nearest 0
    assert structured_answer("I'm Ana and I'm 31", required) == {"name": "Ana", "age": 31}  # kept


def test_a_reply_field_keeps_the_replys_words_even_when_nullable() -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": ["string", "null"]}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    assert structured_answer("hello", schema, reply="Hi there.") == {"answer": "Hi there."}


# -- 5. what a reminder reminds of keeps the tool's own verbs


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("create_reminder", "Create a reminder"),  # asked "What should it say?"
        ("make_reminder", "Make a reminder"),
        ("set_reminder", "Set a reminder"),  # kept
    ],
)
@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        ("Remind me to make a booking", {"text": "make a booking"}),
        ("Remind me to create an invoice", {"text": "create an invoice"}),  # was "invoice"
        ("Remind me at 8 to make a booking", {"text": "make a booking", "time": "08:00"}),
    ],
)
def test_a_reminder_of_the_tools_own_verb(name: str, description: str, said: str, arguments: Any) -> None:
    reminder = tool(name, description, {"text": STRING, "time": STRING}, ["text"])
    assert calls([reminder], said) == [(name, arguments)]


def test_a_required_time_unsaid_is_asked_for() -> None:
    reminder = tool("create_reminder", "Create a reminder", {"text": STRING, "time": STRING})
    answer = calls([reminder], "Remind me to make a booking")
    assert isinstance(answer, str) and "time" in answer.lower(), answer
