"""Intent → tool: which declared tool the words ask for, from what the tool declares and nothing else.

Each tool's *vocabulary* is the concepts (``lexicon.concept``: stem + synonym group) of its name (weight
3), enum values (2), parameter names (1.5), and its own and its parameters' descriptions (1). A request
scores, per tool, the sum over the distinct concepts it heard of that tool's weight for the concept times
the concept's rarity among the declared tools (``log(1 + N / tools_with_it)``), so a word every tool
mentions ("card") counts little and the verb that only one tool has counts most.

The best tool is called when its score reaches ``MIN_SCORE`` and it heard at least one of the tool's
*strong* concepts (name or enum words, or a verb in its description). **Ties** (equal scores) go to the
tool whose name holds more of the heard concepts, then to the tool declared first. The HyperStudy tools
(``answer_*``, ``send_chat``, ``wait``, ``submit_response``) are never candidates: the participant
answers those from the study's context, as before.

Two actions ("open the gesture project and play it") are two requests when the words split at "and" /
"then" into two parts that each pick a tool on their own.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mockengine.brain import lexicon, utterance
from mockengine.brain.model import ToolSpec
from mockengine.brain.phrasing import LIGHT_VERBS
from mockengine.brain.situation import ANSWER_TOOLS

MIN_SCORE = 1.5
NAME_WEIGHT, ENUM_WEIGHT, PARAMETER_WEIGHT, DESCRIPTION_WEIGHT = 3.0, 2.0, 1.5, 1.0
# HyperStudy's own tools keep their study behaviour and are never the matcher's pick: the answer tools
# (situation.ANSWER_TOOLS) and the rest HyperStudy declares.
HYPERSTUDY_TOOLS = ANSWER_TOOLS | frozenset(("send_chat", "wait", "respond", "answer"))
_SPLIT = re.compile(r"\s*(?:,\s*)?\b(?:and then|and also|and|then|after that)\b\s*", re.IGNORECASE)
_QUOTE = re.compile(r"[\"“][^\"”]*[\"”]")
# A "like" that means similarity, not liking ("what's it like", "looks like").
_NOT_LIKING = re.compile(
    r"\b(?:look|looks|sound|sounds|seem|seems|feel|feels|what's|whats|what is)\b[^.?!]*\blike\b"
    r"|\b(?:be|been)\s+like\b"  # "what will the weather be like"
)
QUESTION_BONUS = 1.5
_READ_VERBS = frozenset(("get", "list", "view", "show", "check", "track", "find", "search", "read"))
_LOOKING = _READ_VERBS | {"look", "see"}
_POLITE = frozenset(("please", "also", "can", "could", "would", "will", "you", "kindly", "maybe"))
_ASKING = re.compile(r"^\s*(?:what|which|where|when|is|are|am|do|does|anything|any)\b", re.I)
_QUOTED_PHRASE = re.compile(r"'([A-Za-z]+(?: [A-Za-z]+)+)'")
_QUOTED_WORD = re.compile(r"'([A-Za-z]+)'")


@dataclass(frozen=True)
class Match:
    """A tool and how well the words asked for it: ``score`` and the heard words that counted."""

    tool: ToolSpec
    score: float
    cues: tuple[str, ...]
    strong: bool


def candidates(tools: Iterable[ToolSpec]) -> list[ToolSpec]:
    """The declared tools the matcher may pick (every one but HyperStudy's own)."""
    return [tool for tool in tools if tool.name not in HYPERSTUDY_TOOLS]


def rank(text: str, tools: list[ToolSpec]) -> list[Match]:
    """Every tool scored for ``text``, best first (ties by the documented rule)."""
    heard = _heard(text)
    asking = text.rstrip().endswith("?") or bool(_ASKING.match(text))
    vocabularies = [_vocabulary(_key(tool)) for tool in tools]
    spread = {c: sum(1 for v in vocabularies if c in v[0]) for c, _ in heard}
    matches = []
    for order, (tool, (weights, strong_words, name_words)) in enumerate(
        zip(tools, vocabularies, strict=True)
    ):
        score, cues, strong, in_name = 0.0, [], False, 0
        for concept, word in heard:
            if concept in weights:
                score += weights[concept] * math.log(1 + len(tools) / spread[concept])
                cues.append(word)
                strong = strong or concept in strong_words
                in_name += concept in name_words
        # A thing the tool is named for ("details", "song") is enough when no other action was asked for.
        heard_concepts = {c for c, _ in heard}
        for phrase in _quoted_phrases(_key(tool)):
            if len(phrase) > 1 and phrase <= heard_concepts:
                score += NAME_WEIGHT * len(phrase)
                strong = True
        # "check the weather" asks a read tool (get_weather) for a look, whatever else "check" can mean.
        reads = lexicon.identifier_words(tool.name).split()[:1] in ([v] for v in _READ_VERBS)
        other_verb = any(
            c in _STRONG_VERBS and c not in weights and not (reads and w.lower() in _LOOKING)
            for c, w in heard
        )
        strong = strong or (in_name > 0 and not other_verb)
        if lexicon.tool_mention(text, tool.name) is not None:  # "use get_weather …", "call get forecast …"
            score += NAME_WEIGHT
            strong = True
        if asking and lexicon.identifier_words(tool.name).split()[0] in _READ_VERBS:
            score *= QUESTION_BONUS  # a question is more likely a look than a change
        matches.append((-round(score, 6), -in_name, order, Match(tool, round(score, 3), tuple(cues), strong)))
    return [entry[-1] for entry in sorted(matches, key=lambda e: e[:3])]


def best(text: str, tools: list[ToolSpec]) -> Match | None:
    """The tool ``text`` asks for, or None when nothing matches well enough."""
    if not tools or utterance.not_asking(text) is not None:
        return None
    text = utterance.without_closing(text)
    ranked = rank(text, tools)
    top = ranked[0]
    return top if top.score >= MIN_SCORE and top.strong else None


def actions(text: str, tools: list[ToolSpec]) -> list[tuple[str, Match]]:
    """The requests in ``text``: one (part, match) per action, in the order said; [] when none matches.
    ``text`` is cleaned first (``utterance.clean``: fillers, a leading dismissal)."""
    text = utterance.clean(text)
    parts = [
        p for p in _SPLIT.split(_QUOTE.sub(lambda m: m.group(0).replace(" and ", " & "), text)) if p.strip()
    ]
    if any(utterance.negated(p) for p in parts):  # "open orbit but don't play it": only what is asked
        parts = [p for p in parts if not utterance.negated(p)]
        text = " ".join(parts)
        if not parts:
            return []
    if len(parts) > 1 and all(_has_verb(part) for part in parts[1:]):
        matched = [(part.replace(" & ", " and "), best(part, tools)) for part in parts]
        if all(match is not None for _, match in matched):
            return [(part, match) for part, match in matched if match is not None]
    whole = best(text, tools)
    return [(text, whole)] if whole is not None else []


def _has_verb(part: str) -> bool:
    """A later part of "… and …" is a request of its own only with a verb: "and play it", "and show me
    my list"; in "add eggs and bread to my list" the "bread to my list" is more of the first's object."""
    words = [t for t in lexicon.tokens(part) if not t.is_stop or t.lower in LIGHT_VERBS]
    first = next((t for t in words if t.lower not in _POLITE), None)
    return first is not None and (
        first.concept in lexicon.ACTIONS or first.lower in LIGHT_VERBS or first.lower in _LOOKING
    )


def _heard(text: str) -> list[tuple[str, str]]:
    """The distinct concepts of the content words heard, with the word that carried each."""
    if _NOT_LIKING.search(text.lower()):
        text = re.sub(r"\blike\b", " ", text, flags=re.IGNORECASE)
    seen: dict[str, str] = {}
    kept = ("up", "down", "on", "off", "like")
    for token in lexicon.tokens(lexicon.rewrite(text)):
        if (not token.is_stop or token.lower in kept) and token.concept not in seen:
            seen[token.concept] = token.lower
    return list(seen.items())


def _key(tool: ToolSpec) -> str:
    return json.dumps([tool.name, tool.description, tool.parameters], sort_keys=True, default=str)


@lru_cache(maxsize=512)
def _vocabulary(key: str) -> tuple[dict[str, float], frozenset[str], frozenset[str]]:
    """(concept → weight, strong concepts, concepts of the name) for one tool (``_key`` JSON)."""
    name, description, parameters = json.loads(key)
    weights: dict[str, float] = {}
    strong: set[str] = set()
    name_concepts = _concepts(lexicon.identifier_words(name))
    _add(weights, name_concepts, NAME_WEIGHT)
    strong |= set(name_concepts[:1])  # the name's first word, usually its verb ("play" of play_music)
    texts = [description or ""]
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    for parameter, schema in (properties or {}).items():
        _add(weights, _concepts(lexicon.identifier_words(parameter)), PARAMETER_WEIGHT)
        if isinstance(schema, Mapping):
            texts.append(str(schema.get("description", "")))
            for option in schema.get("enum") or []:
                option_concepts = [t.concept for t in lexicon.tokens(lexicon.identifier_words(str(option)))]
                _add(weights, option_concepts, ENUM_WEIGHT)
                strong |= set(option_concepts)
    described = _concepts(" ".join(texts))
    _add(weights, described, DESCRIPTION_WEIGHT)
    # "Use for 'back', 'close', 'exit'": words the tool's author quoted as its triggers count like its name.
    quoted = _concepts(" ".join(_QUOTED_WORD.findall(" ".join(texts))))
    _add(weights, quoted, NAME_WEIGHT)
    if lexicon.identifier_words(name).split()[0] in _READ_VERBS:
        _add(weights, ["open", "list"], ENUM_WEIGHT)  # "show me / list / view my events" are one request
    strong |= set(quoted) | {c for c in weights if c in _STRONG_VERBS}
    return weights, frozenset(strong), frozenset(name_concepts)


@lru_cache(maxsize=512)
def _quoted_phrases(key: str) -> tuple[frozenset[str], ...]:
    """The content concepts of each multi-word usage a tool's description quotes ('show me it working')."""
    _, description, parameters = json.loads(key)
    found = _QUOTED_PHRASE.findall(description or "")
    return tuple(frozenset(c for c in _concepts(phrase) if c not in ("it",)) for phrase in found)


def vocabulary_of(tool: ToolSpec) -> frozenset[str]:
    """Every concept ``tool`` declares (name, parameters, enums, descriptions)."""
    return frozenset(_vocabulary(_key(tool))[0])


def _concepts(text: str) -> list[str]:
    return [
        t.concept for t in lexicon.tokens(lexicon.rewrite(text)) if not t.is_stop or t.lower in ("up", "down")
    ]


def _add(weights: dict[str, float], concepts: list[str], weight: float) -> None:
    for concept in concepts:
        weights[concept] = max(weights.get(concept, 0.0), weight)


_STRONG_VERBS = lexicon.ACTIONS


def describe(match: Match) -> str:
    """Why a tool was picked, for the trace: its score and the words that pointed at it."""
    words = ", ".join(repr(c) for c in match.cues) or "none"
    return f"{match.tool.name} (score {match.score:g}; words {words})"


def tool_values(arguments: Mapping[str, Any]) -> list[str]:
    """The string values of a call's arguments, for naming the thing acted on."""
    return [value for value in arguments.values() if isinstance(value, str)]
