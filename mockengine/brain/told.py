"""What happened, told beside a request: the clause a model writes into a summary or a description
("my package never arrived, please open a ticket, not urgent" → summary "my package never arrived").

A parameter that holds the matter (``summary``, ``issue``, ``problem``, ``complaint``,
``issue_description``) that the request's own phrases leave empty, or fill with one word, takes the
longest clause that is no request (no word of the tool's name, no "please"), gives no address, and says
more than a value does (three words or more: "not urgent", "high priority" are values). So does a
``description`` or ``details`` of a tool about a problem (its name or description says ticket, issue,
problem, bug, support, complaint, incident or fault: ``create_ticket``), which a model fills with what
happened; an expense's ``description`` is the thing bought and is not read so. A value of two words
the clause holds ("laptop won't" of "my laptop won't turn on") gives way to the clause.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mockengine.brain import lexicon
from mockengine.brain.phrasing import Cues

# "description" alone is no matter told: an expense's description is the thing bought ("taxi").
MATTER = frozenset(("summary", "issue", "problem", "complaint"))
_DESCRIBING = frozenset(("description", "details"))
_ABOUT_A_PROBLEM = re.compile(
    r"\b(?:tickets?|issues?|problems?|bugs?|support|help ?desk|complaints?|incidents?|faults?)\b", re.I
)
_CLAUSES = re.compile(r"(?<!\b(?:Dr|Mr|Ms|St))[,;.!?]+\s*|:\s+|\s+(?:but|and then)\s+")
_REQUEST = re.compile(r"\b(?:please|can you|could you|would you|i need you to|i'd like you to)\b", re.I)
_ADDRESS = re.compile(r"@|\bhttps?://|\bwww\.", re.I)
_LEADING = re.compile(r"^(?:and|but|so|also|well|um|uh|oh)\s+", re.I)
MIN_WORDS = 3
_REASON = frozenset(("reason", "reasons"))
_BECAUSE_TAIL = re.compile(r"\b(?:because|since)\s+(?P<reason>\w[^.!?]*\w)", re.I)
_BECAUSE = re.compile(r"^(?:because|since|as|cause|'cause)\s+", re.I)


def tells_the_matter(parameter: str, tool_name: str = "", tool_description: str = "") -> bool:
    """``parameter`` holds what happened, in the speaker's words (``summary``, ``issue_description``;
    a problem tool's ``description``: module doc)."""
    words = set(lexicon.identifier_words(parameter).split())
    if words & MATTER:
        return True
    about = f"{lexicon.identifier_words(tool_name)} {tool_description}"
    return bool(words & _DESCRIBING) and bool(_ABOUT_A_PROBLEM.search(about))


def gives_the_reason(parameter: str) -> bool:
    """``parameter`` holds why the user asks (``reason``, ``refund_reason``, ``cancellation_reason``)."""
    return bool(set(lexicon.identifier_words(parameter).split()) & _REASON)


def reason_told(text: str, cues: Cues, values: Iterable[str] = ()) -> str | None:
    """The reason ``text`` tells beside its request, without the thing it is told of: "arrived broken" of
    "My order A12345 arrived broken, I want a refund" (the order is another argument, one of ``values``),
    "it's too small" of "… because it's too small". None when no clause tells one (``told_clause``)."""
    clauses = [c for c in _CLAUSES.split(text) if c.strip()]
    because = _BECAUSE_TAIL.search(text)
    # told beside the request, in a clause of its own or after "because": a request alone ("can I see
    # Dr. Okafor on Thursday at 9:30?") tells no reason, whatever is left of it
    clause = told_clause(text, cues) if len(clauses) > 1 else None
    if clause is None:
        return because.group("reason").strip() if because is not None else None
    clause = _BECAUSE.sub("", clause)
    for value in sorted((v for v in values if v), key=len, reverse=True):
        found = re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", clause, re.IGNORECASE)
        if found is not None:  # "my order A12345 arrived broken": what happened to it
            rest = clause[found.end() :].strip(" ,:-")
            return rest if len(lexicon.tokens(rest)) >= 2 else None
    return clause


def tells_better(clause: str, value: str) -> bool:
    """``clause`` tells what ``value`` cut short: the value's words are the clause's, in order, either
    fewer than ``MIN_WORDS`` ("laptop won't" of "my laptop won't turn on") or with some left out between
    them ("my laptop won't on"). A longer run of the clause's words ("charged twice this month" of "I was
    charged twice this month") is a value kept."""
    clause_words = [t.lower for t in lexicon.tokens(clause)]
    value_words = [t.lower for t in lexicon.tokens(value)]
    said = iter(clause_words)
    in_order = all(any(w == s for s in said) for w in value_words)
    runs = (clause_words[i : i + len(value_words)] for i in range(len(clause_words)))
    return in_order and (len(value_words) < MIN_WORDS or value_words not in runs)


def told_clause(text: str, cues: Cues) -> str | None:
    """The longest clause of ``text`` that tells something rather than asks for the tool; None when
    there is none."""
    told = []
    for clause in _CLAUSES.split(text):
        clause = _LEADING.sub("", clause.strip())
        words = lexicon.tokens(clause)
        if len(words) < MIN_WORDS or _REQUEST.search(clause) or _ADDRESS.search(clause):
            continue
        if any(_asks_for_the_tool(word, cues) for word in words):
            continue
        told.append(clause)
    return max(told, key=len) if told else None


def _asks_for_the_tool(word: lexicon.Token, cues: Cues) -> bool:
    """A word of the tool's name ("ticket" of create_ticket): the clause asks for it. Its other actions
    are not enough ("my package never arrived" holds a word of tracking)."""
    return lexicon.stem(word.lower) in cues.name_stems
