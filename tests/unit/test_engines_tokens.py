"""Token counting: the fallback rule, a real tokenizers.Tokenizer, the audio duration rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from mockengine.engines import ASSISTANT_AUDIO_MS_PER_TOKEN, USER_AUDIO_MS_PER_TOKEN, TokenCounter


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
