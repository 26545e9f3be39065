"""Round 8's rules for generalizing, each on sentences of no labelled set and a made-up app (a library,
a boiler, a bird log): questions of what is so reach a lookup and never a change, their frame fills no
value; WordNet's verbs and phrasal verbs; stopping is not pausing; a flag set by the tool's own verb;
ranges of dates; past days; general advice, remarks and stories call nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import acting, lexicon, questions, ranges, values
from mockengine.brain.model import ToolSpec
from mockengine.brain.referents import Referent
from tests.unit.made_up_apps import STRING, TODAY, tool

_STR = STRING
_DATE = {"type": "string", "format": "date"}


LIBRARY = [
    tool("search_catalogue", "Search the library's books.", {"query": _STR}, ("query",)),
    tool("my_loans", "List the books the user has borrowed and when they are due.", {}),
    tool("renew_loan", "Renew a borrowed book for two more weeks.", {"title": _STR}, ("title",)),
    tool("reserve_book", "Put a hold on a book that is out.", {"title": _STR}, ("title",)),
    tool(
        "reading_history",
        "Titles returned in a period.",
        {"date_from": _DATE, "date_to": _DATE, "author": _STR},
    ),
]
BOILER = [
    tool("boiler_status", "Current water temperature and whether the boiler is heating.", {}),
    tool("stop_boiler", "Switch the boiler off until it is started again.", {}),
    tool(
        "boiler_control",
        "Pause or resume the heating programme.",
        {"action": {"type": "string", "enum": ["pause", "resume"]}},
        ("action",),
    ),
    tool(
        "mute_alarms",
        "Silence the boiler's fault beeps.",
        {"muted": {"type": "boolean"}, "note": _STR},
        ("muted",),
    ),
]
BIRDS = [
    tool(
        "log_sighting",
        "Record a bird seen.",
        {"species": _STR, "count": {"type": "integer", "minimum": 0}, "date": _DATE},
        ("species",),
    ),
    tool("sightings", "Birds seen on a day.", {"date": _DATE}),
]


def plan(said: str, tools: list[ToolSpec]) -> list[tuple[str, dict[str, Any]]]:
    decided = acting.plan(said, tools, Referent(), TODAY)
    return [(a.call.name, json.loads(a.call.arguments)) for a in decided.actions] if decided else []


def names(said: str, tools: list[ToolSpec]) -> list[str]:
    return [name for name, _ in plan(said, tools)]


@pytest.mark.parametrize(
    ("said", "tool"),
    [
        ("what have I borrowed at the moment?", "my_loans"),
        ("when are my books due back?", "my_loans"),
        ("is the boiler actually heating right now?", "boiler_status"),
        ("how hot is the water so far?", "boiler_status"),
    ],
)
def test_a_question_of_what_is_so_reaches_a_lookup(said: str, tool: str) -> None:
    assert names(said, LIBRARY + BOILER) == [tool]


def test_a_question_reaches_no_tool_that_changes_something() -> None:
    # "renew" is named, but the question asks what is so; the lookup that lists loans answers it
    assert names("which of my books did I renew?", LIBRARY) in ([], ["my_loans"])
    assert "renew_loan" not in names("what's due back this week?", LIBRARY)


def test_the_frame_of_a_question_fills_no_value() -> None:
    assert questions.without_frame("how many books by Le Guin have I actually got?") == "books by Le Guin ?"
    assert questions.without_frame("is the 73 running okay this morning?") == "the 73 this morning?"
    assert questions.without_frame("can you find Dune?") == "can you find Dune?"  # a request, not a question
    assert not questions.looks_up("could you tell me what's due?")
    assert not questions.looks_up("did I leave it on? switch it off anyway")


@pytest.mark.parametrize(
    "said",
    [
        "what temperature should a boiler be set to?",
        "are smart thermostats worth it?",
        "the old boiler I bought in 2019 packed in after a week",
        "the readings look really odd on the screen",
    ],
)
def test_general_advice_remarks_and_stories_call_nothing(said: str) -> None:
    assert names(said, LIBRARY + BOILER) == []


def test_wordnet_verbs_and_phrasal_verbs_reach_the_tool_verb() -> None:
    assert lexicon.concept("purchase") == lexicon.concept("buy")
    assert lexicon.concept("commence") == lexicon.concept("start")
    assert lexicon.rewrite("they called it off") == "they cancel it"
    assert "cancel" in lexicon.rewrite("the match was called off")
    assert lexicon.rewrite("she switched off the fan") == "she off the fan"


def test_stopping_is_not_pausing_but_implies_it() -> None:
    assert names("hold the heating for now", BOILER) == ["boiler_control"]
    assert plan("hold the heating for now", BOILER)[0][1] == {"action": "pause"}
    assert names("stop the boiler", BOILER) == ["stop_boiler"]
    pausing_only = [t for t in BOILER if t.name == "boiler_control"]
    assert plan("stop the heating", pausing_only) == [("boiler_control", {"action": "pause"})]


def test_a_required_flag_set_by_the_tools_own_verb() -> None:
    assert plan("mute the beeping", BOILER) == [("mute_alarms", {"muted": True})]
    assert plan("unmute the alarms", BOILER) == [("mute_alarms", {"muted": False})]


def test_a_range_of_dates_fills_both_ends() -> None:
    assert plan("what did I return between February the first and the seventh", LIBRARY) == [
        ("reading_history", {"date_from": "2026-02-01", "date_to": "2026-02-07"})
    ]
    got = plan("show me what I returned from January", LIBRARY)
    assert got == [("reading_history", {"date_from": "2026-01-01", "date_to": "2026-01-31"})]
    assert ranges.date_range("since the 3rd of March", TODAY) is not None


def test_past_days_and_no_count() -> None:
    assert [s.value for s in values.dates("yesterday", TODAY)] == ["2026-03-01"]
    assert [s.value for s in values.dates("last friday", TODAY)] == ["2026-02-27"]
    assert [s.value for s in values.dates("the day before yesterday", TODAY)] == ["2026-02-28"]
    assert plan("log a robin, I saw it yesterday", BIRDS)[0][1]["date"] == "2026-03-01"
    assert plan("log a heron sighting, no count", BIRDS)[0][1].get("count") == 0


def test_the_same_apps_still_act_on_requests() -> None:
    assert names("renew Piranesi for me", LIBRARY) == ["renew_loan"]
    assert names("put a hold on The Dispossessed", LIBRARY) == ["reserve_book"]
    assert names("pause the heating", BOILER) == ["boiler_control"]


GATES = [
    tool(
        "gate_control",
        "Open or close a gate.",
        {
            "gate": {"type": "string", "enum": ["north", "south", "yard"]},
            "action": {"type": "string", "enum": ["open", "close"]},
        },
        ("gate", "action"),
    ),
    tool(
        "show_camera",
        "Show a camera feed.",
        {"camera": {"type": "string", "description": "Camera name, or 'none' to clear the screen"}},
        ("camera",),
    ),
    tool(
        "set_fan",
        "Set a fan's speed.",
        {"speed": {"type": "integer", "minimum": 0, "maximum": 5}, "room": _STR},
        ("speed",),
    ),
    tool("next_deliveries", "Deliveries expected at the gates.", {"gate": _STR}),
]


def test_options_said_in_a_row_are_one_call_each() -> None:
    assert plan("close the north and the yard", GATES) == [
        ("gate_control", {"gate": "north", "action": "close"}),
        ("gate_control", {"gate": "yard", "action": "close"}),
    ]


def test_a_value_the_description_clears_with() -> None:
    assert plan("get rid of the camera", GATES) == [("show_camera", {"camera": "none"})]


def test_a_place_set_to_a_value_is_the_place() -> None:
    assert plan("set the workshop to three", GATES) == [("set_fan", {"speed": 3, "room": "workshop"})]


def test_a_tool_named_for_what_it_reports_is_a_lookup() -> None:
    assert names("anything coming to the south gate today?", GATES) == ["next_deliveries"]


def test_everyday_idioms() -> None:
    assert lexicon.rewrite("I'm not a fan of this one") == "dislike this one"
    assert lexicon.rewrite("throw on some Miles Davis") == "play some miles davis"
    assert lexicon.rewrite("make this one sepia") == "set this one sepia"
    assert "unlock" in lexicon.rewrite("let her into the yard")
    assert [s.value for s in values.numbers("1,500 steps")] == [1500]
    assert values.times("set it at twelve thousand") == []


def test_british_half_hours_parts_and_told_reasons() -> None:
    assert [s.value for s in values.times("meet me at half six in the evening")] == ["18:30"]
    assert [s.value for s in values.times("done by half nine")] == ["09:30"]
    assert plan("cancel my refill of Piranesi, I found my own copy", LIBRARY) == []  # no cancel tool
    assert names("renew Piranesi, I haven't finished it yet", LIBRARY) == ["renew_loan"]
    assert names("reserve The Dispossessed, I lost my copy", LIBRARY) == ["reserve_book"]


def test_inflected_hand_phrases_and_general_service_questions() -> None:
    assert lexicon.rewrite("I've ticked off the gas bill") == "i've complete the gas bill"
    assert "remove" in lexicon.rewrite("get the dentist off my calendar")
    assert questions.general("how long does delivery take?")
    assert not questions.general("how long does my order take to arrive?")
    assert names("how long does a renewal take?", LIBRARY) == []


GYM = [
    tool(
        "book_class",
        "Book a place in a fitness class.",
        {"class_name": _STR, "date": _DATE},
        ("class_name", "date"),
    ),
    tool("cancel_class", "Cancel a class booking.", {"class_name": _STR}, ("class_name",)),
    tool("class_schedule", "Classes on a day.", {"date": _DATE}),
]


def test_a_name_whose_later_word_is_a_verb_too_still_reports() -> None:
    assert names("what classes are on tomorrow?", GYM) == ["class_schedule"]


def test_signing_up_what_cannot_be_done_and_into() -> None:
    assert plan("sign me up for boxing next monday", GYM) == [
        ("book_class", {"class_name": "boxing", "date": "2026-03-09"})
    ]
    assert plan("I can't make yoga any more, drop it", GYM) == [("cancel_class", {"class_name": "yoga"})]
    assert plan("book me into spin on friday", GYM) == [
        ("book_class", {"class_name": "spin", "date": "2026-03-06"})
    ]


def test_a_value_its_description_quotes() -> None:
    episode = {"type": "string", "description": "'latest' or a title"}
    podcast = [tool("play_episode", "Play a podcast episode.", {"show": _STR, "episode": episode}, ("show",))]
    assert plan("put on the latest Hard Fork", podcast) == [
        ("play_episode", {"episode": "latest", "show": "Hard Fork"})
    ]
