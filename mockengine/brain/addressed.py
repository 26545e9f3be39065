"""Is there a request addressed to the assistant? The gate every tool call passes first (round 10).

A real model acts when it is asked to; words that only tell, wonder or feel ask for nothing, however
many of a tool's words they hold. ``gate()`` reads the form of the words, never a tool's vocabulary:

* **request cues** — a request marker ("please", "can you", "I need", "let's", "remind me"), a clause
  that starts with an action after a story ("I lost my card, freeze it"), an imperative opening;
* **no-request cues** — a condition with the speaker's own future as its consequence ("if she sleeps
  through tonight I'll cry with joy", "if the VPN goes again I'm going to lob this laptop"); a question
  of what someone else may do with the app ("can my partner see my calendar too?", "will my Google diary
  show up in here?"); a question of what is normal ("is it normal for a baby to …"); a story set in the
  past by its time ("the taxi driver yesterday took us the long way round", "when my eldest was little
  we wrote it on paper"); a question about what the business offers ("do you do a student discount?");
  remarks on how things are, one after another ("the room's gorgeous, the view is unreal").

The words pass unless a no-request cue is heard and no request cue is: a request beside a story or a
condition still acts. ``Gate.why`` names the cues for the trace. Records a tool keeps ("he was 7.8 kilos
at the clinic yesterday") are no stories here: a past story is a no-request cue only with no measured
value or clock time in it (``evidence`` then decides per tool, as before).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mockengine.brain import scalars, utterance

_REQUEST_CUE = re.compile(
    r"\b(?:please|can you|could you|would you|will you|can someone|could someone|i want|i need|i'd like"
    r"|we need|we'd like|let's|wanna|gotta|remind me|let me know|tell me|show me|give me"
    # what the speaker forgot to do, to be done now: "… but forgot to track it"
    r"|forgot to|didn't get (?:a chance|round|around) to|never got (?:round|around) to)\b",
    re.IGNORECASE,
)
_FIRST_PERSON_FUTURE = r"(?:i'll|i will|i'm going to|i'm gonna|we'll|we will|we're going to|i'd|i would)"
# "if/when <condition> … I'll <consequence>": the speaker's own future, no request.
_CONDITIONAL = re.compile(
    rf"^\W*(?:and\s+|but\s+|so\s+)?(?:if|when|once|as soon as)\b[^?]*?\b{_FIRST_PERSON_FUTURE}\s+"
    r"(?!(?:need|want|like|have to)\b)",
    re.IGNORECASE,
)
# "can my partner see …", "will my Google diary show up in here": what another may do with the app.
_OTHERS_ACCESS = re.compile(
    r"^\W*(?:can|could|will|would|does|do|is|are)\s+(?:my|our|his|her|their)\s+(?:[\w']+\s+){1,3}?"
    r"(?!and\s+(?:i|me|we)\b)(?:also\s+)?"
    r"(?:see|view|access|use|read|edit|join|sync|share|show up|appear|get access|log in|sign in|be able)\b",
    re.IGNORECASE,
)
# "is it normal for …", "is that common": a question of what is usual, for advice, not an action.
_NORMAL = re.compile(
    r"^\W*(?:is|are)\s+(?:it|this|that|these|those)\s+(?:\w+\s+)?"
    r"(?:normal|common|usual|typical|unusual|weird|strange|expected)\b",
    re.IGNORECASE,
)
# "do you do a student discount?": what the business offers, asked of it.
_OFFERS = re.compile(r"^\W*do you (?:do|offer|accept|take|allow)\s+(?:a|an|any)\b[^?]*\?\s*$", re.IGNORECASE)
_PAST_TIME = (
    r"(?:yesterday|last (?:night|week|month|year|time|\w+day)|the other day|ages ago|\w+ (?:days|weeks|months"
    r"|years) ago|back then|when (?:i|we|he|she|they|my \w+|our \w+) (?:was|were) (?:\w+ ){0,2}?"
    r"(?:little|small|young|a baby|younger|kids?))"
)
_PAST_VERB = (
    r"\b(?:[a-z]+(?<!e)ed|took|went|wrote|came|got|gave|made|said|told|left|drove|ran|was|were|had|grew|sat"
    r"|slept|woke|ate|bought|brought|found|lost|kept|knew|saw|thought|spent|paid|sent|broke|forgot)\b"
)
_STORY = re.compile(rf"\b{_PAST_TIME}\b.*{_PAST_VERB}|{_PAST_VERB}.*\b{_PAST_TIME}\b", re.IGNORECASE)


_MEASURE = re.compile(
    r"\b(?:hours?|minutes?|mins|seconds|kilos?|kilograms?|grams?|ml|mils?|litres?|miles?|km|kilometres?"
    r"|metres?|centimetres?|cm|pounds|lbs|ounces|oz|steps|reps|laps)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Gate:
    """The gate's decision: whether the words may ask for a call, and the cues heard (for the trace)."""

    request: bool
    cues: tuple[str, ...]

    @property
    def why(self) -> str:
        verdict = "a request" if self.request else "no request addressed to me"
        return f"{verdict} ({'; '.join(self.cues)})" if self.cues else verdict


def gate(text: str) -> Gate:
    """Whether ``text`` (a user turn, cleaned or not) holds a request addressed to the assistant."""
    text = text.replace("’", "'")
    asks = _request_cues(text)
    against = _no_request_cues(text)
    if against and not asks:
        return Gate(False, tuple(against))
    return Gate(True, tuple(asks + against))


def _request_cues(text: str) -> list[str]:
    cues = [f"request marker {m.group(0).lower()!r}" for m in _REQUEST_CUE.finditer(text)][:1]
    if utterance.past_event(text) is None and _asks_after(text):
        cues.append("an action after the telling")
    return cues


def _asks_after(text: str) -> bool:
    """A later clause, not itself a remark, starts with an action ("…, knock the heating down")."""
    later = re.split(r"[,;]", text)[1:]
    return any(not _is_plain_remark(c) and utterance.then_asks(f"so, {c}") for c in later)


def _no_request_cues(text: str) -> list[str]:
    cues = []
    if _CONDITIONAL.search(text):
        cues.append("a condition with the speaker's own future")
    if _OTHERS_ACCESS.search(text):
        cues.append("a question of what someone else may do with the app")
    if _NORMAL.search(text):
        cues.append("a question of what is normal")
    if _OFFERS.search(text):
        cues.append("a question of what is offered")
    if _STORY.search(text) and not _measured(text):
        cues.append("a story set in the past")
    if _remarks_only(text):
        cues.append("remarks on how things are")
    return cues


def _measured(text: str) -> bool:
    """A value a record keeps: a unit ("7.8 kilos") or a clock time."""
    kinds = scalars.value_kinds(text)
    return any(k.startswith("unit:") or k == "time" for k in kinds) or bool(_MEASURE.search(text))


def _remarks_only(text: str) -> bool:
    """Two or more clauses, each a remark with no complaint ("the room's gorgeous, the view is unreal")."""
    clauses = [c.strip() for c in re.split(r"[,;.!]", text) if c.strip()]
    return len(clauses) > 1 and all(_is_plain_remark(c) for c in clauses)


def _is_plain_remark(clause: str) -> bool:
    if utterance.complains(clause):
        return False
    return utterance.is_remark(clause) or bool(_EVALUATION.fullmatch(clause) or _QUALITY.fullmatch(clause))


# "the room's gorgeous", "the view over the river is unreal": a thing and one word of its quality
_QUALITY = re.compile(
    r"\W*(?:the|this|that|my|our|your)\s+(?:[\w']+\s+){0,5}?(?:\w+'s|is|are|was|were|looks?|seems?|feels?"
    r"|sounds?)\s+(?:so\s+|really\s+|absolutely\s+|just\s+|\w+ly\s+)?[\w']+\W*",
    re.IGNORECASE,
)
# a one-word verdict after a remark or a story: "…, typical", "…, unreal"
_EVALUATION = re.compile(
    r"\W*(?:typical|classic|unreal|amazing|lovely|brilliant|gorgeous|great|nice|awful|terrible|honestly)\W*",
    re.IGNORECASE,
)
