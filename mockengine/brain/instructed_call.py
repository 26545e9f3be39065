"""A call a response's own instructions ask for by the tool's name: "Call get_weather for Rome.", "Use the
get_weather tool for Rome." (LiveKit's ``generate_reply(instructions=…)``, a ``response.create``'s
``instructions``). A model follows the response's instructions: the value they name wins over the user's
words, which still fill what the instructions leave ("… in fahrenheit?" keeps its unit).

Only an explicit request for the call counts: the tool named with a verb of invoking it (``lexicon``'s
use/call/run/invoke/trigger/try), in a sentence that neither forbids it ("Do not call get_weather") nor
sets a condition ("If the user asks about the weather, call get_weather": a standing rule, not this
response's). "Check the weather in Rome." names no tool and is read as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from mockengine.brain import forced, intent, lexicon, schema_values, utterance
from mockengine.brain.model import ToolSpec
from mockengine.brain.referents import Referent

__all__ = ["arguments", "named"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_INVOKED = re.compile(r"(?i)(?:use|call|run|invoke|trigger|try)\s")
# A condition makes the sentence a rule for later, not a request of this response.
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|once|only|after|before|in case)\b", re.IGNORECASE)
# "with city set to Rome", "city = Rome": the parameter, then its value
_SET_TO = re.compile(r"\s+(?:set\s+to|equal\s+to|equals|=)\s+", re.IGNORECASE)
_INLINE_JSON = re.compile(r"\{[^{}]*\}")


def named(instructions: str, tools: Sequence[ToolSpec]) -> tuple[ToolSpec, str] | None:
    """The declared tool (not HyperStudy's own) the first sentence of ``instructions`` asks to be called
    by its name, and that sentence; None when no sentence does."""
    candidates = intent.candidates(tools)
    for sentence in (s.strip() for s in _SENTENCE.split(instructions)):
        if not sentence or _CONDITION.search(sentence) or utterance.negated(sentence):
            continue
        for tool in candidates:
            found = lexicon.tool_mention(sentence, tool.name)
            if found is not None and _INVOKED.match(found.group(0)):
                return tool, sentence
    return None


def arguments(tool: ToolSpec, sentence: str, referent: Referent, today: date) -> dict[str, Any]:
    """The arguments ``sentence`` gives ``tool``: a JSON object written in it ('with {"city": "Rome"}'),
    its keys the tool's parameters, else what its words say ("for Rome", "with city set to Rome")."""
    properties = schema_values.properties_of(tool.parameters or {})
    for written in _INLINE_JSON.finditer(sentence):
        try:
            data = json.loads(written.group(0))
        except ValueError:
            continue
        if isinstance(data, Mapping) and data and set(data) <= set(properties):
            return dict(data)
    text = _SET_TO.sub(" ", sentence)
    return dict(forced.from_words(tool, text, referent, today, [tool]).arguments)
