"""Token counting for `usage` fields: text through a local BPE tokenizer, audio by a duration rule.

The real service counts with its own (unpublished) tokenizer; ours only has to be plausible and
deterministic. tiktoken fetches its vocabulary at run time, so we use the GPT-2-style byte-level BPE
`tokenizer.json` that ships inside every faster-whisper model directory instead.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

import tokenizers

# A documented approximation, not measured: the figures commonly quoted for OpenAI realtime billing are
# about one token per 100 ms of user (input) audio and one per 50 ms of assistant (output) audio.
USER_AUDIO_MS_PER_TOKEN = 100.0
ASSISTANT_AUDIO_MS_PER_TOKEN = 50.0

# Each response counts its whole context again (instructions, every item): the same texts turn after turn.
# Counts depend on the text alone, so recent ones are kept; texts longer than this are counted afresh,
# which bounds the cache at about CACHED_TEXTS × MAX_CACHED_CHARS characters.
CACHED_TEXTS = 1024
MAX_CACHED_CHARS = 16_384
# A longer text (a pasted 1 MB message: over a second of BPE) is kept by its digest, not the text itself,
# so that counting it again (every later response) costs a hash; the brain lane counts it first, off the
# event loop (server/brain_lane.py).
CACHED_LONG_TEXTS = 64

# Fallback when no tokenizer file exists: one token per word run and per punctuation mark.
_FALLBACK_TOKEN = re.compile(r"\w+|[^\w\s]")
# The same tokens with the whitespace before each, so that they add up to the text (``token_bytes``).
_FALLBACK_SPAN = re.compile(r"\s*(?:\w+|[^\w\s])")

AudioDirection = Literal["input", "output"]


class TokenCounter:
    """Counts text and audio tokens.

    With a `tokenizers.Tokenizer` it counts BPE tokens (no special tokens); without one it counts word
    runs and punctuation marks, which undercounts long words but never needs a file.
    """

    def __init__(self, tokenizer: tokenizers.Tokenizer | None = None) -> None:
        self._tokenizer = tokenizer
        self._cached_count = functools.lru_cache(maxsize=CACHED_TEXTS)(self._count)
        self._long_counts: OrderedDict[bytes, int] = OrderedDict()  # digest → count, newest last
        self._long_lock = threading.Lock()

    @classmethod
    def from_model_dir(cls, model_dir: str | Path | None) -> TokenCounter:
        """Use `<model_dir>/tokenizer.json` if it exists, else the fallback rule."""
        if model_dir is None:
            return cls()
        tokenizer_file = Path(model_dir) / "tokenizer.json"
        if not tokenizer_file.is_file():
            return cls()
        return cls(tokenizers.Tokenizer.from_file(str(tokenizer_file)))

    @property
    def uses_tokenizer(self) -> bool:
        """True when counts come from a real BPE tokenizer rather than the fallback rule."""
        return self._tokenizer is not None

    def count(self, text: str) -> int:
        """Number of text tokens in `text` (0 for empty text)."""
        if not text:
            return 0
        return self._cached_count(text) if len(text) <= MAX_CACHED_CHARS else self._long_count(text)

    def _long_count(self, text: str) -> int:
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._long_lock:
            known = self._long_counts.get(digest)
            if known is not None:
                self._long_counts.move_to_end(digest)
                return known
        count = self._count(text)
        with self._long_lock:
            self._long_counts[digest] = count
            if len(self._long_counts) > CACHED_LONG_TEXTS:
                self._long_counts.popitem(last=False)
        return count

    def _count(self, text: str) -> int:
        if self._tokenizer is None:
            return len(_FALLBACK_TOKEN.findall(text))
        if len(text) <= MAX_CACHED_CHARS:
            return len(self._tokenizer.encode(text, add_special_tokens=False).ids)
        # The tokenizer holds the GIL for a whole call (over a second for 1 MB), which would stall the
        # event loop even from another thread: count a long text in pieces, cut where the byte-level
        # BPE's pre-tokenizer cuts anyway (before a space between two words), so the sum is the same.
        # Each piece is at most MAX_CACHED_CHARS long, so this never recurses further.
        pre_tokenizer = getattr(self._tokenizer, "pre_tokenizer", None)
        return sum(self._count(piece) for piece in _pieces(text, pre_tokenizer))

    def token_ids(self, text: str) -> list[int]:
        """The BPE token ids of ``text`` (no special tokens), in order; ``[]`` for empty text or without
        a tokenizer (the fallback rule has no vocabulary)."""
        if not text or self._tokenizer is None:
            return []
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def token_bytes(self, text: str) -> list[bytes]:
        """The tokens of ``text``, each as the UTF-8 bytes it stands for, in order: joined they are
        ``text.encode()`` (a byte-level BPE token may hold part of a character). As many as ``count``
        gives, except that whitespace after the last token (or a text of whitespace only) is one token
        more, or part of the last one."""
        if not text:
            return []
        if self._tokenizer is not None:
            pieces = _pieces(text, getattr(self._tokenizer, "pre_tokenizer", None))
            found = [
                bytes(_BYTE_OF.get(char, 0) for char in token)
                for piece in pieces
                for token in self._tokenizer.encode(piece, add_special_tokens=False).tokens
            ]
            # A tokenizer that is not byte-level, or one without every byte, may drop or rename what
            # it cannot write: then the fallback's tokens, which always add up.
            if b"".join(found) == text.encode("utf-8", "surrogatepass"):
                return found
        spans = [m.group() for m in _FALLBACK_SPAN.finditer(text)]
        rest = text[sum(len(span) for span in spans) :]
        if rest:
            spans = [*spans[:-1], spans[-1] + rest] if spans else [rest]
        return [span.encode("utf-8", "surrogatepass") for span in spans]

    @staticmethod
    def audio_tokens(duration_ms: float, *, direction: AudioDirection = "input") -> int:
        """Audio tokens for `duration_ms` of audio, rounded up; "input" is user audio, "output" assistant.

        Raises ValueError for a negative duration.
        """
        if duration_ms < 0:
            raise ValueError(f"duration_ms must be >= 0, got {duration_ms}")
        ms_per_token = USER_AUDIO_MS_PER_TOKEN if direction == "input" else ASSISTANT_AUDIO_MS_PER_TOKEN
        return math.ceil(duration_ms / ms_per_token)


def _byte_of_char() -> dict[str, int]:
    """GPT-2's byte-level alphabet reversed: the character a byte-level BPE token writes → its byte
    (printable bytes stand for themselves, the others for the characters from U+0100 on)."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    chars = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(char): byte for byte, char in zip(printable, chars, strict=True)}


_BYTE_OF = _byte_of_char()
_PIECE_CUT = re.compile(r"(?<=\S)(?= \S)")
# A pre-token that starts this close to a window's end may be cut short by it (a contraction such as
# "'re" is matched whole only when its last letters are there): such a start is not a safe cut.
_WINDOW_END_MARGIN = 4


def _pieces(text: str, pre_tokenizer: Any = None) -> list[str]:
    """``text`` cut into pieces of at most ``MAX_CACHED_CHARS`` characters.

    A cut goes before a single space between two non-spaces (where GPT-2-style pre-tokenization splits
    too); failing that, at the start of a pre-token that ``pre_tokenizer`` (a ``tokenizers`` pre-tokenizer)
    finds in the window after a non-space, which also keeps the total; failing that (one run of
    letters or of whitespace filling the window's second half, such as CJK text without punctuation),
    at the window's end, where the count may differ from a whole encode by about one token per cut.
    """
    pieces, start = [], 0
    while len(text) - start > MAX_CACHED_CHARS:
        end = _cut(text, start, pre_tokenizer)
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return [piece for piece in pieces if piece]


def _cut(text: str, start: int, pre_tokenizer: Any) -> int:
    """Where the piece starting at ``start`` ends: in the window's second half, and always before
    ``start + MAX_CACHED_CHARS``."""
    low, high = start + MAX_CACHED_CHARS // 2, start + MAX_CACHED_CHARS
    cut = _PIECE_CUT.search(text, low, high)
    if cut is not None:
        return cut.start()
    if pre_tokenizer is not None:
        # Pre-tokens are matched left to right from the piece's start, so the starts found in
        # text[start:high] are the whole text's, except near the window's end. After whitespace a
        # start is no cut: at a piece's end, whitespace is pre-tokenized as one run, not as the
        # whole text splits it before the next word ("\n\n" + "x" is "\n", "\n", "x").
        window = text[start:high]
        starts = [offsets[0] for _, offsets in pre_tokenizer.pre_tokenize_str(window)]
        safe = [
            at
            for at in starts
            if low - start <= at <= len(window) - _WINDOW_END_MARGIN and not window[at - 1].isspace()
        ]
        if safe:
            return start + safe[-1]
    return high
