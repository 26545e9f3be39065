"""What a function output holds: its JSON, or the Python literal a framework wrote with ``str()``.

LiveKit Agents sends a ``function_tool``'s return value as ``str(output)``
(``livekit.agents.llm.utils.make_function_call_output``), so a tool returning
``{"confirmed": True, "reference": "AB12"}`` reaches the model as ``{'confirmed': True, 'reference':
'AB12'}``: not JSON, but plain to a model, which reads its fields. The participant reads it as the dict it
is (``ast.literal_eval``: literals only, nothing is run).

The same fields written other ways are read as fields too (``fields_in_text``): JSON sent as a JSON string
(``"{\"temp\": 21}"``, encoded twice), a Pydantic model or a dataclass through ``str()`` (the OpenAI Agents
SDK stringifies a ``function_tool``'s return value: ``temp=21 conditions='sunny'``, ``Weather(temp=21,
conditions='sunny')``), and "key: value" pairs (``temp: 21, conditions: sunny``, one a line or comma
separated)."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

# A Python literal this long is read no further (literal_eval's cost grows with it; an output is small).
_LITERAL_MAX_CHARS = 64 * 1024


def output_data(text: str) -> Any:
    """``text`` as JSON; else, when it is a Python dict or list literal (``str()`` of one), that value;
    else None (also for either nested deeper than its parser goes)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # nested past the parser's depth: no data, not a failed reply
        pass
    stripped = text.strip()
    if len(stripped) > _LITERAL_MAX_CHARS or not stripped.startswith(("{", "[")):
        return None
    try:
        value = ast.literal_eval(stripped)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


# "key=value" as a Pydantic model or a dataclass prints it: a quoted string, or a bare token.
_ASSIGNED = re.compile(r"""\s*,?\s*([A-Za-z_]\w*)=('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,()]+)""")
_WRAPPED = re.compile(r"^[A-Z]\w*\((?P<inner>.*)\)$", re.DOTALL)
# "key: value" pairs, one a line or comma separated; a key is at most three words.
_LABELLED = re.compile(r"\s*(?:[,;\n]\s*)?([A-Za-z][\w ]{0,30}?)\s*:\s*([^,;\n]+)")
# At least this many pairs make a text fields, not a sentence with a colon ("Note: the gate moved").
_MIN_PAIRS = 2


def fields_in_text(text: str) -> dict[str, Any] | None:
    """The fields ``text`` writes when it is no JSON object (see the module's docstring), else None."""
    stripped = text.strip()
    if not stripped or len(stripped) > _LITERAL_MAX_CHARS:
        return None
    inner = output_data(stripped)
    if isinstance(inner, str) and inner.strip() != stripped:  # JSON encoded twice
        again = output_data(inner)
        return again if isinstance(again, dict) else fields_in_text(inner)
    if inner is not None:
        return None
    wrapped = _WRAPPED.match(stripped)
    return _pairs(_ASSIGNED, wrapped.group("inner") if wrapped else stripped, literal=True) or _pairs(
        _LABELLED, stripped, literal=False
    )


def _pairs(pattern: re.Pattern[str], text: str, *, literal: bool) -> dict[str, Any] | None:
    """``text`` read whole as pairs of ``pattern`` (key, value), or None when anything else is in it or
    there are fewer than ``_MIN_PAIRS``."""
    found: dict[str, Any] = {}
    position = 0
    while position < len(text):
        match = pattern.match(text, position)
        if match is None or match.end() == position:
            return None
        key, value = match.group(1).strip(), match.group(2).strip()
        found[key] = _value(value) if literal else _scalar(value)
        position = match.end()
        if not text[position:].strip():
            break
    return found if len(found) >= _MIN_PAIRS else None


def _value(token: str) -> Any:
    """A value as ``repr`` wrote it: a string, number, bool or None read back; anything else as text."""
    try:
        return ast.literal_eval(token)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return token


def _scalar(token: str) -> Any:
    """A value written plainly: a number as a number, anything else as the text it is."""
    try:
        number = float(token)
    except ValueError:
        return token
    return int(number) if number.is_integer() and "." not in token else number
