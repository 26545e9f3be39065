"""tools/turn_redecode.py: round 12's tail re-decode, its split of a probe and its cues
(docs/turn-detection.md, "Round 12"); the whisper call itself is measured by the tool, not here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

from mockengine.engines.stt import WordTiming

TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(TOOLS))  # it imports turn_tune and turn_nuclei as the tools do
spec = importlib.util.spec_from_file_location("turn_redecode", TOOLS / "turn_redecode.py")
assert spec is not None and spec.loader is not None
redecode = importlib.util.module_from_spec(spec)
sys.modules["turn_redecode"] = redecode  # its dataclass looks its module up
spec.loader.exec_module(redecode)

WORDS = (
    WordTiming("I", 100, 250, 0.9),
    WordTiming("was", 250, 500, 0.9),
    WordTiming("going", 500, 900, 0.9),
    WordTiming("to", 900, 1100, 0.9),
    WordTiming("ask", 1100, 1500, 0.9),
    WordTiming("you", 1500, 1800, 0.9),
    WordTiming("about.", 1800, 2300, 0.6),
)


def test_the_tail_starts_at_a_word_and_the_earlier_words_are_the_prompt() -> None:
    decoder = SimpleNamespace(tail_ms=1500)
    start, prompt = redecode.TailDecoder.split_point(decoder, {"words": WORDS}, 2600)
    assert (start, prompt) == (1100 - redecode.MARGIN_MS, "I was going to")
    # A turn shorter than the tail is decoded whole, without a prompt.
    assert redecode.TailDecoder.split_point(decoder, {"words": WORDS}, 1400) == (0, "")


def test_cues_judge_the_words_of_the_re_decoded_tail() -> None:
    probe = {"text": "I was going to ask you about.", "words": WORDS}
    cut_off = redecode.Redecode("I was going to", "ask you about the", 1560, 290.0, 1000.0)
    assert redecode.cues(probe, cut_off) == {
        "function": True,
        "rules": True,
        "differs": True,
        "function+differs": True,
        "differs 2+": True,
        "differs 3+": True,
    }
    # The same words again: nothing reads as unfinished.
    same = redecode.Redecode("I was going to", "ask you about it", 1560, 290.0, 1000.0)
    flags = redecode.cues({"text": "I was going to ask you about it.", "words": WORDS}, same)
    assert not any(flags.values())
    # A one-word answer is judged as closed ("Monday."), not as an unpunctuated fragment.
    answer = redecode.Redecode("", "Monday", 800, 250.0, 900.0)
    assert not redecode.cues({"text": "Monday.", "words": ()}, answer)["rules"]


def test_a_disagreement_on_a_short_turn_is_read_only_by_the_ungated_cue() -> None:
    """Round 13: one recogniser's "Sunscreen" against another's "Suncream" says nothing of a cut-off,
    so the gated readings need 2+ / 3+ words heard."""
    one = redecode.cues({"text": "Sunscreen", "words": ()}, redecode.Redecode("", "Suncream", 700, 1.0, 1.0))
    assert (one["differs"], one["differs 2+"], one["differs 3+"]) == (True, False, False)
    two = redecode.cues(
        {"text": "Peter left.", "words": ()}, redecode.Redecode("", "Peter lives", 900, 1.0, 1.0)
    )
    assert (two["differs"], two["differs 2+"], two["differs 3+"]) == (True, True, False)
