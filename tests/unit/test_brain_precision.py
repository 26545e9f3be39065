"""Round 7's precision rules, each on sentences of no labelled set and a made-up app: stories told,
things already done, general knowledge and how-to questions, thinking aloud and "I don't want to …" call
nothing; the same app still acts on a request."""

from __future__ import annotations

from datetime import date

import pytest

from mockengine.brain import acting, scalars, utterance
from mockengine.brain.model import ToolSpec
from mockengine.brain.referents import Referent

TODAY = date(2026, 3, 2)
_STR = {"type": "string"}
GARAGE = [
    ToolSpec("get_door_status", "Whether the garage door is open.", {"type": "object", "properties": {}}),
    ToolSpec(
        "close_door",
        "Close the garage door.",
        {"type": "object", "properties": {"door": {"type": "string", "enum": ["garage", "gate"]}}},
    ),
    ToolSpec(
        "log_repair",
        "Record a repair done on the car.",
        {"type": "object", "properties": {"part": _STR}, "required": ["part"]},
    ),
]


def calls(said: str) -> list[str]:
    decided = acting.plan(said, GARAGE, Referent(), TODAY)
    return [a.call.name for a in decided.actions] if decided else []


@pytest.mark.parametrize(
    "said",
    [
        "I already closed the gate myself",
        "I got a flat tyre on the motorway yesterday",
        "I totally forgot the garage was open last night",
        "what's the best way to fix a squeaky door?",
        "what's the difference between a gate and a door?",
        "how do I reset the opener?",
        "is leaving the door open bad for the heating?",
        "can I add more than one door in here?",
        "I'm not sure which door to close yet",
        "I don't want to close it yet, I'm still working",
    ],
)
def test_no_request_calls_nothing(said: str) -> None:
    assert calls(said) == []


def test_the_same_app_still_acts_on_requests() -> None:
    assert calls("please close the gate") == ["close_door"]
    assert calls("is the garage door open?") == ["get_door_status"]


def test_reasons_given() -> None:
    assert utterance.not_asking("I'm not sure which one yet") == "thinking aloud"
    assert utterance.not_asking("I don't want to pay yet") == "a request not to act"
    assert utterance.past_event("I completely missed the bus") == "missed"


RECIPES = [
    ToolSpec(
        "find_recipe",
        "Search recipes.",
        {"type": "object", "properties": {"query": _STR}, "required": ["query"]},
    ),
    ToolSpec(
        "set_timer",
        "Start a timer.",
        {"type": "object", "properties": {"minutes": {"type": "integer"}}, "required": ["minutes"]},
    ),
]


def test_a_how_to_question_changes_nothing() -> None:
    assert acting.plan("how do I set a timer?", RECIPES, Referent(), TODAY) is None
    found = acting.plan("can you set a timer for ten minutes?", RECIPES, Referent(), TODAY)
    assert found is not None and [a.call.name for a in found.actions] == ["set_timer"]


def test_dim_a_bit_is_a_degree_not_a_name() -> None:
    lights = [
        ToolSpec(
            "set_light",
            "Turn a room's light on or off.",
            {
                "type": "object",
                "properties": {"room": _STR, "state": {"type": "string", "enum": ["on", "off"]}},
                "required": ["room", "state"],
            },
        )
    ]
    found = acting.plan("turn the lights off a bit", lights, Referent(), TODAY)
    assert found is not None and found.question is not None and not found.actions


STABLE = [
    ToolSpec(
        "book_farrier",
        "Book the farrier for a horse.",
        {
            "type": "object",
            "properties": {"horse_owner": _STR, "date": {"type": "string", "format": "date"}, "reason": _STR},
            "required": ["horse_owner", "date"],
        },
    )
]


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        (
            "Bella needs new shoes, book the farrier for her on friday",
            {"horse_owner": "Bella", "date": "2026-03-06"},  # "for her" is no reason
        ),
        ("book the farrier for Ann Lee's horse tomorrow", {"horse_owner": "Ann Lee", "date": "2026-03-03"}),
    ],
)
def test_a_proper_name_fills_a_who_parameter_and_lead_words_are_trimmed(
    said: str, arguments: dict[str, str]
) -> None:
    found = acting.plan(said, STABLE, Referent(), TODAY)
    assert found is not None and [a.arguments for a in found.actions] == [arguments]


def test_lead_words_of_having_are_no_part_of_a_title() -> None:
    events = [
        ToolSpec(
            "create_event",
            "Add an event to the calendar.",
            {"type": "object", "properties": {"title": _STR, "date": {"type": "string", "format": "date"}}},
        )
    ]
    found = acting.plan("I've got a dentist appointment on friday at 3 pm", events, Referent(), TODAY)
    assert found is not None and found.actions[0].arguments["title"] == "dentist appointment"


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("water the ferns every evening", "repeat_daily", True),
        ("water the ferns at six, just the once", "repeat_daily", False),
        ("a one-off reminder", "recurring", False),
        ("a practice round, no timer", "timed", False),
        ("a practice round without a countdown", "countdown", False),
        ("go on then, start it", "timed", None),
        ("test me on the verbs", "shuffle", None),
        ("turn the heating on", "enabled", True),
        ("switch it off please", "enabled", False),
    ],
)
def test_booleans_from_how_often_and_negated_own_words(said: str, name: str, value: bool | None) -> None:
    found = scalars.boolean_for(said, name)
    assert (found.value if found else None) == value


def test_quoted_things_fill_a_list_and_a_detail_is_named_before_its_label() -> None:
    packing = [
        ToolSpec(
            "pack_items",
            "Add things to a packing list.",
            {
                "type": "object",
                "properties": {"things": {"type": "array", "items": _STR}, "bag": _STR},
                "required": ["things"],
            },
        )
    ]
    found = acting.plan("pack 'socks', 'a torch' and 'maps' in my blue bag", packing, Referent(), TODAY)
    assert found is not None
    assert found.actions[0].arguments == {"things": ["socks", "a torch", "maps"], "bag": "blue"}


@pytest.mark.parametrize(
    ("said", "name", "value"),
    [
        ("ran for 40 minutes, about three k", "distance_km", 3),
        ("ran for 40 minutes, about three k", "minutes", 40),
        ("she's 4 kilos and ate 150 grams", "kg", 4),
        ("she's 4 kilos and ate 150 grams", "grams", 150),
        ("a half hour stroll", "minutes", 30),
        ("charge to eighty per cent", "percent", 80),
        ("the fan at half power", "speed_percent", 50),
        ("full volume in the den", "volume", 100),
    ],
)
def test_numbers_by_the_unit_in_the_parameter_name(said: str, name: str, value: float) -> None:
    found = scalars.number_for(said, name, {"type": "number"})
    assert found is not None and found.value == value


def test_a_number_with_the_unit_a_tool_takes_is_evidence_for_it() -> None:
    garden = [
        ToolSpec(
            "log_harvest",
            "Record a harvest.",
            {"type": "object", "properties": {"crop": _STR, "kg": {"type": "number"}}, "required": ["kg"]},
        ),
        ToolSpec("show_beds", "List the garden beds.", {"type": "object", "properties": {}}),
    ]
    found = acting.plan("we picked about three kilos of beans", garden, Referent(), TODAY)
    assert found is not None and found.actions[0].arguments["kg"] == 3
    assert acting.plan("we picked beans with the kids", garden, Referent(), TODAY) is None


def test_a_name_taken_from_a_phrase_leaves_the_thing_given() -> None:
    meds = [
        ToolSpec(
            "set_med_reminder",
            "Schedule a medication reminder for a pet.",
            {
                "type": "object",
                "properties": {"pet": _STR, "medication": _STR, "time": {"type": "string", "format": "time"}},
                "required": ["pet", "medication", "time"],
            },
        )
    ]
    found = acting.plan("remind me to give Rex his worm pill at 9 pm", meds, Referent(), TODAY)
    assert found is not None
    assert found.actions[0].arguments == {"pet": "Rex", "medication": "worm pill", "time": "21:00"}


def test_two_actions_when_the_second_verb_is_the_tool_s_own_and_him_is_the_name_before() -> None:
    vet = [
        ToolSpec(
            "log_walk",
            "Log a walk.",
            {
                "type": "object",
                "properties": {"pet": _STR, "minutes": {"type": "integer"}},
                "required": ["pet", "minutes"],
            },
        ),
        ToolSpec(
            "groom",
            "Book a grooming slot.",
            {
                "type": "object",
                "properties": {"pet": _STR, "date": {"type": "string", "format": "date"}},
                "required": ["pet", "date"],
            },
        ),
    ]
    found = acting.plan("log a 20 minute walk for Rex and then groom him on friday", vet, Referent(), TODAY)
    assert found is not None
    assert [(a.call.name, a.arguments) for a in found.actions] == [
        ("log_walk", {"pet": "Rex", "minutes": 20}),
        ("groom", {"pet": "Rex", "date": "2026-03-06"}),
    ]


def test_half_or_full_is_a_share_only_as_a_level() -> None:
    assert scalars.number_for("how full does it charge?", "percent", {"type": "integer"}) is None
    assert scalars.number_for("for half an hour", "brightness", {"type": "integer"}) is None


def test_a_duration_picks_a_number_option_of_a_minutes_enum() -> None:
    found = scalars.enum_for("make it half an hour", [10, 30, 60], "minutes")
    assert found is not None and found.value == 30
    assert scalars.enum_for("make it half an hour", [10, 30, 60], "level") is None


def test_a_translation_request_fills_text_and_target_language() -> None:
    translate = [
        ToolSpec(
            "translate",
            "Translate a word or phrase.",
            {
                "type": "object",
                "properties": {"text": _STR, "target_language": _STR},
                "required": ["text", "target_language"],
            },
        )
    ]
    for said in ("how do you say 'good night' in Welsh?", "what does 'nos da' mean in English"):
        found = acting.plan(said, translate, Referent(), TODAY)
        assert found is not None and found.actions, said
    found = acting.plan("how do you say 'good night' in Welsh?", translate, Referent(), TODAY)
    assert found is not None
    assert found.actions[0].arguments == {"text": "good night", "target_language": "Welsh"}
