"""What the participant reads from a function output it gets back: whether the host refused a call, what
the refusal says would be accepted (a range, choices) and how many times in a row it refused, so a retry
is steered rather than blind."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from mockengine.brain.context import NumericRange, QuestionContext, parse_choices, parse_range
from mockengine.brain.failures import reason_clause
from mockengine.brain.narration import failed, grounding
from mockengine.brain.output_data import output_data
from mockengine.brain.situation import Situation, function_name_for, output_error
from mockengine.brain.turn import Turn


def answered_together(history: tuple[Any, ...]) -> list[tuple[Any, Any]]:
    """``[(function_call, function_call_output), …]`` for the newest outputs, back to the last input that
    is neither a call nor an output (the user's words, the participant's clause, a context item), in the
    order the app sent them; ``[]`` when an output answers no call in the history."""
    calls = {item.call_id: item for item in history if item.kind == "function_call"}
    batch = []
    for item in reversed(history):
        if item.kind == "function_call_output":
            call = calls.get(item.call_id)
            if call is None:
                return []
            batch.append((call, item))
        elif item.kind != "function_call":
            break
    return batch[::-1]


def said_of_all(batch: list[tuple[Any, Any]]) -> str:
    """The grounding sentence (or the plain failure) of each ``(call, output)``, in order, each once."""
    sentences: list[str] = []
    for call, output in batch:
        error = output_error(output.text)
        sentence = (
            refused(call.name, call.text, error)
            if error is not None
            else grounding(output.text, call.name, call.text)
        )
        if sentence not in sentences:
            sentences.append(sentence)
    return " ".join(sentences)


def refused(name: str | None, arguments: str | None, error: str) -> str:
    """An app's tool answered ``{"error": …}`` (HRP's refusal, ``situation.output_error``): said as a
    failure told any other way is ("I couldn't book the table for Smith: no tables free at 8.", "Sorry,
    I couldn't book the table for Smith." for an empty error), not "That didn't work: …" beside them.
    HRP fixes the output's shape, not these words (hrp-spec-0.2.0.json: "{"error": ""} when the call was
    refused"); its conformance checks send the refusal and read no wording."""
    values = output_data(arguments or "")
    said = values.values() if isinstance(values, dict) else ()
    names = frozenset(word for value in said if isinstance(value, str) for word in value.split())
    return failed(name or "", values, reason_clause(error, names))


def names_a_fix(error: str) -> bool:
    """The error says what would be accepted (a range or choices), so a second try is not blind."""
    return parse_range(error) is not None or bool(parse_choices(error))


def refusal_of(turn: Turn, name: str) -> str | None:
    """The error of the newest input when it is a refused output of a call to ``name``."""
    situation = turn.situation
    item = situation.trigger.item
    if situation.trigger.kind != "function_output" or item is None:
        return None
    if function_name_for(turn.request.history, item.call_id) != name:
        return None
    return output_error(situation.trigger.text)


def refusals_in_a_row(history: tuple[Any, ...], name: str) -> int:
    """How many of the newest function outputs, back to the last user/context input, refused ``name``."""
    names = {item.call_id: item.name for item in history if item.kind == "function_call"}
    count = 0
    for item in reversed(history):
        if item.kind == "function_call_output":
            if names.get(item.call_id) == name and output_error(item.text) is not None:
                count += 1
        elif item.kind not in ("function_call", "assistant"):
            break
    return count


def last_arguments(history: tuple[Any, ...], name: str) -> str | None:
    for item in reversed(history):
        if item.kind == "function_call" and item.name == name:
            return str(item.text)
    return None


def same_json(left: str, right: str) -> bool:
    try:
        return bool(json.loads(left) == json.loads(right))
    except ValueError:
        return left == right


def corrected(situation: Situation, error: str) -> Situation:
    """The situation with the question's range / choices replaced by those the error message names."""
    stated_range: NumericRange | None = parse_range(error)
    stated_choices = parse_choices(error)
    if stated_range is None and not stated_choices:
        return situation
    base = situation.question or QuestionContext(None, "", None, (), False)
    question = dataclasses.replace(
        base, range=stated_range or base.range, choices=stated_choices or base.choices
    )
    return dataclasses.replace(situation, question=question)
