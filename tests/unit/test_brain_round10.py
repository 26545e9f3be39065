"""Round 10's request gate ("is there a request addressed to me?"), on sentences of no labelled set and a
made-up app (a garden's watering system): words that tell, wonder or feel call nothing however many of a
tool's words they hold; a request beside them still acts; the trace names the cues."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import acting, addressed, codes, intent, scalars, values
from mockengine.brain.model import ReplyRequest, TurnView
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.referents import Referent
from mockengine.brain.scenario import Scenario
from tests.unit.made_up_apps import STRING, TODAY, tool

_STR = STRING


GARDEN = [
    tool(
        "start_watering",
        "Start watering a garden zone for some minutes.",
        {"zone": _STR, "minutes": {"type": "integer"}},
        ("zone",),
    ),
    tool("watering_history", "List past watering runs.", {"zone": _STR}),
    tool("log_harvest", "Record a harvest.", {"crop": _STR, "weight_kg": {"type": "number"}}, ("crop",)),
    tool("find_seeds", "Search the seed shop.", {"query": _STR}, ("query",)),
]


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    plan = acting.plan(text, GARDEN, Referent(), TODAY)
    return [(a.call.name, json.loads(a.call.arguments)) for a in plan.actions] if plan else []


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("if the tomatoes come up this year I'll throw a party for the watering zone", "a condition"),
        ("when the rain stops I'm going to sit in the vegetable zone all day", "a condition"),
        ("can my neighbour see the watering history on her phone?", "someone else"),
        ("will my old seed list show up in here?", "someone else"),
        ("is it normal for the lawn zone to need watering this much?", "what is normal"),
        ("do you do a discount on seeds?", "what is offered"),
        ("the gardener last week watered the rose zone by hand", "a story set in the past"),
        ("when my dad was young he grew all his own seeds", "a story set in the past"),
        ("the garden's lovely, the rose zone is stunning", "remarks"),
    ],
)
def test_words_without_a_request_call_nothing(text: str, cue: str) -> None:
    verdict = addressed.gate(text)
    assert not verdict.request and cue in verdict.why
    assert _calls(text) == []


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("if the lawn dries out I'll cry, so please start watering the lawn zone", "start_watering"),
        ("the lawn was parched last week, can you start watering the lawn zone", "start_watering"),
        ("can my neighbour and I start watering the lawn zone now", "start_watering"),
        ("we picked two point five kilos of beans yesterday, log the harvest", "log_harvest"),
    ],
)
def test_a_request_beside_the_telling_still_acts(text: str, tool: str) -> None:
    assert addressed.gate(text).request
    picked = intent.best(text, GARDEN)
    assert picked is not None and picked.tool.name == tool


def test_a_record_with_a_measured_value_is_no_story() -> None:
    """A past told with a unit is what a log keeps ("picked 3 kilos of beans yesterday"), not a story;
    what the speaker forgot to do is asked for now."""
    assert addressed.gate("picked three kilos of beans yesterday").request
    assert addressed.gate("we watered for an hour and a half yesterday").request
    forgot = addressed.gate("the rose zone got watered yesterday but I forgot to put it in")
    assert forgot.request and "forgot to" in forgot.why


def test_the_trace_names_the_cues_when_the_participant_talks() -> None:
    brain = ScriptedBrain(Scenario("garden"), seed=0, today=TODAY)
    said = "if the tomatoes come up this year I'll throw a party for the watering zone"
    history = (TurnView("u1", "user_text", said),)
    reply = brain.reply(ReplyRequest("", tuple(GARDEN), "auto", ("text",), history, response_index=0))
    assert reply.tool_calls == ()
    assert reply.why.startswith("no request addressed to me") and "a condition" in reply.why


DESK = [
    tool(
        "open_case",
        "Open a support case.",
        {
            "summary": {"type": "string", "description": "One line about the problem"},
            "area": {"type": "string", "enum": ["printing", "email", "access"]},
        },
        ("summary", "area"),
    ),
    tool("resolve_case", "Resolve a case.", {"case_id": _STR, "note": _STR}, ("case_id",)),
    tool("send_courier", "Send a courier.", {"address": _STR}, ("address",)),
    tool(
        "set_fan",
        "Turn a fan on or off.",
        {"room": _STR, "state": {"enum": ["on", "off"]}},
        ("room", "state"),
    ),
]


def _desk(text: str) -> list[tuple[str, dict[str, Any]]] | str | None:
    plan = acting.plan(text, DESK, Referent(), TODAY)
    if plan is None:
        return None
    return [(a.call.name, json.loads(a.call.arguments)) for a in plan.actions] or plan.question


def test_a_summary_after_a_colon_is_taken_as_said_and_may_name_the_required_option() -> None:
    assert _desk("open a case: no access to the shared printer queue. no rush") == [
        ("open_case", {"summary": "no access to the shared printer queue", "area": "access"})
    ]


def test_what_is_left_of_the_verb_is_no_value() -> None:
    assert _desk("resolve off CS4471 please") == [("resolve_case", {"case_id": "CS4471"})]
    assert _desk("can you sort me out a courier?") == "What's the address?"
    assert _desk("send a courier to the Old Town Library straight away") == [
        ("send_courier", {"address": "Old Town Library"})
    ]


def test_an_unknown_first_verb_before_a_determiner_is_no_part_of_the_value() -> None:
    assert _desk("chuck the box room fan on, would you") == [("set_fan", {"room": "box room", "state": "on"})]


def test_a_phrasal_compound_in_a_name_is_its_verb_and_particle() -> None:
    """ "book_pickup" declares "pick up": "could someone pick me up from the station at six" asks it."""
    tools = [
        tool("book_pickup", "Arrange a driver for the guest.", {"place": _STR, "time": _STR}, ("place",)),
        tool("add_note", "Add a note for the guest.", {"text": _STR}, ("text",)),
    ]
    picked = intent.best("could a driver pick me up from the station", tools)
    assert picked is not None and picked.tool.name == "book_pickup"


@pytest.mark.parametrize(
    ("said", "pattern", "code"),
    [
        ("where is case C S zero zero four one two", "^CS[0-9]{5}$", "CS00412"),
        ("any update on case four one two, seven seven", "^CS[0-9]{5}$", "CS41277"),
        ("it's the one tagged K P 0419", "^[A-Z]{2}[0-9]{4}$", "KP0419"),
    ],
)
def test_codes_spelled_out_or_said_without_the_letters_the_pattern_starts_with(
    said: str, pattern: str, code: str
) -> None:
    found = codes.patterned(said, pattern)
    assert found is not None and found.value == code


def test_hours_said_for_a_minutes_parameter() -> None:
    schema = {"type": "integer"}
    for said, minutes in (("in three hours", 180), ("for two and a half hours", 150), ("in 4 hours", 240)):
        found = scalars.number_for(said, "delay_minutes", schema)
        assert found is not None and found.value == minutes


@pytest.mark.parametrize(
    ("said", "day"),
    [("a week on friday", "2026-03-13"), ("friday week", "2026-03-13"), ("a week tomorrow", "2026-03-10")],
)
def test_a_week_on_a_day(said: str, day: str) -> None:
    assert [s.value for s in values.dates(said, TODAY)] == [day]


def test_british_half_with_a_part_of_the_day_and_no_preposition() -> None:
    assert [s.value for s in values.times("on monday, half six in the morning")] == ["06:30"]
    assert [s.value for s in values.times("half nine tonight")] == ["21:30"]


def test_a_proper_name_is_no_action_and_keeps_its_number() -> None:
    """ "Heathrow Terminal 5": "Terminal" terminates nothing and 5 is no count of people."""
    taxi = [
        tool(
            "order_car",
            "Order a car from the front door.",
            {"destination": _STR, "riders": {"type": "integer"}},
            ("destination",),
        ),
        tool("end_stay", "Terminate the stay early.", {}),
    ]
    plan = acting.plan("get us a car to Gatwick Terminal 3, there's two of us", taxi, Referent(), TODAY)
    assert plan is not None
    assert [(a.call.name, json.loads(a.call.arguments)) for a in plan.actions] == [
        ("order_car", {"destination": "Gatwick Terminal 3", "riders": 2})
    ]


def test_millilitres_and_centimetres_and_a_past_measurement_is_a_record() -> None:
    """A measurement told in the past is a record, not a remark; ml and cm are units like kg."""
    clinic = [
        tool(
            "record_height",
            "Record a child's height and weight.",
            {"height_cm": {"type": "number"}, "weight_kg": {"type": "number"}},
            ("height_cm",),
        ),
        tool(
            "record_dose",
            "Record a dose of medicine given.",
            {"drug": _STR, "amount_ml": {"type": "number"}},
            ("drug", "amount_ml"),
        ),
    ]
    plan = acting.plan("she was ninety two centimetres and fourteen kilos", clinic, Referent(), TODAY)
    assert plan is not None
    assert [json.loads(a.call.arguments) for a in plan.actions] == [{"height_cm": 92, "weight_kg": 14}]
    dose = acting.plan("seven point five ml of Calpol", clinic, Referent(), TODAY)
    assert dose is not None and [a.call.name for a in dose.actions] == ["record_dose"]
    assert json.loads(dose.actions[0].call.arguments)["amount_ml"] == 7.5


def test_keeping_others_from_something_is_a_request_not_a_refusal() -> None:
    """ "don't let anyone …" asks for something to be done; "don't water it" does not."""
    quiet = [
        tool("block_disturbance", "Keep callers and visitors away from the guest.", {}),
        tool("order_food", "Order food to the room.", {"dish": _STR}, ("dish",)),
    ]
    plan = acting.plan("please don't let anyone disturb me tonight", quiet, Referent(), TODAY)
    assert plan is not None and [a.call.name for a in plan.actions] == ["block_disturbance"]
    refused = acting.plan("don't start watering the lawn zone", GARDEN, Referent(), TODAY)
    assert refused is not None and refused.actions == () and refused.said == "Okay, I'll leave it."
