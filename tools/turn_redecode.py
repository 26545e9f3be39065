"""Round 12: does re-decoding the last ~1.5-2 s of a pause, as a continuation, tell a cut-off from an end?

Whisper tiny.en rewrites the unfinished last words of a mid-thought pause into a finished sentence
("…ask you about the" heard "…ask you about."; "I'm ringing about" heard "I'm ringing him out."), so
the text rules see a finished sentence. The lever measured here: a second whisper call on the tail
only, with the earlier words given as the decoder's previous text (whisper's initial prompt) so it
continues the sentence rather than starting one, and with ".", "?" and "!" suppressed (every token that
contains one), so whisper cannot close the sentence and must end on the words it heard. Then the
re-decoded words are judged:

* ``function``: the re-decoded last word is a function word (``semantic_words.FUNCTION_WORDS``: an
  article, preposition (``to`` among them), conjunction, filler, possessive, subordinator, auxiliary,
  ``like``);
* ``rules``: the text rules (``semantic_rules.judge_utterance``) on the earlier words plus the
  re-decoded tail, closed with a "." (whisper closes nearly everything, so only the words decide),
  call it unfinished;
* ``differs``: the re-decoded last word is not the first decode's last word.

Measured on the deciding probe of every mid-thought pause the detector cuts at high and of every
complete statement it ends at high without a hold (the statements a new contesting cue would slow), as
``tools/turn_nuclei.py`` picks them; then the whole split is simulated at high with each cue holding a
finished verdict as a contested one is held (``tools/turn_tune.py``'s simulation), which re-decodes every
uncontested finished probe the simulation meets. The CPU and wall time of each extra call is printed.

Usage: ``.venv/bin/python tools/turn_redecode.py [--probes probes.pkl ...] [--tail-ms 1500]``: probe
stores of ``.cache/turn-tune/`` (or absolute paths) written by ``tools/turn_tune.py record``; burned
splits only (the store never holds a sealed split). The re-decodes are cached in
``.cache/turn-tune/redecode.pkl`` per (audio, tail, prompt). Round 13: ``--model base`` re-decodes with
another recogniser (whisper base, the ``turn-base`` extra), cached in ``redecode-<model>.pkl``; its
``differs`` then reads as the two recognisers disagreeing on the last word.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import pickle
import re
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
from turn_nuclei import deciding
from turn_tune import BYTES_PER_MS, STORE, _pcm, _simulate

from mockengine.engines.stt import SHORT_WINDOW_FRAMES, WhisperTranscriber, pcm16_24k_to_float_16k
from mockengine.realtime.semantic_rules import Completeness, judge_utterance
from mockengine.realtime.semantic_words import FUNCTION_WORDS
from mockengine.turn_corpus import load

_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")
MARGIN_MS = 60  # the tail starts this much before its first word's aligned start (alignment is loose)


@dataclass(frozen=True)
class Redecode:
    """One tail re-decode: the prompt (earlier words), the tail's words, and what the extra call cost."""

    prompt: str
    tail: str
    tail_ms: int
    cpu_ms: float
    wall_ms: float

    @property
    def last_word(self) -> str:
        words = _WORD.findall(self.tail.lower())
        return words[-1] if words else ""


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class TailDecoder:
    """A second whisper call on the tail of a probe's audio, earlier words as previous text, sentence
    punctuation suppressed."""

    def __init__(self, tail_ms: int, window_frames: int, model: str | None = None) -> None:
        self.tail_ms = tail_ms
        self.window_frames = window_frames
        self.model = model or "same"
        self.stt = WhisperTranscriber(model)
        tokenizer = self.stt._tokenizer
        closing = [
            token
            for token in range(tokenizer.eot)
            if any(mark in tokenizer.decode([token]) for mark in ".?!")  # "…" too
        ]
        self.suppress = sorted(set(self.stt._suppressed_tokens) | set(closing))
        cache = STORE / self.cache_name
        # Plain tuples on disk, so the cache loads whether this file runs as a script or is imported.
        stored = pickle.loads(cache.read_bytes()) if cache.exists() else {}
        self.cache: dict[str, Redecode] = {key: Redecode(*fields) for key, fields in stored.items()}
        self.calls: list[Redecode] = []

    def save(self) -> None:
        STORE.mkdir(parents=True, exist_ok=True)
        stored = {key: dataclasses.astuple(redecode) for key, redecode in self.cache.items()}
        (STORE / self.cache_name).write_bytes(pickle.dumps(stored))

    @property
    def cache_name(self) -> str:
        return "redecode.pkl" if self.model == "same" else f"redecode-{self.model}.pkl"

    def split_point(self, probe: dict[str, Any], audio_ms: int) -> tuple[int, str]:
        """(tail start in the probe's audio, ms; the earlier words): the tail starts at the first word
        that begins within the last ``tail_ms`` (less a margin), so no word is cut in two."""
        words = [w for w in probe["words"] if _WORD.search(w.word.lower())]
        earliest = audio_ms - self.tail_ms
        for index, word in enumerate(words):
            if word.start_ms >= earliest:
                if index == 0:
                    return 0, ""
                return max(0, word.start_ms - MARGIN_MS), " ".join(w.word for w in words[:index])
        return 0, ""  # no word starts in the tail window: the last one is long; decode it all

    def __call__(self, audio: bytes, probe: dict[str, Any]) -> Redecode:
        audio_ms = len(audio) // BYTES_PER_MS
        start_ms, prompt = self.split_point(probe, audio_ms)
        prompt = prompt.rstrip(".?!,")
        key = hashlib.sha256(audio + f"|{start_ms}|{prompt}|{self.window_frames}".encode()).hexdigest()
        if key not in self.cache:
            self.cache[key] = self._decode(audio[start_ms * BYTES_PER_MS :], prompt)
        self.calls.append(self.cache[key])
        return self.cache[key]

    def _decode(self, tail: bytes, prompt: str) -> Redecode:
        wall, cpu = time.perf_counter(), time.process_time()
        model, tokenizer = self.stt._model, self.stt._tokenizer
        samples = pcm16_24k_to_float_16k(tail)
        features = model.feature_extractor(samples)[:, : self.window_frames]
        window = np.zeros((features.shape[0], self.window_frames), dtype=np.float32)
        window[:, : features.shape[1]] = features
        encoded = model.encode(window)
        previous = tokenizer.encode(" " + prompt) if prompt else []
        decoder_prompt = model.get_prompt(tokenizer, previous, without_timestamps=True)
        result = model.model.generate(
            encoded,
            [decoder_prompt],
            beam_size=1,
            max_length=min(64 + len(decoder_prompt), model.max_length),
            suppress_blank=True,
            suppress_tokens=self.suppress,
        )[0]
        text = " ".join(str(tokenizer.decode(result.sequences_ids[0])).split())
        return Redecode(
            prompt,
            text,
            len(tail) // BYTES_PER_MS,
            (time.process_time() - cpu) * 1000,
            (time.perf_counter() - wall) * 1000,
        )


def cues(probe: dict[str, Any], redecode: Redecode) -> dict[str, bool]:
    """Each candidate cue on one probe: True reads as unfinished."""
    first = _words(probe["text"])
    # Closed with a "." as whisper closes nearly everything, so only the words decide ("Monday" unclosed
    # would read as a short unpunctuated fragment; "Monday." is an answer).
    joined = f"{redecode.prompt} {redecode.tail}".strip().rstrip(",;:") + "."
    last = redecode.last_word
    return {
        "function": last in FUNCTION_WORDS,
        "rules": bool(_words(joined)) and judge_utterance(joined).completeness is Completeness.INCOMPLETE,
        "differs": bool(last) and (not first or last != first[-1]),
        "function+differs": last in FUNCTION_WORDS and (not first or last != first[-1]),
        # Round 13: the disagreement, on turns whisper heard as 2+ / 3+ words (a one-word answer decodes
        # differently from one recogniser to the next and says nothing about a cut-off).
        "differs 2+": len(first) >= 2 and bool(last) and last != first[-1],
        "differs 3+": len(first) >= 3 and bool(last) and last != first[-1],
    }


CUES = ("function", "rules", "differs", "function+differs", "differs 2+", "differs 3+")


def main(
    stores: list[str],
    tail_ms: int,
    window_frames: int,
    each: bool,
    simulate: bool = True,
    model: str | None = None,
) -> None:
    decoder = TailDecoder(tail_ms, window_frames, model)
    labels: dict[str, dict[str, Any]] = {}
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for store in stores:
        stored = pickle.loads((STORE / store).read_bytes())
        for name in sorted({label["split"] for label in stored["labels"].values()}):
            labels.update({label["id"]: label for label in load(name)[1]})
        for (uid, _), probe in sorted(stored["probes"].items()):
            by_label[uid].append(probe)
    pcms = {uid: _pcm(labels[uid]) for uid in by_label}

    def probe_audio(uid: str, probe: dict[str, Any]) -> bytes:
        raw = pcms[uid].tobytes()
        return raw[probe["start_ms"] * BYTES_PER_MS : (probe["speech_end_ms"] + 100) * BYTES_PER_MS]

    # 1. The deciding probes: cut pauses and statements ended unheld, at high.
    groups: dict[str, list[dict[str, bool]]] = defaultdict(list)
    for uid, probes in sorted(by_label.items()):
        label = labels[uid]
        mid, statement = label["kind"] == "trailing", label["category"] == "complete"
        if not (mid or statement):
            continue
        found = deciding(label, probes, pcms[uid])
        if found is None or (found[0] == "cut") != mid:
            continue
        probe = found[1]
        redecode = decoder(probe_audio(uid, probe), probe)
        flags = cues(probe, redecode)
        groups[f"{label['split']} {'mid-thought cut' if mid else 'statement ended'}"].append(flags)
        if each or mid:
            marks = " ".join(name for name in CUES if flags[name]) or "-"
            print(
                f"  {uid:<22} {probe['text']!r} -> [{redecode.prompt!r}] {redecode.tail!r}"
                f" <- {label['text']!r}: {marks}"
            )
    decoder.save()
    print(f"\ndeciding probes at high, re-decoded tail ({tail_ms} ms, window {window_frames * 10} ms):")
    print(f"  {'group':<34}{'n':>5}" + "".join(f"{name:>18}" for name in CUES))
    for group, rows in sorted(groups.items()):
        shown = "".join(
            f"{sum(r[name] for r in rows):>12} ({sum(r[name] for r in rows) / len(rows):.0%})"
            for name in CUES
        )
        print(f"  {group:<34}{len(rows):>5}{shown}")

    # 2. Each cue as a hold, the whole split simulated at high.
    if simulate:
        print("\nsimulated at high, each cue holding an uncontested finished verdict (1.6 s):")
    for cue in (None, *CUES) if simulate else ():
        cut: dict[str, list[bool]] = defaultdict(list)
        delays: dict[tuple[str, str], list[int]] = defaultdict(list)
        for uid, probes in sorted(by_label.items()):
            label = labels[uid]

            def hold(probe: dict[str, Any], uid: str = uid, cue: str | None = cue) -> bool:
                if cue is None or (
                    labels[uid]["kind"] == "trailing"
                    and probe["speech_end_ms"] >= labels[uid]["speech_end_ms"] - 200
                ):
                    return False  # a mid-thought utterance's own end: its delay is not counted
                return cues(probe, decoder(probe_audio(uid, probe), probe))[cue]

            kind, delay, _, _ = _simulate(label, probes, pcms[uid], "high", hold=hold)
            if label["kind"] == "trailing":
                if label["pause_ms"] < 2000:
                    cut[label["split"]].append(kind == "cut")
            elif delay is not None:
                delays[(label["split"], label["category"])].append(delay)
        for split in sorted(cut):
            by_kind = {
                kind: f"{statistics.median(delays[(split, kind)]):.0f} ms"
                f" ({sum(d > 400 for d in delays[(split, kind)])}/{len(delays[(split, kind)])} > 400)"
                for kind in ("complete", "question", "one_word")
                if delays[(split, kind)]
            }
            print(
                f"  {cue or 'none (shipped)':<18}{split:<13} cut {sum(cut[split]):>3}/{len(cut[split]):<4}"
                f" statements {by_kind.get('complete')}, questions {by_kind.get('question')},"
                f" one-word {by_kind.get('one_word')}"
            )
    decoder.save()
    calls = {id(c): c for c in decoder.calls}.values()
    fresh = [c for c in calls if c.cpu_ms > 0]
    if fresh:
        cpu = sorted(c.cpu_ms for c in fresh)
        wall = sorted(c.wall_ms for c in fresh)
        tails = sorted(c.tail_ms for c in fresh)
        print(
            f"\ncost per extra call ({len(fresh)} re-decodes): CPU median {statistics.median(cpu):.0f} ms,"
            f" p95 {cpu[int(0.95 * (len(cpu) - 1))]:.0f} ms; wall median {statistics.median(wall):.0f} ms,"
            f" p95 {wall[int(0.95 * (len(wall) - 1))]:.0f} ms;"
            f" tail audio median {statistics.median(tails):.0f} ms"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--probes", nargs="+", default=["probes.pkl"], help="probe stores of .cache/turn-tune/"
    )
    parser.add_argument(
        "--tail-ms", type=int, default=1500, help="how much audio before the pause to re-decode"
    )
    parser.add_argument(
        "--window-frames", type=int, default=SHORT_WINDOW_FRAMES, help="encoder window, 10 ms mel frames"
    )
    parser.add_argument("--each", action="store_true", help="list every deciding probe, not only the cuts")
    parser.add_argument("--no-simulate", action="store_true", help="the deciding probes' table only")
    parser.add_argument(
        "--model",
        default=None,
        help="round 13: the recogniser of the re-decode (e.g. base, bundled; default the probes' tiny.en)",
    )
    args = parser.parse_args()
    main(args.probes, args.tail_ms, args.window_frames, args.each, not args.no_simulate, args.model)
