"""Scenario files: YAML that scripts the participant, validated against ``scenario.schema.json``.

A scenario is an ordered list of rules; for each response the first rule whose ``when`` holds decides what
is said and which tool is called, and with no match the built-in behaviour of ``ScriptedBrain`` applies.
The format is described for users in ``scenarios/README.md``; the packaged default lives next to this
module so an installed (non-editable) package can always load it.
"""

from __future__ import annotations

import dataclasses
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
from mockengine.near_miss import did_you_mean

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
    # ``"line N: "`` of ``fault:`` in its file (errors found when the server checks the faults), or "".
    fault_line: str = ""


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
    # ``"line N: "`` of ``recording:`` in the file (a directory found not to hold one at start-up), or "".
    recording_line: str = ""

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
        raise ScenarioError(f"{path}: cannot read scenario file: {exc}{relative_note(path)}") from exc
    return parse_scenario(text, source=str(path))


def relative_note(path: str) -> str:
    """Where a relative ``path`` that was not found was looked for (the working directory), else ``""``:
    a CI step or a pytest run from another directory misses ``scenarios/x.yaml``, and "No such file"
    alone did not say where it looked."""
    if Path(path).is_absolute() or Path(path).exists():
        return ""
    return f" (a relative path: looked for in the working directory {Path.cwd()})"


def parse_scenario(text: str, source: str = "<memory>") -> Scenario:
    """Parse scenario YAML text; ``source`` names it in errors.

    Every error names ``source``, the line of the offending value or key (``study.yaml: line 4: at
    $.rules[0].when: …``) and what is allowed there."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{source}: invalid YAML{_yaml_problem(exc)}") from exc
    if document is None:
        raise ScenarioError(f"{source}: the file is empty; expected a mapping with 'name' and 'rules'")
    lines = _Lines(text)
    error = best_match(_validator().iter_errors(document))
    if error is not None:
        parts = list(error.absolute_path)
        key = _unexpected_key(error)
        line = lines.of(parts + [key] if key is not None else parts, key=key is not None)
        raise ScenarioError(f"{source}: {line}at {_json_path(parts)}: {_expected(error)}")
    try:
        return _build(document, source, lines)
    except _PlacedError as exc:
        raise ScenarioError(f"{source}: {lines.of(exc.parts)}at {_json_path(exc.parts)}: {exc}") from None


class _PlacedError(ValueError):
    """A mistake ``_build`` finds past the schema, at a path of the document (located by
    ``parse_scenario``)."""

    def __init__(self, parts: list[str | int], message: str) -> None:
        super().__init__(message)
        self.parts = parts


class _Lines:
    """Line numbers of a YAML document's values by JSON path (the composed node tree; lazily)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._root: yaml.Node | None = None

    def of(self, parts: list[str | int], key: bool = False) -> str:
        """``"line N: "`` for the node at ``parts`` (its key's line when ``key``), the nearest enclosing
        one found; ``""`` when none is (a document that does not compose)."""
        if self._root is None:
            try:
                self._root = yaml.compose(self._text, Loader=yaml.SafeLoader)
            except yaml.YAMLError:
                return ""
        node: yaml.Node | None = self._root
        found = node
        for index, part in enumerate(parts):
            child: yaml.Node | None = None
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    if key_node.value == part:
                        last = index == len(parts) - 1
                        child = key_node if key and last else value_node
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                child = node.value[part]
            if child is None:
                break
            node = found = child
        return f"line {found.start_mark.line + 1}: " if found is not None else ""


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """Where the YAML broke and why; an unclosed quote or bracket also names the line it was opened on
    (the problem itself is often found only at the end of the file)."""
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    opened = ""
    if context and context_mark is not None and (mark is None or context_mark.line != mark.line):
        opened = f", {context} that starts on line {context_mark.line + 1}"
    return f"{where}: {problem}{opened}"


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


def _unexpected_key(error: ValidationError) -> str | None:
    """The first key ``additionalProperties`` refused (to point at its line), else None."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return None
    allowed = set(error.schema.get("properties", {})) if isinstance(error.schema, dict) else set()
    extra = [key for key in error.instance if key not in allowed]
    return str(extra[0]) if extra else None


ACTIONS = ("say", "call", "answer", "silent", "fault")


def _expected(error: ValidationError) -> str:
    """The validator's message, said for a person where jsonschema's is about schemas (a rule without an
    action, ``silent`` beside another action, an unknown key: its near miss and the keys allowed there),
    plus the schema's own description of what belongs there."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    description = schema.get("description")
    message = error.message
    instance = error.instance
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(schema.get("properties", {}))
        extra = [str(key) for key in instance if key not in allowed]
        hint = did_you_mean(extra[0], allowed) if extra else ""
        message = f"{message}{hint}. Allowed here: {', '.join(allowed)}"
    elif error.validator == "enum" and isinstance(instance, str):
        message += did_you_mean(instance, [str(v) for v in error.validator_value])
    elif error.validator == "anyOf" and isinstance(instance, dict) and "say" in schema.get("properties", {}):
        message = f"rule {instance.get('id', '?')!r} has no action: give it one of {', '.join(ACTIONS)}"
    elif error.validator == "not" and isinstance(instance, dict) and "silent" in instance:
        others = [action for action in ("say", "call", "answer") if action in instance]
        message = f"'silent' cannot be combined with {', '.join(repr(a) for a in others)}: keep one of them"
    return message + (f" (expected: {description})" if description else "")


def _build(document: dict[str, Any], source: str, lines: _Lines) -> Scenario:
    rules: list[Rule] = []
    seen: set[str] = set()
    for index, raw in enumerate(document.get("rules", [])):
        if raw["id"] in seen:
            raise _PlacedError(["rules", index, "id"], f"duplicate rule id {raw['id']!r}")
        seen.add(raw["id"])
        rule = _rule(raw, ["rules", index])
        if rule.faults:
            rule = dataclasses.replace(rule, fault_line=lines.of(["rules", index, "fault"]))
        rules.append(rule)
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
        recording_line=lines.of(["recording"]) if document.get("kind") == "recording" else "",
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


def _rule(raw: dict[str, Any], path: list[str | int]) -> Rule:
    when = raw.get("when") or {}
    call = raw.get("call")
    turn = when.get("turn")
    turn_min, turn_max = (
        (turn, turn) if isinstance(turn, int) else ((turn or {}).get("min"), (turn or {}).get("max"))
    )
    if turn_min is not None and turn_max is not None and turn_min > turn_max:
        raise _PlacedError([*path, "when", "turn"], f"min ({turn_min}) is above max ({turn_max})")
    return Rule(
        id=raw["id"],
        when=When(
            heard_contains=_many(when.get("heard_contains")),
            heard_regex=_compile(when.get("heard_regex"), [*path, "when", "heard_regex"]),
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


def _compile(pattern: str | None, path: list[str | int]) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise _PlacedError(path, f"expected a valid regular expression ({exc})") from exc
