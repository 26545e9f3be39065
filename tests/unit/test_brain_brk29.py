"""Found by a framework user (stop brk29) declaring their own tools.

"What's it like in Berlin right now?" to ``current_conditions(city)`` made no call (a model asks the
weather of it); a single item ordered without a quantity was confirmed as "your order for latte"; "in 3
days" filled a forecast's ``days`` with 3 by the number-and-unit rule while every other time to come counts
the days from today that reach it, today counted (tomorrow 2, so in 3 days 4)."""

from __future__ import annotations

from functools import partial

import pytest

from mockengine.brain.model import ToolSpec
from tests import own_tools
from tests.brain_calls import MONDAY, answered, calls_made, reply_to, said, spec, tool

_tool, _calls = tool, calls_made
_reply = partial(reply_to, today=MONDAY)
_said = partial(said, today=MONDAY)
_answered = partial(answered, today=MONDAY)

STRING = {"type": "string"}


# 1. "What's it like in <place> right now?" asks the weather there.
CONDITIONS = _tool("current_conditions", "Current weather conditions for a city", {"city": STRING}, ["city"])
CONDITIONS_PLAIN = _tool(
    "get_current_conditions", "Get the current conditions in a city.", {"city": STRING}, ["city"]
)
WEATHER_NOW = _tool("weather_now", "The weather right now in a city.", {"city": STRING}, ["city"])


@pytest.mark.parametrize(
    "words",
    [
        "What's it like in Berlin right now?",
        "What is it like in Berlin at the moment?",
        "How is it in Berlin now?",
        "How's it looking in Berlin today?",
        "What's it like out in Berlin this morning?",
    ],
)
@pytest.mark.parametrize("tool", [CONDITIONS, CONDITIONS_PLAIN, WEATHER_NOW], ids=lambda t: t.name)
def test_what_it_is_like_somewhere_now_asks_the_weather(words: str, tool: ToolSpec) -> None:
    assert _calls(_said(words, (tool,))) == [(tool.name, {"city": "Berlin"})]


@pytest.mark.parametrize(
    "words",
    [
        "What's it like to live in Berlin?",
        "What's it like working in Berlin these days?",
        "How is it going?",
    ],
)
def test_what_it_is_like_to_do_something_is_no_weather(words: str) -> None:
    assert _said(words, (CONDITIONS,)).tool_calls == ()


@pytest.mark.parametrize("words", ["What's the weather in Berlin?", "Is it raining in Berlin?"])
def test_conditions_now_at_a_place_are_its_weather(words: str) -> None:
    # get_current_conditions "Get the current conditions in a city." says no "weather": it was not called
    assert _calls(_said(words, (CONDITIONS_PLAIN,))) == [("get_current_conditions", {"city": "Berlin"})]


@pytest.mark.parametrize(
    "tool",
    [
        _tool("road_conditions", "Current road conditions on a route.", {"route": STRING}, ["route"]),
        _tool("get_terms_and_conditions", "Get the terms and conditions.", {}, []),
        _tool("trail_conditions", "Current trail conditions in a park.", {"location": STRING}, ["location"]),
    ],
    ids=lambda t: t.name,
)
def test_conditions_of_something_else_are_no_weather(tool: ToolSpec) -> None:
    assert _said("What's the weather in Berlin right now?", (tool,)).tool_calls == ()


# A lookup named for what it reports, with no verb (current_conditions, weather_now, forecast), read its
# output as "Done: Berlin." (an action's answer): the weather is said, as for get_weather.
@pytest.mark.parametrize(
    ("tool", "output", "said"),
    [
        (
            CONDITIONS,
            '{"temperature": 4, "conditions": "overcast"}',
            "It's 4 degrees and overcast in Berlin.",
        ),
        (
            WEATHER_NOW,
            '{"temp_c": 4, "summary": "light rain"}',
            "It's 4 degrees Celsius with light rain in Berlin.",
        ),
        (
            _tool("forecast", "Weather forecast for a city.", {"city": STRING}, ["city"]),
            '{"forecast": "sunny"}',
            "The forecast in Berlin is sunny.",
        ),
        (
            _tool("weather", "Weather for a city.", {"city": STRING}, ["city"]),
            "12",
            "It's 12 degrees in Berlin.",
        ),
        (CONDITIONS, '"overcast"', "The conditions in Berlin are overcast."),
        (CONDITIONS, "4", "It's 4 degrees in Berlin."),
    ],
)
def test_a_lookup_named_for_what_it_reports_says_it(tool: ToolSpec, output: str, said: str) -> None:
    words = "What's it like in Berlin right now?"
    assert _answered(words, tool.name, {"city": "Berlin"}, output, (tool,)).text == said


def test_what_it_is_like_there_goes_to_the_weather_beside_other_lookups() -> None:
    hotels = _tool("search_hotels", "Search hotels in a city.", {"city": STRING}, ["city"])
    assert _calls(_said("What's it like in Berlin right now?", (hotels, CONDITIONS))) == [
        ("current_conditions", {"city": "Berlin"})
    ]


# 2. One thing ordered, no quantity: "your order for a latte", as a model says it.
PLACE_ORDER = _tool(
    "place_order",
    "Place an order.",
    {"item": STRING, "quantity": {"type": "integer"}},
    ["item"],
)
CREATE_ORDER = _tool(
    "create_order",
    "Create an order.",
    {"items": {"type": "array", "items": STRING}},
    ["items"],
)


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        (PLACE_ORDER, {"item": "latte"}, "I've placed your order for a latte."),
        (PLACE_ORDER, {"item": "espresso"}, "I've placed your order for an espresso."),
        (PLACE_ORDER, {"item": "oat milk latte"}, "I've placed your order for an oat milk latte."),
        # plurals, counts and mass nouns stay as they are
        (PLACE_ORDER, {"item": "lattes", "quantity": 2}, "I've placed your order for 2 lattes."),
        (PLACE_ORDER, {"item": "latte", "quantity": 1}, "I've placed your order for a latte."),
        (PLACE_ORDER, {"item": "fries"}, "I've placed your order for fries."),
        (PLACE_ORDER, {"item": "2 lattes"}, "I've placed your order for 2 lattes."),
        (PLACE_ORDER, {"item": "a latte"}, "I've placed your order for a latte."),
        (PLACE_ORDER, {"item": "sushi"}, "I've placed your order for sushi."),
        (PLACE_ORDER, {"item": "the usual"}, "I've placed your order for the usual."),
        (
            CREATE_ORDER,
            {"items": ["latte", "croissant"]},
            "I've placed your order for a latte and a croissant.",
        ),
        (
            CREATE_ORDER,
            {"items": ["2 lattes", "muffin"]},
            "I've placed your order for 2 lattes and a muffin.",
        ),
    ],
)
def test_one_thing_ordered_reads_with_its_article(
    tool: ToolSpec, arguments: dict[str, object], said: str
) -> None:
    assert _answered("I'd like to order", tool.name, arguments, '{"status": "ok"}', (tool,)).text == said


# 3. "in 3 days" to a forecast's ``days``: the days from today that reach that day, today counted, as for
# every other time to come ("tomorrow" 2): a forecast of 3 days ends the day before.
FORECAST = _tool(
    "get_forecast",
    "Get the weather forecast for a city.",
    {"city": STRING, "days": {"type": "integer", "description": "Number of days"}},
    ["city", "days"],
)


@pytest.mark.parametrize(
    ("words", "days"),
    [
        ("What's the forecast in Paris in 3 days?", 4),
        ("Will it rain in Paris in 3 days?", 4),
        ("What's the weather in Paris in two days?", 3),
        ("Paris forecast in 5 days", 6),
        ("Will it rain in Paris tomorrow?", 2),
        # a span of days is its own count
        ("What's the forecast in Paris for the next 3 days?", 3),
        ("Give me a 3 day forecast for Paris", 3),
        ("Forecast for Paris for 3 days", 3),
    ],
)
def test_in_so_many_days_counts_as_every_time_to_come(words: str, days: int) -> None:
    assert _calls(_said(words, (FORECAST,))) == [("get_forecast", {"city": "Paris", "days": days})]


def test_in_so_many_days_keeps_a_forecasts_maximum() -> None:
    capped = _tool(
        "get_forecast",
        "Get the weather forecast for a city.",
        {"city": STRING, "days": {"type": "integer", "minimum": 1, "maximum": 5}},
        ["city", "days"],
    )
    assert _calls(_said("Will it rain in Paris in 6 days?", (capped,))) == [
        ("get_forecast", {"city": "Paris", "days": 5})
    ]


def test_in_so_many_days_to_a_tool_that_does_not_forecast_keeps_the_count() -> None:
    snooze = _tool("snooze_alerts", "Snooze alerts.", {"days": {"type": "integer"}}, ["days"])
    assert _calls(_said("Snooze alerts in 3 days", (snooze,))) == [("snooze_alerts", {"days": 3})]


# 5. A framework user's own tools. A duration to a parameter counted in seconds (LiveKit's
# ``set_timer(duration_seconds: int)``): "10 minutes" is 600 of them (it was 10, and "half an hour" 30,
# read as minutes by the word "duration").
TIMER = _tool(
    "set_timer",
    "Set a timer.",
    {"duration_seconds": {"type": "integer"}, "label": STRING},
    ["duration_seconds"],
)
TIMER_DESCRIBED = _tool(
    "set_timer",
    "Set a timer.",
    {"duration": {"type": "integer", "description": "Duration of the timer in seconds"}},
    ["duration"],
)
TIMER_MINUTES = _tool("set_timer", "Set a timer.", {"minutes": {"type": "integer"}}, ["minutes"])


@pytest.mark.parametrize(
    ("words", "seconds"),
    [
        ("Set a timer for 10 minutes", 600),
        ("Set a timer for ten minutes", 600),
        ("Set a timer for 90 seconds", 90),
        ("Set a timer for half an hour", 1800),
        ("Set a timer for an hour and a half", 5400),
        ("Set a timer for 2 minutes 30 seconds", 150),
        ("Set a timer for 1 hour and 15 minutes", 4500),
        ("Set a timer for a minute and a half", 90),
    ],
)
@pytest.mark.parametrize("tool", [TIMER, TIMER_DESCRIBED], ids=["named", "described"])
def test_a_duration_to_a_count_of_seconds(words: str, seconds: int, tool: ToolSpec) -> None:
    name = next(iter(tool.parameters["properties"]))
    assert _calls(_said(words, (tool,))) == [("set_timer", {name: seconds})]


def test_a_duration_in_seconds_keeps_its_label() -> None:
    assert _calls(_said("Set a timer for 10 minutes for the pasta", (TIMER,))) == [
        ("set_timer", {"duration_seconds": 600, "label": "pasta"})
    ]


@pytest.mark.parametrize(
    ("words", "minutes"), [("Set a timer for 10 minutes", 10), ("Set a timer for an hour", 60)]
)
def test_a_count_of_minutes_is_as_it_was(words: str, minutes: int) -> None:
    assert _calls(_said(words, (TIMER_MINUTES,))) == [("set_timer", {"minutes": minutes})]


# Pipecat's and OpenAI's cookbook weather tool: a required ``format`` whose options are the temperature
# units, "Infer this from the user's location". A model infers it (Fahrenheit in San Francisco); it asked
# "Which format would you like: celsius or fahrenheit?".
PIPECAT_WEATHER = spec(own_tools.PIPECAT_WEATHER)


@pytest.mark.parametrize(
    ("words", "location", "unit"),
    [
        ("What's the weather in San Francisco?", "San Francisco", "fahrenheit"),
        ("What's the weather like in Paris?", "Paris", "celsius"),
        ("How hot is it in Austin in celsius?", "Austin", "celsius"),
    ],
)
def test_a_unit_named_format_is_inferred_from_the_place(words: str, location: str, unit: str) -> None:
    [(name, arguments)] = _calls(_said(words, (PIPECAT_WEATHER,)))
    assert (name, arguments["format"], arguments["location"].split(",")[0]) == (
        "get_current_weather",
        unit,
        location,
    )


def test_a_format_that_is_no_unit_is_still_asked() -> None:
    export = _tool(
        "export_report",
        "Export the report.",
        {"format": {"type": "string", "enum": ["pdf", "csv"]}},
        ["format"],
    )
    assert _said("Export the report", (export,)).tool_calls == ()


# A text to a phone number said as digits: the message after it is the message (it was asked "What should
# it say?", or filled ``message: "message"``), as after a name ("Text Ana that …").
SMS_TO = _tool(
    "send_sms",
    "Send a text message.",
    {"to": {"type": "string", "description": "Phone number"}, "message": STRING},
    ["to", "message"],
)
SMS_PHONE = _tool(
    "send_sms", "Send an SMS.", {"phone_number": STRING, "message": STRING}, ["phone_number", "message"]
)


@pytest.mark.parametrize(
    ("words", "number", "message"),
    [
        ("Text 415 555 0199 that I'm running 10 minutes late", "415 555 0199", "I'm running 10 minutes late"),
        ("Text 415-555-0199 I'm outside", "415-555-0199", "I'm outside"),
        ("Send an SMS to +14155550199: dinner at 8", "+14155550199", "dinner at 8"),
    ],
)
@pytest.mark.parametrize("tool", [SMS_TO, SMS_PHONE], ids=["to", "phone_number"])
def test_a_text_to_a_number_said(words: str, number: str, message: str, tool: ToolSpec) -> None:
    to, text = list(tool.parameters["properties"])
    assert _calls(_said(words, (tool,))) == [("send_sms", {to: number, text: message})]


def test_a_text_to_a_name() -> None:
    # a recipient said to be a phone number is asked for when a name is given (it was ``to: "Ana"``,
    # no number); one that may be anyone takes the name, as before
    plain = _tool("send_sms", "Send a text message.", {"to": STRING, "message": STRING}, ["to", "message"])
    asked = _said("Text Ana that I'm running late", (SMS_TO,))
    assert (asked.tool_calls, asked.text) == ((), "What's the phone number?")
    assert _calls(_said("Text Ana that I'm running late", (plain,))) == [
        ("send_sms", {"to": "Ana", "message": "I'm running late"})
    ]


# The Pipecat weather tool's output names its unit "format" as its argument does: said with the degrees
# ("It's 61 degrees Fahrenheit and foggy"), not read back ("… and the format is fahrenheit").
@pytest.mark.parametrize(
    ("output", "said"),
    [
        (
            '{"temperature": 61, "format": "fahrenheit", "description": "foggy"}',
            "It's 61 degrees Fahrenheit and foggy in San Francisco.",
        ),
        (
            '{"location": "San Francisco", "temperature": "61", "format": "fahrenheit", "forecast": "foggy"}',
            "It's 61 degrees Fahrenheit in San Francisco and the forecast is foggy.",
        ),
        # as for a ``unit`` asked, a temperature with no unit in the output is said in degrees
        ('{"temperature": 61, "description": "foggy"}', "It's 61 degrees and foggy in San Francisco."),
        ('"61"', "It's 61 degrees Fahrenheit in San Francisco."),
    ],
)
def test_a_unit_named_format_is_said_with_the_degrees(output: str, said: str) -> None:
    arguments = {"location": "San Francisco", "format": "fahrenheit"}
    reply = _answered(
        "What's the weather in San Francisco?", "get_current_weather", arguments, output, (PIPECAT_WEATHER,)
    )
    assert reply.text == said


def test_a_format_that_is_no_unit_is_read_as_a_field() -> None:
    report = _tool("get_report", "Get a report.", {"name": STRING}, ["name"])
    output = '{"title": "Q3 sales", "format": "pdf", "pages": 12}'
    reply = _answered("Get the Q3 sales report", "get_report", {"name": "Q3 sales"}, output, (report,))
    assert "pdf" in (reply.text or "")


# An action that takes a day is no forecast: its confirmation was prefixed with the day asked and its "I"
# lowered ("Tomorrow: i've created the calendar event: Design review.").
EVENT = _tool(
    "create_calendar_event",
    "Create a calendar event.",
    {
        "title": STRING,
        "start": {"type": "string", "format": "date-time"},
        "duration_minutes": {"type": "integer"},
    },
    ["title", "start"],
)


def test_an_action_for_a_day_to_come_is_confirmed_as_done() -> None:
    words = "Schedule a meeting called Design review tomorrow at 10 for 45 minutes"
    arguments = {"title": "Design review", "start": "2026-12-08T10:00:00", "duration_minutes": 45}
    reply = _answered(
        words, "create_calendar_event", arguments, '{"id": "evt_1", "status": "created"}', (EVENT,)
    )
    assert reply.text == "I've created the calendar event: Design review."


def test_a_lookup_for_a_day_to_come_still_says_the_day() -> None:
    events = _tool(
        "list_events",
        "List the events in a city on a date.",
        {"city": STRING, "date": {"type": "string", "format": "date"}},
        ["city", "date"],
    )
    reply = _answered(
        "What's on in Paris tomorrow?",
        "list_events",
        {"city": "Paris", "date": "2026-12-08"},
        '{"events": ["Jazz night", "Food market"]}',
        (events,),
    )
    assert "tomorrow" in (reply.text or "").lower()
