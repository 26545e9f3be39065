"""A skeptic's pass over brain15 (tests: near misses of its rules that it read wrong though its base,
e3d9fd76, read them right, or that it read wrong in the same class): a past "shipped" is no order to
ship, an alarm or a booking named only as a topic sets no half of the day, a dentist's booking is the
morning's, and an alarm's hour taken back is the other."""

from __future__ import annotations

from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario, utterance, values
from tests.brain_calls import TODAY, calls, tool

STRING = {"type": "string"}
TRACK = tool("track_order", "Track an order", {"order_id": STRING})
SHIP = tool("ship_order", "Ship an order to an address", {"order_id": STRING, "destination": STRING})
ALARM = tool("set_alarm", "Set an alarm", {"time": STRING})
REMINDER = tool("create_reminder", "Create a reminder", {"text": STRING, "time": STRING}, ["text"])
MEETING = tool("schedule_meeting", "Schedule a meeting", {"title": STRING, "time": STRING})
RESCHEDULE = tool("reschedule_booking", "Move a booking", {"date": STRING, "time": STRING})


@pytest.mark.parametrize("said", ["Has order 12345 shipped?", "Check the shipping status of order 12345"])
def test_shipped_or_shipping_is_no_order_to_ship(said: str) -> None:
    # brain15 asked ship_order's destination ("Where would you like to go?"): "shipped" and "shipping"
    # stem to "ship", which it counted as ship_order's own word said
    assert calls([TRACK, SHIP], said) == [("track_order", {"order_id": "12345"})]


@pytest.mark.parametrize(
    ("tools", "said", "arguments"),
    [
        # an alarm talked about is no alarm set: 15:00, brain15 03:00
        ([REMINDER], "Remind me about the alarm at 3", {"text": "alarm", "time": "15:00"}),
        ([MEETING], "Schedule a meeting about the alarm at 3", {"title": "alarm", "time": "15:00"}),
        # a dentist's or a barber's booking is the morning's: brain15 21:00 and 22:00
        ([RESCHEDULE], "Move my dentist booking to Saturday at 9", {"date": "2026-12-05", "time": "09:00"}),
        (
            [RESCHEDULE],
            "Move my haircut booking to Saturday at 10",
            {"date": "2026-12-05", "time": "10:00"},
        ),
        # what brain15 set right stays so
        ([RESCHEDULE], "Move my booking to Saturday at 8", {"date": "2026-12-05", "time": "20:00"}),
        ([ALARM], "Set an alarm at 8", {"time": "08:00"}),
        ([ALARM], "Set an alarm for 8", {"time": "08:00"}),
        ([ALARM], "Wake me up at 7", {"time": "07:00"}),
        ([ALARM], "Alarm at 6 please", {"time": "06:00"}),
    ],
)
def test_the_half_of_the_day_is_the_timed_things(tools: list[Any], said: str, arguments: Any) -> None:
    assert calls(tools, said) == [(tools[0].name, arguments)]


@pytest.mark.parametrize(
    ("said", "time"), [("Set an alarm for 7, no, 8", "08:00"), ("Set an alarm at 7, no, 8", "08:00")]
)
def test_an_alarms_hour_taken_back_is_the_other(said: str, time: str) -> None:
    # brain15 set 07:00 ("for 7" read as the alarm's time, the repair only after "at")
    assert calls([ALARM], said) == [("set_alarm", {"time": time})]


def summary(own: str, turns: tuple[tuple[str, str], ...]) -> str | None:
    history = tuple(TurnView(f"t{n}", kind, text) for n, (kind, text) in enumerate(turns))
    request = ReplyRequest("", (), "auto", ("text",), history, 0, response_instructions=own)
    return ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(request).text


def test_a_summary_in_words_of_greetings_only_says_so() -> None:
    # brain15 said "Nothing said yet." though the user had spoken, and "Help today." of the assistant's
    # greeting alone
    assert summary("Summarize in 3 words.", (("user_text", "Hi, thanks!"),)) == "Greetings exchanged only."
    assert summary("Summarize in 3 words.", (("assistant", "Hello! How can I help you today?"),)) == (
        "Greetings exchanged only."
    )
    assert summary("Summarize in 1 word.", (("user_text", "hi"), ("assistant", "Hello!"))) == "Greetings."
    assert summary("Summarize in 3 words.", ()) == "Nothing said yet."


def test_a_word_limit_is_the_summarys_own() -> None:
    # brain15 cut the summary to the five words the greeting was to take
    said = summary(
        "Summarize the conversation. Then greet the user in five words.",
        (("user_text", "My flight to Boston was cancelled and I need a refund"),),
    )
    assert said is not None and said.startswith("The user said"), said


def test_a_summary_in_words_skips_a_question_s_opening() -> None:
    # brain15: "Weather Paris about." ("What about …?" took "about" for a word of the topic)
    turns = (("user_text", "What's the weather in Paris?"), ("user_text", "What about in Paris tomorrow?"))
    assert summary("Summarize in 3 words.", turns) == "Weather Paris tomorrow."


UNITS = {"type": "string", "enum": ["metric", "imperial"]}


@pytest.mark.parametrize(
    ("tools", "said", "arguments"),
    [
        # brain15 filled units: imperial for any tool with a place in the US; a store's finder measures
        # nothing the user asked for (its base left it out)
        (
            [tool("find_store", "Find a store near a city", {"city": STRING, "units": UNITS}, ["city"])],
            "Find a store in Chicago",
            {"city": "Chicago"},
        ),
        (
            [tool("list_events", "List events in a city", {"city": STRING, "units": UNITS}, ["city"])],
            "What's on in Denver this weekend",
            None,
        ),
        # what is measured keeps the place's unit
        (
            [tool("get_weather", "Get the weather", {"city": STRING, "units": UNITS}, ["city"])],
            "weather in Chicago",
            {"city": "Chicago", "units": "imperial"},
        ),
        (
            [
                tool(
                    "get_directions",
                    "Get driving directions",
                    {"destination": STRING, "units": UNITS},
                    ["destination"],
                )
            ],
            "Directions to Dallas",
            {"destination": "Dallas", "units": "imperial"},
        ),
    ],
)
def test_an_optional_unit_only_for_what_is_measured(tools: list[Any], said: str, arguments: Any) -> None:
    made = calls(tools, said)
    if arguments is None:
        assert isinstance(made, str) or all("units" not in call[1] for call in made), made
    else:
        assert made == [(tools[0].name, arguments)]


@pytest.mark.parametrize(
    ("said", "time"),
    [
        # "o'clock" says no half of the day: these were 07:00, 03:00 and 08:00
        ("Book a table for two at 7 o'clock", "19:00"),
        ("Schedule a meeting about the budget at 3 o'clock", "15:00"),
        ("Book a table for two at 7 o'clock, no, 8", "20:00"),
        ("Set an alarm at 7 o'clock", "07:00"),
        ("Book a table for two at 7 o'clock in the morning", "07:00"),
    ],
)
def test_o_clock_is_a_bare_hour(said: str, time: str) -> None:
    found = [span.value for span in values.times(utterance.repaired(said))]
    assert found[:1] == [time], found
