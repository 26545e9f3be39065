"""A required free string still missing, read from the words said right next to its name ("with high
priority", "priority high", "a priority of high" → ``priority: "high"``), taken back out of any other
value that swallowed them ("buy milk with high priority" → ``text: "buy milk"``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mockengine.brain import verbatim

_DANGLING = re.compile(r"(?:[\s,;:-]+(?:with|of|and|at|a|an|the))*[\s,;:-]*$", re.I)


def fill_beside_label(
    said: str,
    arguments: dict[str, Any],
    sources: dict[str, str],
    names: list[str],
    own: Callable[[str], bool],
) -> None:
    """Fill each of ``names`` not in ``arguments`` from ``verbatim.beside_label`` on ``said``; a value
    ``own`` says is the tool's own words ("start a new game" for new_game) names nothing."""
    for name in [n for n in names if n not in arguments]:
        span = verbatim.beside_label(said, name)
        if span is None or own(str(span.value)):
            continue
        words = said[span.start : span.end]
        for other, value in list(arguments.items()):
            if isinstance(value, str) and words.lower() in value.lower():
                at = value.lower().index(words.lower())
                kept = (_DANGLING.sub("", value[:at]) + " " + value[at + len(words) :].strip(" ,;:")).strip()
                if kept:
                    arguments[other] = kept
        arguments[name], sources[name] = span.value, f"{words} (said next to its name)"
