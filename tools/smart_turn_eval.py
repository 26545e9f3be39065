"""Smart Turn v3.2 (pipecat-ai's bundled end-of-turn model) on the recorded probes of the tuning splits:
would it help semantic_vad tell a mid-thought pause from a finished turn? An evaluation, no engine change.

Usage: ``.venv/bin/python tools/smart_turn_eval.py [--thresholds 0.1,0.3,0.5] [--limit N]``. It reads the
probe store of ``tools/turn_tune.py record`` (``.cache/turn-tune/probes.pkl``; a sealed split is never
there) and runs the model once per probe, fed as pipecat feeds it
(``LocalSmartTurnAnalyzerV3._predict_endpoint``: 24 kHz float audio from 500 ms before the first word up
to the pause plus 200 ms of its silence, pipecat's default VAD ``stop_secs`` (digital silence after a
clip's last word), resampled by soxr to 16 kHz,
the last 8 s, pipecat's whisper log-mel features, the bundled ONNX on one thread). Probabilities are kept in
``.cache/turn-tune/smart-turn.pkl`` so a re-run costs no model call. It prints:

- the ROC area of the probability "finished" at the labelled pauses (the pause between a mid-thought
  utterance's parts vs the end of a statement, question or one-word answer), per split and per category;
- the cost per call (median / p95 ms; the machine is shared, so noisy);
- the trade-off when a finished verdict of the current scorer is held as a contested one is
  (``SEMANTIC_HOLD_MS``) whenever Smart Turn's probability is under ``t``, at every eagerness, simulated
  by ``turn_tune._simulate``: mid-thought pauses cut at high / medium / low, the statements' median delay
  at high and how many of them end later than without the model.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import time
from collections import defaultdict
from typing import Any

import numpy as np
import turn_tune

TAIL_MS = 200  # pipecat's VAD stop_secs (0.2 s) of silence before it asks the model
PRE_SPEECH_MS = 500  # pipecat's BaseSmartTurn pre_speech_ms
CACHE = turn_tune.STORE / "smart-turn.pkl"
Key = tuple[str, int]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--thresholds", default="0.05,0.1,0.2,0.3,0.5")
    parser.add_argument("--limit", type=int, default=0, help="at most this many new model calls (0: all)")
    args = parser.parse_args()
    stored = pickle.loads((turn_tune.STORE / "probes.pkl").read_bytes())
    labels = {
        uid: label for uid, label in stored["labels"].items() if label["split"] in turn_tune.TUNING_SPLITS
    }
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (uid, _), probe in sorted(stored["probes"].items()):
        if uid in labels:
            by_label[uid].append(probe)
    pauses = {uid: key for uid in by_label if (key := labelled_pause(labels[uid], by_label[uid]))}
    wanted = list(pauses.values()) + [(uid, p["speech_end_ms"]) for uid, ps in by_label.items() for p in ps]
    probability, costs_ms = run_model(labels, list(dict.fromkeys(wanted)), args.limit)
    print_costs(costs_ms)
    print_roc(labels, pauses, probability)
    thresholds = [None, *(float(t) for t in args.thresholds.split(","))]
    print_trade_off(labels, by_label, probability, thresholds)


def labelled_pause(label: dict[str, Any], probes: list[dict[str, Any]]) -> Key | None:
    """The probe at the labelled pause: the end of a finished utterance, or the pause between a
    mid-thought utterance's two parts (within 150 ms, as ``turn_tune._simulate`` matches them)."""
    target = label["segments"][0]["end_ms"] if label["kind"] == "trailing" else label["speech_end_ms"]
    near = [p for p in probes if abs(p["speech_end_ms"] - target) <= 150]
    return (label["id"], near[0]["speech_end_ms"]) if near else None


def run_model(
    labels: dict[str, dict[str, Any]], keys: list[Key], limit: int
) -> tuple[dict[Key, float], list[float]]:
    """Smart Turn's probability "finished" per probe (cached) and the ms each new call took."""
    from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3

    cached: dict[str, Any] = pickle.loads(CACHE.read_bytes()) if CACHE.exists() else {"p": {}, "ms": []}
    missing = [key for key in keys if key not in cached["p"]][: limit or None]
    if missing:
        analyzer = LocalSmartTurnAnalyzerV3(sample_rate=24_000, cpu_count=1)
        pcms: dict[str, np.ndarray] = {}
        for count, (uid, end_ms) in enumerate(missing, 1):
            label = labels[uid]
            if uid not in pcms:  # a clip stops at its last word: the silence pipecat waits for is appended
                silence = np.zeros(TAIL_MS * 24, dtype=np.float32)
                pcms = {uid: np.concatenate([turn_tune._pcm(label).astype(np.float32) / 32768.0, silence])}
            start_ms = max(0, label["segments"][0]["start_ms"] - PRE_SPEECH_MS)
            audio = pcms[uid][start_ms * 24 : (end_ms + TAIL_MS) * 24]
            began = time.perf_counter()
            cached["p"][(uid, end_ms)] = analyzer._predict_endpoint(audio)["probability"]
            cached["ms"].append((time.perf_counter() - began) * 1000)
            if count % 250 == 0 or count == len(missing):
                CACHE.write_bytes(pickle.dumps(cached))
                print(f"  {count}/{len(missing)} model calls", flush=True)
    return cached["p"], cached["ms"]


def roc_area(finished: list[float], mid: list[float]) -> float:
    """P(a finished pause scores above a mid-thought one), ties counting half (Mann-Whitney)."""
    ranks = np.argsort(np.argsort(np.concatenate([finished, mid]), kind="stable")).astype(float)
    values = np.concatenate([finished, mid])
    for value in np.unique(values):  # average ranks over ties
        tied = values == value
        ranks[tied] = ranks[tied].mean()
    wins = ranks[: len(finished)].sum() - len(finished) * (len(finished) - 1) / 2
    return float(wins / (len(finished) * len(mid)))


def print_costs(costs_ms: list[float]) -> None:
    if costs_ms:
        p95 = float(np.percentile(costs_ms, 95))
        print(
            f"Smart Turn v3.2, one thread: {len(costs_ms)} calls, "
            f"median {statistics.median(costs_ms):.0f} ms, "
            f"p95 {p95:.0f} ms per call (shared 2-core machine: noisy)"
        )


def print_roc(
    labels: dict[str, dict[str, Any]], pauses: dict[str, Key], probability: dict[Key, float]
) -> None:
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for uid, key in pauses.items():
        if key in probability:
            label = labels[uid]
            side = "mid" if label["kind"] == "trailing" else "finished"
            for name in (label["split"], "all", f"{side}:{label['category']}", f"voice {label['voice']}"):
                groups[(name, side)].append(probability[key])
    print("\nROC area of P(finished), finished ends vs mid-thought pauses (0.5 = chance)")
    for name in [*turn_tune.TUNING_SPLITS, "all"]:
        finished, mid = groups.get((name, "finished"), []), groups.get((name, "mid"), [])
        if finished and mid:
            print(
                f"  {name:<12} {roc_area(finished, mid):.3f}  "
                f"({len(finished)} finished, {len(mid)} mid-thought)"
            )
    print("  per voice (every split):")
    for (name, side), finished in sorted(groups.items()):
        if name.startswith("voice") and side == "finished" and (name, "mid") in groups:
            print(f"  {name[6:]:<28} {roc_area(finished, groups[(name, 'mid')]):.3f}")
    print("  per category, against every pause of the other side:")
    for (name, side), values in sorted(groups.items()):
        if ":" in name:
            other = groups[("all", "mid" if side == "finished" else "finished")]
            area = roc_area(values, other) if side == "finished" else roc_area(other, values)
            below = sum(v < 0.5 for v in values)
            print(f"  {name:<24} {area:.3f}  n={len(values):<4} p<0.5: {below}")


def print_trade_off(
    labels: dict[str, dict[str, Any]],
    by_label: dict[str, list[dict[str, Any]]],
    probability: dict[Key, float],
    thresholds: list[float | None],
) -> None:
    """Per split and threshold: mid-thought cuts at each eagerness and the statements at high."""
    rows: dict[tuple[str, float | None], dict[str, Any]] = {}
    baseline: dict[str, int | None] = {}

    def hold_under(threshold: float | None) -> Any:
        def hold(probe: dict[str, Any]) -> bool:
            p = probability.get((probe["uid"], probe["speech_end_ms"]))
            return threshold is not None and p is not None and p < threshold

        return hold

    for uid, probes in by_label.items():
        label, samples = labels[uid], turn_tune._pcm(labels[uid])
        tagged = [{**probe, "uid": uid} for probe in probes]
        for threshold in thresholds:  # None (the current detector) first: the baseline of "slower"
            for eagerness in ("high", "medium", "low"):
                outcome = turn_tune._simulate(label, tagged, samples, eagerness, hold_under(threshold))
                tally(rows, baseline, label, eagerness, threshold, outcome)
    print("\nHold a finished verdict (as a contested one) when P(finished) < t; simulated, every eagerness")
    print(
        f"  {'split':<12}{'t':>6}{'cut high':>12}{'medium':>10}{'low':>10}"
        f"{'statements high':>18}{'> 400 ms':>10}{'slower':>9}"
    )
    for (split, threshold), row in sorted(
        rows.items(), key=lambda r: (r[0][0] == "all", r[0][0], r[0][1] or 0)
    ):
        cuts = "".join(f"{sum(row[e]):>4}/{len(row[e]):<5}" for e in ("high", "medium", "low"))
        median = f"{statistics.median(row['delays']):.0f} ms" if row["delays"] else "-"
        shown = "-" if threshold is None else f"{threshold:g}"
        slow = sum(delay > 400 for delay in row["delays"])
        print(
            f"  {split:<12}{shown:>6}  {cuts}{median:>14}{slow:>6}/{len(row['delays']):<4}{row['slower']:>4}"
        )
    print_hard_pauses(labels, by_label, probability, rows[("all", None)])


def print_hard_pauses(
    labels: dict[str, dict[str, Any]],
    by_label: dict[str, list[dict[str, Any]]],
    probability: dict[Key, float],
    row: dict[str, Any],
) -> None:
    """The ROC area where it matters: the mid-thought pauses the current detector cuts at high vs the
    statements it ends within 400 ms (both judged finished by the transcript)."""
    sides = []
    for uids in (row["fast_ids"], row["cut_ids"]):
        keys = [labelled_pause(labels[uid], by_label[uid]) for uid in uids]
        sides.append([probability[key] for key in keys if key in probability])
    print(
        f"  ROC area, statements ended within 400 ms at high ({len(sides[0])}) vs mid-thought pauses cut "
        f"at high ({len(sides[1])}), current detector: {roc_area(sides[0], sides[1]):.3f}"
    )


def tally(
    rows: dict[tuple[str, float | None], dict[str, Any]],
    baseline: dict[str, int | None],
    label: dict[str, Any],
    eagerness: str,
    threshold: float | None,
    outcome: tuple,
) -> None:
    for split in (label["split"], "all"):
        row = rows.setdefault(
            (split, threshold),
            {"high": [], "medium": [], "low": [], "delays": [], "slower": 0, "cut_ids": [], "fast_ids": []},
        )
        if label["kind"] == "trailing":
            if label["pause_ms"] < turn_tune.turn_detection_max(eagerness):
                row[eagerness].append(outcome[0] == "cut")
                if outcome[0] == "cut" and eagerness == "high" and threshold is None:
                    row["cut_ids"].append(label["id"])
        elif label["category"] == "complete" and eagerness == "high" and outcome[1] is not None:
            row["delays"].append(outcome[1])
            if threshold is None:
                baseline[label["id"]] = outcome[1]
                if outcome[1] <= 400:
                    row["fast_ids"].append(label["id"])
            elif outcome[1] > (baseline.get(label["id"]) or 0):
                row["slower"] += 1


if __name__ == "__main__":
    main()
