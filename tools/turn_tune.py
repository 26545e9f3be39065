"""Tuning loop for semantic_vad on the tuning splits of the turn corpus (every split but a sealed
``heldout_r<N>``, which it refuses: that split is scored once, by ``mockengine bench --only turns``).

Usage:
  ``.venv/bin/python tools/turn_tune.py record [--splits a,b]`` replays every tuning utterance (of the
  given splits, merged into what is stored) through a real session at
  each eagerness (whisper results kept in ``.cache/turn-tune/whisper.pkl``, so a re-run costs no model
  call) and stores every probe the detector judged (its audio span, transcript, word timings) in
  ``.cache/turn-tune/probes.pkl``; it prints the real figures per split (as the bench does).
  ``.venv/bin/python tools/turn_tune.py score [--each] [--by-category]`` re-scores the stored probes
  with the current ``turn_scoring``/``prosody`` code (about a minute, no whisper) and simulates each
  turn: a pause ends the turn when its wait (by verdict and eagerness) is shorter than the silence that
  follows. ``--each`` lists
  the cut mid-thought pauses and the slow finished ends with their cues; ``--by-category`` prints the
  bench's table per split (policy delays only); ``--by-voice`` (round 6) prints, per voice over the
  recorded splits, the mid-thought cuts at each eagerness and the statements' median at high: a change
  that generalises moves every voice the same way. ``--probes FILE`` (round 7) scores another probe
store of ``.cache/turn-tune/``, e.g. ``probes-base.pkl`` (the same pauses heard by whisper base,
written by ``tools/turn_recogniser.py --all``).
The simulation approximates the session (no VAD onset details); ``record`` gives the real figures.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import statistics
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from mockengine.realtime import turn_detection
from mockengine.realtime.prosody import measure_prosody
from mockengine.realtime.semantic_rules import Completeness
from mockengine.realtime.turn_detection import SEMANTIC_HOLD_MS, SEMANTIC_WAIT_MS
from mockengine.realtime.turn_scoring import TurnEvidence, score_turn
from mockengine.turn_corpus import CACHE_ROOT, load, read_pcm, splits

# Every split but a sealed held-out one (``turn_corpus.Split.status``).
TUNING_SPLITS = tuple(split.name for split in splits() if split.status != "sealed")
STORE = CACHE_ROOT.parent / "turn-tune"
BYTES_PER_MS = 48
ONSET_LEVEL = 300  # a sample this loud after a pause is the speaker resuming
_PROSODY: dict[tuple[str, int, int], Any] = {}
# Round 14: the prosody of every probe kept on disk beside the probes (keyed by the source of
# ``prosody.py``, so a change to the measure recomputes it): re-scoring with other weights then costs
# neither a whisper call nor a prosody measure.
PROSODY_STORE = STORE / "prosody.pkl"
_FINISHED = (Completeness.COMPLETE, Completeness.QUESTION)


def record(chosen: tuple[str, ...], eagerness: tuple[str, ...] = ("high", "medium", "low")) -> None:
    from mockengine.bench.turn_corpus import SEMANTIC, category_table, print_table
    from mockengine.engines.stt import WhisperTranscriber
    from mockengine.turn_eval import CachingTranscriber, run_utterance

    transcriber = CachingTranscriber(WhisperTranscriber(), STORE / "whisper.pkl")
    stored = pickle.loads((STORE / "probes.pkl").read_bytes()) if (STORE / "probes.pkl").exists() else {}
    probes: dict[tuple[str, int], dict[str, Any]] = stored.get("probes", {})
    current: dict[str, str] = {}
    original = turn_detection.TurnDetector.on_transcript

    def spy(self: Any, key: Any, text: str, words: tuple = (), prosody: Any = None) -> Any:
        probe = next((p for p in self._probes if p.key == key), None)
        if probe is not None and self.kind == "semantic_vad":
            probes[(current["id"], probe.speech_end_ms)] = {
                "start_ms": probe.start_ms,
                "speech_end_ms": probe.speech_end_ms,
                "text": text,
                "words": words,
            }
        return original(self, key, text, words, prosody)

    turn_detection.TurnDetector.on_transcript = spy  # type: ignore[method-assign]
    labelled = stored.get("labels", {})
    for split in chosen:
        if split not in TUNING_SPLITS:
            raise SystemExit(f"{split} is not a tuning split (sealed or unknown)")
        directory, labels = load(split)
        results = []
        # Round 14: in a hashed order, stored every 40 utterances, so a recording stopped for time
        # leaves a fair sample of the split (every category, every voice) rather than its first texts.
        ordered = sorted(labels, key=lambda label: hashlib.sha1(label["id"].encode()).digest())
        for count, label in enumerate(ordered, 1):
            if count % 40 == 0:
                _store(probes, labelled, transcriber)
            current["id"] = label["id"]
            labelled[label["id"]] = label
            pcm = read_pcm(directory, label)
            for config in (c for c in SEMANTIC if c.split()[-1] in eagerness):
                results.append(
                    (label, run_utterance(label, pcm, config, transcriber, measured_latency=False))
                )
        print_table(split, category_table(results))
    _store(probes, labelled, transcriber)
    print(f"{len(probes)} probes stored; {len(transcriber.costs_ms)} whisper calls ran")


def _store(probes: dict[tuple[str, int], Any], labelled: dict[str, Any], transcriber: Any) -> None:
    """Write the probes and the whisper memo. Only utterances replayed to the end are labelled, so a
    recording stopped midway stores no half-replayed utterance as recorded."""
    STORE.mkdir(parents=True, exist_ok=True)
    transcriber.save()
    done = {uid: label for uid, label in labelled.items() if any(key[0] == uid for key in probes)}
    kept = {key: probe for key, probe in probes.items() if key[0] in done}
    (STORE / "probes.pkl").write_bytes(pickle.dumps({"labels": done, "probes": kept}))


def load_prosody() -> None:
    """Fill the in-process prosody memo from :data:`PROSODY_STORE` if it was measured by this code."""
    if PROSODY_STORE.exists():
        stored = pickle.loads(PROSODY_STORE.read_bytes())
        if stored.get("source") == _prosody_source():
            _PROSODY.update(stored["prosody"])


def save_prosody() -> None:
    STORE.mkdir(parents=True, exist_ok=True)
    PROSODY_STORE.write_bytes(pickle.dumps({"source": _prosody_source(), "prosody": _PROSODY}))


def _prosody_source() -> str:
    import hashlib
    import inspect

    from mockengine.realtime import prosody

    return hashlib.sha1(inspect.getsource(prosody).encode()).hexdigest()


def score(each: bool, by_category: bool, by_voice: bool = False, store: str = "probes.pkl") -> None:
    load_prosody()
    stored = pickle.loads((STORE / store).read_bytes())
    recorded = {label["split"] for label in stored["labels"].values()} & set(TUNING_SPLITS)
    labels = {label["id"]: label for split in sorted(recorded) for label in load(split)[1]}
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (uid, _), probe in sorted(stored["probes"].items()):
        by_label[uid].append(probe)
    pcms = {uid: _pcm(labels[uid]) for uid in by_label}
    figures: dict[tuple[str, str, str], list[Any]] = defaultdict(list)
    tables: dict[str, list[Any]] = defaultdict(list)
    for uid, probes in by_label.items():
        label = labels[uid]
        for eagerness in ("high", "medium", "low"):
            outcome = _simulate(label, probes, pcms[uid], eagerness)
            group = "mid" if label["kind"] == "trailing" else "finished"
            figures[(label["split"], eagerness, group)].append((uid, outcome))
            tables[label["split"]].append((label, _as_outcome(label, eagerness, outcome)))
    save_prosody()
    if by_category:
        from mockengine.bench.turn_corpus import category_table, print_table

        for split, results in sorted(tables.items()):
            print_table(split, category_table(results), "simulated")
    if by_voice:
        print_by_voice([row for rows in tables.values() for row in rows])
    for (split, eagerness, group), rows in sorted(figures.items()):
        if group == "mid":
            counted = [r for r in rows if labels[r[0]]["pause_ms"] < turn_detection_max(eagerness)]
            cut = [r for r in counted if r[1][0] == "cut"]
            print(f"{split:<8}{eagerness:<7} mid-thought cut {len(cut):>3}/{len(counted):<3}")
            shown = cut
        else:
            delays = [r[1][1] for r in rows if r[1][1] is not None]
            median = statistics.median(delays)
            print(f"{split:<8}{eagerness:<7} finished median {median:.0f} ms, max {max(delays)}")
            shown = [r for r in rows if r[1][1] > SEMANTIC_WAIT_MS[eagerness][_complete()]]
        if each and eagerness == "high":
            for uid, (_, delay, verdict, text) in shown:
                cues = ", ".join(f"{c.name}{c.weight:+g}({c.reason})" for c in verdict.cues)
                print(
                    f"    {uid:<16} {delay} {verdict.score:+.1f} {text!r} <- {labels[uid]['text']!r}: {cues}"
                )


def print_by_voice(results: list[tuple[dict[str, Any], Any]]) -> None:
    """Per voice: mid-thought pauses cut / counted at high, medium, low; statements' median policy delay
    at high and how many were slower than 400 ms."""
    cuts: dict[tuple[str, str], list[bool]] = defaultdict(list)
    statements: dict[str, list[int]] = defaultdict(list)
    for label, outcome in results:
        eagerness = outcome.config.split()[-1]
        if label["kind"] == "trailing" and label["pause_ms"] < turn_detection_max(eagerness):
            cuts[(label["voice"], eagerness)].append(outcome.was_cut_off)
        elif label["category"] == "complete" and eagerness == "high" and outcome.policy_delay_ms is not None:
            statements[label["voice"]].append(outcome.policy_delay_ms)
    print(f"\n  {'voice':<30}{'cut high':>10}{'medium':>10}{'low':>10}{'statements at high':>28}")
    for voice in sorted({voice for voice, _ in cuts} | set(statements)):
        shown = [f"{sum(cuts[(voice, e)]):>4}/{len(cuts[(voice, e)]):<5}" for e in ("high", "medium", "low")]
        delays = statements.get(voice, [])
        median = f"{statistics.median(delays):.0f} ms" if delays else "-"
        slow = sum(delay > 400 for delay in delays)
        print(f"  {voice:<30}{''.join(shown)}{median:>14} ({slow}/{len(delays)} > 400 ms)")


def _as_outcome(label: dict[str, Any], eagerness: str, simulated: tuple) -> Any:
    """A simulated ending as the bench's ``Outcome`` (policy delay only), for its per-category table."""
    from mockengine.turn_eval import Outcome

    kind, delay = simulated[0], simulated[1]
    end = label["speech_end_ms"]
    decided = None if delay is None else end + delay
    stopped = None if kind == "none" else (end - 1000 if kind == "cut" else end)
    return Outcome(
        label["id"],
        label["kind"],
        f"semantic_vad {eagerness}",
        label.get("pause_ms"),
        end,
        stopped,
        decided,
        None,
        None,
    )


def turn_detection_max(eagerness: str) -> int:
    return max(SEMANTIC_WAIT_MS[eagerness].values())


def _complete() -> Any:
    from mockengine.realtime.semantic_rules import Completeness

    return Completeness.COMPLETE


def _pcm(label: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(read_pcm(CACHE_ROOT, label), dtype="<i2")


def _simulate(
    label: dict[str, Any],
    probes: list[dict[str, Any]],
    samples: np.ndarray,
    eagerness: str,
    hold: Callable[[dict[str, Any]], bool] | None = None,
) -> tuple:
    """("cut" | "end", delay after the true speech end, verdict, heard) of the first pause that ends
    the turn; a pause ends it when its wait is shorter than the silence after it. ``hold(probe)`` true
    holds a finished verdict as a contested one is held (``tools/smart_turn_eval.py``'s extra cue)."""
    raw = samples.tobytes()
    for index, probe in enumerate(probes):
        start, end = probe["start_ms"], probe["speech_end_ms"]
        audio = raw[start * BYTES_PER_MS : (end + 100) * BYTES_PER_MS]
        key = (label["id"], start, end)
        if key not in _PROSODY:  # the same for every eagerness
            _PROSODY[key] = measure_prosody(audio, end - start)
        evidence = TurnEvidence(probe["text"], end - start, probe["words"], _PROSODY[key])
        verdict = score_turn(evidence, eagerness)
        wait = SEMANTIC_WAIT_MS[eagerness][verdict.completeness]
        loud = np.flatnonzero(np.abs(samples[(end + 20) * 24 :].astype(np.int32)) > ONSET_LEVEL)
        is_last = index == len(probes) - 1
        silence_ms = 10**9 if loud.size == 0 or is_last else 20 + int(loud[0]) // 24
        # At the labelled pause the speaker resumes at the next segment (a faint breath is no resume).
        for before, after in zip(label["segments"], label["segments"][1:], strict=False):
            if abs(before["end_ms"] - end) <= 150 and not is_last:
                silence_ms = max(silence_ms, after["start_ms"] - end)
        # ``hold`` is asked only where its answer can matter (it may cost a whisper call: round 12).
        if verdict.is_contested or (
            wait < silence_ms and hold is not None and verdict.completeness in _FINISHED and hold(probe)
        ):
            wait = max(wait, SEMANTIC_HOLD_MS[eagerness])
        if wait < silence_ms:
            kind = "cut" if end < label["speech_end_ms"] - 200 else "end"
            return kind, end + wait - label["speech_end_ms"], verdict, probe["text"]
    return "none", None, None, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("record", "score"))
    parser.add_argument("--each", action="store_true")
    parser.add_argument("--by-category", action="store_true", help="score: the bench's per-category table")
    parser.add_argument("--by-voice", action="store_true", help="score: cuts and statements per voice")
    parser.add_argument("--splits", default=",".join(TUNING_SPLITS))
    parser.add_argument("--probes", default="probes.pkl", help="score: the probe store to score")
    parser.add_argument(
        "--eagerness",
        default="high,medium,low",
        help="record: the eagernesses to replay (high alone is what the simulation at high needs)",
    )
    args = parser.parse_args()
    if args.action == "record":
        record(tuple(args.splits.split(",")), tuple(args.eagerness.split(",")))
    else:
        score(args.each, args.by_category, args.by_voice, args.probes)


if __name__ == "__main__":
    main()
