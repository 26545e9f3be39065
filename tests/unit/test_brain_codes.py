"""Round 6's general rules, each on sentences of no labelled set: codes spoken digit by digit, currencies
by name, verbatim names after "called", an enum said with its label, colloquial verbs, questions about
how a service works, "there" and "it" resolved within one utterance."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from mockengine.brain import codes, utterance, verbatim
from mockengine.brain.lexicon import rewrite
from mockengine.brain.slots import Referent, fill
from mockengine.brain.values import dates, numbers

TODAY = date(2026, 3, 2)


def test_codes_spoken_digit_by_digit_or_read_apart() -> None:
    assert codes.identifier_for("it's box seven three three one")
    assert codes.identifier_for("box seven three three one").value == "7331"  # type: ignore[union-attr]
    assert codes.identifier_for("gate for LH 4410 please").value == "LH4410"  # type: ignore[union-attr]
    assert codes.identifier_for("just the one please") is None  # a quantity, not a code
    assert utterance.clean("pin five five one two") == "pin five five one two"  # no stutter


def test_currencies_by_name_for_a_currency_code_parameter() -> None:
    schema = {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217 code"}
    assert codes.is_currency("base", schema) and not codes.is_currency("city", {"type": "string"})
    found = codes.currencies("swap eighty quid into canadian dollars")
    assert [(s.value, into) for s, into in found] == [("GBP", False), ("CAD", True)]


def test_numbers_with_a_and_and() -> None:
    assert [s.value for s in numbers("under a hundred and forty")] == [140]
    assert [s.value for s in numbers("two hundred and six")] == [206]


def test_a_spoken_day_alone_is_a_date_but_not_before_a_noun() -> None:
    assert [s.value for s in dates("starting from the twenty first", TODAY)] == ["2026-03-21"]
    assert dates("for the third time", TODAY) == []


def test_called_name_quoted_title_and_labelled_enum() -> None:
    props: dict[str, Any] = {
        "title": {"type": "string"},
        "body": {"type": "string"},
        "level": {"type": "string", "enum": ["low", "high"]},
    }
    schema = {"type": "object", "properties": props, "required": ["title"]}
    filled = fill(
        "new_page", schema, "make a page called bills: rent and power, high level", Referent(), TODAY
    )
    assert filled.arguments == {"title": "bills", "body": "rent and power", "level": "high"}
    quoted = verbatim.quoted("find 'Hurt' by Johnny Cash", "query")
    assert quoted is not None and quoted.value == "Hurt by Johnny Cash"


def test_there_and_it_resolve_within_the_utterance() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    last = Referent((("city", "Oslo"),), "Oslo")
    assert fill("find_museums", schema, "find museums there", last, TODAY).arguments == {"city": "Oslo"}
    item = {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}
    said = "the red kettle is broken, return it"
    assert fill("return_item", item, said, Referent(), TODAY).arguments == {"item": "red kettle"}


def test_a_level_heard_leaves_a_required_switch_on() -> None:
    props = {
        "state": {"type": "string", "enum": ["on", "off"]},
        "speed": {"type": "integer", "description": "level"},
    }
    schema = {"type": "object", "properties": props, "required": ["state"]}
    assert fill("fan", schema, "take the fan down to 2", Referent(), TODAY).arguments == {
        "state": "on",
        "speed": 2,
    }


@pytest.mark.parametrize(
    ("said", "rewritten"),
    [
        ("ping me to water the plants", "remind me to water the plants"),
        ("lose that one", "remove that one"),
        ("boot up the racing game", "launch the racing game"),
        ("strike it off", "complete it"),
        ("play it from the top", "play it restart"),
    ],
)
def test_colloquial_verbs(said: str, rewritten: str) -> None:
    assert rewrite(said) == rewritten


@pytest.mark.parametrize(
    "said",
    [
        "how long does shipping normally take?",
        "how many playlists can I make?",
        "is it safe to leave the heater on overnight?",
    ],
)
def test_questions_on_how_the_service_works_call_nothing(said: str) -> None:
    assert utterance.not_asking(said) == "a question about the assistant"


def test_a_story_then_a_request_is_a_request() -> None:
    assert utterance.past_event("I bought too many apples, remove them") is None
    assert utterance.past_event("I bought too many apples") == "bought"


def test_evening_words_and_destination_options() -> None:
    from mockengine.brain.scalars import enum_for
    from mockengine.brain.values import times

    assert [s.value for s in times("for six thirty this evening")] == ["18:30"]
    props = {"at": {"type": "string", "format": "time"}, "what": {"type": "string"}}
    schema = {"type": "object", "properties": props, "required": ["what"]}
    said = "a call with mum at ten to eight tonight"
    assert fill("plan", schema, said, Referent(), TODAY).arguments["at"] == "19:50"
    chosen = enum_for("jump ahead to the last page", ["next", "last"])
    assert chosen is not None and chosen.value == "last"


def test_vague_words_and_british_spellings() -> None:
    from mockengine.brain.scalars import enum_for

    schema = {"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]}
    assert fill("print_file", schema, "print anything", Referent(), TODAY).missing == ["file"]
    chosen = enum_for("in colour please", ["color", "grayscale"])
    assert chosen is not None and chosen.value == "color"


def test_what_a_reminder_says_asks_for_nothing_now() -> None:
    from mockengine.bench.tool_cases import load
    from mockengine.brain import intent

    calendar = list(load()[0]["calendar"])
    found = intent.actions("ping me to schedule the plumber at nine tomorrow", calendar)
    assert [match.tool.name for _, match in found] == ["set_reminder"]


@pytest.mark.parametrize(
    "said",
    [
        "I'd take the train if I were you",
        "I'll take it from here, thanks",
        "from the top of my head I can't say",
        "nudge nudge, wink wink",
        "I'm going to lose it",
        "what a final!",
    ],
)
def test_the_colloquial_verbs_misfire_on_no_idiom(said: str) -> None:
    from mockengine.bench.tool_cases import load
    from mockengine.brain import intent

    apps = load()[0]
    for app in ("shop", "home", "calendar", "voice_client"):
        assert intent.actions(said, list(apps[app])) == [], (app, said)


def test_look_like_lists_only_a_day() -> None:
    from mockengine.bench.tool_cases import load
    from mockengine.brain import intent

    calendar = list(load()[0]["calendar"])
    assert intent.actions("what does the future look like", calendar) == []
    found = intent.actions("what does thursday look like?", calendar)
    assert [match.tool.name for _, match in found] == ["list_events"]
