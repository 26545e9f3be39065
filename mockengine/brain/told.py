"""What happened, told beside a request: the clause a model writes into a summary or a description
("my package never arrived, please open a ticket, not urgent" → summary "my package never arrived").

A parameter that holds the matter (``summary``, ``issue``, ``problem``, ``complaint``,
``issue_description``) that the request's own phrases leave empty, or fill with one word, takes the
longest clause that is no request (no word of the tool's name, no "please"), gives no address, and says
more than a value does (three words or more: "not urgent", "high priority" are values).
"""

from __future__ import annotations

import re

from mockengine.brain import lexicon
from mockengine.brain.phrasing import Cues

# "description" alone is no matter told: an expense's description is the thing bought ("taxi").
_MATTER = frozenset(("summary", "issue", "problem", "complaint"))
_CLAUSES = re.compile(r"(?<!\b(?:Dr|Mr|Ms|St))[,;.!?]+\s*|\s+(?:but|and then)\s+")
_REQUEST = re.compile(r"\b(?:please|can you|could you|would you|i need you to|i'd like you to)\b", re.I)
_ADDRESS = re.compile(r"@|\bhttps?://|\bwww\.", re.I)
_LEADING = re.compile(r"^(?:and|but|so|also|well|um|uh|oh)\s+", re.I)
MIN_WORDS = 3


def tells_the_matter(parameter: str) -> bool:
    """``parameter`` holds what happened, in the speaker's words (``summary``, ``issue_description``)."""
    return bool(set(lexicon.identifier_words(parameter).split()) & _MATTER)


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
