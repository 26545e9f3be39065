"""What a tool's declaration says beyond its words, for the matcher: the verbs its description starts
with (its actions, whatever its name says), the example values it quotes (no triggers), a value said as
what one of its required strings is, and whether a HyperStudy name is HyperStudy's tool or an app's own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mockengine.brain import lexicon, schema_values, verbatim
from mockengine.brain.hrp import HRP_TOOLS
from mockengine.brain.model import ToolSpec
from mockengine.brain.wordlists import CHANGE_VERBS, READ_VERBS

_HRP_PARAMETERS = {tool.name: tool.parameters for tool in HRP_TOOLS}
# Example values a description quotes: "e.g. 'groceries'", "such as 'Chrome' or 'Excel'".
_EXAMPLES = re.compile(
    r"\b(?:e\.g\.|eg|for example|for instance|such as|like|i\.e\.)\s*,?\s*'[^']*'"
    r"(?:\s*(?:,|or|and)\s*'[^']*')*",
    re.I,
)
_LEADING = re.compile(
    r"^\s*([A-Za-z]+)(?:\s*(?:,|/|or|and)\s*([A-Za-z]+))?\s+"
    r"(?:the|a|an|your|my|their|its|this|that|it|all|one|someone|people)\b",
    re.I,
)
_LIGHT_LEADING = frozenset(("set", "make", "take", "place", "call", "have", "get"))


def without_examples(text: str) -> str:
    """``text`` without the example values it quotes ("e.g. 'groceries'")."""
    return _EXAMPLES.sub(" ", text)


# A description that says when the tool is called: "Called when the user wants to update their order.",
# "Use this when the customer confirms the order." — what the user does is the tool's action.
_WHEN_THE_USER = re.compile(
    r"^\s*(?:called|use(?:d)?(?: this)?|call this|invoke(?: this)?)\s+(?:tool\s+|function\s+)?(?:only\s+)?"
    r"when\s+(?:the\s+)?(?:user|customer|caller|client|guest)\s+(?:(?:wants|asks|would like|needs)\s+to\s+)?",
    re.I,
)


def says_when_called(description: str) -> bool:
    """The description says when the tool is called ("Called when the user wants to …"): the user's
    verb it names is the tool's trigger, as strong as its name."""
    return _WHEN_THE_USER.match(description) is not None


def leading_verbs(description: str) -> list[str]:
    """The verbs an imperative description starts with ("Mute or unmute the …", "Post a message …"):
    words that change something, before a determiner; a light verb ("Set the …") says nothing. A
    description that says when it is called gives the user's verb ("Called when the user wants to update
    their order" → update; "… when the user confirms the order" → confirm)."""
    trigger = _WHEN_THE_USER.match(description)
    if trigger is not None:
        found = _LEADING.match(description[trigger.end() :])
        said = [w.lower() for w in found.group(1, 2) if w] if found is not None else []
        # the user's verb, said of them ("confirms"): its base form
        return [
            w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in said if w not in _LIGHT_LEADING
        ]
    found = _LEADING.match(description)
    if found is None:
        return []
    words = [w.lower() for w in found.group(1, 2) if w]
    # "Silence the chime" is an imperative; "Returns the …" describes a lookup
    return [
        w
        for w in words
        if w not in _LIGHT_LEADING
        and (w in CHANGE_VERBS or not (w.endswith("s") or w in lexicon.STOPWORDS or w in READ_VERBS))
    ]


# The thing an imperative description's verb is done to: up to three words after its determiner, ending
# before a preposition, a conjunction, a relative word or a stop ("Reserve a table at a restaurant" →
# "table", "Post a message to a channel" → "message").
_OBJECT = re.compile(
    r"\s*(?P<thing>(?:[A-Za-z'-]+\s+){0,2}?[A-Za-z'-]+)"
    r"(?=\s+(?:at|in|on|for|to|from|with|by|of|and|or|that|which|who|when|if|as|into|under)\b|\s*[.,;:(]|\s*$)",
    re.I,
)


def acted_on(description: str) -> str:
    """The head of the thing an imperative description's leading verb is done to ("Reserve a table at a
    restaurant" → "table"; "Create a new calendar event" → "event"; "Mute or unmute the user's
    microphone" → "microphone"); ""
    when the description opens with no such verb ("Returns the …", "Current weather …") or a light
    one. A model reads "Can I get a table?" as asking for what ``make_reservation`` "Reserve a table …"
    does, as it reads a thing the tool's name holds."""
    trigger = _WHEN_THE_USER.match(description)
    rest = description[trigger.end() :] if trigger is not None else description
    found = _LEADING.match(rest)
    if found is None or not leading_verbs(description):
        return ""
    thing = _OBJECT.match(rest[found.end() :])
    if thing is None:
        return ""
    # the head, the phrase's last word: "a new calendar event" is an event (not a "new" one made)
    head = thing.group("thing").split()[-1]
    return "" if head.lower().endswith(("'s", "s'")) or head.lower() in lexicon.STOPWORDS else head


def labelled(text: str, tool: ToolSpec) -> bool:
    """A required string of ``tool`` said as what it is ("the passcode is tulip", "the code's X")."""
    parameters = tool.parameters if isinstance(tool.parameters, Mapping) else {}
    needed = schema_values.required_of(parameters)
    properties = schema_values.properties_of(parameters)
    return any(
        isinstance(properties.get(name), Mapping)
        and properties[name].get("type") == "string"
        and verbatim.labelled_string(text, name) is not None
        for name in needed
    )


def study_tools(tools: list[ToolSpec], names: frozenset[str]) -> list[ToolSpec]:
    """The declared tools that are HyperStudy's own (``names``): a HyperStudy name (``send_chat``) is an
    app's own tool when nothing else of HyperStudy is declared and its parameters are not HyperStudy's (a
    meeting app's ``send_chat {message, to}``)."""
    study = [tool for tool in tools if tool.name in names]
    if len(study) == 1 and study[0].parameters != _HRP_PARAMETERS.get(study[0].name, study[0].parameters):
        return []
    return study
