"""Sentence splitting shared by the real and fake synthesizers.

Speech is produced one sentence at a time so the session can stream the first sentence while later
ones are synthesized, and so the TTS cache has a natural key. Rule: a sentence ends at one or more of
`. ! ?` (optionally followed by closing quotes or brackets) followed by whitespace. Known abbreviations
("Dr.", "e.g.") do not end a sentence.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_ABBREVIATIONS = frozenset({"mr.", "mrs.", "ms.", "dr.", "prof.", "st.", "vs.", "etc.", "e.g.", "i.e."})


def normalize_text(text: str) -> str:
    """Collapse every whitespace run to one space and strip the ends."""
    return " ".join(text.split())


def _ends_with_abbreviation(chunk: str) -> bool:
    last_word = chunk.rsplit(" ", 1)[-1].lower()
    return last_word in _ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """Split `text` into sentences; " ".join(result) == normalize_text(text). Empty text -> []."""
    normalized = normalize_text(text)
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(normalized):
        candidate = normalized[start : match.end()]
        if _ends_with_abbreviation(candidate):
            continue
        sentences.append(candidate.strip())
        start = match.end() + 1
    tail = normalized[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences
