"""Whether the form of the words lets a tool be called at all, whatever its score: a request for
content the assistant makes itself ("tell me a story about the sea", ``composing``) reaches only a tool
that makes it; a how-to question reaches only a search ("how do I reset the opener?" reads no door
state), and a past event told acts only as a record a tool keeps ("I swam for 45 minutes" logs a swim; "I
got a parking ticket" gets nothing; "I already locked the front door myself" locks nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from mockengine.brain import composing, lexicon, scalars, schema_values, utterance
from mockengine.brain.model import ToolSpec
from mockengine.brain.wordlists import READ_VERBS

_RECORD_VERBS = frozenset(("log", "record", "track", "note", "add", "save"))
_ALL_PARTICLES = frozenset(("up", "down", "on", "off"))


class Vocabulary(Protocol):
    """What a tool declares, as the matcher reads it (``intent._Vocabulary``)."""

    @property
    def weights(self) -> Mapping[str, float]: ...
    @property
    def enums(self) -> frozenset[str]: ...
    @property
    def kinds(self) -> frozenset[str]: ...
    @property
    def lookup(self) -> bool: ...


@dataclass(frozen=True)
class Form:
    """The form of the words: the verb of a past event told, whether done already or by the speaker, a
    how-to question, and the kinds of value heard (``scalars.value_kinds``)."""

    told: str | None
    done_already: bool
    how_to: bool
    kinds: frozenset[str]
    composed: composing.Composed | None = None  # a story, a joke, an explanation… the assistant makes


def form_of(text: str) -> Form:
    return Form(
        utterance.past_event(text),
        utterance.done_already(text),
        utterance.how_to(text),
        frozenset(scalars.value_kinds(text)),
        composing.requested(text),
    )


def allows(form: Form, tool: ToolSpec, vocabulary: Vocabulary, heard: set[str]) -> bool:
    """The words' form lets ``tool`` be called (its score and strong words decide the rest)."""
    if form.how_to and not (vocabulary.lookup and schema_values.searches(tool.parameters)):
        return False
    composed = form.composed  # "tell me a story": the assistant writes it, unless the tool makes stories
    declared = frozenset(vocabulary.weights)
    if composed is not None and not (
        composing.makes(composed.kind, declared) or composing.about_the_app(composed, declared)
    ):
        return False
    if form.told is None:
        return True
    measured = any(k.startswith("unit:") for k in form.kinds & vocabulary.kinds)  # "took Max out 40 minutes"
    return measured or _records(form, heard, vocabulary, tool)


def _records(form: Form, heard: set[str], vocabulary: Vocabulary, tool: ToolSpec) -> bool:
    """A past event told is a record for this tool: a value it records ("I swam" → activity swim), a
    completion ("I already did the laundry"), the tool's own verb ("I used up the flour" → use_up), or
    the event its description names ("I lost my card" → "Freeze the card, e.g. when it is lost");
    "we watched a movie last night" plays nothing."""
    verb = form.told or ""
    if "complete" in heard and "complete" in vocabulary.weights:
        return True
    if form.done_already:  # "I already locked the front door myself"
        return False
    name_words = lexicon.identifier_words(tool.name).split()
    named = heard & (vocabulary.enums - _ALL_PARTICLES)
    # the verb told is an option itself ("swam" → swim), not a synonym of one ("bought" ≠ apple_pay)
    if named and (lexicon.stem(verb) in _option_stems(tool) or _RECORD_VERBS & set(name_words)):
        return True  # "I swam …" → activity swim; "… the garage was open" closes no garage door
    own = {lexicon.stem(w) for w in name_words}
    if lexicon.stem(verb) in own - READ_VERBS:  # "I got a parking ticket" asks get_status for nothing
        return True
    return lexicon.stem(verb) in {lexicon.stem(t.lower) for t in lexicon.tokens(tool.description)}


def _option_stems(tool: ToolSpec) -> set[str]:
    """The stems of the words of a tool's enum options."""
    properties = schema_values.properties_of(tool.parameters)
    stems: set[str] = set()
    for schema in (properties or {}).values():
        for option in (schema.get("enum") or []) if isinstance(schema, Mapping) else []:
            stems |= {lexicon.stem(w) for w in lexicon.identifier_words(str(option)).split()}
    return stems
