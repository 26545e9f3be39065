"""Token counting: the fallback rule, a real tokenizers.Tokenizer, the audio duration rules."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from mockengine.engines import ASSISTANT_AUDIO_MS_PER_TOKEN, USER_AUDIO_MS_PER_TOKEN, TokenCounter
from mockengine.engines.stt import resolve_whisper_model
from mockengine.engines.tokens import MAX_CACHED_CHARS


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("hello", 1), ("hello world", 2), ("Hello, world!", 4), ("it's 3.5 km", 7)],
)
def test_fallback_counts_words_and_punctuation(text: str, expected: int) -> None:
    counter = TokenCounter()
    assert not counter.uses_tokenizer
    assert counter.count(text) == expected


def test_model_dir_without_tokenizer_falls_back(tmp_path: Path) -> None:
    assert not TokenCounter.from_model_dir(tmp_path).uses_tokenizer
    assert not TokenCounter.from_model_dir(None).uses_tokenizer


def test_tokenizer_file_in_model_dir_is_used(tmp_path: Path) -> None:
    vocab = {"[UNK]": 0, "hello": 1, "world": 2}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    counter = TokenCounter.from_model_dir(tmp_path)
    assert counter.uses_tokenizer
    assert counter.count("hello world hello") == 3
    assert counter.count("") == 0


def test_token_ids_are_the_tokenizers_ids_and_none_without_one() -> None:
    # The public way to the ids (verbose_json's segment "tokens"): the audio endpoints read the private
    # tokenizer attribute before.
    vocab = {"[UNK]": 0, "hello": 1, "world": 2}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    counter = TokenCounter(tokenizer)
    assert counter.token_ids("hello world hello") == [1, 2, 1]
    assert counter.token_ids("") == []
    assert TokenCounter().token_ids("hello world") == []  # the fallback rule has no vocabulary


@pytest.mark.parametrize(
    ("duration_ms", "direction", "expected"),
    [(0, "input", 0), (1, "input", 1), (100, "input", 1), (1_050, "input", 11), (1_000, "output", 20)],
)
def test_audio_tokens_round_up_per_direction(duration_ms: float, direction: str, expected: int) -> None:
    assert TokenCounter.audio_tokens(duration_ms, direction=direction) == expected  # type: ignore[arg-type]


def test_audio_rules_are_the_documented_constants() -> None:
    assert (USER_AUDIO_MS_PER_TOKEN, ASSISTANT_AUDIO_MS_PER_TOKEN) == (100.0, 50.0)


def test_negative_duration_is_rejected() -> None:
    with pytest.raises(ValueError, match="duration_ms"):
        TokenCounter.audio_tokens(-1)


def _byte_level_bpe() -> Tokenizer:
    """A small GPT-2-style byte-level BPE, trained here (whisper's tokenizer.json is one of these)."""
    from tokenizers import decoders, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    corpus = ["please add milk to my list", "and then play some jazz", "naïve café, don't  stop!\n"] * 50
    tokenizer.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=300, show_progress=False))
    return tokenizer


class _Counting:
    """A tokenizer that counts its ``encode`` calls."""

    def __init__(self, inner: Tokenizer) -> None:
        self.inner, self.calls = inner, 0

    def encode(self, text: str, add_special_tokens: bool = False):
        self.calls += 1
        return self.inner.encode(text, add_special_tokens=add_special_tokens)


def test_a_long_text_is_counted_in_pieces_to_the_same_total_then_kept_by_digest() -> None:
    tokenizer = _byte_level_bpe()
    words = [
        "please",
        "add",
        "milk,",
        "  two  spaces",
        "tab\there",
        "naïve",
        "don't",
        "42",
        "!?",
        "\n\nnew",
        "😀",
    ]
    text = " ".join(words[(i * 7) % len(words)] for i in range(60_000))
    spy = _Counting(tokenizer)
    counter = TokenCounter(spy)  # type: ignore[arg-type]
    assert counter.count(text) == len(tokenizer.encode(text, add_special_tokens=False).ids)
    assert spy.calls > 10  # in pieces: the GIL is free between them
    calls = spy.calls
    assert counter.count(text) == len(tokenizer.encode(text, add_special_tokens=False).ids)
    assert spy.calls == calls  # counted again by its digest


def _whisper_counter() -> tuple[TokenCounter, Tokenizer]:
    """The server's counter: the bundled tiny.en model's tokenizer.json (the tokenizer only, no model)."""
    tokenizer = Tokenizer.from_file(str(Path(resolve_whisper_model(None)) / "tokenizer.json"))
    return TokenCounter(tokenizer), tokenizer


def _whole(tokenizer: Tokenizer, text: str) -> int:
    return len(tokenizer.encode(text, add_special_tokens=False).ids)


BLOB = base64.b64encode(random.Random(7).randbytes(60_000)).decode()  # 80,000 characters, no space
URL = "https://example.com/search?" + "&".join(f"q{i}=v{i}%2Fx" for i in range(3_000))
# Letters, digits, marks, contractions, whitespace runs: every kind of pre-token boundary but " x".
MIXED = [
    "'",
    "r",
    "e",
    "s",
    "ll",
    "1",
    "²",
    ",",
    "\n",
    "\t",
    "\n\n",
    "天",
    "é",
    "😀",
    "'re",
    "\u0301",
    "\xa0",
]
UNCUTTABLE = {
    "blob": BLOB,
    "url": URL,
    "minified json": json.dumps({f"k{i}": [i, "v"] for i in range(4_000)}, separators=(",", ":")),
    "newlines, no space": "line\n" * 8_000,
    "mixed classes": "".join(random.Random(1).choices(MIXED, k=40_000)),
}


@pytest.mark.parametrize("name", sorted(UNCUTTABLE))
def test_a_long_text_without_a_space_is_counted_exactly_at_pre_token_starts(name: str) -> None:
    counter, tokenizer = _whisper_counter()
    text = UNCUTTABLE[name]
    assert len(text) > 2 * MAX_CACHED_CHARS and " " not in text
    assert counter.count(text) == _whole(tokenizer, text)


@pytest.mark.parametrize("text", ["x" * 20_000, "天气很好" * 5_000, "é" * 100_000])
def test_one_pre_token_longer_than_a_piece_is_cut_anywhere_and_counted_close(text: str) -> None:
    counter, tokenizer = _whisper_counter()
    spy = _Counting(tokenizer)
    counted = TokenCounter(spy).count(text)  # type: ignore[arg-type]
    cuts = spy.calls - 1
    assert cuts >= 1
    assert abs(counted - _whole(tokenizer, text)) <= cuts
    assert counter.count(text) == counted  # deterministic, with or without the pre-tokenizer at hand


def test_texts_counted_before_keep_their_counts() -> None:
    """Long texts with spaces (the repository's docs, a 100,000-word mix) were counted exactly in
    pieces before: the fallback cuts never change them."""
    counter, tokenizer = _whisper_counter()
    root = Path(__file__).resolve().parents[2]
    docs = "\n\n".join(path.read_text() for path in sorted((root / "docs").glob("*.md")))
    mixed = " ".join(f"word{i}, naïve don't 😀\n" for i in range(20_000))
    for text in (docs, mixed, "hello world " * 5_000):
        assert len(text) > MAX_CACHED_CHARS
        assert counter.count(text) == _whole(tokenizer, text)


@pytest.mark.parametrize(
    "text",
    [
        "x" * 40_000,  # one stretch with no space at all
        "please add " + "QUJD" * 12_000 + " and then play some jazz",  # a base64 blob inside words
        "naïve café " * 1_000 + "é" * 33_000,  # spaced text, then an unspaced tail past two limits
    ],
)
def test_a_long_text_without_a_cut_place_is_counted_in_pieces(text: str) -> None:
    tokenizer = _byte_level_bpe()
    spy = _Counting(tokenizer)
    count = TokenCounter(spy).count(text)  # type: ignore[arg-type]
    whole = len(tokenizer.encode(text, add_special_tokens=False).ids)
    assert spy.calls >= 3  # cut at the limit where no space allows a cut
    assert abs(count - whole) <= spy.calls  # at most about a token per cut off the whole count


def _full_byte_level_bpe() -> Tokenizer:
    """A byte-level BPE holding every byte, as whisper's does (so any text can be written)."""
    from tokenizers import decoders, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator(["please add milk to my list", "naïve café, don't  stop!"] * 50, trainer)
    return tokenizer


TEXTS = ["Paris, I think.", "naïve café, don't  stop!\n", "天气很好 ok", "  ", "x" * 40_000 + " end"]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize(
    "counter", [TokenCounter(), TokenCounter(_full_byte_level_bpe())], ids=["fallback", "byte-level"]
)
def test_token_bytes_add_up_to_the_text_one_entry_a_token(counter: TokenCounter, text: str) -> None:
    """``token_bytes`` (Chat Completions ``logprobs``) gives each token's bytes, as many as ``count``."""
    tokens = counter.token_bytes(text)
    assert b"".join(tokens) == text.encode()
    assert len(tokens) == max(counter.count(text), 1)


@pytest.mark.parametrize("text", TEXTS)
def test_token_bytes_of_a_tokenizer_that_drops_characters_still_add_up(text: str) -> None:
    """A tokenizer without every byte drops what it cannot write: the fallback's tokens are given."""
    assert b"".join(TokenCounter(_byte_level_bpe()).token_bytes(text)) == text.encode()
