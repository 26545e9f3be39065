"""tools/turn_finished_prefix.py and tools/turn_sealed.py: the classification of issue 18's remaining cuts
(docs/turn-detection.md, "What is left")."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mockengine.turn_eval import Outcome

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


prefix = _tool("turn_finished_prefix")
sealed = _tool("turn_sealed")


def _label(first: str = "I found farmers", style: str = "separate", pause_ms: int = 1200) -> dict:
    return {
        "id": "r9-list-001-0",
        "kind": "trailing",
        "category": "list",
        "parts": [first, "miners, and a ship's cook."],
        "text": f"{first} miners, and a ship's cook.",
        "style": style,
        "pause_ms": pause_ms,
        "speech_end_ms": 5000,
    }


def _outcome(heard: str, cut: bool = True, config: str = "semantic_vad high", cues: tuple = ()) -> Outcome:
    # Cut: the turn's reported speech end is the pause (1500 ms), well before the true end (5000 ms).
    return Outcome(
        "r9-list-001-0",
        "trailing",
        config,
        1200,
        5000,
        1500 if cut else 5000,
        1850,
        None,
        "complete",
        heard,
        cues,
    )


JUDGED = {
    "I found farmers": ("sentence", "subject, verb, object"),
    "They've put me on the": ("no", "ends on an article"),
}


def test_words_ignore_case_punctuation_hyphens_and_curly_apostrophes() -> None:
    assert prefix.words("I\u2019ve found a ship-cook, OK?") == ["i've", "found", "a", "ship", "cook", "ok"]
    assert prefix.words("'Twas.") == ["twas"]


def test_closed_means_a_final_full_stop_or_question_mark() -> None:
    assert prefix.closed("I found farmers. ")
    assert prefix.closed("Is it?")
    assert not prefix.closed("I found farmers,")
    assert not prefix.closed("Wow!")


def test_class_one_needs_the_statements_audio_a_complete_sentence_and_the_exact_words_closed() -> None:
    got = prefix.classify(_label(), _outcome(" I found farmers."), JUDGED, True)
    assert got.klass == "i" and got.failed == () and got.judged == "sentence"


@pytest.mark.parametrize(
    ("first", "heard", "same_audio", "failed"),
    [
        ("I found farmers", "I found farmers.", False, ("not the statement's audio",)),
        ("They've put me on the", "They've put me on the.", True, ("not a sentence",)),
        ("I found farmers", "I found farmer.", True, ("other words",)),
        ("I found farmers", "I found farmers", True, ("not closed",)),
        (
            "They've put me on the",
            "They've put me.",
            False,
            ("not the statement's audio", "not a sentence", "other words"),
        ),
    ],
)
def test_anything_else_is_class_two_naming_every_failed_condition(
    first: str, heard: str, same_audio: bool, failed: tuple
) -> None:
    got = prefix.classify(_label(first=first), _outcome(heard), JUDGED, same_audio)
    assert got.klass == "ii" and got.failed == failed


def test_an_unjudged_first_part_is_an_error_not_a_guess() -> None:
    with pytest.raises(KeyError):
        prefix.classify(_label(first="Nobody judged this"), _outcome("Nobody judged this."), JUDGED, True)


def test_counted_cuts_count_pauses_under_the_high_maximum_at_high_only() -> None:
    results = [
        (_label(), _outcome("I found farmers.")),
        (_label(), _outcome("I found farmers.", cut=False)),
        (_label(pause_ms=2000), _outcome("I found farmers.")),  # a 2 s pause at high is a turn end
        (_label(), _outcome("I found farmers.", config="semantic_vad low")),
        ({**_label(), "kind": "complete", "category": "complete"}, _outcome("I found farmers.")),
    ]
    counted, cuts = prefix.counted_cuts(results)
    assert counted == 2 and len(cuts) == 1


def test_score_is_the_sum_of_the_deciding_probes_cue_weights() -> None:
    cues = ({"cue": "lexical", "weight": 2.0, "reason": ""}, {"cue": "pitch", "weight": -0.5, "reason": ""})
    assert prefix.score_of(_outcome("x.", cues=cues)) == 1.5


def test_held_median_replaces_held_statements_by_the_maximum_wait() -> None:
    assert prefix.held_median([350, 360, 370], [False, False, False]) == 360
    assert prefix.held_median([350, 360, 370], [True, True, False]) == 2000
    assert prefix.held_median([350, 360, 370, 380], [True, False, False, False]) == 375


def test_sealed_only_keeps_named_categories_and_trailing_means_every_mid_thought_one() -> None:
    labels = [
        {"kind": "trailing", "category": "list"},
        {"kind": "complete", "category": "complete"},
        {"kind": "complete", "category": "one_word"},
        {"kind": "question", "category": "question"},
    ]
    _, kept = sealed._only((Path("."), labels), ("trailing", "complete"))
    assert [label["category"] for label in kept] == ["list", "complete"]
