"""Bench section ``turns``: semantic_vad on the turn corpus, both splits, per category.

Every utterance of ``turn_corpus`` is replayed through a real session with the real whisper model
(``turn_eval.run_utterance``) at each eagerness. Printed per split, eagerness and category:

* mid-thought categories: pauses cut (the turn ended before the speaker resumed) among pauses shorter
  than the eagerness's maximum wait (a longer pause is a turn end by definition);
* finished categories: median speech end → ``speech_stopped`` (the audio the policy waited for, and with
  this machine's transcription latency added) and the longest wait, against the maximum wait;
* the cost per pause: whisper calls per probe (one by construction), milliseconds per call, and the
  prosody measurement.

Splits: ``tune`` (tuned on in both rounds); ``heldout`` (round 1's held-out half: scored once untouched,
then burned, tuned on in round 2); ``heldout_r2`` (round 2's fresh held-out texts and voices, never
looked at while tuning).
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from typing import Any

from mockengine.bench.sections import Section
from mockengine.realtime.prosody import measure_prosody
from mockengine.turn_corpus import MID_THOUGHT_CATEGORIES, load, read_pcm
from mockengine.turn_eval import MAX_WAIT_MS, CachingTranscriber, Outcome, run_utterance

SPLITS = ("tune", "heldout", "heldout_r2")
SPLIT_NOTES = {
    "tune": "tuned on in rounds 1 and 2",
    "heldout": "round 1's held-out half, burned: tuned on in round 2",
    "heldout_r2": "round 2's held-out set: never tuned on",
}
SEMANTIC = ("semantic_vad high", "semantic_vad medium", "semantic_vad low")
FINISHED = ("complete", "question", "one_word")
GOALS = {"high": 0.05, "low": 0.02}
FRAME_MS = 20  # a decision lands on the VAD frame that reaches its moment


def evaluate(split: str, transcriber: Any, measured_latency: bool) -> list[tuple[dict[str, Any], Outcome]]:
    """Replay every utterance of ``split`` at each semantic eagerness."""
    directory, labels = load(split)
    results = []
    for label in labels:
        pcm = read_pcm(directory, label)
        for config in SEMANTIC:
            outcome = run_utterance(label, pcm, config, transcriber, measured_latency=measured_latency)
            results.append((label, outcome))
    return results


def category_table(results: list[tuple[dict[str, Any], Outcome]]) -> dict[str, dict[str, dict[str, Any]]]:
    """{eagerness: {category: figures}} (see the module docstring for the figures)."""
    grouped: dict[tuple[str, str], list[tuple[dict[str, Any], Outcome]]] = defaultdict(list)
    for label, outcome in results:
        grouped[(outcome.config.split()[-1], label["category"])].append((label, outcome))
    table: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (eagerness, category), rows in grouped.items():
        table[eagerness][category] = _figures(eagerness, category, [o for _, o in rows])
    for eagerness, categories in table.items():
        categories["all mid-thought"] = _pool_cuts(
            [categories[c] for c in MID_THOUGHT_CATEGORIES if c in categories]
        )
        finished = [
            o for (e, c), rows in grouped.items() if e == eagerness and c in FINISHED for _, o in rows
        ]
        categories["all finished"] = _figures(eagerness, "complete", finished)
    return table


def _figures(eagerness: str, category: str, outcomes: list[Outcome]) -> dict[str, Any]:
    limit = MAX_WAIT_MS[eagerness]
    if category in MID_THOUGHT_CATEGORIES:
        counted = [o for o in outcomes if (o.pause_ms or 0) < limit]
        return {"cut": sum(o.was_cut_off for o in counted), "counted": len(counted)}
    policy = [o.policy_delay_ms for o in outcomes if o.policy_delay_ms is not None]
    wall = [o.wall_delay_ms for o in outcomes if o.wall_delay_ms is not None]
    return {
        "n": len(outcomes),
        "median_policy_ms": statistics.median(policy) if policy else None,
        "median_wall_ms": statistics.median(wall) if wall else None,
        "max_policy_ms": max(policy) if policy else None,
        "ended_within_max_wait": sum(d <= limit + FRAME_MS for d in policy),
    }


def _pool_cuts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cut": sum(r["cut"] for r in rows), "counted": sum(r["counted"] for r in rows)}


def print_table(split: str, table: dict[str, dict[str, dict[str, Any]]]) -> None:
    print(f"\n  split {split} ({SPLIT_NOTES.get(split, '')}):")
    print(
        f"    {'eagerness':<10}{'category':<17}{'mid-thought cut':>16}{'end→stopped policy':>20}"
        f"{'incl. STT':>11}{'longest':>9}{'within max':>12}"
    )
    for eagerness in ("high", "medium", "low"):
        for category, f in sorted(table.get(eagerness, {}).items(), key=lambda kv: _order(kv[0])):
            if "cut" in f:
                share = f["cut"] / f["counted"] if f["counted"] else 0.0
                goal = GOALS.get(eagerness)
                mark = (
                    ""
                    if goal is None or category != "all mid-thought"
                    else (" ok" if share <= goal else " MISS")
                )
                cut = f"{f['cut']:>7}/{f['counted']:<3} {100 * share:3.0f} %"
                print(f"    {eagerness:<10}{category:<17}{cut}{mark}")
            else:
                print(
                    f"    {eagerness:<10}{category:<17}{'':>16}{_ms(f['median_policy_ms']):>20}"
                    f"{_ms(f['median_wall_ms']):>11}{_ms(f['max_policy_ms']):>9}"
                    f"{f['ended_within_max_wait']:>8}/{f['n']:<3}"
                )


def _order(category: str) -> tuple[int, str]:
    return (category.startswith("all"), category)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def prosody_cost_ms(split: str = "tune", limit: int = 40) -> float:
    """Median time of one prosody measurement on a probe's audio (this machine)."""
    directory, labels = load(split)
    costs = []
    for label in labels[:limit]:
        pcm = read_pcm(directory, label)
        started = time.perf_counter()
        measure_prosody(pcm, label["speech_end_ms"])
        costs.append((time.perf_counter() - started) * 1000)
    return statistics.median(costs)


def bench_turn_corpus(ctx: Any) -> None:
    """The ``turns`` bench section (several minutes: whisper on ~600 probes)."""
    from mockengine.engines.stt import WhisperTranscriber

    transcriber = CachingTranscriber(WhisperTranscriber())
    started = time.perf_counter()
    results = {}
    print(
        "\nsemantic_vad on the turn corpus (issue 18; espeak-ng and piper voices, whisper tiny.en on this "
        "machine; timings are noisy on a shared machine):"
    )
    for split in SPLITS:
        results[split] = category_table(evaluate(split, transcriber, measured_latency=True))
        print_table(split, results[split])
    costs = transcriber.costs_ms
    print(
        f"  cost per pause: 1 whisper call (with word timings) per probe; {len(costs)} calls, median "
        f"{statistics.median(costs):.0f} ms, p95 {sorted(costs)[int(0.95 * (len(costs) - 1))]:.0f} ms; "
        f"prosody {prosody_cost_ms():.1f} ms; total {time.perf_counter() - started:.0f} s"
    )
    ctx.results["turns"] = {split: dict(table) for split, table in results.items()}


SECTION = Section("turns", bench_turn_corpus)
