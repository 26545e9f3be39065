"""A developer's own tools, as a second user tried them: a doctor's title kept with the name ("Dr. Lee",
not "Dr"), a stay's nights counted when the sentence starts with its verb ("Book 3 nights …") or names no
verb at all ("3 nights at the Hilton from Friday"), enum options read from their synonyms ("something
cheap" → ``$``, "outside" → ``outdoor``), every item of a list said, questions for a missing argument
worded as a model words them, and greeting rules in the session's instructions."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from tests.unit.made_up_apps import STRING, TODAY, tool

INTEGER = {"type": "integer"}
DATE = {"type": "string", "format": "date"}

APPOINTMENT = tool(
    "book_appointment",
    "Book an appointment with a doctor",
    {"doctor": STRING, "date": DATE, "time": STRING},
    ("doctor", "date", "time"),
)


def hotel(nights: str = "nights", description: str = "") -> ToolSpec:
    count = {"type": "integer", "description": description} if description else INTEGER
    return tool(
        "book_hotel",
        "Book a hotel room",
        {"hotel": STRING, "check_in": DATE, nights: count},
        ("hotel", "check_in", nights),
    )


def reply(
    tools: tuple[ToolSpec, ...], *said: str, instructions: str = ""
) -> tuple[list[tuple[str, Any]], str]:
    """The calls and words of the reply to the last of ``said``; the ones before it were answered as
    the brain answered them (its words, or its calls with ``{"status": "ok"}`` as their outputs)."""
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    items: list[TurnView] = []
    calls: list[tuple[str, Any]] = []
    text = ""
    for index, words in enumerate(said):
        items.append(TurnView(f"u{index}", "user_text", words))
        got = brain.reply(ReplyRequest(instructions, tools, "auto", ("text",), tuple(items), len(items) - 1))
        schemas = {t.name: t.parameters for t in tools}
        calls = []
        for number, call in enumerate(got.tool_calls):
            arguments = json.loads(call.arguments)
            jsonschema.validate(arguments, schemas[call.name])
            calls.append((call.name, arguments))
            call_id = f"call_{index}_{number}"
            items.append(
                TurnView(
                    f"c{index}{number}", "function_call", call.arguments, name=call.name, call_id=call_id
                )
            )
            items.append(
                TurnView(f"o{index}{number}", "function_call_output", '{"status": "ok"}', call_id=call_id)
            )
        text = got.text or ""
        if text:
            items.append(TurnView(f"a{index}", "assistant", text))
    return calls, text


@pytest.mark.parametrize(
    ("words", "doctor"),
    [
        ("Book me with Dr. Lee tomorrow at 3pm", "Dr. Lee"),
        ("Book me in with Dr. Sarah Lee tomorrow at 3pm", "Dr. Sarah Lee"),
        ("book an appointment with Mrs. Jones tomorrow at 3pm", "Mrs. Jones"),
        ("Book me with Dr Lee tomorrow at 3pm", "Dr Lee"),
    ],
)
def test_a_titled_name_keeps_its_title_and_name(words: str, doctor: str) -> None:
    """A title's full stop ended the phrase: the doctor was "Dr" (or "Mrs")."""
    calls, _ = reply((APPOINTMENT,), words)
    assert calls == [("book_appointment", {"doctor": doctor, "date": "2026-03-03", "time": "15:00"})]


@pytest.mark.parametrize(
    ("nights", "description", "words"),
    [
        ("nights", "Number of nights", "Book 3 nights at the Hilton from Friday"),
        ("num_nights", "", "Book 3 nights at the Hilton from Friday"),
        ("nights", "", "3 nights at the Hilton from Friday"),
        ("number_of_nights", "", "I'd like to stay 3 nights at the Hilton from Friday"),
    ],
)
def test_a_stay_counted_in_nights_fills_the_nights(nights: str, description: str, words: str) -> None:
    """ "Book 3" at the sentence's start read as a name's number ("Platform 9") and the nights were asked
    for; with no verb the count of the tool's own thing was no request at all."""
    calls, text = reply((hotel(nights, description),), words)
    assert calls == [("book_hotel", {"hotel": "Hilton", "check_in": "2026-03-06", nights: 3})], text


def test_a_number_that_ends_a_name_is_still_no_count() -> None:
    """ "Terminal 5" mid-sentence stays a name's part: no count of anything."""
    pickup = tool("book_ride", "Book a ride", {"pickup": STRING, "passengers": INTEGER}, ("pickup",))
    calls, _ = reply((pickup,), "book a ride from Heathrow Terminal 5")
    assert calls == [("book_ride", {"pickup": "Heathrow Terminal 5"})]


def first_words(instructions: str) -> str:
    """What the assistant says first, asked to speak with nothing said yet (an app's first
    ``response.create``)."""
    got = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest(instructions, (), "auto", ("text",), (), 0)
    )
    return got.text or ""


@pytest.mark.parametrize(
    ("instructions", "greeting"),
    [
        ("You are Sakura's host. Always greet the user with 'Welcome to Sakura!'", "Welcome to Sakura!"),
        (
            'You are the front desk. Always start by saying "Hello, thanks for calling Sakura." Then help.',
            "Hello, thanks for calling Sakura.",
        ),
        (
            "Begin every call with 'Thanks for calling Acme.' and ask for the order number.",
            "Thanks for calling Acme.",
        ),
        ("Your first message should be: 'Hi there! Ready to order?'", "Hi there! Ready to order?"),
        (
            "When the call starts, greet callers with 'Good evening, Sakura speaking.'",
            "Good evening, Sakura speaking.",
        ),
    ],
)
def test_a_greeting_rule_in_the_instructions_is_followed(instructions: str, greeting: str) -> None:
    """Only "Greet the user with '…'" opening a sentence was read: with "Always" before it, or "start by
    saying", the assistant said "Hi, I'm Sam." """
    assert first_words(instructions) == greeting


@pytest.mark.parametrize(
    "instructions",
    [
        "Always answer in English.",
        "Always say 'Goodbye' when the user leaves.",
        "Start by asking for their name.",
    ],
)
def test_other_rules_are_no_greeting(instructions: str) -> None:
    assert first_words(instructions) in ("Hi, I'm Sam.", "Hello, I'm Sam.")
