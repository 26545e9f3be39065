"""brain21: a handoff asked for with "take me to", a reply language the instructions set, ``json_object``
keys named in other words ("keys like", "Keys: name (string)", "the user's name and hobbies as JSON", an
example object), a form filled in words ("subject: Report, body: …"), a recipient list of addresses and
a message dictated with "and say" (each failed on ab64ef3e)."""

from __future__ import annotations

import json

import pytest

from mockengine.brain import ReplyRequest, ScriptedBrain, TurnView, load_scenario
from mockengine.chat.request import parse_body
from mockengine.chat.shaping import structured_text
from tests.brain_calls import TODAY, calls, spec, tool
from tests.own_tools import (
    BOOK_FLIGHT,
    EMAIL_TO_MANY,
    PRIORITY,
    PROFILE_KEYS_OTHERWISE,
    STRING,
    STRINGS,
    TO_WEATHER_AGENT,
)

OPEN_SCREEN = tool(
    "open_screen",
    "Open a screen of the app.",
    {"screen": {"type": "string", "enum": ["home", "settings", "profile", "billing"]}},
)
CREATE_TICKET = tool(
    "create_ticket",
    "Create a support ticket.",
    {"title": STRING, "priority": PRIORITY, "tags": STRINGS},
    ["title", "priority"],
)


@pytest.mark.parametrize(
    "said",
    [
        "Take me to the weather agent",
        "Can you take me to the weather agent?",
        "Take me to the weather agent please",
    ],
)
def test_take_me_to_an_agent_calls_its_handoff(said: str) -> None:
    # was read as "open": "You said Take me to the weather agent. Tell me more."
    assert calls([spec(BOOK_FLIGHT), spec(TO_WEATHER_AGENT)], said) == [("transfer_to_weather_agent", {})]


def test_take_me_to_a_screen_still_opens_it() -> None:
    assert calls([OPEN_SCREEN], "Take me to the settings") == [("open_screen", {"screen": "settings"})]


def reply(instructions: str, words: str | None) -> tuple[str | None, str]:
    items = (TurnView("u", "user_text", words),) if words is not None else ()
    answer = ScriptedBrain(load_scenario(None), 3, today=TODAY).reply(
        ReplyRequest(instructions, (), "auto", ("text",), items, 1)
    )
    return answer.text, answer.rule


@pytest.mark.parametrize(
    ("instructions", "words", "text"),
    [
        ("Always answer in French.", "Hello!", "Bonjour ! Je suis Sam. Comment puis-je vous aider ?"),
        ("Always answer in French.", "How are you?", "Je vais bien, merci de demander."),
        (
            "Always answer in French.",
            "What time is it?",
            "Vous demandez : « What time is it ». Je ne sais pas, désolé.",
        ),
        ("You are a helper. Respond only in Spanish.", "How are you?", "Estoy bien, gracias por preguntar."),
        ("You only speak German.", None, "Hallo! Ich bin Sam. Wie kann ich Ihnen helfen?"),
    ],
)
def test_the_reply_language_the_instructions_set(instructions: str, words: str | None, text: str) -> None:
    assert reply(instructions, words)[0] == text  # was the English reply


@pytest.mark.parametrize(
    "instructions",
    [
        "Translate the user's text into French.",  # a task, no rule for every reply
        "If the user writes in Spanish, answer in Spanish.",  # a condition we cannot read
        "Always answer in Klingon.",  # a language we have no replies in: English, as before
    ],
)
def test_no_reply_language_set(instructions: str) -> None:
    text, rule = reply(instructions, "I like chess")
    assert not rule.endswith(("french", "spanish", "german")) and text is not None and "chess" in text


@pytest.mark.parametrize("instructions", PROFILE_KEYS_OTHERWISE)
def test_json_object_keys_named_otherwise_are_filled(instructions: str) -> None:
    said = "I like chess and hiking"
    messages = [{"role": "system", "content": instructions}, {"role": "user", "content": said}]
    request = parse_body(
        {"model": "gpt-4o-mini", "messages": messages, "response_format": {"type": "json_object"}}
    )
    # was {"response": "You said I like chess and hiking. …"}
    assert json.loads(structured_text("You said it.", request, 0, said=said)) == {
        "name": None,
        "hobbies": ["chess", "hiking"],
    }


def test_an_example_list_is_a_list_whatever_its_name() -> None:
    messages = [
        {"role": "system", "content": 'Answer in JSON: {"city": "...", "stops": ["..."], "team": ["..."]}'},
        {"role": "user", "content": "Hello"},
    ]
    request = parse_body(
        {"model": "gpt-4o-mini", "messages": messages, "response_format": {"type": "json_object"}}
    )
    assert json.loads(structured_text("Hi.", request, 0, said="Hello")) == {
        "city": None,
        "stops": [],
        "team": [],
    }


@pytest.mark.parametrize(
    ("said", "arguments"),
    [
        (
            "Send an email to carol@example.com, subject: Report, body: The report is attached",
            {"to": ["carol@example.com"], "subject": "Report", "body": "The report is attached"},
        ),
        (
            "Email dan@example.com, subject: Offsite, body: Bus leaves at 9. CC erin@example.com",
            {
                "to": ["dan@example.com"],
                "subject": "Offsite",
                "body": "Bus leaves at 9",
                "cc": ["erin@example.com"],
            },
        ),
        (
            "Email alice@example.com and bob@example.com with subject Lunch and say let's meet at noon",
            {
                "to": ["alice@example.com", "bob@example.com"],
                "subject": "Lunch",
                "body": "let's meet at noon",
            },
        ),
        (
            "Send an email to carol@example.com with subject Report saying the report is attached",
            {"to": ["carol@example.com"], "subject": "Report", "body": "the report is attached"},
        ),
    ],
)
def test_an_email_told_by_its_fields(said: str, arguments: dict[str, object]) -> None:
    # was "What should it say?", and ``to: ["carol example"]``
    assert calls([spec(EMAIL_TO_MANY)], said) == [("send_email", arguments)]


def test_a_ticket_told_by_its_fields() -> None:
    said = "New ticket. Title: Login page down, priority: urgent, tags: auth, frontend"
    assert calls([CREATE_TICKET], said) == [
        ("create_ticket", {"title": "Login page down", "priority": "urgent", "tags": ["auth", "frontend"]})
    ]


def test_json_object_keys_filled_by_their_names() -> None:
    said = "Sam. Hobbies: chess, hiking"
    messages = [
        {"role": "system", "content": "Return JSON with keys name and hobbies."},
        {"role": "user", "content": said},
    ]
    request = parse_body(
        {"model": "gpt-4o-mini", "messages": messages, "response_format": {"type": "json_object"}}
    )
    # was {"name": null, "hobbies": ["Sam"]}: the form's labels were read as words
    assert json.loads(structured_text("You said it.", request, 0, said=said)) == {
        "name": "Sam",
        "hobbies": ["chess", "hiking"],
    }
