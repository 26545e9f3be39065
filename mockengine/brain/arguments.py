"""Function-call arguments: HyperStudy-aware answers for the HRP tools, schema-driven values for any other.

HRP tools (spec 0.2.0 ``voiceEngine.tools``): send_chat, answer_choice, answer_choices, answer_scale,
answer_ranking, answer_text, answer_dimensions. Their answers come from the newest ``question`` context
(range, choices) and, for colour questions, from the newest image. Whatever is built is checked against the
tool's own ``parameters`` schema; an HRP answer that does not fit a host's schema falls back to the generic
builder, steered by the same answer. The result always validates, or ``ArgumentsError`` is raised.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import exceptions as schema_exceptions
from jsonschema import validators
from referencing.exceptions import Unresolvable

from mockengine.brain import phrases
from mockengine.brain.model import Persona, ToolSpec
from mockengine.brain.schema_values import Hints, value_for
from mockengine.brain.situation import Situation

DEFAULT_SCALE_VALUE = 50
DEFAULT_PERSONA = Persona()
_COLOUR_ALIASES = {"grey": ("grey", "gray"), "cyan": ("cyan", "turquoise"), "purple": ("purple", "violet")}
_QUOTED = re.compile(r"[\"“]([^\"”]{1,200})[\"”]")
_SAYING = re.compile(r"\bsaying\s+(?P<message>.+?)(?:\s+to\s+[A-Z]\w*)?\s*[.!?]*$")

Payload = dict[str, Any]


class ArgumentsError(ValueError):
    """The tool's schema is not a valid JSON Schema, or (a bug here) the built arguments do not match it."""


# What a RecursionError while building arguments means: Python's own words ("maximum recursion depth
# exceeded in comparison") reached the client's response.done and the Chat 500 body.
ENDLESS_SCHEMA = (
    "no finite value satisfies the schema: a property it requires refers back to an object that requires "
    "it again ($ref)"
)


def unbuildable_reason(exc: Exception) -> str:
    """Why no arguments could be built, in the schema's terms: ``exc`` is an :class:`ArgumentsError`,
    another ``ValueError`` or a ``RecursionError`` (a required property that refers back to its root)."""
    return ENDLESS_SCHEMA if isinstance(exc, RecursionError) else str(exc)


def build_arguments(
    tool: ToolSpec,
    situation: Situation,
    rng: random.Random,
    persona: Persona,
    overrides: Mapping[str, str] | None = None,
) -> str:
    """JSON text for a call to ``tool``, valid against ``tool.parameters``.

    HRP voice tools get HyperStudy answers; a single-value answer tool (``submit_response`` of the chat
    side, ``respond``, …) gets the answer to the question on screen shaped by its value schema (HRP
    ``answers[].valueSchema``). ``overrides`` maps top-level property names to text (e.g. a scenario
    regex's named groups); each is coerced to the property's type and dropped if the result would not
    validate.
    """
    schema = tool.parameters or {"type": "object", "properties": {}}
    _check_schema(tool, schema)
    builder = _HRP_BUILDERS.get(tool.name)
    payload = (
        builder(situation, rng, persona) if builder else _single_value(tool, schema, situation, rng, persona)
    )
    if payload is None or not _is_valid(payload, schema):
        payload = value_for(schema, rng, _hints(situation, rng, persona))
    if overrides:
        overridden = {**payload, **_coerce_overrides(overrides, schema)}
        payload = overridden if _is_valid(overridden, schema) else payload
    if not _is_valid(payload, schema):
        raise ArgumentsError(f"built arguments {payload!r} do not match the schema of tool {tool.name!r}")
    return json.dumps(payload, ensure_ascii=False)


def planned_answer(situation: Situation, rng: random.Random, persona: Persona = DEFAULT_PERSONA) -> Any:
    """The answer to the newest question as a plain value, for saying it aloud when no tool is offered."""
    question = situation.question
    if situation.asks_colour and situation.image is not None:
        return _colour_choice(situation) or situation.image.dominant_colour
    if question is not None and question.range is not None:
        return scale_value(situation, rng, persona)
    if question is not None and question.choices:
        return rng.choice(question.choices)
    return None


def rating_share(rng: random.Random, persona: Persona) -> float:
    """Where in a scale (0 = its low end, 1 = its high end) this persona's next rating falls."""
    low = max(0.0, persona.rating_tendency - persona.rating_spread)
    high = min(1.0, persona.rating_tendency + persona.rating_spread)
    return rng.uniform(low, high)


def scale_value(
    situation: Situation,
    rng: random.Random,
    persona: Persona = DEFAULT_PERSONA,
    bounds: tuple[float, float] | None = None,
    integral: bool | None = None,
) -> int | float:
    """A number inside ``bounds`` or the question's stated range, placed by the persona's rating tendency;
    50 when no range is known."""
    question = situation.question
    if bounds is None and (question is None or question.range is None):
        return DEFAULT_SCALE_VALUE
    if bounds is None:
        assert question is not None and question.range is not None
        bounds = (question.range.low, question.range.high)
        integral = question.range.is_integral if integral is None else integral
    low, high = bounds
    value = low + (high - low) * rating_share(rng, persona)
    if integral or (
        integral is None and float(low).is_integer() and float(high).is_integer() and high - low <= 10
    ):
        return int(min(max(round(value), low), high))
    return round(value, 2)


def _answer_scale(situation: Situation, rng: random.Random, persona: Persona) -> Payload:
    return {"value": scale_value(situation, rng, persona)}


def _answer_choice(situation: Situation, rng: random.Random, persona: Persona) -> Payload | None:
    if situation.asks_colour and situation.image is not None:
        return {"choice": _colour_choice(situation) or situation.image.dominant_colour}
    choices = situation.question.choices if situation.question else ()
    return {"choice": rng.choice(choices)} if choices else None


def _answer_choices(situation: Situation, rng: random.Random, persona: Persona) -> Payload | None:
    if situation.asks_colour and situation.image is not None:
        return {"choices": [_colour_choice(situation) or situation.image.dominant_colour]}
    choices = situation.question.choices if situation.question else ()
    if not choices:
        return None
    picked = set(rng.sample(range(len(choices)), rng.randint(1, min(2, len(choices)))))
    return {"choices": [choice for index, choice in enumerate(choices) if index in picked]}


def _answer_ranking(situation: Situation, rng: random.Random, persona: Persona) -> Payload | None:
    choices = situation.question.choices if situation.question else ()
    return {"order": rng.sample(list(choices), len(choices))} if choices else None


def _answer_text(situation: Situation, rng: random.Random, persona: Persona) -> Payload:
    if situation.asks_colour and situation.image is not None:
        return {"text": situation.image.dominant_colour}
    return {"text": phrases.text_answer(rng)}


def _answer_dimensions(situation: Situation, rng: random.Random, persona: Persona) -> Payload | None:
    question = situation.question
    if question is None or not question.choices:
        return None
    low, high = (question.range.low, question.range.high) if question.range else (0.0, 100.0)
    scores = {label: round(low + (high - low) * rating_share(rng, persona)) for label in question.choices}
    return {"scores": scores}


def _send_chat(situation: Situation, rng: random.Random, persona: Persona) -> Payload:
    if situation.heard_is_current:
        asked = _QUOTED.search(situation.heard) or _SAYING.search(situation.heard)
        if asked:
            message = asked.group(1).strip()
            return {"message": message[:1].upper() + message[1:]}
        if situation.trigger.kind == "user":
            # Words addressed to the participant itself (the chat side's user message): answer them.
            image = situation.image
            if situation.asks_colour and image is not None:
                return {"message": phrases.colour_answer(image.dominant_colour, rng)}
            if situation.asks_brightness and image is not None:
                return {"message": phrases.brightness_answer(image.brightness, image.dominant_colour)}
            reply = phrases.reply_to_words(situation.heard, rng, persona.name)
            return {"message": phrases.styled(reply, persona.style, rng)}
    typed = situation.typed
    message = phrases.chat_message(
        typed.speaker if typed else "", typed.said if typed else "", situation.screen_text, persona.name, rng
    )
    return {"message": phrases.styled(message, persona.style, rng)}


def answer_value(
    schema: Mapping[str, Any], situation: Situation, rng: random.Random, persona: Persona
) -> Any:
    """The answer to the question on screen as a value of ``schema`` (an HRP ``valueSchema``): a number in
    the schema's bounds (else the question's range), a choice's exact text, every item ranked, every
    dimension scored, or free text. None when the schema has no shape an answer fits."""
    question = situation.question
    kind = schema.get("type")
    choices = question.choices if question is not None else ()
    if kind in ("number", "integer"):
        stated = question.range if question is not None else None
        low = schema.get("minimum", stated.low if stated else 0)
        high = schema.get("maximum", stated.high if stated else 100)
        value = scale_value(situation, rng, persona, (float(low), float(high)), integral=kind == "integer")
        return int(value) if kind == "integer" else value
    if kind == "string":
        if situation.asks_colour and situation.image is not None:
            return _colour_choice(situation) or situation.image.dominant_colour
        free_text = question is not None and question.component_type in ("textinput", "audiorecording")
        if choices and not free_text:
            return rng.choice(choices)
        return phrases.text_answer(rng)
    if kind == "array":
        items: Mapping[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {}
        options = list(choices) or list(items.get("enum", []))
        if not options:
            return None
        description = f"{schema.get('description', '')}"
        if (question is not None and question.is_ranking) or re.search(r"\brank", description, re.IGNORECASE):
            return rng.sample(options, len(options))
        picked = set(rng.sample(range(len(options)), rng.randint(1, min(2, len(options)))))
        return [option for index, option in enumerate(options) if index in picked]
    if kind == "object" and isinstance(schema.get("properties"), dict):
        scores: dict[str, Any] = {}
        for label, sub in schema["properties"].items():
            sub = sub if isinstance(sub, dict) else {}
            bounds = (float(sub.get("minimum", 0)), float(sub.get("maximum", 100)))
            scores[label] = scale_value(
                situation, rng, persona, bounds, integral=sub.get("type") == "integer"
            )
        return scores
    return None


def _single_value(
    tool: ToolSpec, schema: Mapping[str, Any], situation: Situation, rng: random.Random, persona: Persona
) -> Payload | None:
    """``{"value": answer}`` for an answer tool with one property (``submit_response``, ``respond``, …)."""
    properties = schema.get("properties")
    if situation.question is None or not isinstance(properties, dict) or len(properties) != 1:
        return None
    if tool.name not in _SINGLE_VALUE_TOOLS and not _ANSWERISH.search(tool.name):
        return None
    ((name, value_schema),) = properties.items()
    if not isinstance(value_schema, dict):
        return None
    value = answer_value(value_schema, situation, rng, persona)
    return None if value is None else {name: value}


_SINGLE_VALUE_TOOLS = frozenset(("submit_response", "respond", "answer", "submit"))
_ANSWERISH = re.compile(r"answer|respon|submit|rate|rating", re.IGNORECASE)


_HRP_BUILDERS: dict[str, Callable[[Situation, random.Random, Persona], Payload | None]] = {
    "answer_scale": _answer_scale,
    "answer_choice": _answer_choice,
    "answer_choices": _answer_choices,
    "answer_ranking": _answer_ranking,
    "answer_text": _answer_text,
    "answer_dimensions": _answer_dimensions,
    "send_chat": _send_chat,
}


def _colour_choice(situation: Situation) -> str | None:
    """The listed choice naming the image's dominant colour (case-insensitive, grey/gray alike)."""
    if situation.image is None or situation.question is None:
        return None
    names = _COLOUR_ALIASES.get(situation.image.dominant_colour, (situation.image.dominant_colour,))
    for choice in situation.question.choices:
        if choice.strip().lower() in names:
            return choice
    for choice in situation.question.choices:
        if any(re.search(rf"\b{name}\b", choice, re.IGNORECASE) for name in names):
            return choice
    return None


def _hints(situation: Situation, rng: random.Random, persona: Persona) -> Hints:
    question = situation.question
    text = None
    if situation.asks_colour and situation.image is not None:
        text = _colour_choice(situation) or situation.image.dominant_colour
    has_range = question is not None and question.range is not None
    number = scale_value(situation, rng, persona) if has_range else None
    return Hints(text=text, number=number, keys=question.choices if question else ())


def _coerce_overrides(overrides: Mapping[str, str], schema: Mapping[str, Any]) -> Payload:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    coerced: Payload = {}
    for name, text in overrides.items():
        if name not in properties:
            continue
        kind = properties[name].get("type") if isinstance(properties[name], dict) else None
        try:
            coerced[name] = _coerce(text, kind)
        except ValueError:
            continue
    return coerced


def _coerce(text: str, kind: Any) -> Any:
    if kind == "integer":
        return int(float(text))
    if kind == "number":
        number = float(text)
        return int(number) if number.is_integer() else number
    if kind == "boolean":
        return text.strip().lower() in ("true", "yes", "1", "on")
    if kind == "array":
        return [text]
    return text


def _is_valid(payload: Any, schema: Mapping[str, Any]) -> bool:
    try:
        return bool(_validator(_schema_key(schema), schema).is_valid(payload))
    except Unresolvable as exc:  # a "$ref" to nowhere: the metaschema check lets it through
        raise ArgumentsError(f"the parameters schema has a $ref that resolves to nothing: {exc}") from exc


def _schema_key(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, sort_keys=True, default=str)


# A client declares the same few tools for a whole session (and HyperStudy's text agent resends them with
# every request): checking a schema against its metaschema and building its validator is most of the cost
# of a call, so both are kept per distinct schema text.
_VALIDATORS: dict[str, Any] = {}
_CHECKED: dict[str, str | None] = {}
_CACHE_LIMIT = 512


def _validator(key: str, schema: Mapping[str, Any]) -> Any:
    validator = _VALIDATORS.get(key)
    if validator is None:
        if len(_VALIDATORS) >= _CACHE_LIMIT:
            _VALIDATORS.clear()
        validator = _VALIDATORS[key] = validators.validator_for(schema)(schema)
    return validator


def check_schema(tool: ToolSpec) -> None:
    """Raise ``ArgumentsError`` when ``tool.parameters`` is not a valid JSON Schema (checked once per
    distinct schema)."""
    _check_schema(tool, tool.parameters or {"type": "object", "properties": {}})


def _check_schema(tool: ToolSpec, schema: Mapping[str, Any]) -> None:
    key = _schema_key(schema)
    if key not in _CHECKED:
        if len(_CHECKED) >= _CACHE_LIMIT:
            _CHECKED.clear()
        try:
            validators.validator_for(schema).check_schema(schema)
            _CHECKED[key] = None
        except schema_exceptions.SchemaError as exc:
            _CHECKED[key] = exc.message
    problem = _CHECKED[key]
    if problem is not None:
        raise ArgumentsError(f"tool {tool.name!r} has an invalid parameters schema: {problem}")
