"""brain15's readings, on the scripted participant alone (``tests/brain_calls``): a dictated message's
words, a tie between tools, a town and its state, an optional unit, an hour taken back or said bare, an
empty list, and a summary of so many words."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario, tasks, utterance, values
from tests.brain_calls import TODAY, WEATHER_CITY, WEATHER_LOCATION_UNIT, calls, tool
from tests.own_tools import structured_answer

STRING = {"type": "string"}
SEND = tool("send_message", "Send a message", {"recipient": STRING, "text": STRING})
TRACK = tool("track_order", "Track an order", {"order_id": STRING})
SHIP = tool("ship_order", "Ship an order to an address", {"order_id": STRING, "destination": STRING})
RIDE = tool("book_ride", "Book a ride", {"pickup": STRING, "dropoff": STRING})
UNITS = {"type": "string", "enum": ["metric", "imperial"]}
WEATHER_UNITS = tool("get_weather", "Get the weather", {"city": STRING, "units": UNITS}, ["city"])
TABLE = tool("book_table", "Book a table", {"time": STRING, "party_size": {"type": "integer"}})


@pytest.mark.parametrize(
    ("said", "text"),
    [
        ("Text Bob: turn on the lights", "turn on the lights"),
        ("Text Bob: please turn on the lights", "please turn on the lights"),
        ("Text Bob saying switch off the oven", "switch off the oven"),
        ("Text Bob: buy milk", "buy milk"),
    ],
)
def test_a_dictated_message_is_kept_as_said(said: str, text: str) -> None:
    assert calls([SEND], said) == [("send_message", {"recipient": "Bob", "text": text})]


@pytest.mark.parametrize("tools", [[TRACK, SHIP], [SHIP, TRACK]])
def test_ship_goes_to_ship_order_whatever_the_order(tools: list[Any]) -> None:
    assert calls(tools, "Ship order 12345 to Leeds") == [
        ("ship_order", {"order_id": "12345", "destination": "Leeds"})
    ]


def test_places_with_their_state() -> None:
    assert calls([RIDE], "Book a ride from Paris Texas to Dallas") == [
        ("book_ride", {"pickup": "Paris, TX", "dropoff": "Dallas"})
    ]
    assert calls([WEATHER_LOCATION_UNIT], "Weather for Paris Texas") == [
        ("get_weather", {"location": "Paris, TX", "unit": "fahrenheit"})
    ]
    assert calls([WEATHER_CITY], "Weather for Austin Texas please") == [("get_weather", {"city": "Austin"})]
    # "for" before a name is a person's still, when no weather is asked
    assert calls([TABLE], "Book a table for Florence Georgia at 8") != []


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        ("weather in Paris, Texas", {"city": "Paris", "units": "imperial"}),
        ("weather in Chicago", {"city": "Chicago", "units": "imperial"}),
        ("weather in London", {"city": "London"}),
        ("weather in Chicago in metric", {"city": "Chicago", "units": "metric"}),
        ("weather in Paris and Denver", None),  # one call per place, each its own
    ],
)
def test_an_optional_unit_only_a_us_place_fills(said: str, arguments: Any) -> None:
    made = calls([WEATHER_UNITS], said)
    if arguments is None:
        assert made == [
            ("get_weather", {"city": "Paris"}),
            ("get_weather", {"city": "Denver", "units": "imperial"}),
        ]
    else:
        assert made == [("get_weather", arguments)]


@pytest.mark.parametrize(
    ("said", "repaired"),
    [
        # written as the hour taken back was (brain16: "eight pm" and "6:30 am" before)
        ("a table for 7pm, no, eight", "a table for 8pm"),
        ("an alarm for 7am, no wait, 6:30", "an alarm for 6:30am"),
        ("a table at 7 pm, sorry, 8pm", "a table at 8pm"),
        ("a timer for 10 minutes, no, 15", "a timer for 15 minutes"),
        ("a table for 6 at 7, no, 8", "a table for 6 at 8"),
        ("at 5, sorry, at 6", "at 6"),
        ("at 7, no, 8 people", "at 7, no, 8 people"),
    ],
)
def test_an_hour_taken_back_keeps_its_half_of_the_day(said: str, repaired: str) -> None:
    assert utterance.repaired(said) == repaired


@pytest.mark.parametrize(
    ("said", "time"),
    [
        ("Move my booking to Saturday at 8", "20:00"),
        ("dinner at 9", "21:00"),
        ("Set an alarm at 6", "06:00"),
        ("Set an alarm for 7", "07:00"),
        ("Wake me up at 8", "08:00"),
        ("Call me at 3", "15:00"),
        ("Call me at 9", "09:00"),
    ],
)
def test_a_bare_hour_by_what_it_is_for(said: str, time: str) -> None:
    assert [span.value for span in values.times(said)] == [time]


def test_a_table_for_a_number_is_still_its_party() -> None:
    assert [span.value for span in values.times("Book a table for 7")] == []


@pytest.mark.parametrize(
    "said", ["I don't have any hobbies", "I have no hobbies", "I do not have any real hobbies", "no hobbies"]
)
def test_no_hobbies_is_an_empty_list(said: str) -> None:
    schema = {
        "type": "object",
        "properties": {"hobbies": {"type": "array", "items": STRING}},
        "required": ["hobbies"],
        "additionalProperties": False,
    }
    assert structured_answer(said, schema) == {"hobbies": []}


def summary(own: str, *turns: str) -> str | None:
    history = tuple(
        TurnView(f"t{n}", "user_text" if n % 2 == 0 else "assistant", text) for n, text in enumerate(turns)
    )
    request = ReplyRequest("", (), "auto", ("text",), history, 0, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request).text


@pytest.mark.parametrize(
    ("own", "words"),
    [
        ("Summarize in 3 words.", 3),
        ("Summarize the conversation in three words.", 3),
        ("Give a two-word summary of the conversation.", 2),
        ("Summarize in no more than five words.", 5),
        ("Sum it up in one word.", 1),
    ],
)
def test_a_summary_in_so_many_words(own: str, words: int) -> None:
    said = summary(
        own,
        "Hi, I'd like to book a table for two tomorrow at 7pm",
        "Sure, it's booked.",
        "Add a birthday cake",
    )
    assert said is not None and len(said.rstrip(".").split()) == words, said
    assert tasks._word_limit(own) == words


def test_a_summary_in_three_words_reads_the_users_words() -> None:
    assert summary("Summarize in 3 words.", "I'd like to book a table for two tomorrow at 7pm") == (
        "Book table tomorrow."
    )
    assert summary("Summarize in 3 words.") == "Nothing said yet."
