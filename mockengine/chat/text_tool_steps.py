"""Tool steps a client writes as text: smolagents' transcript of its own calls and their results.

smolagents' ``ToolCallingAgent`` (1.26, ``ActionStep.to_messages`` and ``tool_role_conversions``) asks
with ``tools`` and reads ``tool_calls``, but sends its earlier steps back as plain messages, as a model
sees them in its prompt:

* an assistant message (any text the model wrote first, then) ``Calling tools:\\n`` and ``str()`` of
  the calls, a Python literal: ``[{'id': 'call_…', 'type': 'function', 'function': {'name':
  'get_weather', 'arguments': {'city': 'Paris'}}}]``;
* a user message ``Observation:\\n<the results, one per line>``, or ``Call id: call_…\\nError:\\n…``
  when the call failed.

Each run's first user message is ``New task:\n<the task>``: the label is no part of what was asked.

A model reads those as the calls it made and their outputs (the prompt says so), so the brain gets them
as ``function_call`` and ``function_call_output`` items. A user message is read as an observation only
right after such an assistant message: elsewhere "Observation:" is a user's own words.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

CALLING_TOOLS = "Calling tools:\n"
TASK_LABEL = "New task:\n"
_RESULT = re.compile(r"\A\s*(?:Call id: *\S+\s*\n)?(?:Observation:|Error:)\s*", re.S)


def calls_in_text(text: str) -> tuple[str, list[tuple[str, str, str]]] | None:
    """``(text before the calls, [(call id, name, arguments as JSON)])`` for an assistant text that ends
    with smolagents' ``Calling tools:`` list, else None (no such list, or not a list of calls)."""
    start = text.rfind(CALLING_TOOLS)
    if start < 0:
        return None
    try:
        listed = ast.literal_eval(text[start + len(CALLING_TOOLS) :].strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(listed, list) or not listed:
        return None
    calls: list[tuple[str, str, str]] = []
    for number, entry in enumerate(listed):
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return None
        calls.append((str(entry.get("id") or f"call_text_{number}"), function["name"], _json(function)))
    return text[:start].strip(), calls


def result_in_text(text: str) -> str | None:
    """The results a user message gives for the calls just made (``Observation:`` or ``Error:``), else
    None."""
    match = _RESULT.match(text)
    return text[match.end() :].strip() if match else None


def split_results(result: str, calls: int) -> list[str]:
    """``result`` shared among ``calls`` calls: smolagents writes one line per call's output, so a line
    each when the lines are as many as the calls; else all of it for the first and nothing for the
    others (each output counted once: the calls' outputs are what a turn-ending call reports)."""
    lines = [line for line in result.splitlines() if line.strip()]
    if calls > 1 and len(lines) == calls:
        return lines
    return [result] + [""] * (calls - 1)


def without_task_label(text: str) -> str:
    """A user text without smolagents' ``New task:`` label before the task."""
    return text[len(TASK_LABEL) :] if text.startswith(TASK_LABEL) else text


def _json(function: dict[str, Any]) -> str:
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments if arguments is not None else {})
    except (TypeError, ValueError):
        return json.dumps({})
