"""``logprobs: true`` on Chat Completions: a log probability for each token of a choice's text, and
``top_logprobs`` alternatives, in the shape of ``openai/types/chat/chat_completion_token_logprob.py``.

The tokens are our tokenizer's (the one ``usage`` counts with, ``TokenCounter.token_bytes``), so their
``token`` strings add up to the text, and their ``bytes`` to its UTF-8; a token holding part of a
character is written ``bytes:\\xe6\\x97`` as the live service writes it. The figures are made up,
deterministically: each token gets a probability between 0.55 and 0.999 drawn from ``rng`` (so it is
always the most likely of its alternatives, as a greedy reply's token is), and the alternatives share what
is left, halving down the list, from a fixed set of common tokens. They are plausible (each list sums to
at most 1, in descending order), not a model's: a client can parse, store and threshold them, not learn
from them.
"""

from __future__ import annotations

import math
import random
from typing import Any

from mockengine.engines.tokens import TokenCounter

# Alternatives offered in top_logprobs (at most 20 are asked for: one more than that, since the token
# itself may be among them).
_ALTERNATIVES = tuple(
    t.encode()
    for t in (
        " the", " a", ",", ".", " and", " I", " to", " of", " is", " you", " it",
        " that", " in", " for", " on", " with", " this", " be", " are", " was", " so",
    )
)  # fmt: skip
LOWEST_PROBABILITY = 0.55
HIGHEST_PROBABILITY = 0.999


def token_logprobs(text: str, top: int, tokens: TokenCounter, rng: random.Random) -> list[dict[str, Any]]:
    """One ``ChatCompletionTokenLogprob`` object per token of ``text``, each with ``top`` alternatives
    (``top_logprobs``, 0–20; the token itself first). ``rng`` makes the figures (seed it from the reply)."""
    entries = []
    for raw in tokens.token_bytes(text):
        chosen = rng.uniform(LOWEST_PROBABILITY, HIGHEST_PROBABILITY)
        rest = 1.0 - chosen
        others = [alternative for alternative in _ALTERNATIVES if alternative != raw][: max(top - 1, 0)]
        top_list = [_entry(raw, chosen)] if top else []
        top_list += [_entry(other, rest / 2 ** (rank + 1)) for rank, other in enumerate(others)]
        entries.append({**_entry(raw, chosen), "top_logprobs": top_list})
    return entries


def _entry(raw: bytes, probability: float) -> dict[str, Any]:
    return {"token": token_text(raw), "logprob": math.log(probability), "bytes": list(raw)}


def token_text(raw: bytes) -> str:
    """A token's ``token`` string: its text, or ``bytes:`` and its bytes escaped when it holds part of a
    UTF-8 character."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return "bytes:" + "".join(f"\\x{byte:02x}" for byte in raw)


def split_by_pieces(entries: list[dict[str, Any]], pieces: list[str]) -> list[list[dict[str, Any]]]:
    """``entries`` (the tokens of the text ``pieces`` add up to) shared among the pieces a stream sends
    the text in: each token goes with the piece its first byte is in, so the chunks' logprobs add up to
    the whole body's."""
    ends, end = [], 0
    for piece in pieces:
        end += len(piece.encode("utf-8", "surrogatepass"))
        ends.append(end)
    shared: list[list[dict[str, Any]]] = [[] for _ in pieces]
    start, number = 0, 0
    for entry in entries:
        while number < len(ends) - 1 and start >= ends[number]:
            number += 1
        shared[number].append(entry)
        start += len(entry["bytes"])
    return shared
