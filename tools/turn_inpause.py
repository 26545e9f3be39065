"""Rounds 17-18 (issue 18): the unchanged semantic_vad detector on mid-thought pauses spoken inside the
sentence (``synthesis="inside"``) against the same items spoken as separate utterances (the corpus as
scored in every round). Measurement only; prints, per mode, the bench's category table and the prosody
cues (``measure_prosody``) of the speech before each pause.

Items: the split's mid-thought items spoken by the chosen engines' voices (``--engine``: espeak, as
round 17 ran, piper since round 18, or both; the default), every one or a hashed sample (``--sample N``:
items whose sha256(id) % N == 0). A piper item the mode could not cut between its words (its label's
``inside_skipped``, ~2 %) is left out of both modes, so both score the same items. ``--finished N``
adds a hashed 1/N sample of the finished items (byte-identical in both modes, so run once).

    PYTHONPATH=$PWD python tools/turn_inpause.py heldout_r10 [--engine piper] [--sample 2] [--finished 3]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from typing import Any

from mockengine.bench.turn_corpus import SEMANTIC, category_table, print_table
from mockengine.realtime.prosody import measure_prosody
from mockengine.realtime.turn_scoring import (
    ENERGY_LEVEL_DB,
    FALLING_ST_PER_S,
    LENGTHENING_RATIO,
    RISING_ST_PER_S,
)
from mockengine.turn_corpus import load, read_pcm
from mockengine.turn_eval import MAX_WAIT_MS, CachingTranscriber, run_utterance


def _sampled(label: dict[str, Any], every: int) -> bool:
    return int.from_bytes(hashlib.sha256(label["id"].encode()).digest()[:8], "big") % every == 0


# When each prosody cue of turn_scoring fires (the detector's own thresholds).
FIRES = {
    "pitch": lambda v: (
        f"falling<={FALLING_ST_PER_S:g} {_share(v, lambda x: x <= FALLING_ST_PER_S)}, "
        f"rising>={RISING_ST_PER_S:g} {_share(v, lambda x: x >= RISING_ST_PER_S)}"
    ),
    "lengthening": lambda v: f">={LENGTHENING_RATIO:g} {_share(v, lambda x: x >= LENGTHENING_RATIO)}",
    "decay": lambda v: f"<={ENERGY_LEVEL_DB:g} dB {_share(v, lambda x: x <= ENERGY_LEVEL_DB)}",
}


def _share(values: list[float], test: Any) -> str:
    return f"{sum(map(test, values))}/{len(values)}"


def _quantiles(values: list[float]) -> str:
    if len(values) < 4:
        return f"n={len(values)}"
    q = statistics.quantiles(values, n=4)
    return f"n={len(values)} q1 {q[0]:+.2f} median {q[1]:+.2f} q3 {q[2]:+.2f}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("split")
    parser.add_argument("--sample", type=int, default=1)
    parser.add_argument("--finished", type=int, default=0)
    parser.add_argument("--prosody-only", action="store_true")
    parser.add_argument(
        "--cuts", action="store_true", help="print each pause cut at high (burned splits only)"
    )
    parser.add_argument("--high-only", action="store_true", help="run the high eagerness only")
    parser.add_argument("--engine", choices=("espeak", "piper", "all"), default="all")
    parser.add_argument(
        "--paired",
        action="store_true",
        help="run each clip in both modes in turn and print a line per outcome as it comes (a run cut "
        "short still compares the same clips)",
    )
    args = parser.parse_args()
    engines = ("espeak", "piper") if args.engine == "all" else (args.engine,)
    loaded = {mode: load(args.split, synthesis=mode) for mode in ("separate", "inside")}
    skipped = {label["id"] for label in loaded["inside"][1] if "inside_skipped" in label}
    for label in loaded["inside"][1]:
        if label["id"] in skipped:
            print(f"   left out (not cut inside): {label['id']}: {label['inside_skipped']}")
    chosen: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
    for mode, (directory, labels) in loaded.items():
        picked = [
            label
            for label in labels
            if label["kind"] == "trailing"
            and label["voice"].split(":")[0] in engines
            and label["id"] not in skipped
            and _sampled(label, args.sample)
        ]
        chosen[mode] = [(directory, label) for label in picked]
    for mode in ("separate", "inside"):
        print(
            f"\n== {args.split}, mid-thought pauses of {'+'.join(engines)} voices spoken {mode}: "
            f"{len(chosen[mode])} clips"
        )
        for engine, style in [(e, s) for e in engines for s in ("separate", "continuing", None)]:
            cues: dict[str, list[float]] = {"pitch": [], "lengthening": [], "decay": []}
            for directory, label in chosen[mode]:
                if style is not None and label["style"] != style:
                    continue
                if not label["voice"].startswith(engine + ":"):
                    continue
                prosody = measure_prosody(read_pcm(directory, label), label["segments"][0]["end_ms"])
                for key, value in (
                    ("pitch", prosody.pitch_slope_st_per_s),
                    ("lengthening", prosody.final_lengthening),
                    ("decay", prosody.energy_decay_db),
                ):
                    if value is not None:
                        cues[key].append(value)
            for key, values in cues.items():
                print(
                    f"   prosody before the pause, {engine}, style {style or 'all'}, {key}: "
                    f"{_quantiles(values)}; "
                    f"cue fires {FIRES[key](values)}"
                )
        sys.stdout.flush()
    if args.prosody_only:
        return 0
    from mockengine.engines.stt import WhisperTranscriber

    transcriber = CachingTranscriber(WhisperTranscriber())
    if args.paired:
        _paired(chosen, transcriber, SEMANTIC[:1] if args.high_only else SEMANTIC)
        return 0
    for mode in ("separate", "inside"):
        started = time.perf_counter()
        results = []
        for directory, label in chosen[mode]:
            pcm = read_pcm(directory, label)
            for config in SEMANTIC[:1] if args.high_only else SEMANTIC:
                results.append((label, run_utterance(label, pcm, config, transcriber, measured_latency=True)))
        if args.cuts:
            for label, outcome in results:
                if outcome.config.endswith("high") and outcome.was_cut_off:
                    cues = "; ".join(f"{c['cue']} {c['weight']:+g} {c['reason']}" for c in outcome.cues)
                    print(
                        f"   cut [{mode}] {label['id']} {label['style']} {label['parts'][0]!r} heard "
                        f"{outcome.transcript!r}: {outcome.reason} | {cues}"
                    )
        print(f"\n== detector, pauses spoken {mode} ({time.perf_counter() - started:.0f} s)")
        print_table(f"{args.split} [{mode}]", category_table(results), "burned")
        for engine, style in [(e, s) for e in engines for s in ("separate", "continuing", None)]:
            only = [
                (label, outcome)
                for label, outcome in results
                if label["style"] == (style or label["style"]) and label["voice"].startswith(engine + ":")
            ]
            table = category_table(only)
            print(
                f"   {engine}, style {style or 'all'}: "
                + ", ".join(
                    f"{e} {table[e]['all mid-thought']['cut']}/{table[e]['all mid-thought']['counted']}"
                    for e in ("high", "medium", "low")
                    if e in table
                )
            )
        sys.stdout.flush()
    if args.finished:
        directory, labels = load(args.split)
        picked = [label for label in labels if label["kind"] != "trailing" and _sampled(label, args.finished)]
        results = []
        for label in picked:
            pcm = read_pcm(directory, label)
            for config in SEMANTIC:
                results.append((label, run_utterance(label, pcm, config, transcriber, measured_latency=True)))
        print(f"\n== finished turns (identical clips in both modes), 1/{args.finished} hashed sample")
        print_table(args.split, category_table(results), "burned")
    return 0


def _paired(chosen: dict[str, list[tuple[Any, dict[str, Any]]]], transcriber: Any, configs: Any) -> None:
    """Each clip in both modes in turn; a line per outcome (``P mode id engine style eagerness counted
    cut heard``) and running totals of the pauses counted (shorter than the eagerness's maximum wait)."""
    totals: dict[tuple[str, str, str], list[int]] = {}
    pairs = sorted(
        zip(chosen["separate"], chosen["inside"], strict=True),
        key=lambda pair: hashlib.sha256(pair[0][1]["id"].encode()).digest(),
    )  # in hashed order, so a run stopped early has scored a sample of every category
    for (sep_dir, sep_label), (in_dir, in_label) in pairs:
        assert sep_label["id"] == in_label["id"]
        for mode, directory, label in (("separate", sep_dir, sep_label), ("inside", in_dir, in_label)):
            pcm = read_pcm(directory, label)
            for config in configs:
                outcome = run_utterance(label, pcm, config, transcriber, measured_latency=True)
                eagerness = outcome.config.split()[-1]
                counted = (label["pause_ms"] or 0) < MAX_WAIT_MS[eagerness]
                tally = totals.setdefault((label["voice"].split(":")[0], mode, eagerness), [0, 0])
                tally[0] += counted and outcome.was_cut_off
                tally[1] += counted
                print(
                    f"P {mode} {label['id']} {label['voice']} {label['style']} {eagerness} {int(counted)} "
                    f"{int(outcome.was_cut_off)} {outcome.transcript!r}",
                    flush=True,
                )
    for key, (cut, counted) in sorted(totals.items()):
        print(f"   total {' '.join(key)}: cut {cut}/{counted}")


if __name__ == "__main__":
    sys.exit(main())
