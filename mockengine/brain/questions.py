"""Questions about the user's own things: their form, and the words that frame them.

A question that asks what is so ("what have I got on tomorrow?", "when's Paddington on this saturday?",
"is my thursday looking packed?", "how much have I studied this week?") is a look: it reaches a tool that
reports (a lookup), never one that changes something, and when its words name nothing a lookup declares,
it still reaches the lookup that takes what it is anchored in (a day, the speaker's own things). Its frame
("how much have I", "is there", "actually", "so far") is no part of any value: "how many photos of the
cat have I actually got?" searches for "cat".

Not a look: a request in question form ("can you play jazz?", "could you add milk?"), a how-to question
("how do I …", a search's business), and a question of general advice ("what temperature should jeans be
washed at?", "are the recliner seats worth it?"), which no lookup of the user's things answers.
"""

from __future__ import annotations

import re

from mockengine.brain import lexicon

_LOOKS = frozenset(("open", "list", "search", "track", "state"))

# The start of a question that asks what is so.
_ASKS = re.compile(
    r"^\W*(?:(?:so|and|but|okay|ok|right|oh|well|hey)\W+)*"
    r"(?:what(?:'s| is| are| was| were| have| has| did| do| does)?|when(?:'s| is| are| will| does| do)?"
    r"|where(?:'s| is| are)?|which|who(?:'s| is)?|how (?:much|many|long|often|far|am|are|is|'s)|how's"
    r"|is there|are there|is (?:my|the|our)|are (?:my|the|our)|have i|has (?:my|the)|do i have|did i"
    r"|anything|any"
    r"|(?:is|are|was|were|does|did|has|have|will)(?=\b[^?]*\?\s*$))\b",  # "is Mickey 17 still showing?"
    re.IGNORECASE,
)
# A request, however it is put: "can you …", "could you …", "please", "how about …", "why don't you".
_REQUEST = re.compile(
    r"\b(?:can|could|would|will) you\b|\bplease\b|^\W*how about\b|\bwhy don'?t (?:you|we)\b|\blet'?s\b",
    re.IGNORECASE,
)
# General advice or opinion, not the user's things.
_GENERAL = re.compile(
    r"\bshould (?!i\b|we\b)\w+(?: \w+)? be\b|\bworth\b|\bever\b|\bin general\b|\bdo you think\b"
    r"|\b(?:is|are) (?:it|they|these|those) any good\b|\bany good\b"
    # "how long does shipping take?": how the service works, not the user's order
    r"|^\W*how long (?:does|do|will) (?!my\b|our\b|the \w+ i\b)(?:\w+ ){1,2}(?:take|last)\b",
    re.IGNORECASE,
)
_QUESTIONISH = re.compile(r"^\W*(?:is|are|do|does|should|would|will|was|were)\b|\?\s*$", re.IGNORECASE)
_HOW_TO = re.compile(r"^\W*how (?:do|should|can|would) (?:i|we|one|you)\b", re.IGNORECASE)
# The frame of a question, no part of a value.
_FRAME = re.compile(
    r"^\W*(?:(?:so|and|but|okay|ok|right|oh|well|hey)\W+)*"
    r"(?:how (?:much|many|long|often|far)|how am i getting on with|how are (?:we|things) getting on with"
    r"|what(?: \w+)?(?:'s| is| are)|is there|are there|have i got|do i have|have i|did i"
    r"|(?:is|are|does|did|will)(?= )"
    r"|when(?:'s| is)|where(?:'s| is))\b"
    r"|\b(?:have|has|had|did|do|does|am|are|is|was|were) (?:i|we)\b(?: (?:actually|really|even))?"
    r"(?: (?:got|had|done|been))?\b"
    r"|\b(?:so far|at the moment|right now|at all|lately|recently|anywhere|actually|still)\b"
    # how the thing asked about is doing ("is the Northern line running okay", "is Flow playing at …")
    r"|(?<=\w )(?:running|playing|showing|leaving|looking|going|coming|arriving|departing|doing)\b"
    r"(?: (?:okay|ok|fine|well|late|on time|packed|busy|full))?",
    re.IGNORECASE,
)


def looks_up(text: str) -> bool:
    """``text`` asks what is so about the user's things: a look, not a change nor a request."""
    text = text.replace("’", "'")
    # a question the phrases turn into a request: "what does 'gezellig' mean" → translate …
    rewritten = lexicon.rewrite(text)
    first = lexicon.tokens(rewritten)[:1]
    if not _ASKS.match(rewritten) and not (first and first[0].concept in _LOOKS):
        return False
    if not _ASKS.match(text) or _REQUEST.search(text) or _HOW_TO.match(text) or _GENERAL.search(text):
        return False
    # one question: "did I leave it open? lock it anyway" asks for a lock
    sentences = [s for s in re.split(r"[?!.]+", text) if s.strip(" ,")]
    return len(sentences) == 1


def general(text: str) -> bool:
    """A question of general advice or opinion ("what temperature should jeans be washed at?")."""
    text = text.replace("’", "'")
    return bool(_ASKS.match(text) or _QUESTIONISH.search(text)) and bool(_GENERAL.search(text))


def without_frame(text: str) -> str:
    """``text`` without the frame of a question ("how much have I studied this week?" → "studied this
    week?"), when it is one; unchanged otherwise."""
    if not looks_up(text):
        return text
    return " ".join(_FRAME.sub(" ", text.replace("’", "'")).split())
