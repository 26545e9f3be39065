"""The ``[mockengine scenario=NAME role=B]`` marker a client may put in its instructions or system prompt.

Either part may be left out; the key is case-insensitive and ``:`` works as well as ``=``. Read anew for
every reply (``brain.selection`` for the scenario, ``brain.participant`` for the role).
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"\[mockengine\b(?P<body>[^\]]*)\]", re.IGNORECASE)
_PAIR = re.compile(r"\b(?P<key>scenario|role)\s*[=:]\s*(?P<value>[A-Za-z0-9_.-]+)", re.IGNORECASE)


def _marker_value(text: str, key: str) -> str | None:
    for marker in _MARKER.finditer(text or ""):
        for pair in _PAIR.finditer(marker.group("body")):
            if pair.group("key").lower() == key:
                return pair.group("value")
    return None


def scenario_marker(instructions: str) -> str | None:
    """The scenario named by a ``[mockengine scenario=NAME]`` marker in ``instructions``, or None."""
    return _marker_value(instructions, "scenario")


def role_marker(instructions: str) -> str | None:
    """The role named by a ``[mockengine role=B]`` marker in ``instructions``, or None."""
    return _marker_value(instructions, "role")
