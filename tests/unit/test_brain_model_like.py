"""What new users found the brain did unlike a model (docs/tools.md): a story request called a card tool,
the request's own verb became a city, a forced call sent an empty required string, a place's timezone was
not filled, a one-field lookup was read stiffly, and a refused approval was read out as written. Each is
asserted on tools of no labelled file as well as on the reported example; each failed on the old code."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from mockengine.brain import composing, implied, things
from mockengine.brain.model import ForcedTool, ReplyRequest, ToolChoice, ToolSpec, TurnView
from mockengine.brain.narration import grounding
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import Scenario
from tests.unit.made_up_apps import STRING, tool

TODAY = date(2026, 3, 2)
APPS = yaml.safe_load((Path(__file__).parents[1] / "data" / "tool_intents" / "apps.yaml").read_text())
VOICE_CLIENT = tuple(
    ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {})) for t in APPS["voice_client"]
)
CITY = {"type": "object", "properties": {"city": STRING}, "required": ["city"]}
WEATHER = ToolSpec("get_weather", "Get the current weather in a city", CITY)
TIME = ToolSpec("get_time", "Get the current local time in a city", CITY)
Calls = list[tuple[str, dict[str, Any]]]


def reply(
    tools: tuple[ToolSpec, ...] | list[ToolSpec], history: list[TurnView], choice: ToolChoice = "auto"
) -> tuple[str | None, Calls]:
    brain = ScriptedBrain(Scenario("model-like"), seed=1, today=TODAY)
    request = ReplyRequest("", tuple(tools), choice, ("text",), tuple(history), len(history))
    made = brain.reply(request)
    return made.text, [(call.name, json.loads(call.arguments)) for call in made.tool_calls]


def said(text: str, index: int = 1) -> TurnView:
    return TurnView(f"u{index}", "user_text", text)


def answered(name: str, arguments: dict[str, Any], output: str, index: int = 1) -> list[TurnView]:
    return [
        TurnView(f"f{index}", "function_call", json.dumps(arguments), name=name, call_id=f"c{index}"),
        TurnView(f"o{index}", "function_call_output", output, call_id=f"c{index}"),
    ]


# 1. content the assistant itself produces

LIBRARY = [
    tool("show_details", "Show the details of a book.", {"book": STRING}),
    tool("find_books", "Search the catalogue for books about a topic.", {"query": STRING}, ("query",)),
    tool("renew_loan", "Renew a borrowed book.", {"book": STRING}, ("book",)),
]
JOKES = [tool("tell_joke", "Tell the user a random joke.", {"topic": STRING}), *LIBRARY]


@pytest.mark.parametrize(
    "text",
    [
        "Tell me a long story about the sea.",
        "tell me a story about a dragon and a knight",
        "write me a poem about autumn",
        "can you tell me a joke about books",
        "sing me a lullaby",
        "can you explain how tides work",
        "give me a quick summary of the French revolution",
    ],
)
def test_a_request_for_content_the_assistant_makes_calls_no_tool(text: str) -> None:
    """ "Tell me a long story about the sea." gave ``show_details {"card": "long story"}`` ("about" is a
    word of details)."""
    assert composing.requested(text) is not None
    assert reply(VOICE_CLIENT, [said(text)])[1] == []
    assert reply(LIBRARY, [said(text)])[1] == []


def test_the_story_is_told_in_words() -> None:
    text, calls = reply(VOICE_CLIENT, [said("Tell me a long story about the sea.")])
    assert calls == [] and text is not None and text.startswith("Here is a story about the sea.")
    joke, calls = reply(VOICE_CLIENT, [said("can you tell me a joke?")])  # told, not "I heard you say …"
    assert calls == [] and joke is not None and joke.startswith("Here's one: ")


def test_a_tool_that_makes_the_content_is_called() -> None:
    assert reply(JOKES, [said("tell me a joke about books")])[1][0][0] == "tell_joke"


def test_words_that_ask_for_no_content_still_act() -> None:
    """ "tell me more about this one" is no story; an explanation of what the app holds reads it."""
    assert composing.requested("tell me more about this one") is None
    assert composing.requested("tell me about the story project") is None
    # a telling inside another request, and verbs that ask an app for its content
    assert composing.requested("remind me to tell Tom a joke tomorrow") is None
    assert composing.requested("let me hear that song again") is None
    assert composing.requested("share the story with Bob") is None
    reminders = [tool("set_reminder", "Remind the user about something.", {"text": STRING}, ("text",))]
    assert reply(reminders, [said("remind me to tell Tom a joke")])[1] == [
        ("set_reminder", {"text": "tell Tom a joke"})
    ]
    assert reply(VOICE_CLIENT, [said("show me the gesture project")])[1] == [
        ("open_card", {"card": "gesture project"})
    ]
    mail = [tool("list_emails", "List the user's unread emails.", {"folder": STRING})]
    assert reply(mail, [said("summarise my unread emails")])[1][0][0] == "list_emails"


@pytest.mark.parametrize(
    ("text", "opening", "lines"),
    [
        ("Write a poem about the sea", "Here's a short poem about the sea:", 4),
        ("write me a haiku about autumn", "Here's a short haiku about autumn:", 3),
        ("could you write a poem about my cat", "Here's a short poem about your cat:", 4),
        ("compose a song about our road trip", "Here's a short song about your road trip:", 4),
    ],
)
@pytest.mark.parametrize("tools", [(), VOICE_CLIENT], ids=["no tools", "voice client"])
def test_a_poem_asked_for_is_written_not_echoed(
    text: str, opening: str, lines: int, tools: tuple[ToolSpec, ...]
) -> None:
    """ "Write a poem about the sea" was answered "I heard you say Write a poem about the sea. Tell me
    more.": the request echoed, no poem."""
    said_back, calls = reply(tools, [said(text)])
    assert calls == [] and said_back is not None
    head, *poem = said_back.split("\n")
    assert head == opening and len(poem) == lines and all(poem)
    assert text.lower() not in said_back.lower() and "heard you" not in said_back
    assert reply(tools, [said(text)])[0] == said_back  # the same seed, the same poem


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("can you explain how tides work", "how tides work"),
        ("Explain photosynthesis to me like I'm five", "photosynthesis"),
        ("please explain why the sky is blue", "why the sky is blue"),
    ],
)
def test_an_explanation_asked_for_is_given_not_echoed(text: str, subject: str) -> None:
    """ "Can you explain how tides work?" was "So you're asking can you explain how tides work. I don't
    know that one, sorry."."""
    said_back, calls = reply(VOICE_CLIENT, [said(text)])
    assert calls == [] and said_back is not None and subject in said_back
    assert "asking" not in said_back and text.lower() not in said_back.lower()
    assert len(said_back.split(". ")) >= 2  # an explanation, not an apology


def test_a_story_written_about_a_subject_is_told() -> None:
    said_back = reply([], [said("write a story about a dragon and a knight")])[0] or ""
    assert (
        said_back.startswith("Here is a story about a dragon and a knight.")
        and "write a story" not in said_back
    )


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Give me a summary of the French revolution", "the French revolution"),
        ("Can you give me a quick overview of photosynthesis", "photosynthesis"),
        ("Tell me a fun fact about octopuses", "octopuses"),
        ("tell me some facts about Mars", "Mars"),
    ],
)
@pytest.mark.parametrize("tools", [(), VOICE_CLIENT], ids=["no tools", "voice client"])
def test_a_summary_or_a_fact_asked_for_is_given_not_echoed(
    text: str, subject: str, tools: tuple[ToolSpec, ...]
) -> None:
    """ "Tell me a fun fact about octopuses" was "I heard you say tell me a fun fact about octopuses. Tell
    me more.": the request echoed back, as were summaries."""
    said_back, calls = reply(tools, [said(text)])
    assert calls == [] and said_back is not None and subject in said_back
    assert "heard you" not in said_back and text.lower() not in said_back.lower()
    assert reply(tools, [said(text)])[0] == said_back  # the same seed, the same words


def test_a_summary_of_the_conversation_says_what_was_said() -> None:
    """ "Summarize what we talked about" summed up a topic called "what you talked about"; it recalls the
    user's last words now, and says there is nothing yet when nothing was said."""
    history = [
        said("What's the weather in Paris?", 1),
        TurnView("a1", "assistant", "It's sunny in Paris."),
        said("Book a table for two at 8", 2),
        TurnView("a2", "assistant", "Done."),
        said("Can you summarize what we talked about?", 3),
    ]
    said_back, calls = reply([], history)
    assert calls == []
    assert said_back == (
        'So far you\'ve said "What\'s the weather in Paris", then "Book a table for two at 8".'
    )
    first = reply([], [said("Recap our conversation so far please")])[0] or ""
    assert "nothing" in first or "only just started" in first


def test_the_rule_says_the_content_was_made() -> None:
    brain = ScriptedBrain(Scenario("model-like"), seed=1, today=TODAY)
    request = ReplyRequest("", (), "auto", ("text",), (said("write a poem about the sea"),), 1)
    assert brain.reply(request).rule == "builtin.composed"


# 2. the request's own verb is no thing


@pytest.mark.parametrize(
    "text",
    [
        "Please transfer me to the weather agent",
        "Connect me with the weather agent please",
        "could you connect us to the weather team",
    ],
)
def test_the_request_verb_is_no_city(text: str) -> None:
    """They gave ``city: "transfer"`` and ``city: "Connect with the weather agent"``."""
    answer, calls = reply([WEATHER], [said(text)])
    assert calls == [] and answer == "Which city do you mean?"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("what's the weather in Reading?", "Reading"),
        ("weather in Nice please", "Nice"),
        ("please check the weather in Paris", "Paris"),
    ],
)
def test_a_place_is_still_a_place(text: str, value: str) -> None:
    assert reply([WEATHER], [said(text)])[1] == [("get_weather", {"city": value})]


def test_a_product_or_a_person_is_no_verb() -> None:
    assert things.names_a_kind("product") and things.names_a_kind("recipient") and things.names_a_kind("city")
    assert not things.names_a_kind("query") and not things.names_a_kind("message")
    assert things.is_request_verb("transfer", "Please transfer me to the weather agent")
    assert things.is_request_verb(
        "Connect with the weather agent", "Connect me with the weather agent please"
    )
    assert not things.is_request_verb("Madrid", "Madrid?")
    assert not things.is_request_verb("Paris", "Paris to London")


# 3. a forced call never sends an empty required string


def test_a_forced_call_takes_the_place_said_earlier() -> None:
    """``get_time {"city": ""}`` after Paris was mentioned earlier."""
    history = [
        said("what's the weather like in Paris?"),
        TurnView("a1", "assistant", "It's sunny."),
        said("hello there", 2),
    ]
    assert reply([TIME], history, ForcedTool("get_time"))[1] == [("get_time", {"city": "Paris"})]
    assert reply([TIME], history, "required")[1] == [("get_time", {"city": "Paris"})]


def test_a_forced_call_takes_an_earlier_calls_argument() -> None:
    history = [
        said("weather in Oslo"),
        *answered("get_weather", {"city": "Oslo"}, '{"temp_c": 3}'),
        TurnView("a1", "assistant", "It's 3 degrees."),
        said("cool, thanks", 2),
    ]
    assert reply([WEATHER, TIME], history, ForcedTool("get_time"))[1] == [("get_time", {"city": "Oslo"})]


def test_with_nothing_said_a_forced_string_is_plausible_never_empty() -> None:
    note = tool("save_note", "Save a note.", {"body": STRING, "title": STRING}, ("body", "title"))
    zone = tool("set_zone", "Set the timezone.", {"timezone": STRING}, ("timezone",))
    assert reply([TIME], [said("hello there")], ForcedTool("get_time"))[1] == [
        ("get_time", {"city": "London"})
    ]
    assert reply([note], [said("hello there")], ForcedTool("save_note"))[1] == [
        ("save_note", {"body": "hello there", "title": "Untitled"})
    ]
    assert reply([zone], [said("hmm")], "required")[1] == [("set_zone", {"timezone": "UTC"})]


# 4. what a named place implies

TIME_ZONED = tool(
    "get_time",
    "Get the current local time in a city.",
    {"city": STRING, "timezone": {"type": "string", "description": "IANA timezone name"}},
    ("city",),
)
EXCHANGE = tool(
    "plan_trip",
    "Plan a trip to a destination.",
    {
        "destination": STRING,
        "country_code": {"type": "string", "description": "ISO 3166 alpha-2 country code"},
        "currency": {"type": "string", "description": "ISO 4217 code of the local currency"},
        "country": STRING,
    },
    ("destination",),
)


def test_the_time_in_tokyo_fills_its_timezone() -> None:
    assert reply([TIME_ZONED], [said("What's the time in Tokyo?")])[1] == [
        ("get_time", {"city": "Tokyo", "timezone": "Asia/Tokyo"})
    ]


def test_a_place_implies_its_country_and_currency_in_the_form_asked() -> None:
    assert reply([EXCHANGE], [said("plan a trip to Lisbon")])[1] == [
        (
            "plan_trip",
            {"destination": "Lisbon", "country_code": "PT", "currency": "EUR", "country": "Portugal"},
        )
    ]


def test_a_place_the_tables_do_not_know_implies_nothing() -> None:
    assert reply([TIME_ZONED], [said("What's the time in Tromsø?")])[1] == [("get_time", {"city": "Tromsø"})]
    assert implied.place("Lisbon") is not None and implied.place("Atlantis") is None


PHRASEBOOK = tool(
    "get_phrases",
    "Get useful phrases for a trip.",
    {"destination": STRING, "language": STRING},
    ("destination",),
)
LESSON = tool("start_lesson", "Start a lesson in a language.", {"language": STRING, "topic": STRING})


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("I'm planning a trip to Lisbon, get me some phrases", {"destination": "Lisbon"}),
        ("phrases for a trip to Lisbon in Portuguese", {"destination": "Lisbon", "language": "Portuguese"}),
        ("phrases for Lisbon, into portuguese please", {"destination": "Lisbon", "language": "Portuguese"}),
    ],
)
def test_a_place_fills_no_language(text: str, arguments: dict[str, Any]) -> None:
    """ "I'm planning a trip to Lisbon" gave ``language: Lisbon`` (the place after "to") and, with a
    destination beside it, ``language: Portuguese`` (implied by the place): a language is the words' to
    name ("in Portuguese"), a city names none."""
    assert reply([PHRASEBOOK], [said(text)])[1] == [("get_phrases", arguments)]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("start a lesson, I'm planning a trip to Lisbon", None),
        ("start a lesson in Portuguese", "Portuguese"),
        ("let's start a lesson, some Italian", "Italian"),
        ("start a lesson in brazilian portuguese", "Portuguese"),
    ],
)
def test_a_language_parameter_takes_only_a_language(text: str, language: str | None) -> None:
    calls = reply([LESSON], [said(text)])[1]
    assert calls and calls[0][0] == "start_lesson"
    assert calls[0][1].get("language") == language


def test_two_parameters_of_one_kind_are_left_to_the_words() -> None:
    """A source and a target currency: the place says neither."""
    convert = tool(
        "convert_money",
        "Convert money for a trip to a city.",
        {"city": STRING, "from_currency": STRING, "to_currency": STRING, "amount": {"type": "number"}},
        ("amount",),
    )
    calls = reply([convert], [said("convert 100 for my trip to Tokyo")])[1]
    assert calls and "from_currency" not in calls[0][1] and "to_currency" not in calls[0][1]


def test_an_enum_takes_the_option_the_place_implies() -> None:
    schema = {"type": "string", "enum": ["USD", "EUR", "JPY"]}
    where = implied.place("Osaka")
    assert where is not None and implied.value_for("currency", where, schema) == "JPY"


# 5. a one-field lookup said as a model says it


@pytest.mark.parametrize(
    ("output", "call", "arguments", "spoken"),
    [
        ('{"time": "10:42"}', "get_time", '{"city": "Tokyo"}', "It's 10:42 in Tokyo."),
        ('{"local_time": "10:42"}', "get_time", "{}", "It's 10:42."),
        ('{"status": "shipped"}', "track_order", '{"order_id": "4471"}', "The status for 4471 is shipped."),
        ('{"balance_usd": 42.5}', "get_balance", "{}", "The balance is 42.5 dollars."),
    ],
)
def test_a_lookup_with_one_field_is_said_as_a_sentence(
    output: str, call: str, arguments: str, spoken: str
) -> None:
    """It said "Tokyo: time 10:42."."""
    assert grounding(output, call, arguments) == spoken


@pytest.mark.parametrize(
    ("output", "call", "arguments", "spoken"),
    [
        (
            '{"temp_c": 3, "condition": "snow"}',
            "get_weather",
            '{"city": "Oslo"}',
            "It's 3 degrees Celsius with snow in Oslo.",
        ),
        (
            '{"temp": 21, "conditions": "sunny"}',
            "get_weather",
            '{"city": "Paris"}',
            "It's 21 degrees and sunny in Paris.",
        ),
        (
            '{"temperature": 70, "unit": "fahrenheit", "conditions": "Partly cloudy", "humidity_pct": 40}',
            "get_current_weather",
            '{"location": "Boston"}',
            "It's 70 degrees Fahrenheit and partly cloudy in Boston and the humidity is 40 percent.",
        ),
        (
            '{"city": "Oslo", "temp": 2, "feels_like": -3, "description": "light rain", "wind_kmh": 20}',
            "get_weather",
            '{"city": "Oslo"}',
            "It's 2 degrees with light rain in Oslo, it feels like -3 degrees and the wind is 20 kilometers"
            " per hour.",
        ),
        (
            '{"order_id": "4471", "status": "shipped", "eta": "Friday", "carrier": "UPS"}',
            "track_order",
            '{"order_id": "4471"}',
            "The status for 4471 is shipped, the eta is Friday and the carrier is UPS.",
        ),
        (
            '{"open": true, "has_parking": false, "rating": 4.5}',
            "find_restaurant",
            '{"name": "Chez Tom"}',
            "Chez Tom is open, it doesn't have parking and the rating is 4.5.",
        ),
        ('{"ok": true, "tasks": ["milk", "eggs"]}', "list_tasks", "{}", "There are 2 tasks: milk and eggs."),
    ],
)
def test_several_fields_are_said_as_one_sentence(output: str, call: str, arguments: str, spoken: str) -> None:
    """They were read out as written: "Paris: temp 21, conditions sunny."."""
    assert grounding(output, call, arguments) == spoken


@pytest.mark.parametrize(
    "output",
    [
        "temp=21 conditions='sunny'",  # a Pydantic model through str(), as the Agents SDK sends it
        "Weather(temp=21, conditions='sunny')",  # a dataclass
        "temp: 21, conditions: sunny",
        "temp: 21\nconditions: sunny",
        json.dumps(json.dumps({"temp": 21, "conditions": "sunny"})),  # JSON sent as a JSON string
        "{'temp': 21, 'conditions': 'sunny'}",  # a dict through str(), as LiveKit sends it
    ],
)
def test_fields_written_as_text_are_said_as_one_sentence(output: str) -> None:
    """A JSON string of the fields was read out as written: '{"temp": 21, "conditions": "sunny"}.'."""
    assert grounding(output, "get_weather", '{"city": "Paris"}') == "It's 21 degrees and sunny in Paris."


def test_a_sentence_with_a_colon_is_no_fields() -> None:
    assert grounding("Note: the gate moved to B12.", "get_gate", "{}") == "Note: the gate moved to B12."
    # an action's text is its answer, as before
    said = grounding("Booked: table for two, time: 7pm", "book_table", "{}")
    assert said == "Booked: table for two, time: 7pm."


# 6. a refused approval


@pytest.mark.parametrize(
    ("name", "arguments", "spoken"),
    [
        ("book_table", {"party_size": 2}, "Okay, I won't book the table."),
        ("open_card", {"card": "gesture project"}, "Okay, I won't open gesture project."),
        ("weather", {}, "Okay, I won't go ahead with that."),
    ],
)
def test_a_call_not_approved_is_declined_in_words(name: str, arguments: dict[str, Any], spoken: str) -> None:
    """The Agents SDK's "Tool execution was not approved." was read out as written."""
    book = tool(name, "Do it.", {"party_size": {"type": "integer"}, "card": STRING})
    history = [said("go on"), *answered(name, arguments, "Tool execution was not approved.")]
    assert reply([book], history) == (spoken, [])


def test_other_outputs_saying_approved_are_read_as_before() -> None:
    assert grounding("The booking was approved.", "book_table", "{}") == "The booking was approved."


# 8. a request to hear the last answer again (found at the last stop: "Say that again" was echoed back
# as content, "You said say that again. That sounds interesting.")

ANSWERED = [
    said("What's the weather in Paris?"),
    *answered("get_weather", {"city": "Paris"}, '{"temp": 21, "conditions": "sunny"}'),
    TurnView("a1", "assistant", "It's 21 degrees and sunny in Paris."),
]


@pytest.mark.parametrize(
    "words",
    [
        "Say that again",
        "Can you repeat that?",
        "could you please say that again?",
        "Sorry, what did you say?",
        "Pardon?",
        "come again?",
        "sorry, I didn't catch that, can you repeat?",
        "say it one more time please",
    ],
)
@pytest.mark.parametrize("tools", [[], [WEATHER, TIME]], ids=["no tools", "tools"])
def test_a_request_to_repeat_says_the_last_answer_again(words: str, tools: list[ToolSpec]) -> None:
    text, calls = reply(tools, [*ANSWERED, said(words, 2)])
    assert calls == [] and text in (
        "Sure. It's 21 degrees and sunny in Paris.",
        "Of course. It's 21 degrees and sunny in Paris.",
    )


def test_a_repeat_of_a_repeat_is_the_answer_once_more() -> None:
    history = [*ANSWERED, said("say that again", 2), TurnView("a2", "assistant", "Sure. It's 21 degrees.")]
    text = reply([], [*history, said("sorry, say that again", 3)])[0] or ""
    assert text.endswith(". It's 21 degrees.") and text.count("Sure") + text.count("Of course") == 1


def test_with_nothing_said_yet_a_repeat_says_so() -> None:
    assert reply([], [said("can you repeat that?")]) == (
        "I haven't said anything yet. What can I do for you?",
        [],
    )


def test_repeat_is_the_players_when_it_has_a_repeat_mode() -> None:
    player = tool(
        "set_repeat",
        "Set the player's repeat mode.",
        {"mode": {"type": "string", "enum": ["off", "one", "all"]}},
        ("mode",),
    )
    history = [said("play some jazz"), TurnView("a1", "assistant", "Playing jazz.")]
    assert reply([player], [*history, said("repeat it", 2)])[0] != "Sure. Playing jazz."
    assert reply([player], [*history, said("say that again", 2)])[0] in (
        "Sure. Playing jazz.",
        "Of course. Playing jazz.",
    )


@pytest.mark.parametrize(
    "words", ["repeat this song", "say hello again", "play that again", "what did you say about the weather?"]
)
def test_words_that_ask_for_something_else_are_no_repeat(words: str) -> None:
    from mockengine.brain.phrases import asks_to_repeat

    assert asks_to_repeat(words) is None
