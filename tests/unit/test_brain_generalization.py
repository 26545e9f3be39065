"""Round 5: the matcher on tools it was never tuned on, by principle: fillers and dismissals, questions about
the assistant, remarks, indirect requests, lookups asked about, spoken times and dates, lists of things,
the tool's own words, booleans by name, "it" after a list (docs/tools.md)."""

from __future__ import annotations

import json
import random
from datetime import date
from typing import Any

import jsonschema
import pytest

from mockengine.bench.tool_cases import load as load_set
from mockengine.brain import ReplyRequest, ScriptedBrain, ToolSpec, TurnView, load_scenario
from mockengine.brain.phrases import echo_of, reply_to_words
from mockengine.brain.values import dates, numbers, times

MONDAY = date(2026, 3, 2)


def tool(name: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": list(required)}
    return ToolSpec(name, description, {**schema, "additionalProperties": False})


TEXT = {"type": "string"}
PANTRY = (
    tool("add_ingredient", "Add an ingredient to the pantry list.", {"ingredient": TEXT}, ("ingredient",)),
    tool("use_up", "Mark an ingredient as used up.", {"ingredient": TEXT}, ("ingredient",)),
    tool("pantry_contents", "What is in the pantry.", {}),
)
LIVING = (
    tool("lamp_on", "Switch a lamp on.", {"room": TEXT}),
    tool("lamp_off", "Switch a lamp off.", {"room": TEXT}),
)
SKY = (
    tool(
        "sky_report", "Current weather at a place: rain, sun, wind, temperature.", {"place": TEXT}, ("place",)
    ),
)
TAXI = (
    tool(
        "order_taxi",
        "Send a taxi to pick the user up.",
        {"to": TEXT, "at": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"}},
        ("to",),
    ),
    tool("taxi_eta", "When the taxi arrives.", {}),
)
MAIL = (
    tool("list_mail", "List emails in the inbox.", {"unread_only": {"type": "boolean"}}),
    tool("flag_mail", "Flag an email by its subject.", {"subject": TEXT}, ("subject",)),
)
GYM = (
    tool("start_class", "Start a fitness class session.", {"class_name": TEXT}, ("class_name",)),
    tool(
        "set_pace",
        "Set the treadmill pace.",
        {"pace": {"type": "number", "enum": [0.5, 1, 1.5, 3]}},
        ("pace",),
    ),
)


def reply(tools: tuple[ToolSpec, ...], text: str, history: tuple[TurnView, ...] = (), seed: int = 3) -> Any:
    items = (*history, TurnView("u", "user_audio", text))
    request = ReplyRequest("", tools, "auto", ("audio",), items, len(history))
    answer = ScriptedBrain(load_scenario(None), seed, today=MONDAY).reply(request)
    schemas = {t.name: t.parameters for t in tools}
    for call in answer.tool_calls:
        jsonschema.validate(json.loads(call.arguments), schemas[call.name])
    return answer


def calls(tools: tuple[ToolSpec, ...], text: str, history: tuple[TurnView, ...] = ()) -> list[Any]:
    return [(c.name, json.loads(c.arguments)) for c in reply(tools, text, history).tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("um, could you maybe switch the lamp on in the study", [("lamp_on", {"room": "study"})]),
        ("uh, er, you know, lamp off please", [("lamp_off", {})]),
        ("never mind, turn off the lamp in the hall", [("lamp_off", {"room": "hall"})]),
        ("it's way too dark in the garage", [("lamp_on", {"room": "garage"})]),
        ("I can't see a thing", [("lamp_on", {})]),
    ],
)
def test_fillers_dismissals_and_indirect_requests(text: str, expected: list[Any]) -> None:
    assert calls(LIVING, text) == expected


@pytest.mark.parametrize(
    "text", ["never mind", "not now, thanks", "no thanks", "forget it", "don't turn anything on", "nah"]
)
def test_declining_calls_nothing_and_says_okay(text: str) -> None:
    answer = reply(LIVING, text)
    assert (
        answer.tool_calls == () and answer.text == "Okay, I'll leave it." and answer.rule == "intent.declined"
    )


def test_a_question_about_the_assistant_names_its_tools() -> None:
    answer = reply(LIVING, "what can you do?")
    assert answer.tool_calls == () and answer.text == "I can lamp on or lamp off for you."


@pytest.mark.parametrize(
    "text", ["the lamps are really pretty", "this room is lovely", "how does this app work?"]
)
def test_remarks_and_questions_about_the_app_call_nothing(text: str) -> None:
    assert calls(LIVING, text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("is it snowing in Oslo?", [("sky_report", {"place": "Oslo"})]),
        ("how cold is it in Reykjavik", [("sky_report", {"place": "Reykjavik"})]),
        ("do I need an umbrella in Bergen?", [("sky_report", {"place": "Bergen"})]),
        ("I love snowy days", []),
    ],
)
def test_weather_asked_without_the_word(text: str, expected: list[Any]) -> None:
    assert calls(SKY, text) == expected


def test_a_declared_weather_tool_is_never_denied() -> None:
    answer = reply(SKY, "please don't check the weather")
    assert answer.tool_calls == () and "can't check the weather" not in (answer.text or "")
    rng = __import__("random").Random(0)
    assert "can't check the weather" in reply_to_words("how is the weather", rng, "Sam")
    assert "can't" not in reply_to_words("how is the weather", rng, "Sam", frozenset(("weather",)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "add flour and sugar",
            [("add_ingredient", {"ingredient": "flour"}), ("add_ingredient", {"ingredient": "sugar"})],
        ),
        (
            "put rice, beans and oats on the list",
            [("add_ingredient", {"ingredient": w}) for w in ("rice", "beans", "oats")],
        ),
        ("add sweet and sour sauce", [("add_ingredient", {"ingredient": "sweet and sour sauce"})]),
        ("we're out of olive oil", [("add_ingredient", {"ingredient": "olive oil"})]),
        ("I used up the flour", [("use_up", {"ingredient": "flour"})]),
        ("check the pantry", [("pantry_contents", {})]),
    ],
)
def test_lists_of_things_and_check(text: str, expected: list[Any]) -> None:
    assert calls(PANTRY, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "get me a taxi to the harbour at quarter to eight",
            [("order_taxi", {"to": "harbour", "at": "19:45"})],
        ),
        ("I need a cab to the museum that leaves soon", [("order_taxi", {"to": "museum"})]),
        ("how long until the taxi gets here?", [("taxi_eta", {})]),
    ],
)
def test_a_pattern_tells_a_time_and_a_relative_clause_is_no_name(text: str, expected: list[Any]) -> None:
    assert calls(TAXI, text) == expected


def test_a_boolean_by_its_own_words_and_it_after_a_list() -> None:
    assert calls(MAIL, "show my unread mail") == [("list_mail", {"unread_only": True})]
    history = (
        TurnView("u0", "user_audio", "list my mail"),
        TurnView("c", "function_call", "{}", name="list_mail", call_id="c1"),
        TurnView(
            "o", "function_call_output", json.dumps({"emails": [{"subject": "Rent due"}]}), call_id="c1"
        ),
    )
    assert calls(MAIL, "flag it", history) == [("flag_mail", {"subject": "Rent due"})]


def test_the_tools_own_words_are_no_value_and_numbers_pick_an_enum() -> None:
    answer = reply(GYM, "start a fitness class")
    assert answer.tool_calls == () and answer.text == "Which class name do you mean?"
    assert calls(GYM, "set the pace to one and a half") == [("set_pace", {"pace": 1.5})]
    assert calls(GYM, "pace 3x please") == [("set_pace", {"pace": 3})]


def test_spoken_times_dates_and_numbers() -> None:
    assert [s.value for s in times("half past six, quarter to eight, at six thirty, ten past nine am")] == [
        "18:30",
        "19:45",
        "18:30",
        "09:10",
    ]
    found = [s.value for s in dates("in two days, next week, next tuesday, next friday", MONDAY)]
    assert found == ["2026-03-04", "2026-03-09", "2026-03-10", "2026-03-06"]
    spoken = [s.value for s in dates("march twentieth, the twenty-first of april, by the 15th", MONDAY)]
    assert spoken == ["2026-03-20", "2026-04-21", "2026-03-15"]
    assert [s.value for s in numbers("one and a half, two point five, 2x, twenty two")] == [1.5, 2.5, 2, 22]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Book a table for 4 under Smith at 8", "20:00"),
        ("dinner reservation for two at 7:30", "19:30"),
        ("drinks at nine", "21:00"),
        ("wake me up at 8", "08:00"),
        ("breakfast table at 7:30", "07:30"),
        ("a meeting at 9", "09:00"),
        ("a call at 3", "15:00"),
        ("a table at 8 am", "08:00"),
    ],
)
def test_an_evening_plans_hour_is_the_evenings(text: str, expected: str) -> None:
    """ "Book a table for 4 under Smith at 8" booked 08:00: an hour without am/pm beside an evening plan
    (dinner, a table, drinks) is the evening's, as a model reads it; a morning word or "am" still wins."""
    assert [s.value for s in times(text)] == [expected]


def test_an_echo_ends_at_a_phrase() -> None:
    long = "I was wondering whether you could tell me about the history of the old lighthouse"
    assert echo_of(long) == "I was wondering whether you could tell me"
    assert echo_of("hey, can you pull up that gesture project for me?") == (
        "hey, can you pull up that gesture project for me"
    )


@pytest.mark.parametrize("text", ["add flour and sugar", "never mind", "it's too dark in here"])
def test_same_seed_same_reply(text: str) -> None:
    tools = PANTRY + LIVING
    assert reply(tools, text, seed=7) == reply(tools, text, seed=7)


DATE = {"type": "string", "format": "date"}
TO_DO_APP = (
    tool("add_todo", "Add an item to the to-do list.", {"task": TEXT, "due": DATE}, ("task",)),
    tool("complete_todo", "Mark a to-do item as done.", {"task": TEXT}, ("task",)),
    tool("get_todos", "Get the to-do items.", {"due": DATE}),
)
NOTES = (
    tool("new_note", "Write a new note.", {"text": TEXT, "notebook": TEXT}, ("text",)),
    tool("find_note", "Search the notes.", {"keywords": TEXT}, ("keywords",)),
)
RIDE = (
    tool(
        "book_trip",
        "Book a ride from pickup to drop-off.",
        {"pickup": TEXT, "dropoff": TEXT, "when": {"type": "string", "format": "date-time"}},
        ("dropoff",),
    ),
    tool("driver_location", "Where the driver is now.", {}),
    tool("change_destination", "Change where the current ride goes.", {"dropoff": TEXT}, ("dropoff",)),
)


@pytest.mark.parametrize(
    ("tools", "text", "expected"),
    [
        (TO_DO_APP, "add buy stamps to my to-do list", [("add_todo", {"task": "buy stamps"})]),
        (
            TO_DO_APP,
            "I need to call the plumber tomorrow",
            [("add_todo", {"task": "call the plumber", "due": "2026-03-03"})],
        ),
        (TO_DO_APP, "I already did the laundry", [("complete_todo", {"task": "laundry"})]),
        (
            TO_DO_APP,
            "add eggs and bread and then show me my list",
            [("add_todo", {"task": "eggs and bread"}), ("get_todos", {})],
        ),
        (TO_DO_APP, "what's left to do today?", [("get_todos", {"due": "2026-03-02"})]),
        (NOTES, "take a note: the gate code is 4512", [("new_note", {"text": "the gate code is 4512"})]),
        (
            NOTES,
            "note that the meeting moved to Friday",
            [("new_note", {"text": "the meeting moved to Friday"})],
        ),
        (
            NOTES,
            "write down call the plumber in my work notebook",
            [("new_note", {"text": "call the plumber", "notebook": "work"})],
        ),
        (
            RIDE,
            "book a car from home to the office tomorrow at 8 am",
            [("book_trip", {"pickup": "home", "dropoff": "office", "when": "2026-03-03T08:00:00"})],
        ),
        (RIDE, "I want to go to the airport", [("book_trip", {"dropoff": "airport"})]),
        (RIDE, "where's the car?", [("driver_location", {})]),
        (RIDE, "change my destination to the hotel", [("change_destination", {"dropoff": "hotel"})]),
    ],
)
def test_to_do_notes_and_rides_declared_their_own_way(
    tools: tuple[ToolSpec, ...], text: str, expected: list[Any]
) -> None:
    got = calls(tools, text)
    assert [(name, arguments) for name, arguments in got] == expected


SUPPORT = (
    tool("lookup_order", "Look up an order by its number.", {"order_number": TEXT}, ("order_number",)),
    tool("check_availability", "Check open appointment slots on a date.", {"date": DATE}, ("date",)),
    tool("transfer_to_human", "Transfer the caller to a human agent.", {}),
    tool(
        "wake_up_call", "Schedule a wake-up call.", {"time": {"type": "string", "format": "time"}}, ("time",)
    ),
    tool("order_room_service", "Order food to the room.", {"dish": TEXT}, ("dish",)),
    tool(
        "create_event",
        "Create an event.",
        {"title": TEXT, "attendees": {"type": "array", "items": {"type": "string"}}},
        ("title",),
    ),
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("do you have anything free on Thursday?", [("check_availability", {"date": "2026-03-05"})]),
        ("can I talk to a real person", [("transfer_to_human", {})]),
        ("wake me up at 7 tomorrow", [("wake_up_call", {"time": "07:00"})]),
        ("send up two cheeseburgers", []),  # "up" names no wake-up call
        ("the room is too cold", []),  # a complaint about the cold, not a room-service order
        (
            "create an event called standup with Ana, Bo and Cy",
            [("create_event", {"title": "standup", "attendees": ["Ana", "Bo", "Cy"]})],
        ),
    ],
)
def test_a_support_desk_and_a_hotel(text: str, expected: list[Any]) -> None:
    assert calls(SUPPORT, text) == expected


ALL_TOOLS = (LIVING, SKY, TAXI, MAIL, GYM, PANTRY, TO_DO_APP, NOTES, RIDE, SUPPORT)


@pytest.mark.parametrize(
    "text",
    [
        "what's your name?",
        "where are you from?",
        "is this thing on?",
        "I went to the park this morning",
        "we watched a movie last night",
        "my car broke down yesterday",
        "I love this song",
        "I'm so tired today",
    ],
)
def test_chatter_and_stories_call_nothing_on_any_app(text: str) -> None:
    assert [calls(tools, text) for tools in ALL_TOOLS] == [[] for _ in ALL_TOOLS]


SHARED = load_set()[0]


@pytest.mark.parametrize(
    ("app", "text", "expected"),
    [
        (
            "shop",
            "um, do you guys have running shoes under 80 bucks?",
            [("search_products", {"query": "running shoes", "max_price": 80})],
        ),
        ("shop", "never mind the shoes", []),
        ("calendar", "am I busy on Friday?", [("list_events", {"date": "2026-03-06"})]),
        (
            "home",
            "could you dim the living room lights to 30 percent",
            [("set_light", {"room": "living room", "state": "on", "brightness": 30})],
        ),
        ("voice_client", "um, open the, uh, orbit project", [("open_card", {"card": "orbit project"})]),
    ],
)
def test_the_shared_apps_in_other_words(app: str, text: str, expected: list[Any]) -> None:
    got = calls(SHARED[app], text)
    assert [(name, arguments) for name, arguments in got] == [(n, a) for n, a in expected]


def test_the_agents_sdks_guardrail_feedback_gets_an_apology_not_an_echo() -> None:
    """An echo repeated what tripped the guardrail ("… no secrets …") and tripped it again."""
    reply = reply_to_words("guardrail triggered: no_secrets", random.Random(1), "Sam")
    assert "secret" not in reply.lower() and "sorry" in reply.lower()


JS_GUARDRAIL_FEEDBACK = (  # @openai/agents-realtime getRealtimeGuardrailFeedbackMessage, as sent
    "⚠️ Your last answer was blocked. \nFailed Guardrail Reason: no_paris. \n"
    'Failure Details: {"word":"Paris"}. \nPlease respond again following policy. Apologize for not being '
    "able to answer the question (while avoiding the specific reason) and divert discussion back to an "
    "approved topic immediately and not invite more discussion."
)
POLICY_SEARCH = (
    tool("search_topics", "Search the approved topics and policies.", {"query": TEXT}, ("query",)),
)


@pytest.mark.parametrize("tools", [(), POLICY_SEARCH])
def test_the_agents_js_sdks_guardrail_feedback_gets_an_apology_and_no_call(
    tools: tuple[ToolSpec, ...],
) -> None:
    """The JS SDK's feedback was echoed ("You said ⚠️ Your last answer was blocked …") and, with a tool
    whose words its instructions share ("approved topic", "policy"), called it (query "word")."""
    answer = reply(tools, JS_GUARDRAIL_FEEDBACK)
    assert answer.tool_calls == () and answer.text is not None
    assert "sorry" in answer.text.lower() and "blocked" not in answer.text and "Paris" not in answer.text


WEATHER_AGENT = (
    tool("get_weather", "Get the weather for a city.", {"city": TEXT}, ("city",)),
    tool("transfer_to_Assistant", "Handoff to the Assistant agent to handle the request. ", {}),
)


def _handed_over(text: str) -> Any:
    """The reply of the agent a ``transfer_to_Weather_agent`` handoff for ``text`` gave the conversation."""
    handoff = (
        TurnView("u", "user_text", text),
        TurnView("c", "function_call", "{}", name="transfer_to_Weather_agent", call_id="call_1"),
        TurnView("o", "function_call_output", '{"assistant":"Weather agent"}', call_id="call_1"),
    )
    request = ReplyRequest("Talk weather", WEATHER_AGENT, "auto", ("audio",), handoff, 1)
    return ScriptedBrain(load_scenario(None), 3, today=MONDAY).reply(request)


@pytest.mark.parametrize(
    "text",
    [
        "Transfer me to the weather agent.",
        "Please transfer me to the weather agent.",
        "Connect me with the weather agent please.",
        "Can you put me through to the weather agent?",
    ],
)
def test_words_that_only_ask_for_a_handoff_are_no_request_to_the_new_agent(text: str) -> None:
    """The new agent called get_weather with the city "Transfer", "transfer" or "Connect with the weather
    agent": the words asking for the transfer were read as a request to it."""
    answer = _handed_over(text)
    assert answer.tool_calls == ()
    assert answer.text is not None and "weather agent" in answer.text.lower()


@pytest.mark.parametrize(
    ("said", "handoff", "agent", "named"),
    [
        ("Please transfer me to travel.", "transfer_to_travel", "Travel", "the travel agent"),
        (
            "Put me through to the billing desk.",
            "transfer_to_Billing_desk",
            "Billing desk",
            "the billing desk",
        ),
        # realtime_handoff(billing, tool_name_override=...): known by its output, and named by it
        ("Please transfer me to billing.", "escalate_to_billing", "Billing", "the billing agent"),
    ],
)
def test_a_handed_over_agent_names_itself_as_an_agent(
    said: str, handoff: str, agent: str, named: str
) -> None:
    """The Agents SDK's ``RealtimeAgent(name="Travel")`` is ``transfer_to_travel``: its greeting was
    "Hi, you're through to the travel."."""
    history = (
        TurnView("u", "user_text", said),
        TurnView("c", "function_call", "{}", name=handoff, call_id="call_1"),
        TurnView("o", "function_call_output", json.dumps({"assistant": agent}), call_id="call_1"),
    )
    for seed in range(4):  # every greeting
        request = ReplyRequest("You book flights.", WEATHER_AGENT, "auto", ("audio",), history, 1)
        answer = ScriptedBrain(load_scenario(None), seed, today=MONDAY).reply(request)
        assert answer.tool_calls == () and answer.text is not None
        assert named in answer.text.lower(), answer.text


def test_what_follows_a_handoff_request_is_acted_on_by_the_new_agent() -> None:
    answer = _handed_over("Transfer me to the weather agent, what is the weather in Rome?")
    made = [(c.name, json.loads(c.arguments)) for c in answer.tool_calls]
    assert made == [("get_weather", {"city": "Rome"})]
