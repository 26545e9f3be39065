"""Round 19: the deciding pause of every mid-thought utterance and finished statement, heard once.

Usage: ``.venv/bin/python tools/turn_firstprobe.py record heldout_r12`` (one split per process, so two
can run side by side on two cores), then ``tools/turn_firstprobe.py score [--splits a,b] [--each]``.

``tools/turn_tune.py record`` replays every utterance through a real session (a whisper call at each
pause of each probe); that costs about an hour a split on the shared cores. This tool hears only the
pauses that decide the figures at high: the labelled mid-thought pause of each ``trailing`` utterance
(the turn start to its first segment's end, plus the 100 ms probe, as ``tools/turn_evidence.py``
does) and the final speech end of each complete statement and one-word answer: one whisper call each
(memoised in ``.cache/turn-tune/firstprobe-<split>.pkl``). ``score`` simulates them with
``turn_tune._simulate`` (the same ``score_turn``, waits and holds; a comma pause inside a segment is
not probed, so a cut there is not counted) and prints, per split, the mid-thought pauses cut at high
(pauses under high's 2 s maximum wait) and the statements' median delay and how many waited ≥ 1 s,
for the defaults and each hold variant of :data:`HOLDS`, then the variant chosen leave-one-split-out.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
from collections.abc import Callable
from typing import Any

from turn_tune import STORE, _pcm, _simulate

from mockengine.turn_corpus import load

PROBE_MS = 100
BYTES_PER_MS = 48
HIGH_MAX_MS = 2000
STATEMENT_CAP_MS = 380


def _store(split: str) -> Any:
    return STORE / f"firstprobe-{split}.pkl"


def record(split: str) -> None:
    from mockengine.engines.stt import WhisperTranscriber

    path = _store(split)
    done: dict[str, Any] = pickle.loads(path.read_bytes()) if path.exists() else {}
    whisper = WhisperTranscriber(cpu_threads=1)
    directory, labels = load(split)
    wanted = [lb for lb in labels if lb["kind"] == "trailing" or lb["category"] in ("complete", "one_word")]
    for n, label in enumerate(wanted):
        if label["id"] in done:
            continue
        segment = label["segments"][0] if label["kind"] == "trailing" else label["segments"][-1]
        raw = _pcm(label).tobytes()
        heard = whisper.transcribe(raw[: (segment["end_ms"] + PROBE_MS) * BYTES_PER_MS])
        done[label["id"]] = {
            "start_ms": 0,
            "speech_end_ms": segment["end_ms"],
            "text": heard.text,
            "words": tuple(heard.words),
        }
        if n % 50 == 0:
            STORE.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps(done))
            print(f"{split}: {n}/{len(wanted)}", file=sys.stderr, flush=True)
    path.write_bytes(pickle.dumps(done))
    print(f"{split}: {len(done)} pauses heard", file=sys.stderr)


Hold = Callable[[dict[str, Any]], bool]


def simulate(split: str, hold: Hold | None) -> dict[str, Any]:
    probes = pickle.loads(_store(split).read_bytes())
    _, labels = load(split)
    cut, counted, statements, answers, cuts = 0, 0, [], [], []
    for label in labels:
        probe = probes.get(label["id"])
        if probe is None:
            continue
        if label["kind"] == "trailing":
            # A second, never-reached probe, so the first is not taken for the turn's last one.
            after = {**probe, "speech_end_ms": label["speech_end_ms"]}
            kind, delay, verdict, heard = _simulate(label, [probe, after], _pcm(label), "high", hold)
            if label["pause_ms"] >= HIGH_MAX_MS:
                continue
            counted += 1
            if kind == "cut":
                cut += 1
                cuts.append((label, probe, verdict))
        else:
            kind, delay, verdict, heard = _simulate(label, [probe], _pcm(label), "high", hold)
            if delay is not None:
                (statements if label["category"] == "complete" else answers).append(delay)
    return {
        "cut": cut,
        "counted": counted,
        "statements": statistics.median(statements) if statements else None,
        "held": sum(d >= 1000 for d in statements),
        "n_statements": len(statements),
        "answers": statistics.median(answers) if answers else None,
        "answers_held": sum(d >= 1000 for d in answers),
        "cuts": cuts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("record", "score"))
    parser.add_argument("split", nargs="?")
    parser.add_argument(
        "--splits", default="heldout_r8,heldout_r9,heldout_r10,heldout_r11,heldout_r12,heldout_r13"
    )
    parser.add_argument(
        "--before-round-19", action="store_true", help="score with round 18's demonstratives ('that' only)"
    )
    parser.add_argument(
        "--answers-slack",
        type=int,
        default=None,
        help="also require a variant to hold at most this many more one-word answers than the defaults "
        "on each training split",
    )
    args = parser.parse_args()
    if args.before_round_19:
        from mockengine.realtime import turn_scoring

        turn_scoring.DEMONSTRATIVES = frozenset({"that"})
    if args.action == "record":
        record(args.split)
        return
    from turn_holds import HOLDS

    splits = args.splits.split(",")
    table = {name: {s: simulate(s, hold) for s in splits} for name, hold in HOLDS}
    for name, row in table.items():
        cells = [
            f"{r['cut']}/{r['counted']}, {r['statements']:.0f} ms, held {r['held']}, "
            f"ans {r['answers']:.0f} ({r['answers_held']} held)"
            for r in row.values()
        ]
        total = sum(r["cut"] for r in row.values())
        print(f"{name:<40} | " + " | ".join(cells) + f" | {total}")
    print("leave-one-split-out:")
    pooled = 0
    for left in splits:
        others = [s for s in splits if s != left]
        best = "defaults"
        best_cut = sum(table["defaults"][s]["cut"] for s in others)
        for name, row in table.items():
            slack = args.answers_slack
            if all(row[s]["statements"] <= STATEMENT_CAP_MS for s in others) and (
                slack is None
                or all(row[s]["answers_held"] <= table["defaults"][s]["answers_held"] + slack for s in others)
            ):
                cut = sum(row[s]["cut"] for s in others)
                if cut < best_cut:
                    best, best_cut = name, cut
        r, d = table[best][left], table["defaults"][left]
        pooled += r["cut"]
        print(
            f"  {left}: chosen {best!r}; left out {d['cut']}/{d['counted']} -> {r['cut']}/{r['counted']}, "
            f"statements {d['statements']:.0f} -> {r['statements']:.0f} ms, held {d['held']} -> {r['held']}"
        )
    print(f"  pooled left-out cut: {pooled}")


if __name__ == "__main__":
    main()
