"""Scenario files: YAML that scripts the participant, validated against ``scenario.schema.json``.

A scenario is an ordered list of rules; for each response the first rule whose ``when`` holds decides what
is said and which tool is called, and with no match the built-in behaviour of ``ScriptedBrain`` applies.
The format is described for users in ``scenarios/README.md``; the packaged default lives next to this
module so an installed (non-editable) package can always load it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from jsonschema import Draft202012Validator, ValidationError
from jsonschema.exceptions import best_match

from mockengine.brain.model import Persona

DEFAULT_PERSONA = "Sam"
DEFAULT_SCENARIO_SOURCE = "mockengine/brain/scenarios/default.yaml"
FunctionOutcome = Literal["accepted", "refused", "any"]


class ScenarioError(ValueError):
    """A scenario file is not valid YAML or does not follow the schema; names the file and the place."""


Scalar = str | int | float | bool


@dataclass(frozen=True)
class When:
    """Conditions of a rule; all that are set must hold (see ``scenario.schema.json`` for each)."""

    heard_contains: tuple[str, ...] = ()
    heard_regex: re.Pattern[str] | None = None
    context_events: tuple[str, ...] = ()
    context_fields: tuple[tuple[str, tuple[Scalar, ...]], ...] = ()
    tool_available: str | None = None
    tool_result: FunctionOutcome | None = None
    tool_result_of: str | None = None
    image_colours: tuple[str, ...] = ()
    turn_min: int | None = None
    turn_max: int | None = None
    roles: tuple[str, ...] = ()
    paused: bool | None = None
    question_open: bool | None = None


@dataclass(frozen=True)
class CallPlan:
    """A tool to call; ``arguments`` None means "auto" (built from the conversation)."""

    tool: str
    arguments: dict[str, Any] | None = None


@dataclass(frozen=True)
class Rule:
    """One rule. Actions: ``say`` and/or ``call``; or ``answer`` (the open question); or ``silent``."""

    id: str
    when: When
    say: str | None = None
    call: CallPlan | None = None
    answer: bool = False
    silent: bool = False
    # ``answer: {tendency, spread}``: the rating used for this answer instead of the persona's.
    answer_rating: tuple[float | None, float | None] | None = None
    # ``fault:``: faults the Realtime shell injects when this rule fires, as written (compact strings or
    # objects); mockengine.faults checks them when the server starts (the brain does no IO).
    faults: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """A parsed scenario. ``personas`` maps participant roles to personas; ``persona`` is the default."""

    name: str
    rules: tuple[Rule, ...] = ()
    description: str = ""
    seed: int | None = None
    persona: Persona = Persona(name=DEFAULT_PERSONA)
    personas: tuple[tuple[str, Persona], ...] = ()
    source: str = "<memory>"
    # kind `recording`: the recording directory that answers sessions (mockengine.record), else None.
    recording: str | None = None

    def persona_for(self, role: str | None) -> Persona:
        """The persona of ``role`` (case-insensitive), else the default persona."""
        if role is not None:
            for name, persona in self.personas:
                if name.lower() == role.strip().lower():
                    return persona
        return self.persona


def load_scenario(path: str | None = None) -> Scenario:
    """Load and validate a scenario file; ``None`` loads the packaged default.

    Raises ``ScenarioError`` (file unreadable, bad YAML, schema violation, bad regex, duplicate rule id).
    """
    if path is None:
        resource = resources.files("mockengine.brain").joinpath("scenarios", "default.yaml")
        return parse_scenario(resource.read_text(encoding="utf-8"), source=DEFAULT_SCENARIO_SOURCE)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot read scenario file: {exc}") from exc
    return parse_scenario(text, source=str(path))


def parse_scenario(text: str, source: str = "<memory>") -> Scenario:
    """Parse scenario YAML text; ``source`` names it in errors."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError(f"{source}: invalid YAML{where}: {problem}") from exc
    if document is None:
        raise ScenarioError(f"{source}: the file is empty; expected a mapping with 'name' and 'rules'")
    error = best_match(_validator().iter_errors(document))
    if error is not None:
        raise ScenarioError(f"{source}: at {_json_path(error.absolute_path)}: {_expected(error)}")
    return _build(document, source)


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files (packaged ``scenario.schema.json``)."""
    text = resources.files("mockengine.brain").joinpath("scenario.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@functools.cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(scenario_schema())


def _json_path(parts: Iterable[str | int]) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _expected(error: ValidationError) -> str:
    """The validator's message plus the schema's own description of what belongs there."""
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    return error.message + (f" (expected: {description})" if description else "")


def _build(document: dict[str, Any], source: str) -> Scenario:
    rules: list[Rule] = []
    seen: set[str] = set()
    for index, raw in enumerate(document.get("rules", [])):
        if raw["id"] in seen:
            raise ScenarioError(f"{source}: at $.rules[{index}].id: duplicate rule id {raw['id']!r}")
        seen.add(raw["id"])
        rules.append(_rule(raw, f"$.rules[{index}]", source))
    raw_persona = document.get("persona", DEFAULT_PERSONA)
    persona = _persona({"name": raw_persona} if isinstance(raw_persona, str) else raw_persona, Persona())
    return Scenario(
        name=document["name"],
        rules=tuple(rules),
        description=document.get("description", ""),
        seed=document.get("seed"),
        persona=persona,
        # A role's persona inherits what it does not say (voice, style, rating) from the scenario's persona.
        personas=tuple((role, _persona(raw, persona)) for role, raw in document.get("personas", {}).items()),
        source=source,
        recording=_recording_dir(document, source),
    )


def _recording_dir(document: dict[str, Any], source: str) -> str | None:
    """A ``kind: recording`` scenario's directory, resolved against the scenario file's directory."""
    if document.get("kind") != "recording":
        return None
    base = Path(source).parent if not source.startswith("<") else Path()
    return str(base / document["recording"])


def _persona(raw: dict[str, Any], base: Persona) -> Persona:
    rating = raw.get("rating", {})
    return Persona(
        name=raw["name"],
        voice=raw.get("voice", base.voice),
        style=raw.get("style", base.style),
        rating_tendency=float(rating.get("tendency", base.rating_tendency)),
        rating_spread=float(rating.get("spread", base.rating_spread)),
    )


def _many(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, list) else (value,)


def _rule(raw: dict[str, Any], path: str, source: str) -> Rule:
    when = raw.get("when") or {}
    call = raw.get("call")
    turn = when.get("turn")
    turn_min, turn_max = (
        (turn, turn) if isinstance(turn, int) else ((turn or {}).get("min"), (turn or {}).get("max"))
    )
    if turn_min is not None and turn_max is not None and turn_min > turn_max:
        raise ScenarioError(f"{source}: at {path}.when.turn: min ({turn_min}) is above max ({turn_max})")
    return Rule(
        id=raw["id"],
        when=When(
            heard_contains=_many(when.get("heard_contains")),
            heard_regex=_compile(when.get("heard_regex"), f"{path}.when.heard_regex", source),
            context_events=_many(when.get("context_event")),
            context_fields=tuple((key, _many(value)) for key, value in when.get("context", {}).items()),
            tool_available=when.get("tool_available"),
            tool_result=when.get("tool_result", when.get("after_function_output")),
            tool_result_of=when.get("tool_result_of"),
            image_colours=_many(when.get("image_colour")),
            turn_min=turn_min,
            turn_max=turn_max,
            roles=_many(when.get("role")),
            paused=when.get("paused"),
            question_open=when.get("question_open"),
        ),
        say=raw.get("say"),
        call=_call_plan(call) if call is not None else None,
        answer="answer" in raw,
        answer_rating=(
            (raw["answer"].get("tendency"), raw["answer"].get("spread"))
            if isinstance(raw.get("answer"), dict)
            else None
        ),
        silent=bool(raw.get("silent", False)),
        faults=_many(raw.get("fault")),
    )


def _call_plan(raw: dict[str, Any]) -> CallPlan:
    arguments = raw.get("arguments", "auto")
    return CallPlan(tool=raw["tool"], arguments=None if arguments == "auto" else dict(arguments))


def _compile(pattern: str | None, path: str, source: str) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ScenarioError(f"{source}: at {path}: expected a valid regular expression ({exc})") from exc
