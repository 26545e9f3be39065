"""Round 9's rules, each on sentences of no labelled set and made-up apps (a building's lobby, a ledger):
a description's leading verbs are the tool's actions and its example values are no triggers; a
HyperStudy name outside HyperStudy is the app's own tool; codes a pattern accepts; options and flags the
tool's own verb or a detail sets; currency names for ISO options; "the X is Y"; times after a
preposition; what a message says picks no tool; a story may start with its time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import acting, intent, scalars, values
from mockengine.brain.hrp import HRP_TOOLS
from mockengine.brain.model import ToolSpec
from mockengine.brain.referents import Referent
from tests.unit.made_up_apps import STRING, TODAY, tool

_STR = STRING


LOBBY = [
    tool(
        "locker_access",
        "Open a parcel locker.",
        {"locker_code": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{4}$"}},
        ("locker_code",),
    ),
    tool("send_chat", "Post a note in the building chat.", {"message": _STR, "to": _STR}, ("message",)),
    tool("set_chime", "Silence or unsilence the doorbell chime.", {}),
    tool(
        "broadcast",
        "Control the lobby announcement.",
        {"action": {"type": "string", "enum": ["start", "stop"]}},
        ("action",),
    ),
    tool(
        "set_display",
        "Turn the lobby screen on or off, optionally with a theme.",
        {"enabled": {"type": "boolean"}, "theme": {"type": "string", "enum": ["dark", "light", "festive"]}},
        ("enabled",),
    ),
    tool(
        "guest_wifi",
        "Connect a visitor to the guest network.",
        {"visitor": _STR, "password": _STR},
        ("visitor",),
    ),
]
LEDGER = [
    tool(
        "add_entry",
        "Record a cost.",
        {
            "item": {"type": "string", "description": "What it was for, e.g. 'milk'"},
            "amount": {"type": "number"},
            "currency": {"type": "string", "enum": ["GBP", "EUR", "USD"]},
        },
        ("item", "amount"),
    ),
    tool("delete_entry", "Delete an entry by its item.", {"item": _STR}, ("item",)),
    tool(
        "pay_invoice",
        "Pay an invoice by its number.",
        {"invoice": {"type": "string", "pattern": "^[0-9]{8}$"}},
        ("invoice",),
    ),
]


def plan(said: str, tools: list[ToolSpec]) -> list[tuple[str, dict[str, Any]]]:
    decided = acting.plan(said, tools, Referent(), TODAY)
    return [(a.call.name, json.loads(a.call.arguments)) for a in decided.actions] if decided else []


def test_a_descriptions_leading_verbs_are_the_tools_actions() -> None:
    assert plan("silence the doorbell please", LOBBY) == [("set_chime", {})]
    assert plan("unsilence the chime", LOBBY) == [("set_chime", {})]


def test_example_values_a_description_quotes_are_no_triggers() -> None:
    assert plan("delete the milk", LEDGER) == [("delete_entry", {"item": "milk"})]


def test_a_hyperstudy_name_outside_hyperstudy_is_the_apps_owntool() -> None:
    assert plan("message Dario saying the parcel is here", LOBBY) == [
        ("send_chat", {"message": "the parcel is here", "to": "Dario"})
    ]
    assert "send_chat" not in [tool.name for tool in intent.candidates(HRP_TOOLS)]
    alone = [tool for tool in HRP_TOOLS if tool.name == "send_chat"]
    assert intent.candidates(alone) == []  # HyperStudy's own schema keeps its study behaviour


def test_a_code_the_parameters_pattern_accepts() -> None:
    assert plan("open locker KT 4410", LOBBY) == [("locker_access", {"locker_code": "KT4410"})]
    assert plan("pay invoice two zero one, five five, four one nine", LEDGER) == [
        ("pay_invoice", {"invoice": "20155419"})
    ]
    assert plan("pay invoice 2015 5419", LEDGER) == [("pay_invoice", {"invoice": "20155419"})]
    assert acting.plan("open locker nine", LOBBY, Referent(), TODAY).question  # no code: ask


def test_a_required_option_or_flag_set_by_the_tools_verb_or_a_detail() -> None:
    assert plan("broadcast the fire drill notice", LOBBY) == [("broadcast", {"action": "start"})]
    assert plan("put the festive theme on the lobby screen", LOBBY) == [
        ("set_display", {"theme": "festive", "enabled": True})
    ]


def test_currency_names_for_iso_options_and_a_value_said_as_what_it_is() -> None:
    assert plan("add an entry for taxi, thirty euros", LEDGER) == [
        ("add_entry", {"item": "taxi", "amount": 30, "currency": "EUR"})
    ]
    assert plan("get Ines on the guest network, the password is marigold", LOBBY) == [
        ("guest_wifi", {"visitor": "Ines", "password": "marigold"})
    ]


def test_times_after_a_preposition_and_nights() -> None:
    assert [s.value for s in values.times("the bus after nine tomorrow morning")] == ["09:00"]
    assert [s.value for s in values.times("anything before six")] == ["18:00"]
    assert values.times("after two days") == [] and values.times("by five minutes") == []
    assert [s.value for s in values.times("a single to Leeds, the ten fifteen")] == ["10:15"]
    assert values.times("the ten fifteen year olds") == []
    clock = values.times("friday night at ten")[0]
    assert values.in_the_evening(clock, "friday night at ten").value == "22:00"
    assert [s.value for s in values.dates("on the twenty-third or the twenty-fourth", TODAY)][:1] == [
        "2026-03-23"
    ]


def test_the_option_of_more_words_said_wins() -> None:
    span = scalars.enum_for("an express return please", ["return", "express_return"])
    assert span is not None and span.value == "express_return"


@pytest.mark.parametrize(
    "said",
    [
        "last week Dario forgot to stop the announcement",
        "yesterday Ines forgot the wifi password",
    ],
)
def test_a_story_that_starts_with_its_time_calls_nothing(said: str) -> None:
    assert plan(said, LOBBY) == []


def test_putting_an_action_off_and_a_reason_told_with_an_unchanged_past() -> None:
    assert plan("hold off on broadcasting it, the fire team is late", LOBBY) == []
    assert plan("delete the taxi one, I put it in twice", LEDGER) == [("delete_entry", {"item": "taxi"})]


def test_a_span_of_clock_times_is_a_start_and_a_length() -> None:
    studio = [
        tool(
            "book_studio",
            "Book the recording studio.",
            {
                "band": _STR,
                "time": {"type": "string", "format": "time"},
                "length_minutes": {"type": "integer"},
            },
            ("band", "time"),
        )
    ]
    assert plan("book the studio for the Lanterns, ten till one", studio) == [
        ("book_studio", {"time": "10:00", "length_minutes": 180, "band": "Lanterns"})
    ]
    assert plan("book the studio for the Lanterns at ten to four", studio) == [
        ("book_studio", {"time": "15:50", "band": "Lanterns"})
    ]


def test_an_unknown_verb_is_no_optional_detail() -> None:
    tenants = [
        tool(
            "remind_neighbour",
            "Send a friend a reminder about the shared hedge trimmer.",
            {"friend": _STR, "note": {"type": "string", "description": "Optional personal note"}},
            ("friend",),
        )
    ]
    assert plan("prod Dario a reminder, would you", tenants) == [("remind_neighbour", {"friend": "Dario"})]
    assert plan("nab me locker KT 4410", LOBBY) == [("locker_access", {"locker_code": "KT4410"})]


def test_a_route_said_without_from() -> None:
    ferries = [
        tool(
            "find_ferries",
            "Find ferry crossings between two ports.",
            {"origin_port": _STR, "destination_port": _STR},
            ("origin_port", "destination_port"),
        )
    ]
    assert plan("find me ferries, Dover to Calais", ferries) == [
        ("find_ferries", {"origin_port": "Dover", "destination_port": "Calais"})
    ]


def test_a_value_said_as_what_a_tool_needs_points_at_thattool() -> None:
    till = [
        tool("add_item", "Add an item to the basket.", {"item": _STR}, ("item",)),
        tool("redeem_voucher", "Redeem a gift voucher.", {"voucher": _STR}, ("voucher",)),
    ]
    assert plan("the voucher's GIFT25, can you put it on", till) == [
        ("redeem_voucher", {"voucher": "GIFT25"})
    ]
