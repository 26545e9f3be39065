"""Near misses of brain7's rules that misfired (brk5): a unit the user refuses ("not in fahrenheit") taken
as the one wanted; a Chat json_schema's free-string ``mood`` filled with the reply's sentence. Each test
failed on brain7 before its fix."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.brain.model import Reply
from mockengine.chat.request import parse_request
from mockengine.chat.shaping import fit_choice
from mockengine.engines.fakes import FakeSynthesizer, FakeTranscriber
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.virtual_time import VirtualTimeDriver
from tests.brain_calls import TODAY, calls, tool
from tests.conftest import UNPACED, make_session
from tests.unit.test_brain_brain7 import (
    ADDRESS,
    HOURS,
    REFUND,
    STATUS,
    STRING,
    WEATHER,
    WEATHER_CF,
    reply,
)

WEATHER_ANY = tool("get_weather", "Get the weather", {"city": STRING, "unit": STRING})


@pytest.mark.parametrize(
    ("weather", "said", "unit"),
    [
        (WEATHER, "What's the weather in Paris? Not in fahrenheit, celsius", "celsius"),
        (WEATHER, "Weather in Paris, in celsius not fahrenheit", "celsius"),
        (WEATHER_CF, "Weather in Paris, not fahrenheit but celsius", "C"),
        (WEATHER, "Weather in Paris in celsius rather than fahrenheit", "celsius"),
        (WEATHER_ANY, "Weather in Paris, not in kelvin, in celsius", "celsius"),
    ],
)
def test_a_refused_unit_is_not_the_one_filled(weather: object, said: str, unit: str) -> None:
    assert calls([weather], said) == [("get_weather", {"city": "Paris", "unit": unit})]  # type: ignore[list-item]


@pytest.mark.parametrize(
    "said", ["Weather in Paris, but not in fahrenheit please", "Weather in Paris, no fahrenheit"]
)
def test_only_a_refused_unit_is_asked_for(said: str) -> None:
    assert calls([WEATHER], said) == "Which unit do you mean?"


# -- Chat Completions json_schema: a free-string mood is the feeling the user said, never the reply

PROFILE = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "mood": {"type": "string"}},
    "required": ["name", "age", "mood"],
    "additionalProperties": False,
}


def profile(said: str) -> dict[str, Any]:
    body = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": said}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "p", "schema": PROFILE, "strict": True},
        },
    }
    choice = fit_choice(
        Reply("Nice to meet you, Alice!"),
        parse_request(json.dumps(body).encode()),
        0,
        IdFactory(1),
        TokenCounter(),
    )
    return json.loads(choice.text or "")


@pytest.mark.parametrize(
    ("said", "mood"),
    [
        ("My name is Alice, I'm 31 and happy", "happy"),
        ("My name is Alice, I'm 31 and I feel sad", "sad"),
        ("My name is Alice, I'm 31 and feeling pretty tired", "tired"),
        ("My name is Alice, I'm 31 and not happy at all", "not happy"),
    ],
)
def test_a_free_string_mood_is_the_feeling_said(said: str, mood: str) -> None:
    assert profile(said) == {"name": "Alice", "age": 31, "mood": mood}


@pytest.mark.parametrize(
    "said",
    ["My name is Alice and I'm 31", "Great, my name is Alice and I'm 31", "I'm Alice, 31. I'm good at chess"],
)
def test_a_mood_not_said_is_unknown_not_the_reply(said: str) -> None:
    assert profile(said) == {"name": "Alice", "age": 31, "mood": "unknown"}


# -- a refund refused is never requested: "I don't want a refund for order A12345, where is it?"


def test_a_refused_refund_with_a_question_about_the_order_looks_the_order_up() -> None:
    made = calls([STATUS, REFUND], "I don't want a refund for order A12345, where is it?")
    assert made == [("get_order_status", {"order_id": "A12345"})]


@pytest.mark.parametrize(
    "said",
    [
        "I don't want a refund for order A12345, thanks",
        "I don't want a refund for A12345, I just want to know where it is",
        "I don't need a refund for A12345, can you check where it is?",
    ],
)
def test_a_refused_refund_is_never_requested(said: str) -> None:
    made = calls([STATUS, REFUND], said)
    assert isinstance(made, str) or all(name != "request_refund" for name, _ in made)


@pytest.mark.parametrize(
    "said", ["I want a refund for order A12345", "Not the status, I want a refund for order A12345"]
)
def test_a_refund_wanted_is_still_requested(said: str) -> None:
    assert calls([STATUS, REFUND], said) == [("request_refund", {"order_id": "A12345"})]


# -- a standing answer's topic waved off is no question of it


@pytest.mark.parametrize(
    "said",
    [
        "I don't care about your hours, where is my order?",
        "Not asking about hours. Where is my order?",
        "Never mind the hours, can I talk to someone?",
        "Forget about the opening hours, what's your address?",
    ],
)
def test_a_topic_waved_off_is_not_answered(said: str) -> None:
    assert reply([], said, HOURS).text != "We're open 9 to 5."


@pytest.mark.parametrize("said", ["What are your hours?", "I don't know your hours, what are they?"])
def test_a_topic_asked_about_is_still_answered(said: str) -> None:
    assert reply([], said, HOURS).text == "We're open 9 to 5."


# -- a flat or suite after the street is the street's, never the town ("Apt" was the city)


@pytest.mark.parametrize(
    ("said", "street"),
    [
        ("Ship it to 12 Main St., Apt 4, Springfield 62704", "12 Main St, Apt 4"),
        ("Ship it to 12 Main St, Suite 200, Springfield, IL 62704", "12 Main St, Suite 200"),
        ("Ship it to 12 Main Street, Unit 3B, Springfield 62704", "12 Main Street, Unit 3B"),
    ],
)
def test_a_unit_after_the_street_is_no_town(said: str, street: str) -> None:
    expected = {"street": street, "city": "Springfield", "postal_code": "62704"}
    assert calls([ADDRESS], said) == [("update_shipping_address", expected)]


# -- what is said after an action's output: a status is no view, a noun is no verb


def after_output(name: str, description: str, said: str, output: str) -> str:
    made = reply([tool(name, description, {"city": STRING})], said)
    (call,) = made.tool_calls
    history = (
        TurnView("u1", "user_text", said),
        TurnView("fc", "function_call", call.arguments, name=call.name, call_id="c1"),
        TurnView("fo", "function_call_output", output, call_id="c1"),
    )
    brain = ScriptedBrain(load_scenario(None), 3, today=TODAY)
    specs = (tool(name, description, {"city": STRING}),)
    return brain.reply(ReplyRequest("", specs, "auto", ("text",), history, 1)).text or ""


@pytest.mark.parametrize(
    ("output", "spoken"),
    [
        ('{"status": "success"}', "Done: Paris."),
        ('{"status": "pending"}', "Done: Paris. It's pending."),
        ('{"ok": true}', "Done: Paris."),
    ],
)
def test_a_status_is_said_as_a_status_not_a_view(output: str, spoken: str) -> None:
    assert after_output("travel_to", "Travel to a city", "Travel to Paris", output) == spoken


def test_a_tool_named_by_a_noun_is_not_made_a_verb() -> None:
    spoken = after_output("navigation", "Navigate to a city", "Navigate to Paris", '{"ok": true}')
    assert "navigationed" not in spoken and spoken == "Done: Paris."


def test_a_silent_push_to_talk_turn_after_a_tool_result_does_not_repeat_it() -> None:
    """Push-to-talk over a silent microphone after "Done: Paris.": the empty turn is answered as not
    heard (the live service answers something generic), never with the tool's result again."""
    driver = VirtualTimeDriver(make_session(7, UNPACED), FakeTranscriber(default=""), FakeSynthesizer())
    driver.start()
    travel = {"type": "function", "name": "travel_to", "description": "Travel to a city"}
    travel["parameters"] = {"type": "object", "properties": {"city": STRING}, "required": ["city"]}
    turn_detection = {"turn_detection": None, "transcription": {"model": "whisper-1"}}
    driver.send(ce.SessionUpdate({"type": "realtime", "tools": [travel], "audio": {"input": turn_detection}}))
    typed = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Travel to Paris"}],
    }
    driver.send(ce.ConversationItemCreate(typed))
    driver.send(ce.ResponseCreate())
    driver.run_until_idle()
    (call,) = [
        o for o in driver.of_type("response.done")[-1]["response"]["output"] if o["type"] == "function_call"
    ]
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": '{"ok": true}'}
    driver.send(ce.ConversationItemCreate(output))
    driver.send(ce.ResponseCreate())
    driver.run_until_idle()
    assert _spoken(driver) == "Done: Paris."
    driver.stream_silence(1500)
    driver.send(ce.InputAudioBufferCommit())
    driver.send(ce.ResponseCreate())
    driver.run_until_idle()
    assert _spoken(driver) == "Sorry, I didn't catch that. Could you say it again?"


def _spoken(driver: VirtualTimeDriver) -> str:
    output = driver.of_type("response.done")[-1]["response"]["output"]
    return " ".join(c.get("transcript") or c.get("text") or "" for o in output for c in o.get("content", []))


# -- a unit described by systems ("metric or imperial") takes a system said, never a unit

SYSTEMS = tool(
    "get_weather",
    "Get the weather",
    {"city": STRING, "unit": {"type": "string", "description": "metric or imperial"}},
)
SYSTEMS_WITH_UNITS = tool(
    "get_weather",
    "Get the weather",
    {
        "city": STRING,
        "unit": {"type": "string", "description": "'metric' (Celsius) or 'imperial' (Fahrenheit)"},
    },
)


@pytest.mark.parametrize("weather", [SYSTEMS, SYSTEMS_WITH_UNITS])
@pytest.mark.parametrize(
    ("said", "unit"),
    [
        ("Weather in Paris, metric please", "metric"),
        ("Weather in Paris in imperial units", "imperial"),
        ("Weather in Paris, not metric, imperial", "imperial"),
    ],
)
def test_a_system_said_fills_a_unit_described_by_systems(weather: Any, said: str, unit: str) -> None:
    assert calls([weather], said) == [("get_weather", {"city": "Paris", "unit": unit})]


@pytest.mark.parametrize("weather", [SYSTEMS, SYSTEMS_WITH_UNITS])
@pytest.mark.parametrize("said", ["Weather in Paris in kelvin", "Weather in Paris in celsius"])
def test_a_unit_said_for_a_system_is_asked_about(weather: Any, said: str) -> None:
    assert calls([weather], said) == "Which unit do you mean?"
