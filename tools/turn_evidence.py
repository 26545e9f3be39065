"""What whisper and the prosody measures make of each pause in the turn corpus, one split at a time.

Usage: ``.venv/bin/python tools/turn_evidence.py [tune|heldout] [--json out.json] [--each]``
(default tune: round 1 chose the cue weights in ``mockengine/realtime/turn_scoring.py`` from this tool's
output on the tune split; round 1's heldout split is burned and round 2 tuned on it too, see
``tools/turn_tune.py``; round 2's ``heldout_r2`` is not offered here).

At each mid-thought pause and each final speech end it transcribes what the detector hears (turn start to
speech end plus the probe's silence) and prints, per category and place: how often whisper's last word
is not the last word spoken (dropped or misheard), how often it closes with ".", how often the cues
``untranscribed_tail`` and ``last_word`` fire, and ``score_turn``'s verdicts at high eagerness.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from typing import Any

from mockengine.engines.stt import WhisperTranscriber
from mockengine.realtime.prosody import measure_prosody
from mockengine.realtime.turn_detection import PROBE_MS
from mockengine.realtime.turn_scoring import TurnEvidence, score_turn
from mockengine.turn_corpus import load, read_pcm

BYTES_PER_MS = 48


def _last_word(text: str) -> str:
    words = re.findall(r"[a-z0-9']+", text.lower())
    return words[-1] if words else ""


def pauses(label: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    places = [("mid", label["segments"][0])] if label["kind"] == "trailing" else []
    return [*places, ("end", label["segments"][-1])]


def measure(split: str, each: bool) -> list[dict[str, Any]]:
    directory, labels = load(split)
    whisper = WhisperTranscriber()
    records = []
    for label in labels:
        pcm = read_pcm(directory, label)
        for place, segment in pauses(label):
            audio = pcm[: (segment["end_ms"] + PROBE_MS) * BYTES_PER_MS]
            heard = whisper.transcribe(audio)
            evidence = TurnEvidence(
                heard.text, segment["end_ms"], heard.words, measure_prosody(audio, segment["end_ms"])
            )
            verdict = score_turn(evidence, "high")
            record = {
                "id": label["id"],
                "group": f"{label['category']}/{place}",
                "spoken": segment["text"],
                "heard": heard.text,
                "words": [[w.word, w.start_ms, w.end_ms, w.probability] for w in heard.words],
                "prosody": list(vars(evidence.prosody).values()),
                "speech_end_ms": segment["end_ms"],
                "cues": [cue.as_dict() for cue in verdict.cues],
                "verdict": verdict.completeness.value,
            }
            records.append(record)
            if each:
                print(
                    f"{label['id']:<18}{place:<4}{verdict.completeness.value:<11}{verdict.score:+.1f} "
                    f"{heard.text!r} <- {segment['text']!r}"
                )
    return records


def summarize(split: str, records: list[dict[str, Any]]) -> None:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[record["group"]].append(record)
    print(
        f"split {split}: last word not as spoken / closed with '.' / tail cue / unsure cue / verdicts (high)"
    )
    for group, rows in sorted(groups.items()):
        fired = Counter(cue["cue"] for row in rows for cue in row["cues"])
        changed = sum(_last_word(r["heard"]) != _last_word(r["spoken"]) for r in rows)
        stops = sum(r["heard"].endswith(".") for r in rows)
        verdicts = dict(Counter(r["verdict"] for r in rows))
        print(
            f"  {group:<18} n={len(rows):<3} {changed:>3} {stops:>4} {fired['untranscribed_tail']:>4} "
            f"{fired['last_word']:>4}  {verdicts}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("split", nargs="?", default="tune", choices=("tune", "heldout"))
    parser.add_argument("--json", help="write every record here")
    parser.add_argument("--each", action="store_true", help="print a line per pause")
    args = parser.parse_args()
    records = measure(args.split, args.each)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(records, handle, indent=1)
    summarize(args.split, records)


if __name__ == "__main__":
    main()
