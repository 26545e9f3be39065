"""HyperStudy [context] items: every example from HRP spec 0.2.0 parses, question ranges and choices."""

from __future__ import annotations

import pytest

from mockengine.brain.context import (
    NumericRange,
    is_context_text,
    parse_choices,
    parse_context,
    parse_range,
)

# HRP spec 0.2.0, voiceEngine.contextItems, verbatim.
SPEC_CONTEXT_ITEMS = [
    '[context] {"event":"participants","others":[{"name":"Alex","role":"A"}]}',
    '[context] {"event":"screen","type":"showtext","text":"Please introduce yourselves."}',
    '[context] {"event":"screen","type":"vasrating","text":"How trustworthy is this face?",'
    '"images":["attached: the image (Face 3)"]}',
    '[context] {"event":"typed","speaker":"Alex","said":"hello?"}',
    '[context] {"event":"question","tool":"answer_scale","question":"Question: How warm was your partner?'
    '\\nThis is a visual analog rating scale from 0 to 100.\\nRespond with a number between 0 and 100.",'
    '"duringVideo":false}',
    '[context] {"event":"timer","secondsLeft":30}',
    '[context] {"event":"experimenter_message","text":"Please answer honestly."}',
    '[context] {"event":"revealed","name":"Alex","role":"A","answer":70}',
    '[context] {"event":"paused","waitingFor":["Alex (A)"]}',
    '[context] {"event":"resumed"}',
]


def test_every_spec_example_parses_to_its_event() -> None:
    events = [parse_context(text).event for text in SPEC_CONTEXT_ITEMS]
    assert events == [
        "participants",
        "screen",
        "screen",
        "typed",
        "question",
        "timer",
        "experimenter_message",
        "revealed",
        "paused",
        "resumed",
    ]


def test_spec_question_gives_tool_range_and_headline() -> None:
    question = parse_context(SPEC_CONTEXT_ITEMS[4]).as_question()
    assert question is not None
    assert question.tool == "answer_scale"
    assert question.range == NumericRange(0.0, 100.0)
    assert question.range.is_integral
    assert question.headline == "How warm was your partner?"
    assert question.choices == ()
    assert question.during_video is False


def test_typed_helper_and_text() -> None:
    event = parse_context(SPEC_CONTEXT_ITEMS[3])
    typed = event.as_typed()
    assert typed is not None
    assert (typed.speaker, typed.said) == ("Alex", "hello?")
    assert event.text == "hello?"
    assert event.as_question() is None
    assert parse_context(SPEC_CONTEXT_ITEMS[1]).text == "Please introduce yourselves."
    assert parse_context(SPEC_CONTEXT_ITEMS[1]).as_typed() is None


@pytest.mark.parametrize(
    "text",
    [
        "[context] {not json",
        "[context] User has been viewing the card silently for 12s.",
        '[context] ["a", "list"]',
        '[context] {"no_event": 1}',
        '[context] {"event": ""}',
        "[context]",
    ],
)
def test_bad_context_becomes_unparsed_and_never_raises(text: str) -> None:
    event = parse_context(text)
    assert event.event == "unparsed"
    assert event.as_question() is None


def test_unparsed_free_text_keeps_the_text() -> None:
    event = parse_context("[context] User has been viewing the card silently for 12s.")
    assert event.text == "User has been viewing the card silently for 12s."


def test_trailing_text_after_the_json_object_is_ignored() -> None:
    assert parse_context('[context] {"event":"resumed"} (sent by the platform)').event == "resumed"


def test_is_context_text() -> None:
    assert is_context_text("  [context] {}")
    assert is_context_text("[CONTEXT] {}")
    assert not is_context_text("context is key")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Respond with a number between 0 and 100.", (0.0, 100.0)),
        ("Use the scale from 1 to 7.", (1.0, 7.0)),
        ("Rate it 1 to 5", (1.0, 5.0)),
        ("Rate it 0-10", (0.0, 10.0)),
        ("A value between 10 and -10", (-10.0, 10.0)),
        ("On a 7-point scale, how much did you enjoy it?", (1.0, 7.0)),
        ("Between 0.5 and 2.5, please.", (0.5, 2.5)),
    ],
)
def test_parse_range(text: str, expected: tuple[float, float]) -> None:
    found = parse_range(text)
    assert found is not None
    assert (found.low, found.high) == expected


def test_parse_range_absent_and_fractional_bounds() -> None:
    assert parse_range("How warm was your partner?") is None
    found = parse_range("between 0.5 and 2.5")
    assert found is not None and not found.is_integral


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Which drink do you prefer?\nChoices: Coffee, Tea", ("Coffee", "Tea")),
        ("Choices: Strongly agree; Agree; Disagree", ("Strongly agree", "Agree", "Disagree")),
        ("Pick one of: Red, Green or Blue.", ("Red", "Green", "Blue")),
        ("Options:\n1. Red\n2. Green\n3. Light blue", ("Red", "Green", "Light blue")),
        ("Which colours do you like?\n- Red\n- Green\n- Blue", ("Red", "Green", "Blue")),
        ("Rank these activities: Reading, Hiking, Cooking", ("Reading", "Hiking", "Cooking")),
        ('Do you prefer "Coffee" or "Tea"?', ("Coffee", "Tea")),
        # was ("Green", "Blue)"): the first option went with the question words, a ")" stayed on the last
        ("Which colours do you like (Red, Green or Blue)?", ("Red", "Green", "Blue")),
        ("Which drink do you prefer (coffee or tea)?", ("coffee", "tea")),
        ("Question: How warm was your partner?", ()),
    ],
)
def test_parse_choices(text: str, expected: tuple[str, ...]) -> None:
    assert parse_choices(text) == expected


def test_structured_fields_win_over_text() -> None:
    event = parse_context(
        '[context] {"event":"question","tool":"answer_dimensions","question":"How do you feel?",'
        '"dimensions":[{"label":"Calm"},{"label":"Happy"}],"minValue":0,"maxValue":10}'
    )
    question = event.as_question()
    assert question is not None
    assert question.choices == ("Calm", "Happy")
    assert question.range == NumericRange(0.0, 10.0)


def test_likert_scale_field_gives_one_to_n() -> None:
    question = parse_context(
        '[context] {"event":"question","tool":"answer_scale","question":"Enjoyed?","scale":7}'
    )
    parsed = question.as_question()
    assert parsed is not None and parsed.range == NumericRange(1.0, 7.0)
