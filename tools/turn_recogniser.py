"""Compare two whisper models as semantic_vad's pause recogniser on the tuning splits' recorded probes.

Usage: ``.venv/bin/python tools/turn_recogniser.py [--model base] [--timing 40]`` after
``tools/turn_tune.py record`` (it reads ``.cache/turn-tune/probes.pkl``; sealed splits are never there).

For each mid-thought utterance it takes the probe at the labelled pause (the turn's audio up to 100 ms
after the speech end, as the session sends it) and prints how often the last transcribed word is the
true last word before the pause, for tiny.en (the stored transcript) and for ``--model`` (transcribed
here, memoised in ``.cache/turn-tune/whisper-<model>.pkl``), per category and per voice. ``--timing N``
also times N probes uncached with both models, interleaved (ms per call; noisy on a shared machine).
``--all`` transcribes every stored probe with ``--model`` (utterance by utterance, split by split in
:data:`SPLIT_ORDER`) and writes ``.cache/turn-tune/probes-<model>.pkl``, the probe store with that model's
words, for ``tools/turn_tune.py score --probes probes-<model>.pkl``; it saves the store and its memo every
50 utterances (holding only utterances whose every probe is done), so an interrupted run resumes and a
partial store scores whole splits.
"""

from __future__ import annotations

import argparse
import pickle
import random
import re
import statistics
import time
from collections import defaultdict
from typing import Any

from mockengine.engines.stt import WhisperTranscriber
from mockengine.turn_corpus import CACHE_ROOT, read_pcm
from mockengine.turn_eval import CachingTranscriber

STORE = CACHE_ROOT.parent / "turn-tune"
BYTES_PER_MS = 48
PROBE_TAIL_MS = 100
# --all: the splits in this order (the most informative first), so a partial run covers whole splits.
SPLIT_ORDER = (
    "tune",
    "heldout",
    "heldout_r2",
    "heldout_r4",
    "heldout_r6",
    "heldout_r3",
    "dev_r3",
    "heldout_r5",
)


def last_word(text: str) -> str:
    words = re.findall(r"[a-z0-9']+", text.lower().replace("’", "'"))
    return words[-1] if words else ""


def pause_probes(stored: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(label, probe) of every mid-thought utterance whose labelled pause was probed."""
    found = []
    for (uid, _), probe in sorted(stored["probes"].items()):
        label = stored["labels"][uid]
        if label["kind"] != "trailing":
            continue
        if abs(probe["speech_end_ms"] - label["segments"][0]["end_ms"]) <= 150:
            found.append((label, probe))
    return found


def probe_audio(label: dict[str, Any], probe: dict[str, Any]) -> bytes:
    pcm = read_pcm(CACHE_ROOT, label)
    return pcm[probe["start_ms"] * BYTES_PER_MS : (probe["speech_end_ms"] + PROBE_TAIL_MS) * BYTES_PER_MS]


def retention(model: str) -> None:
    stored = pickle.loads((STORE / "probes.pkl").read_bytes())
    other = CachingTranscriber(WhisperTranscriber(model), STORE / f"whisper-{model}.pkl")
    rows: dict[tuple[str, str], list[tuple[bool, bool]]] = defaultdict(list)
    examples: list[str] = []
    for label, probe in pause_probes(stored):
        truth = last_word(label["parts"][0])
        heard = other.transcribe(probe_audio(label, probe), language="en").text
        kept = (last_word(probe["text"]) == truth, last_word(heard) == truth)
        for key in (("all", "all"), ("category", label["category"]), ("voice", label["voice"])):
            rows[key].append(kept)
        if kept[1] != kept[0] and len(examples) < 12:
            examples.append(f"  {label['parts'][0]!r}: tiny {probe['text']!r} / {model} {heard!r}")
    other.save()
    print(f"last transcribed word == the true last word before the pause (tiny.en vs {model}):")
    for (group, name), pairs in sorted(rows.items()):
        tiny, better = sum(k[0] for k in pairs), sum(k[1] for k in pairs)
        print(
            f"  {group:<9}{name:<32}{tiny:>4}/{len(pairs):<4} ({tiny / len(pairs):4.0%})"
            f"  {better:>4} ({better / len(pairs):4.0%})"
        )
    print("\n".join(["changed:", *examples]))


def timing(model: str, count: int) -> None:
    stored = pickle.loads((STORE / "probes.pkl").read_bytes())
    probes = sorted(stored["probes"].items())
    random.Random(7).shuffle(probes)
    models = {"tiny.en": WhisperTranscriber(), model: WhisperTranscriber(model)}
    costs: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for (uid, _), probe in probes[:count]:
        audio = probe_audio(stored["labels"][uid], probe)
        for name, transcriber in models.items():
            started = time.perf_counter()
            transcriber.transcribe(audio, language="en")
            costs[name].append((len(audio) // BYTES_PER_MS, (time.perf_counter() - started) * 1000))
    for name, rows in costs.items():
        ms = sorted(cost for _, cost in rows)
        print(
            f"{name:<8} {len(ms)} probes of median {statistics.median(a for a, _ in rows) / 1000:.1f} s"
            " audio: "
            f"median {statistics.median(ms):.0f} ms, p90 {ms[int(len(ms) * 0.9)]:.0f} ms per call"
        )


def decode_all(model: str) -> None:
    stored = pickle.loads((STORE / "probes.pkl").read_bytes())
    other = CachingTranscriber(WhisperTranscriber(model), STORE / f"whisper-{model}.pkl")
    by_label: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for key in sorted(stored["probes"]):
        by_label[key[0]].append(key)
    order = {name: rank for rank, name in enumerate(SPLIT_ORDER)}
    uids = sorted(by_label, key=lambda uid: (order.get(stored["labels"][uid]["split"], 99), uid))
    probes: dict[tuple[str, int], dict[str, Any]] = {}
    for index, uid in enumerate(uids):
        for key in by_label[uid]:
            probe = stored["probes"][key]
            heard = other.transcribe(probe_audio(stored["labels"][uid], probe), language="en")
            probes[key] = {**probe, "text": heard.text, "words": heard.words}
        if index % 50 == 49 or index == len(uids) - 1:
            other.save()
            labels = {u: stored["labels"][u] for u in uids[: index + 1]}
            store = {"labels": labels, "probes": probes}
            (STORE / f"probes-{model}.pkl").write_bytes(pickle.dumps(store))
            print(
                f"{index + 1}/{len(uids)} utterances ({stored['labels'][uid]['split']}),"
                f" {len(probes)} probes",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="base")
    parser.add_argument("--timing", type=int, default=0, help="time this many probes with both models")
    parser.add_argument("--all", action="store_true", help="transcribe every stored probe (see above)")
    args = parser.parse_args()
    if args.all:
        decode_all(args.model)
        return
    if args.timing:
        timing(args.model, args.timing)
    retention(args.model)


if __name__ == "__main__":
    main()
