"""Round 14: semantic_vad's defaults against variants, chosen and judged leave-one-split-out at high.

Usage: ``.venv/bin/python tools/turn_loso.py [--splits heldout_r8,heldout_r9,heldout_r10,heldout_r11]``.

Data: the probes ``tools/turn_tune.py record --eagerness high`` stored (``.cache/turn-tune/probes.pkl``),
re-scored with the current ``turn_scoring`` code and each variant of :data:`VARIANTS` (module constants
of ``turn_scoring`` set for the run, then restored) and simulated at high as ``turn_tune.py score`` does
(a pause ends the turn when its verdict's wait is shorter than the silence after it). The prosody is
measured once and kept on disk (``turn_tune.PROSODY_STORE``), so a run costs no whisper call and, after
the first, no prosody measure.

Round 15 adds cues that are not constants of ``turn_scoring`` (:data:`HOLD_VARIANTS`): each is a test on
the probe that, when true, holds a finished verdict as a contested one is held (``turn_tune._simulate``'s
``hold``), so a new cue can be judged here before it is written into the detector.

Round 16 adds a text language model's plausibility of the transcript (``lm …`` hold variants, scores
precomputed by ``tools/turn_lm.py`` in a venv of its own) and ``--without-audio``: round 15's
re-simulation from the stored labels, for when the corpus audio is not built (``--only`` narrows the
variants run). Round 16's figures: ``tools/turn_loso.py --probes
.cache/turn-tune/probes.pkl,.cache/turn-tune/probes_b.pkl --without-audio --only "lm "``.

Per fold: the variant with the fewest mid-thought pauses cut at high on the other splits (pooled), among
those whose complete statements' median policy delay at high on those splits is at most
:data:`STATEMENT_CAP_MS`; a tie keeps the shipped defaults. Printed: every variant on every split, then
each fold's choice and its figures on the split left out, against the defaults, and the pooled figure.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import re
import statistics
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from turn_tune import _PROSODY, STORE, _pcm, _simulate, load_prosody, save_prosody, turn_detection_max

from mockengine.realtime import turn_scoring as ts
from mockengine.realtime.prosody import NO_PROSODY
from mockengine.realtime.semantic_rules import Completeness
from mockengine.turn_corpus import load

STATEMENT_CAP_MS = 380
HELD_MS = 1000  # a statement ended later than this was held (1.6 s at high) or waited as uncertain
BURNED = ("heldout_r8", "heldout_r9", "heldout_r10", "heldout_r11")


def _variants() -> list[tuple[str, dict[str, Any]]]:
    """(name, constants of ``turn_scoring`` to set). One lever at a time, then a few pairs."""
    hand = {
        name: getattr(ts, name)
        for name in (
            "FUNCTION_ENDING_WEIGHT",
            "DEMONSTRATIVE_WEIGHT",
            "SHORT_LIST_WEIGHT",
            "OBJECT_VERB_WEIGHT",
            "FRONTED_WEIGHT",
            "PARTICLE_WEIGHT",
        )
    }
    out: list[tuple[str, dict[str, Any]]] = [("defaults", {})]
    for at in (1.75, 2.0, 2.5):
        out.append((f"COMPLETE_AT high {at}", {"COMPLETE_AT": {**ts.COMPLETE_AT, "high": at}}))
    for at in (2.0, 2.5, 3.0):
        out.append((f"FIRM_AT high {at}", {"FIRM_AT": {**ts.FIRM_AT, "high": at}}))
    out.append(("CONTESTING_WEIGHT -0.5", {"CONTESTING_WEIGHT": -0.5}))
    for below in (0.65, 0.75):
        out.append((f"DOUBT_BELOW {below}", {"DOUBT_BELOW": below}))
    for below in (0.45, 0.55):
        out.append((f"UNSURE_BELOW {below}", {"UNSURE_BELOW": below}))
    out.append(("MIN_DOUBT_WORDS 2", {"MIN_DOUBT_WORDS": 2}))
    for factor in (2.0, 3.0):
        out.append((f"ending cues x{factor:g}", {name: weight * factor for name, weight in hand.items()}))
    out.append(("PITCH_WEIGHT 0.5", {"PITCH_WEIGHT": 0.5}))
    out.append(("RISING_WEIGHT -1.5", {"RISING_WEIGHT": -1.5}))
    out.append(("FALLING_ST_PER_S -15", {"FALLING_ST_PER_S": -15.0}))
    out.append(("LENGTHENING_WEIGHT -1", {"LENGTHENING_WEIGHT": -1.0}))
    out.append(("ENERGY_WEIGHT -1", {"ENERGY_WEIGHT": -1.0}))
    for slope in (15.0, 30.0, 1e9):
        out.append((f"RISING_ANSWER_ST_PER_S {slope:g}", {"RISING_ANSWER_ST_PER_S": slope}))
    out.append(("SHORT_ANSWER_MAX_WORDS 3", {"SHORT_ANSWER_MAX_WORDS": 3}))
    out.append(
        (
            "COMPLETE_AT high 1.75 + ending cues x2",
            {"COMPLETE_AT": {**ts.COMPLETE_AT, "high": 1.75}, **{n: w * 2 for n, w in hand.items()}},
        )
    )
    out.append(
        (
            "DOUBT_BELOW 0.65 + ending cues x2",
            {"DOUBT_BELOW": 0.65, **{n: w * 2 for n, w in hand.items()}},
        )
    )
    return out


_SPOKEN = re.compile(r"[A-Za-z0-9]")


def _spoken(probe: dict[str, Any]) -> list[Any]:
    """The probe's aligned words without the punctuation whisper aligns as words of its own."""
    return [word for word in probe["words"] if _SPOKEN.search(word.word)]


def _short_clause(max_words: int) -> Callable[[dict[str, Any]], bool]:
    """Round 15's length cue: a closed statement of at most ``max_words`` words that is neither a
    question nor a ``short_answer`` (those keep their own cues). Why it might help: whisper's rewrites
    of an unfinished ending ("I lost." for "I must …", "It's all." for "It's her …") are short, and a
    mid-thought first part is usually short; its cost falls on short finished statements."""

    def hold(probe: dict[str, Any]) -> bool:
        words = _spoken(probe)
        if not words or len(words) > max_words:
            return False
        verdict = ts.score_turn(
            ts.TurnEvidence(probe["text"], probe["speech_end_ms"] - probe["start_ms"], probe["words"]), "high"
        )
        is_answer = any(cue.name == "short_answer" for cue in verdict.cues)
        return verdict.completeness is not Completeness.QUESTION and not is_answer

    return hold


def _low_confidence(below: float, min_words: int = 1) -> Callable[[dict[str, Any]], bool]:
    """Round 15's confidence cue: the geometric mean of whisper's probabilities over every word of the
    transcript (not only the last, as ``last_word`` does) is under ``below``: whisper guessed the turn."""

    def hold(probe: dict[str, Any]) -> bool:
        words = _spoken(probe)
        if len(words) < max(1, min_words):
            return False
        mean_log = sum(math.log(max(word.probability, 1e-3)) for word in words) / len(words)
        return math.exp(mean_log) < below

    return hold


LM_SCORES = STORE / "lm_scores.json"
_LM: dict[str, dict[str, float]] = {}


def _implausible(cue: str, below: float, spare_answers: bool = False) -> Callable[[dict[str, Any]], bool]:
    """Round 16's plausibility cue: a language model's score of the transcript (``tools/turn_lm.py``
    precomputes it into :data:`LM_SCORES` in a venv of its own: ``ngram_mean``, ``ngram_eos``,
    ``smol_mean``, ``smol_eos``, natural-log units) is under ``below``: whisper's rewrite of an
    unfinished ending ("We fly it out too.") should read as less likely English than a finished
    statement heard right. ``spare_answers`` leaves a ``short_answer`` alone. A transcript with no score
    is never held."""

    def hold(probe: dict[str, Any]) -> bool:
        if not _LM and LM_SCORES.exists():
            _LM.update(json.loads(LM_SCORES.read_text()))
        value = _LM.get(probe["text"], {}).get(cue)
        if value is None or value >= below:
            return False
        if spare_answers:
            verdict = ts.score_turn(
                ts.TurnEvidence(probe["text"], probe["speech_end_ms"] - probe["start_ms"], probe["words"]),
                "high",
            )
            return not any(c.name == "short_answer" for c in verdict.cues)
        return True

    return hold


LM_THRESHOLDS = {
    "ngram_mean": (-8.0, -7.0, -6.5, -6.0, -5.5),
    "ngram_eos": (-5.0, -4.0, -3.5, -3.0),
    "smol_mean": (-9.0, -8.0, -7.0, -6.0, -5.0),
    "smol_eos": (-7.0, -6.0, -5.0, -4.0, -3.0),
}

HOLD_VARIANTS: list[tuple[str, Callable[[dict[str, Any]], bool]]] = [
    *((f"short clause <= {n} words", _short_clause(n)) for n in (3, 4, 5, 6)),
    *((f"transcript confidence < {p}", _low_confidence(p)) for p in (0.5, 0.6, 0.7)),
    *((f"transcript confidence < {p}, 3+ words", _low_confidence(p, 3)) for p in (0.6, 0.7)),
    *(
        (f"lm {cue} < {t:g}", _implausible(cue, t))
        for cue, thresholds in LM_THRESHOLDS.items()
        for t in thresholds
    ),
    *(
        (f"lm {cue} < {t:g}, answers spared", _implausible(cue, t, True))
        for cue, thresholds in LM_THRESHOLDS.items()
        for t in thresholds
    ),
]


def simulate_all(
    splits: tuple[str, ...], stores: list[str], without_audio: bool = False, only: str = ""
) -> dict[str, dict[str, dict[str, Any]]]:
    """variant -> split -> {"cut": n, "counted": n, "statements": [ms], "one_word": [ms]}, over the
    utterances recorded in ``stores`` (probe stores; the first to hold an utterance gives its probes).

    ``without_audio`` (round 15's re-simulation, when the corpus audio is not built): the silence after a
    labelled pause comes from the labels, after the last probe it is unbounded, after any other pause it
    is none (taken as resumed); the prosody is the stored one where measured, else none. ``only`` keeps
    the variants whose name contains one of its comma-separated parts (and the defaults)."""
    stored: dict[str, Any] = {"labels": {}, "probes": {}}
    for path in stores:
        one = pickle.loads(Path(path).read_bytes())
        fresh = set(one["labels"]) - set(stored["labels"])
        stored["labels"].update({uid: one["labels"][uid] for uid in fresh})
        stored["probes"].update({key: probe for key, probe in one["probes"].items() if key[0] in fresh})
    if without_audio:  # the stored labels: ``load`` would build the split's audio
        labels = {uid: label for uid, label in stored["labels"].items() if label["split"] in splits}
    else:
        labels = {
            label["id"]: label
            for split in splits
            for label in load(split)[1]
            if label["id"] in stored["labels"]
        }
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (uid, _), probe in sorted(stored["probes"].items()):
        if uid in labels:
            by_label[uid].append(probe)
    load_prosody()
    if without_audio:
        # Loud from the first sample: every pause but the labelled one and the last is taken as resumed.
        pcms = {
            uid: np.full((labels[uid]["duration_ms"] + 10_000) * 24, 1000, dtype="<i2") for uid in by_label
        }
        for uid, probes in by_label.items():
            for probe in probes:
                _PROSODY.setdefault((uid, probe["start_ms"], probe["speech_end_ms"]), NO_PROSODY)
    else:
        pcms = {uid: _pcm(labels[uid]) for uid in by_label}
    figures: dict[str, dict[str, dict[str, Any]]] = {}
    runs: list[tuple[str, dict[str, Any], Callable[[dict[str, Any]], bool] | None]] = [
        (name, constants, None) for name, constants in _variants()
    ]
    runs += [(name, {}, hold) for name, hold in HOLD_VARIANTS]
    if only:
        runs = [
            run for run in runs if run[0] == "defaults" or any(part in run[0] for part in only.split(","))
        ]
    for name, constants, hold in runs:
        saved = {attr: getattr(ts, attr) for attr in constants}
        for attr, value in constants.items():
            setattr(ts, attr, value)
        try:
            per_split: dict[str, dict[str, Any]] = defaultdict(
                lambda: {"cut": 0, "counted": 0, "statements": [], "one_word": []}
            )
            for uid, probes in by_label.items():
                label = labels[uid]
                kind, delay, _, _ = _simulate(label, probes, pcms[uid], "high", hold)
                row = per_split[label["split"]]
                if label["kind"] == "trailing":
                    if label["pause_ms"] < turn_detection_max("high"):
                        row["counted"] += 1
                        row["cut"] += kind == "cut"
                elif delay is not None and label["category"] in ("complete", "one_word"):
                    row["statements" if label["category"] == "complete" else "one_word"].append(delay)
            figures[name] = dict(per_split)
        finally:
            for attr, value in saved.items():
                setattr(ts, attr, value)
        if not without_audio:
            save_prosody()
    return figures


def _median(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median([delay for row in rows for delay in row[key]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", default=",".join(BURNED))
    parser.add_argument("--probes", default=str(STORE / "probes.pkl"), help="probe stores, comma-separated")
    parser.add_argument("--without-audio", action="store_true", help="re-simulate from the labels alone")
    parser.add_argument(
        "--only", default="", help="variants whose name contains one of these, comma-separated"
    )
    parser.add_argument(
        "--answer-cap-ms",
        type=float,
        default=math.inf,
        help="also require the one-word answers' median on the other splits to be at most this",
    )
    args = parser.parse_args()
    answer_cap_ms = args.answer_cap_ms
    splits = tuple(args.splits.split(","))
    figures = simulate_all(splits, args.probes.split(","), args.without_audio, args.only)
    splits = tuple(s for s in splits if s in figures["defaults"])  # those recorded
    print(f"{'variant':<40}" + "".join(f"{s:>28}" for s in splits) + f"{'pooled':>16}")
    for name, per_split in figures.items():
        cells = []
        for split in splits:
            row = per_split[split]
            medians = f"{_median([row], 'statements'):>5.0f} {_median([row], 'one_word'):>5.0f}"
            held = sum(delay > HELD_MS for delay in row["statements"])
            cells.append(f"{row['cut']:>3}/{row['counted']:<3} {medians} {held:>3}")
        pooled = sum(per_split[s]["cut"] for s in splits)
        print(f"{name:<40}" + "".join(f"{c:>28}" for c in cells) + f"{pooled:>10}")
    print(
        "(each cell: mid-thought cut at high / counted, statements' median ms, one-word answers' median ms,"
        f" statements ended later than {HELD_MS} ms: the median is bimodal, so the count says how near it is"
        " to flipping)"
    )
    totals = {"defaults": [0, 0], "chosen": [0, 0]}
    for left in splits:
        train = [s for s in splits if s != left]
        eligible = [
            (sum(per[s]["cut"] for s in train), index, name)
            for index, (name, per) in enumerate(figures.items())
            if _median([per[s] for s in train], "statements") <= STATEMENT_CAP_MS
            and _median([per[s] for s in train], "one_word") <= answer_cap_ms
        ]
        _, _, chosen = min(eligible)
        for which, name in (("defaults", "defaults"), ("chosen", chosen)):
            row = figures[name][left]
            totals[which][0] += row["cut"]
            totals[which][1] += row["counted"]
            rate = 100 * row["cut"] / row["counted"]
            print(
                f"fold {left:<12} {which:<9} {name:<40} cut {row['cut']}/{row['counted']} ({rate:.1f} %),"
                f" statements {_median([row], 'statements'):.0f} ms,"
                f" one-word {_median([row], 'one_word'):.0f} ms"
            )
    for which, (cut, counted) in totals.items():
        print(f"pooled {which}: {cut}/{counted} ({100 * cut / counted:.1f} %)")


if __name__ == "__main__":
    main()
