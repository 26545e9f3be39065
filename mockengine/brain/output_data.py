"""What a function output holds: its JSON, or the Python literal a framework wrote with ``str()``.

LiveKit Agents sends a ``function_tool``'s return value as ``str(output)``
(``livekit.agents.llm.utils.make_function_call_output``), so a tool returning
``{"confirmed": True, "reference": "AB12"}`` reaches the model as ``{'confirmed': True, 'reference':
'AB12'}``: not JSON, but plain to a model, which reads its fields. The participant reads it as the dict it
is (``ast.literal_eval``: literals only, nothing is run)."""

from __future__ import annotations

import ast
import json
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
