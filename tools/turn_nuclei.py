"""Round 11: does the audio after whisper's last word hold a syllable that word does not account for?

The lever left by round 10 is whisper tiny.en rewriting the unfinished last words of a pause into a
finished sentence ("…ask you about the" heard "…ask you about."). If whisper *dropped* a word, the
audio from its last word's aligned start to the speech end holds more syllable nuclei (energy peaks)
than that word has syllables. This tool measures that on the deciding probe of every pause the
detector cuts at high and of every complete statement it ends at high without a hold (the statements
a new contesting cue would slow), from the probes ``tools/turn_tune.py record`` stored.

Usage: ``.venv/bin/python tools/turn_nuclei.py [--probes probes.pkl]`` (burned splits only: the store
holds no sealed split). Prints, per group, how often the nuclei exceed the word's syllables by 0 / 1+,
and whisper's probability for the last word. Nuclei: the syllables ``prosody._syllable_bounds`` finds
in the 1.5 s before the speech end (3 dB energy valleys, 60 ms minimum), each at its loudest frame;
syllables of a word: its vowel groups (a final silent "e" dropped), a digit one.
"""

from __future__ import annotations

import argparse
import pickle
import re
from collections import Counter, defaultdict
from typing import Any

import numpy as np
from turn_tune import STORE, _pcm, _simulate

from mockengine.realtime import prosody
from mockengine.turn_corpus import load

_SPOKEN = re.compile(r"[A-Za-z0-9]")
_VOWELS = re.compile(r"[aeiouy]+")


def syllables(word: str) -> int:
    """Vowel groups of ``word`` (a final silent "e" dropped); a digit counts one. At least 1."""
    bare = re.sub(r"[^a-z0-9']", "", word.lower())
    if re.search(r"[0-9]", bare):
        return max(1, len(re.findall(r"[0-9]", bare)))
    count = len(_VOWELS.findall(bare))
    if bare.endswith("e") and not bare.endswith(("le", "ee", "ye")) and count > 1:
        count -= 1
    return max(1, count)


def nuclei_ms(samples: np.ndarray, end_ms: int) -> list[int]:
    """The loudest frame of each syllable ``prosody`` finds in the 1.5 s before ``end_ms`` (ms from the
    clip's start)."""
    audio = samples.astype(np.float32) / 32768.0
    end = min(audio.size, end_ms * 24)
    start = max(0, end - prosody.ANALYSIS_MS * 24)
    frame, hop = prosody.FRAME_MS * 24, prosody.HOP_MS * 24
    if end - start < frame + hop * prosody.MIN_VOICED_FRAMES:
        return []
    frames = np.lib.stride_tricks.sliding_window_view(audio[start:end], frame)[::hop]
    energy_db = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-10)
    bounds = prosody._syllable_bounds(energy_db)
    peaks = [lo + int(np.argmax(energy_db[lo:hi])) for lo, hi in zip(bounds[:-1], bounds[1:], strict=False)]
    return [start // 24 + peak * prosody.HOP_MS + prosody.FRAME_MS // 2 for peak in peaks]


def deciding(label: dict[str, Any], probes: list[dict[str, Any]], samples: np.ndarray) -> tuple | None:
    """(kind, probe) of the uncontested finished probe that ends the turn at high, else None."""
    seen: list[dict[str, Any]] = []
    kind, _, _, text = _simulate(label, probes, samples, "high", hold=lambda p: seen.append(p) or False)
    if kind not in ("cut", "end") or not seen or seen[-1]["text"] != text:
        return None  # ended by a held, uncertain or unfinished verdict: no new hold would change it
    return kind, seen[-1]


def main(store: str) -> None:
    stored = pickle.loads((STORE / store).read_bytes())
    names = sorted({label["split"] for label in stored["labels"].values()})
    labels = {label["id"]: label for name in names for label in load(name)[1]}
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (uid, _), probe in sorted(stored["probes"].items()):
        by_label[uid].append(probe)
    groups: dict[str, list[tuple[int, float, int]]] = defaultdict(list)
    for uid, probes in sorted(by_label.items()):
        label = labels[uid]
        mid, statement = label["kind"] == "trailing", label["category"] == "complete"
        if not (mid or statement):
            continue
        samples = _pcm(label)
        found = deciding(label, probes, samples)
        if found is None or (found[0] == "cut") != mid:
            continue
        probe = found[1]
        spoken = [word for word in probe["words"] if _SPOKEN.search(word.word)]
        if not spoken:
            continue
        last = spoken[-1]
        start = probe["start_ms"] + last.start_ms
        heard = sum(t >= start for t in nuclei_ms(samples, probe["speech_end_ms"]))
        group = f"{label['split']} {'mid-thought cut' if mid else 'statement ended'}"
        groups[group].append((heard - syllables(last.word), last.probability, len(spoken)))
        if mid:
            print(f"  {uid:<24} {probe['text']!r} <- {label['text']!r}: {heard} nuclei after {last.word!r}")
    for group, rows in sorted(groups.items()):
        extra = Counter(min(1, max(-1, e)) for e, _, _ in rows)
        unsure = sum(p < 0.9 and n >= 3 for _, p, n in rows)
        print(
            f"{group:<34} {len(rows):>4}: nuclei - syllables <0 {extra[-1]:>3}, =0 {extra[0]:>3}, "
            f">=1 {extra[1]:>3} ({extra[1] / len(rows):.0%}); last word p < 0.9 (3+ words) {unsure:>3}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--probes", default="probes.pkl", help="a probe store of .cache/turn-tune/")
    main(parser.parse_args().probes)
