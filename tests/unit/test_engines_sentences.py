"""Sentence splitting used by both synthesizers."""

from __future__ import annotations

import pytest

from mockengine.engines import normalize_text, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello there. How are you?  Fine!", ["Hello there.", "How are you?", "Fine!"]),
        ("No final stop", ["No final stop"]),
        ("Wait... really?! Yes.", ["Wait...", "really?!", "Yes."]),
        ('She said "hi." Then left.', ['She said "hi."', "Then left."]),
        ("Dr. Smith and Mrs. Jones, e.g. here. Done.", ["Dr. Smith and Mrs. Jones, e.g. here.", "Done."]),
        ("Pi is 3.14 today.", ["Pi is 3.14 today."]),
        ("Line one.\nLine two.", ["Line one.", "Line two."]),
        ("", []),
        ("   \n\t", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize("text", ["  One.  Two!\nThree?  four ", "a.b. c", "Hi!!! ... ok."])
def test_joined_sentences_equal_the_normalized_text(text: str) -> None:
    assert " ".join(split_sentences(text)) == normalize_text(text)
