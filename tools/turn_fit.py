"""Round 9: fit semantic_vad's cue weights instead of tuning them by hand, judged leave-one-split-out.

Usage: ``.venv/bin/python tools/turn_fit.py [--l2 1.0] [--probes probes.pkl]``.

Dataset: one row per probe of ``.cache/turn-tune/probes.pkl`` (a pause the detector judged, recorded
by ``tools/turn_tune.py record``) of the tuning splits. Features: each cue name's weight as
``turn_scoring.score_turn`` gives it now (0 when the cue is absent; the cues and the rules that produce
them unchanged); label: finished (the pause is the utterance's true speech end) or mid-thought.

Model: a logistic regression (numpy gradient descent, L2 on the coefficients, free intercept) with one
coefficient per cue name, i.e. a multiplier of that cue's hand weight; the multipliers are divided by
the ``lexical`` one, so the score stays in the hand weights' units (``lexical`` keeps its weights, the
contesting bar stays -0.75). Thresholds (COMPLETE_AT, FIRM_AT per eagerness, INCOMPLETE_AT) are then
chosen on the same training splits by simulation: fewest mid-thought pauses cut at each eagerness, with
the statements' median at high <= :data:`HIGH_MEDIAN_CAP_MS` and, at medium and low, no slower than the
hand weights' on those splits.

Evaluation: leave one split out (fit and thresholds on the others, score the one left out), hand weights
(thresholds as shipped) against fitted, with ``tools/turn_tune.py``'s simulation: a pause ends the turn
when its verdict's wait at that eagerness is shorter than the silence that follows it. The hand weights
were tuned on every burned split but the newest, so they have an in-sample advantage on all folds but
that one.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np
from turn_tune import BYTES_PER_MS, ONSET_LEVEL, STORE, TUNING_SPLITS, _pcm, turn_detection_max

from mockengine.realtime import turn_scoring as ts
from mockengine.realtime.prosody import measure_prosody
from mockengine.realtime.semantic_rules import Completeness, judge_utterance
from mockengine.realtime.turn_detection import SEMANTIC_HOLD_MS, SEMANTIC_WAIT_MS
from mockengine.turn_corpus import load

CUES = (
    "lexical",
    "untranscribed_tail",
    "last_word",
    "misheard",
    "short_answer",
    "pitch",
    "lengthening",
    "energy",
    "function_ending",
    "object_verb",
    "demonstrative_ending",
    "short_list",
    "fronted_clause",
)
NAMED_CONTEST = ("misheard", "function_ending", "object_verb", "demonstrative_ending")
EAGERNESSES = ("high", "medium", "low")
HIGH_MEDIAN_CAP_MS = 370
HAND = {
    "multipliers": np.ones(len(CUES)),
    "complete_at": dict(ts.COMPLETE_AT),
    "firm_at": dict(ts.FIRM_AT),
    "incomplete_at": ts.INCOMPLETE_AT,
}
_COMPLETE_GRID = np.arange(-0.5, 4.01, 0.25)
_FIRM_GRID = np.arange(-0.5, 5.01, 0.25)
_INCOMPLETE_GRID = (-0.5, -1.0, -1.5, -2.0)


@dataclass
class Dataset:
    """Probes sorted by (utterance, speech end); per-utterance arrays indexed by ``utterance``."""

    features: np.ndarray  # probes x CUES, the hand weights
    lexical_unknown: np.ndarray  # the rules could not judge: UNKNOWN, score 0, whatever the cues
    is_question: np.ndarray
    named_contest: np.ndarray  # a cue that contests by its name
    silence_ms: np.ndarray
    end_ms: np.ndarray
    is_end: np.ndarray  # label: the pause is the true speech end (finished)
    utterance: np.ndarray  # index into the per-utterance lists
    starts: np.ndarray  # first probe of each utterance
    labels: list[dict[str, Any]]

    def __post_init__(self) -> None:
        self.speech_end_ms = np.array([label["speech_end_ms"] for label in self.labels])
        self.pause_ms = np.array([label.get("pause_ms") or 0 for label in self.labels])
        self.is_trailing = np.array([label["kind"] == "trailing" for label in self.labels])
        self.is_statement = np.array([label["category"] == "complete" for label in self.labels])
        self.split = np.array([label["split"] for label in self.labels])


def build(store: str) -> Dataset:
    """Score every stored probe once with the current cues (cached by the store's size and mtime)."""
    path = STORE / store
    stamp = (path.stat().st_size, path.stat().st_mtime_ns, CUES)
    cache = STORE / f"fit-{path.stem}.pkl"
    if cache.exists():
        cached = pickle.loads(cache.read_bytes())
        if cached[0] == stamp:
            cached[1].__post_init__()
            return cached[1]  # type: ignore[no-any-return]
    stored = pickle.loads(path.read_bytes())
    recorded = {label["split"] for label in stored["labels"].values()} & set(TUNING_SPLITS)
    labels = {label["id"]: label for split in sorted(recorded) for label in load(split)[1]}
    rows: list[tuple[Any, ...]] = []
    utterances: list[dict[str, Any]] = []
    starts: list[int] = []
    by_label: dict[str, list[dict[str, Any]]] = {}
    for (uid, _), probe in sorted(stored["probes"].items()):
        if uid in labels:
            by_label.setdefault(uid, []).append(probe)
    for uid, probes in by_label.items():
        starts.append(len(rows))
        rows += _rows(labels[uid], probes, len(utterances))
        utterances.append(labels[uid])
    columns = list(zip(*rows, strict=True))
    dataset = Dataset(*(np.array(column) for column in columns), np.array(starts), utterances)  # type: ignore[arg-type, call-arg]
    cache.write_bytes(pickle.dumps((stamp, dataset)))
    return dataset


def _rows(label: dict[str, Any], probes: list[dict[str, Any]], index: int) -> list[tuple[Any, ...]]:
    samples = _pcm(label)
    raw = samples.tobytes()
    rows = []
    for position, probe in enumerate(probes):
        start, end = probe["start_ms"], probe["speech_end_ms"]
        prosody = measure_prosody(raw[start * BYTES_PER_MS : (end + 100) * BYTES_PER_MS], end - start)
        verdict = ts.score_turn(
            ts.TurnEvidence(probe["text"], end - start, probe["words"], prosody), "medium"
        )
        weights = np.zeros(len(CUES))
        for cue in verdict.cues:
            weights[CUES.index(cue.name)] += cue.weight
        judged = judge_utterance(probe["text"]).completeness
        named = any(cue.name in NAMED_CONTEST for cue in verdict.cues)
        silence = _silence_ms(label, samples, end, position == len(probes) - 1)
        is_end = end >= label["speech_end_ms"] - 200
        rows.append(
            (weights, judged is Completeness.UNKNOWN, judged is Completeness.QUESTION, named, silence, end)
            + (is_end, index)
        )
    return rows


def _silence_ms(label: dict[str, Any], samples: np.ndarray, end: int, is_last: bool) -> int:
    """As ``turn_tune._simulate``: silence until the next loud sample, or the labelled pause."""
    loud = np.flatnonzero(np.abs(samples[(end + 20) * 24 :].astype(np.int32)) > ONSET_LEVEL)
    silence_ms = 10**9 if loud.size == 0 or is_last else 20 + int(loud[0]) // 24
    for before, after in zip(label["segments"], label["segments"][1:], strict=False):
        if abs(before["end_ms"] - end) <= 150 and not is_last:
            silence_ms = max(silence_ms, after["start_ms"] - end)
    return silence_ms


def waits(
    data: Dataset, model: dict[str, Any], eagerness: str, complete_at: float, firm_at: float
) -> np.ndarray:
    """Each probe's wait (ms) at ``eagerness``, as ``score_turn`` + the detector would give it."""
    scaled = data.features * model["multipliers"]
    score = np.round(scaled.sum(axis=1), 3)
    table = SEMANTIC_WAIT_MS[eagerness]
    finished = (score >= complete_at) & ~data.lexical_unknown
    wait = np.where(
        score <= model["incomplete_at"], table[Completeness.INCOMPLETE], table[Completeness.UNKNOWN]
    )
    wait = np.where(data.lexical_unknown, table[Completeness.UNKNOWN], wait)
    finished_wait = np.where(data.is_question, table[Completeness.QUESTION], table[Completeness.COMPLETE])
    wait = np.where(finished, finished_wait, wait)
    against = (scaled[:, 1:] <= ts.CONTESTING_WEIGHT).any(axis=1) | data.named_contest
    contested = finished & ((score < firm_at) | against)
    return np.where(contested, np.maximum(wait, SEMANTIC_HOLD_MS[eagerness]), wait)


def outcomes(data: Dataset, wait: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per utterance: (cut?, policy delay in ms or nan when the turn never ended)."""
    positions = np.arange(len(wait))
    first = np.minimum.reduceat(np.where(wait < data.silence_ms, positions, 10**9), data.starts)
    ended = first < 10**9
    pick = np.where(ended, first, 0)
    cut = ended & (data.end_ms[pick] < data.speech_end_ms - 200)
    delay = np.where(ended, data.end_ms[pick] + wait[pick] - data.speech_end_ms, np.nan)
    return cut, delay


def figures(
    data: Dataset, model: dict[str, Any], eagerness: str, chosen: np.ndarray
) -> tuple[int, int, float]:
    """(mid-thought cut, counted, statements' median policy delay) over the utterances ``chosen``."""
    wait = waits(data, model, eagerness, model["complete_at"][eagerness], model["firm_at"][eagerness])
    return _count(data, eagerness, chosen, *outcomes(data, wait))


def _count(data: Dataset, eagerness: str, chosen: np.ndarray, cut: np.ndarray, delay: np.ndarray) -> tuple:
    limit = turn_detection_max(eagerness)
    counted = chosen & data.is_trailing & (data.pause_ms < limit)
    statements = chosen & data.is_statement & ~np.isnan(delay)
    median = float(np.median(delay[statements])) if statements.any() else float("nan")
    return int((cut & counted).sum()), int(counted.sum()), median


def fit_rows(data: Dataset, utterances: np.ndarray, every_probe: bool) -> np.ndarray:
    """The probes of ``utterances`` the fit learns from: by default the true ends and the pauses whose
    verdict matters (silence longer than the shortest wait, 250 ms: a comma pause ends no turn whatever
    the cues say, so it would only teach the model about pauses that decide nothing)."""
    rows = utterances[data.utterance]
    if every_probe:
        return rows  # type: ignore[no-any-return]
    shortest = min(min(table.values()) for table in SEMANTIC_WAIT_MS.values())
    return rows & (data.is_end | (data.silence_ms > shortest))  # type: ignore[no-any-return]


def fit_multipliers(data: Dataset, probes: np.ndarray, l2: float) -> np.ndarray:
    """Logistic regression of "finished" on the cue weights of the ``probes`` rows; coefficients / the
    lexical one."""
    x, y = data.features[probes], data.is_end[probes].astype(float)
    scale = np.maximum(np.abs(x).max(axis=0), 1e-9)
    xs = x / scale
    beta, intercept = np.zeros(xs.shape[1]), 0.0
    for _ in range(4000):
        p = 1 / (1 + np.exp(-(xs @ beta + intercept)))
        grad = xs.T @ (p - y) / len(y) + l2 * beta / len(y)
        beta -= 2.0 * grad
        intercept -= 2.0 * float(np.mean(p - y))
    coefficients = beta / scale
    return np.asarray(coefficients / coefficients[CUES.index("lexical")])


def choose_thresholds(data: Dataset, multipliers: np.ndarray, chosen: np.ndarray) -> dict[str, Any]:
    """Thresholds with the fewest cuts per eagerness on ``chosen`` under the speed caps (docstring)."""
    best: dict[str, Any] = {
        "multipliers": multipliers,
        "complete_at": {},
        "firm_at": {},
        "incomplete_at": -1.5,
    }
    score_by_incomplete = []
    for incomplete in _INCOMPLETE_GRID:
        model = dict(best, incomplete_at=incomplete, complete_at={}, firm_at={})
        total = 0
        for eagerness in EAGERNESSES:
            cap = HIGH_MEDIAN_CAP_MS if eagerness == "high" else figures(data, HAND, eagerness, chosen)[2]
            cuts, complete_at, firm_at = _best_pair(data, model, eagerness, chosen, cap)
            model["complete_at"][eagerness], model["firm_at"][eagerness] = complete_at, firm_at
            total += cuts
        score_by_incomplete.append((total, -incomplete, model))
    return min(score_by_incomplete, key=lambda row: row[:2])[2]  # type: ignore[no-any-return]


def _best_pair(data: Dataset, model: dict[str, Any], eagerness: str, chosen: np.ndarray, cap: float) -> tuple:
    candidates = []
    for complete_at in _COMPLETE_GRID:
        for firm_at in _FIRM_GRID[complete_at <= _FIRM_GRID]:
            cut, _, median = _count(
                data, eagerness, chosen, *outcomes(data, waits(data, model, eagerness, complete_at, firm_at))
            )
            if median <= cap:
                candidates.append((cut, median, float(complete_at), float(firm_at)))
    if not candidates:
        return 10**9, ts.COMPLETE_AT[eagerness], ts.FIRM_AT[eagerness]
    cut, _, complete_at, firm_at = min(candidates)
    return cut, complete_at, firm_at


def leave_one_split_out(data: Dataset, l2: float, every_probe: bool) -> dict[str, dict[str, Any]]:
    """{split: {"hand": ..., "fitted": ..., "model": ...}}, figures per eagerness on the split left out."""
    split_of = data.split
    results: dict[str, dict[str, Any]] = {}
    for split in sorted(set(split_of), key=TUNING_SPLITS.index):
        left_out = split_of == split
        training = ~left_out
        model = choose_thresholds(
            data, fit_multipliers(data, fit_rows(data, training, every_probe), l2), training
        )
        results[split] = {
            "model": model,
            **{
                name: {e: figures(data, m, e, left_out) for e in EAGERNESSES}
                for name, m in (("hand", HAND), ("fitted", model))
            },
        }
    return results


def print_results(results: dict[str, dict[str, Any]]) -> None:
    print("| left out | weights | cut at high | medium | low | statements' median at high | at low |")
    print("|---|---|---|---|---|---|---|")
    pooled: dict[str, dict[str, list[int]]] = {"hand": {}, "fitted": {}}
    for split, row in results.items():
        for name in ("hand", "fitted"):
            cells = []
            for eagerness in EAGERNESSES:
                cut, counted, _ = row[name][eagerness]
                total = pooled[name].setdefault(eagerness, [0, 0])
                total[0], total[1] = total[0] + cut, total[1] + counted
                cells.append(f"{cut}/{counted}")
            high, low = row[name]["high"][2], row[name]["low"][2]
            print(f"| {split} | {name} | {' | '.join(cells)} | {high:.0f} ms | {low:.0f} ms |")
    for name, totals in pooled.items():
        cells = [f"{c}/{n} ({100 * c / n:.1f} %)" for c, n in (totals[e] for e in EAGERNESSES)]
        high, low = (statistics.median(row[name][e][2] for row in results.values()) for e in ("high", "low"))
        print(f"| pooled | {name} | {' | '.join(cells)} | {high:.0f} ms (median of splits) | {low:.0f} ms |")


def print_model(model: dict[str, Any], title: str) -> None:
    print(f"\n{title}")
    for cue, multiplier in zip(CUES, model["multipliers"], strict=True):
        print(f"  {cue:<22} x{multiplier:+.2f}")
    print(f"  COMPLETE_AT {model['complete_at']}  FIRM_AT {model['firm_at']}")
    print(f"  INCOMPLETE_AT {model['incomplete_at']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--l2", type=float, default=1.0, help="L2 strength on the standardised coefficients")
    parser.add_argument("--every-probe", action="store_true", help="fit on comma pauses too")
    parser.add_argument("--probes", default="probes.pkl", help="the probe store of .cache/turn-tune/")
    args = parser.parse_args()
    data = build(args.probes)
    print(f"{len(data.end_ms)} probes, {len(data.labels)} utterances")
    results = leave_one_split_out(data, args.l2, args.every_probe)
    print_results(results)
    for split, row in results.items():
        print_model(row["model"], f"fitted without {split}:")
    everything = np.ones(len(data.labels), dtype=bool)
    print_model(
        choose_thresholds(
            data, fit_multipliers(data, fit_rows(data, everything, args.every_probe), args.l2), everything
        ),
        "fitted on every split:",
    )


if __name__ == "__main__":
    main()
