"""Tool arguments: HRP-aware answers from question context, and schema-valid values for any schema."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mockengine.brain.arguments import ArgumentsError, build_arguments
from mockengine.brain.hrp import HRP_TOOLS
from mockengine.brain.model import ImageFacts, Persona, ToolSpec, TurnView
from mockengine.brain.schema_values import Hints, value_for
from mockengine.brain.situation import Situation, read_situation

SPEC_PATH = Path(__file__).parents[2] / "mockengine/brain/hrp-spec-0.2.0.json"
TOOLS = {tool.name: tool for tool in HRP_TOOLS}
RED = ImageFacts(width=64, height=64, dominant_colour="red", dominant_share=1.0, brightness=0.3)
GREY = ImageFacts(width=64, height=64, dominant_colour="grey", dominant_share=0.9, brightness=0.5)


def context(data: dict[str, Any], images: tuple[ImageFacts, ...] = ()) -> TurnView:
    return TurnView(item_id="item_ctx", kind="context", text="[context] " + json.dumps(data), images=images)


def question(tool: str, text: str, images: tuple[ImageFacts, ...] = ()) -> TurnView:
    return context({"event": "question", "tool": tool, "question": text, "duringVideo": False}, images)


def situation_of(*items: TurnView) -> Situation:
    return read_situation(tuple(items))


def arguments(tool: str | ToolSpec, situation: Situation, seed: int = 3, **kwargs: Any) -> Any:
    spec = TOOLS[tool] if isinstance(tool, str) else tool
    text = build_arguments(spec, situation, random.Random(seed), Persona(), **kwargs)
    parsed = json.loads(text)
    jsonschema.validate(parsed, spec.parameters)
    return parsed


# A realistic question context for every HRP tool (HRP spec 0.2.0 answers[].exampleConfig).
HRP_QUESTIONS = {
    "answer_choice": "Which drink do you prefer?\nChoices: Coffee, Tea",
    "answer_choices": "Which colours do you like? Choose any.\nChoices: Red, Green, Blue",
    "answer_scale": "Question: How warm was your partner?\nRespond with a number between 0 and 100.",
    "answer_ranking": "Rank these activities: Reading, Hiking, Cooking",
    "answer_text": "Describe your partner in one sentence.",
    "answer_dimensions": "How do you feel right now? Rate each from 0 to 100.\nDimensions: Calm, Happy",
    "send_chat": "Say hello to your partner in the chat.",
}


def test_hrp_tools_match_the_spec_verbatim() -> None:
    spec = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    ours = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in HRP_TOOLS]
    assert ours == spec["voiceEngine"]["tools"]


@pytest.mark.parametrize("tool", sorted(HRP_QUESTIONS))
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_every_hrp_tool_gets_valid_arguments_for_a_realistic_question(tool: str, seed: int) -> None:
    parsed = arguments(tool, situation_of(question(tool, HRP_QUESTIONS[tool])), seed)
    assert set(parsed) == set(TOOLS[tool].parameters["required"])


@pytest.mark.parametrize("seed", range(10))
def test_answer_scale_stays_in_the_stated_range(seed: int) -> None:
    vas = arguments(
        "answer_scale", situation_of(question("answer_scale", HRP_QUESTIONS["answer_scale"])), seed
    )
    assert 0 <= vas["value"] <= 100
    likert = arguments("answer_scale", situation_of(question("answer_scale", "Agree? Answer 1 to 7.")), seed)
    assert likert["value"] in range(1, 8)


def test_answer_scale_without_a_range_is_fifty() -> None:
    assert arguments("answer_scale", situation_of(question("answer_scale", "How warm?"))) == {"value": 50}
    assert arguments("answer_scale", situation_of()) == {"value": 50}


def test_answer_scale_follows_a_hosts_stricter_schema() -> None:
    strict = ToolSpec(
        "answer_scale",
        "",
        {
            "type": "object",
            "properties": {"value": {"type": "integer", "minimum": 1, "maximum": 5}},
            "required": ["value"],
            "additionalProperties": False,
        },
    )
    parsed = arguments(strict, situation_of(question("answer_scale", "between 0 and 100")))
    assert parsed["value"] in range(1, 6)


@pytest.mark.parametrize("seed", range(6))
def test_choice_tools_pick_listed_choices(seed: int) -> None:
    one = arguments(
        "answer_choice", situation_of(question("answer_choice", HRP_QUESTIONS["answer_choice"])), seed
    )
    assert one["choice"] in ("Coffee", "Tea")
    several = arguments(
        "answer_choices", situation_of(question("answer_choices", HRP_QUESTIONS["answer_choices"])), seed
    )
    assert several["choices"]
    assert set(several["choices"]) <= {"Red", "Green", "Blue"}
    assert several["choices"] == [c for c in ("Red", "Green", "Blue") if c in several["choices"]]


@pytest.mark.parametrize("seed", range(6))
def test_ranking_is_a_permutation_of_the_items(seed: int) -> None:
    parsed = arguments(
        "answer_ranking", situation_of(question("answer_ranking", HRP_QUESTIONS["answer_ranking"])), seed
    )
    assert sorted(parsed["order"]) == ["Cooking", "Hiking", "Reading"]


def test_dimensions_score_every_label_within_range() -> None:
    parsed = arguments(
        "answer_dimensions", situation_of(question("answer_dimensions", HRP_QUESTIONS["answer_dimensions"]))
    )
    assert set(parsed["scores"]) == {"Calm", "Happy"}
    assert all(0 <= score <= 100 for score in parsed["scores"].values())


def test_answer_text_is_a_short_sentence() -> None:
    parsed = arguments("answer_text", situation_of(question("answer_text", HRP_QUESTIONS["answer_text"])))
    assert 3 <= len(parsed["text"].split()) <= 15


def test_send_chat_reacts_to_the_latest_typed_chat() -> None:
    typed = context({"event": "typed", "speaker": "Alex", "said": "hello?"})
    assert arguments("send_chat", situation_of(typed)) == {"message": "Hi, Alex! I'm Sam."}


def test_send_chat_reacts_to_the_screen_when_no_one_typed() -> None:
    screen = context({"event": "screen", "type": "showtext", "text": "Please introduce yourselves."})
    assert "Sam" in arguments("send_chat", situation_of(screen))["message"]


def test_send_chat_uses_the_words_asked_for() -> None:
    asked = TurnView("item_u", "user_text", "Please send a chat message saying hello to Alex.")
    assert arguments("send_chat", situation_of(asked)) == {"message": "Hello"}
    quoted = TurnView("item_u", "user_text", 'Type "See you soon!" in the chat.')
    assert arguments("send_chat", situation_of(quoted)) == {"message": "See you soon!"}


def test_colour_question_answers_with_the_newest_image_colour() -> None:
    screen = context({"event": "screen", "type": "showimage", "text": "Look."}, images=(RED,))
    ask = question("answer_text", "Which colour fills the image you were shown? Answer with one word.")
    assert arguments("answer_text", situation_of(screen, ask)) == {"text": "red"}
    choose = question("answer_choice", "What color is the square?\nChoices: Blue, RED, Green")
    assert arguments("answer_choice", situation_of(screen, choose)) == {"choice": "RED"}
    several = question("answer_choices", "Which colours are in it?\nChoices: Blue, Red, Green")
    assert arguments("answer_choices", situation_of(screen, several)) == {"choices": ["Red"]}


def test_colour_choice_matches_grey_as_gray_and_inside_longer_choices() -> None:
    screen = context({"event": "screen", "type": "showimage"}, images=(GREY,))
    choose = question("answer_choice", "Which colour?\nChoices: A gray square, A red square")
    assert arguments("answer_choice", situation_of(screen, choose)) == {"choice": "A gray square"}


def test_newer_non_colour_question_is_not_answered_with_a_colour() -> None:
    screen = context({"event": "screen", "type": "showimage"}, images=(RED,))
    old = question("answer_text", "Which colour was it?")
    new = question("answer_text", "Describe your partner in one sentence.")
    assert arguments("answer_text", situation_of(screen, old, new))["text"] != "red"


def test_overrides_are_coerced_and_dropped_when_invalid() -> None:
    ask = situation_of(question("answer_scale", "between 0 and 100"))
    assert arguments("answer_scale", ask, overrides={"value": "42"}) == {"value": 42}
    assert arguments("answer_scale", ask, overrides={"value": "4.5"}) == {"value": 4.5}
    assert arguments("answer_scale", ask, overrides={"value": "lots"})["value"] != "lots"
    assert "other" not in arguments("answer_scale", ask, overrides={"other": "1"})


def test_same_seed_same_arguments_and_seeds_vary() -> None:
    ask = situation_of(question("answer_scale", HRP_QUESTIONS["answer_scale"]))
    assert arguments("answer_scale", ask, 9) == arguments("answer_scale", ask, 9)
    assert len({arguments("answer_scale", ask, seed)["value"] for seed in range(20)}) > 1


def test_invalid_tool_schema_raises_arguments_error() -> None:
    broken = ToolSpec("broken", "", {"type": "object", "properties": {"x": {"type": 5}}})
    with pytest.raises(ArgumentsError, match="invalid parameters schema"):
        build_arguments(broken, situation_of(), random.Random(0), "Sam")


def test_empty_parameters_give_an_empty_object() -> None:
    assert arguments(ToolSpec("wait", "", {}), situation_of()) == {}
    assert (
        arguments(
            ToolSpec("wait", "", {"type": "object", "properties": {}, "additionalProperties": False}),
            situation_of(),
        )
        == {}
    )


GENERIC_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {"mode": {"type": "string", "enum": ["fast", "slow"]}},
        "required": ["mode"],
    },
    {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 3, "maximum": 4}},
        "required": ["n"],
    },
    {"type": "object", "properties": {"x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}},
    {
        "type": "object",
        "properties": {"x": {"type": "number", "minimum": 0, "maximum": 100, "multipleOf": 5}},
    },
    {"type": "object", "properties": {"x": {"type": "integer", "minimum": 1000}}, "required": ["x"]},
    {"type": "object", "properties": {"ok": {"type": "boolean"}, "none": {"type": "null"}}},
    {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 2,
                "maxItems": 3,
                "uniqueItems": True,
            }
        },
        "required": ["tags"],
    },
    {
        "type": "object",
        "properties": {
            "picks": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 2, "uniqueItems": True}
        },
    },
    {
        "type": "object",
        "properties": {
            "inner": {
                "type": "object",
                "properties": {
                    "deep": {"type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"]}
                },
                "required": ["deep"],
                "additionalProperties": False,
            }
        },
        "required": ["inner"],
    },
    {
        "type": "object",
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9},
        "minProperties": 1,
    },
    {"type": "object", "properties": {"s": {"type": "string", "minLength": 30, "maxLength": 40}}},
    {"type": "object", "properties": {"s": {"type": "string", "maxLength": 2}}, "required": ["s"]},
    {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
    {"type": "object", "properties": {"c": {"const": "fixed"}}, "required": ["c"]},
    {"type": "object", "properties": {"u": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 5}]}}},
    {
        "type": "object",
        "properties": {"r": {"$ref": "#/$defs/thing"}},
        "required": ["r"],
        "$defs": {"thing": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
    },
    {"type": "object", "properties": {"a": {"allOf": [{"type": "integer"}, {"minimum": 10, "maximum": 12}]}}},
    {"type": "object", "properties": {"t": {"type": ["null", "string"]}}, "required": ["t"]},
]


@pytest.mark.parametrize("schema", GENERIC_SCHEMAS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generic_values_validate(schema: dict[str, Any], seed: int) -> None:
    value = value_for(schema, random.Random(seed))
    jsonschema.validate(value, schema)


def test_open_objects_take_keys_from_hints() -> None:
    schema = {
        "type": "object",
        "properties": {"scores": {"type": "object", "additionalProperties": {"type": "number"}}},
    }
    value = value_for(schema, random.Random(0), Hints(keys=("Calm", "Happy")))
    assert set(value["scores"]) == {"Calm", "Happy"}


def test_hints_steer_enums_and_numbers() -> None:
    colour = {"type": "string", "enum": ["Blue", "Red"]}
    assert value_for(colour, random.Random(0), Hints(text="red")) == "Red"
    bounded = {"type": "integer", "minimum": 0, "maximum": 10}
    assert value_for(bounded, random.Random(0), Hints(number=70)) == 10
