"""Apps' own tools as a real model acts on them, over a real engine with the official openai SDK (the
cases a user found wrong, brain3): a support desk asks what the ticket is about before its priority and
fills the description with what happened; a hotel is booked by its name ("the Hilton … starting
<date>": "starting" is when, not an action); "I need to see Dr. Patel" books a doctor (asking for the
date); a smart home maps raise/lower, lock, brighter to the options its schema offers, and asks on or
off when a switch-only app is told to close the blinds. Chat Completions for the calls and questions, the
Realtime WebSocket for the clinic's question and its answer."""

from __future__ import annotations

import json

from openai import AsyncOpenAI

from tests.own_tools import DATE, INTEGER, STRING, Chat, chat_client, chat_tool, said, turn

# required lists the priority first, as an app may: the question is still what the ticket is about
TICKET = chat_tool(
    "create_ticket",
    "Open a support ticket",
    {
        "priority": {"type": "string", "enum": ["low", "medium", "high"]},
        "description": {"type": "string", "description": "What the problem is"},
    },
    ["priority", "description"],
)
HOTEL = chat_tool(
    "book_hotel",
    "Book a room at a named hotel",
    {"hotel_name": STRING, "check_in": DATE, "nights": INTEGER, "guests": INTEGER},
    ["hotel_name", "check_in", "nights"],
)
APPOINTMENT = chat_tool(
    "book_appointment",
    "Book an appointment at the clinic",
    {"doctor": STRING, "date": DATE, "time": STRING},
    ["doctor", "date", "time"],
)
BLINDS = chat_tool(
    "control_blinds",
    "Move the window blinds",
    {"room": STRING, "action": {"type": "string", "enum": ["open", "close"]}},
    ["action"],
)
LOCK = chat_tool(
    "set_lock",
    "Lock or unlock a door",
    {"door": {"type": "string", "enum": ["front", "back"]}, "locked": {"type": "boolean"}},
    ["door", "locked"],
)
LIGHT = chat_tool(
    "set_light",
    "Adjust a light",
    {"light": STRING, "action": {"type": "string", "enum": ["dim", "brighten"]}},
    ["light", "action"],
)
SWITCH = chat_tool(
    "set_device",
    "Control a device",
    {"device": STRING, "state": {"type": "string", "enum": ["on", "off"]}},
    ["device", "state"],
)


async def test_a_ticket_asks_what_it_is_about_first_and_keeps_what_happened(engine) -> None:
    """It asked "Which priority would you like: low, medium or high?" first (the order ``required``
    lists), and the description was "laptop won't" (the comma after "turn on" was dropped as a stutter's)."""
    client = chat_client(await engine())
    desk = Chat(client, [TICKET])
    assert await desk.say("I'd like to create a ticket") == ([], "Could you briefly describe the problem?")
    assert await desk.say("my laptop won't turn on") == (
        [],
        "Which priority would you like: low, medium or high?",
    )
    calls, _ = await desk.say("high")
    assert calls == [("create_ticket", {"priority": "high", "description": "my laptop won't turn on"})]

    calls, _ = await Chat(client, [TICKET]).say(
        "my laptop won't turn on, high priority, please open a ticket"
    )
    assert calls == [("create_ticket", {"priority": "high", "description": "my laptop won't turn on"})]


async def test_a_hotel_is_booked_by_its_name_starting_on_a_date(engine) -> None:
    """ "starting" was read as an action no tool declares: no call, no question."""
    client = chat_client(await engine())
    calls, _ = await Chat(client, [HOTEL]).say(
        "Can you get me the Hilton for three nights starting December 18th?"
    )
    assert len(calls) == 1
    name, arguments = calls[0]
    assert name == "book_hotel" and arguments["check_in"].endswith("-12-18")
    assert {k: v for k, v in arguments.items() if k != "check_in"} == {"hotel_name": "Hilton", "nights": 3}


async def test_seeing_a_doctor_asks_for_the_date_then_books(engine) -> None:
    """ "I need to see Dr. Patel" made no call and asked nothing ("You said … Tell me more.")."""
    client = chat_client(await engine())
    clinic = Chat(client, [APPOINTMENT])
    assert await clinic.say("I need to see Dr. Patel") == ([], "What date would you like?")
    calls, _ = await clinic.say("2026-12-21 at 10am")
    assert calls == [("book_appointment", {"doctor": "Dr. Patel", "date": "2026-12-21", "time": "10:00"})]


async def test_a_smart_home_maps_moves_to_the_options_it_offers(engine) -> None:
    """ "lower"/"raise" named no option (asked open or close), "lock" set no ``locked`` (asked yes or
    no), "brighter" was ``dim`` (one lexicon group holds both), and a switch-only app told to close the
    blinds made no call and asked nothing."""
    client = chat_client(await engine())
    home = [BLINDS, LOCK, LIGHT]
    said = {
        "lower the blinds in the bedroom": ("control_blinds", {"room": "bedroom", "action": "close"}),
        "raise the blinds": ("control_blinds", {"action": "open"}),
        "lock the front door": ("set_lock", {"door": "front", "locked": True}),
        "unlock the back door": ("set_lock", {"door": "back", "locked": False}),
        "make the hallway light a bit brighter": ("set_light", {"light": "hallway", "action": "brighten"}),
    }
    for words, call in said.items():
        assert (await Chat(client, home).say(words))[0] == [call], words

    switch = Chat(client, [SWITCH])
    assert await switch.say("close the blinds") == ([], "Should I turn it on or off?")
    assert (await switch.say("off"))[0] == [("set_device", {"device": "blinds", "state": "off"})]
    assert (await Chat(client, [SWITCH]).say("turn off the fan"))[0] == [
        ("set_device", {"device": "fan", "state": "off"})
    ]


async def test_seeing_a_doctor_over_realtime(engine) -> None:
    """The clinic's question and its answer in a Realtime session: the doctor kept for the answer."""
    server = await engine()
    client = AsyncOpenAI(api_key="sk-test", websocket_base_url=server.url)
    tool = {"type": "function", **APPOINTMENT["function"]}
    async with client.realtime.connect(model="gpt-realtime") as conn:
        session = {"type": "realtime", "output_modalities": ["text"], "tools": [tool]}
        await conn.session.update(session=session)
        for words in ("I need to see Dr. Patel", "2026-12-21 at 10am"):
            response = await turn(conn, words)
            if words.startswith("I need"):
                assert said(response) == "What date would you like?"
    calls = [item for item in response.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("book_appointment", {"doctor": "Dr. Patel", "date": "2026-12-21", "time": "10:00"})
    ]
