"""How well the transcript cache's acoustic fingerprint (:mod:`mockengine.engines.fingerprint`) holds up.

``mockengine bench --only fingerprint`` takes every clip it can find (the committed test utterances, the
conformance clips, every built split of the turn corpus), runs each through the transformations a turn's
audio meets on its way to the engine, and prints:

* the **hit rate**: a transformed clip matches its own original (the cache holds the original);
* the **false matches**: a clip (as made, and through Opus at 16 and 32 kb/s and cut) matches another
  clip's original, over every pair of distinct clips of about the same length (the others are never
  compared); and the lowest bit error rate among those pairs, against ``MAX_BER``.

Transformations (:data:`VARIANTS`): Opus as a browser sends it (48 kHz, 20 ms frames, ``voip``) at 16,
24, 32 and 64 kb/s, decoded as the engine decodes (libopus at 24 kHz mono), each with the packet grid
starting at a different offset into the clip; resampling 24→48→24 kHz; gain ±3 dB; Opus after -6 dB.
Every variant is also cut as turn detection might: a few ms more or less at each end.

And the hard case for any fingerprint, **minimal pairs** (:data:`MINIMAL_PAIRS`): sentences that differ
in one word ("my name is John Smith" / "Jane Smith"), spoken by the same deterministic voice (espeak-ng,
two voices), compared as made and through Opus at 32 kb/s.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import subprocess
import tempfile
import time
import wave
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import av
import numpy as np
import soxr

from mockengine.bench.context import BenchContext
from mockengine.bench.sections import Section
from mockengine.engines import fingerprint as fp
from mockengine.rtc.libopus import opus_decoder

ROOT = Path(__file__).resolve().parents[2]
BROWSER_RATE_HZ = 48_000
BITRATES_BPS = (16_000, 24_000, 32_000, 64_000)
# The variants also compared against every other clip (with the original): the lowest bitrate, a
# browser's default and the cut one; the others sit between these and the original.
CROSS_CHECKED = ("opus16k", "opus32k+cut")
# Sentences a test suite might well say one after the other, differing in one word.
MINIMAL_PAIRS = (
    ("my favourite colour is blue", "my favourite colour is green", "my favourite colour is red"),
    ("my favourite colour is black", "my favourite colour is blue"),
    ("the code is one two three four", "the code is one two three five", "the code is one two eight four"),
    ("turn left at the next light", "turn right at the next light"),
    ("I would like a table for two people", "I would like a table for three people"),
    ("I would like a table for three people", "I would like a table for four people"),
    ("my name is John Smith", "my name is Jane Smith", "my name is Joan Smith"),
    (
        "the meeting is on Monday at ten",
        "the meeting is on Tuesday at ten",
        "the meeting is on Monday at nine",
    ),
    ("I agree with that", "I disagree with that"),
    ("please call me back at five", "please call me back at nine"),
    ("set the timer for ten minutes", "set the timer for two minutes"),
)
MINIMAL_PAIR_VOICES = ("en-us", "en-gb")


def read_wav(path: Path) -> bytes:
    """PCM16 24 kHz mono frames of a WAV (other rates are resampled)."""
    with wave.open(str(path), "rb") as handle:
        rate, channels = handle.getframerate(), handle.getnchannels()
        data = handle.readframes(handle.getnframes())
    samples = np.frombuffer(data, "<i2").reshape(-1, channels).mean(axis=1)
    if rate != fp.RATE_HZ:
        samples = soxr.resample(samples, rate, fp.RATE_HZ)
    return np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes()


def _to_pcm(samples: np.ndarray) -> bytes:
    return np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes()


def _samples(pcm16: bytes) -> np.ndarray:
    return np.frombuffer(pcm16, "<i2").astype(np.float64)


def opus_round_trip(pcm16_24k: bytes, bit_rate: int, offset_samples: int = 0) -> bytes:
    """The clip as the engine decodes it from a browser's microphone: upsampled to 48 kHz, encoded by
    libopus (PyAV, 20 ms, ``voip``) after ``offset_samples`` (24 kHz) of silence, decoded by libopus at
    24 kHz; the codec's delay stays in (as on a call), and the output is as long as the input plus the
    offset (the stream goes on: where a turn ends is turn detection's choice, see :func:`recut`)."""
    audio = np.concatenate([np.zeros(offset_samples), _samples(pcm16_24k)])
    upsampled = soxr.resample(audio, fp.RATE_HZ, BROWSER_RATE_HZ)
    frame = BROWSER_RATE_HZ // 50
    upsampled = np.concatenate([upsampled, np.zeros(-len(upsampled) % frame + 3 * frame)])
    codec = av.CodecContext.create("libopus", "w")
    codec.sample_rate, codec.format, codec.layout = BROWSER_RATE_HZ, "s16", "mono"
    codec.bit_rate = bit_rate
    codec.options = {"application": "voip"}
    decoder = opus_decoder()
    if decoder is None:
        raise RuntimeError("libopus could not be loaded")
    out = []
    pcm = np.clip(np.round(upsampled), -32768, 32767).astype(np.int16)
    for index in range(len(pcm) // frame):
        chunk = av.AudioFrame.from_ndarray(
            pcm[index * frame : (index + 1) * frame].reshape(1, -1), "s16", "mono"
        )
        chunk.sample_rate, chunk.pts = BROWSER_RATE_HZ, index * frame
        out += [decoder.decode(bytes(packet)) for packet in codec.encode(chunk)]
    return b"".join(out)[: (len(audio)) * 2]


def resample_round_trip(pcm16_24k: bytes) -> bytes:
    up = soxr.resample(_samples(pcm16_24k), fp.RATE_HZ, BROWSER_RATE_HZ)
    return _to_pcm(soxr.resample(up, BROWSER_RATE_HZ, fp.RATE_HZ))


def gain(pcm16_24k: bytes, db: float) -> bytes:
    return _to_pcm(_samples(pcm16_24k) * 10 ** (db / 20))


def recut(pcm16_24k: bytes, start_ms: int, end_ms: int) -> bytes:
    """Trim (positive) or pad with silence (negative) ``start_ms`` / ``end_ms`` at the ends."""
    bytes_per_ms = fp.RATE_HZ // 1000 * 2
    head, tail = start_ms * bytes_per_ms, end_ms * bytes_per_ms
    body = pcm16_24k[max(head, 0) : len(pcm16_24k) - max(tail, 0)]
    return bytes(max(-head, 0)) + body + bytes(max(-tail, 0))


def variants(pcm16: bytes, seed: int) -> Iterator[tuple[str, bytes]]:
    """Each transformation of one clip; the packet offsets and cuts follow from ``seed``."""
    rng = np.random.default_rng(seed)
    for bit_rate in BITRATES_BPS:
        offset = int(rng.integers(0, 480))
        yield f"opus{bit_rate // 1000}k", opus_round_trip(pcm16, bit_rate, offset)
    yield "resample48k", resample_round_trip(pcm16)
    yield "gain+3dB", gain(pcm16, 3.0)
    yield "gain-3dB", gain(pcm16, -3.0)
    yield "opus32k-6dB", opus_round_trip(gain(pcm16, -6.0), 32_000, int(rng.integers(0, 480)))
    start, end = (int(v) for v in rng.integers(-40, 41, size=2))
    yield "opus32k+cut", recut(opus_round_trip(pcm16, 32_000, int(rng.integers(0, 480))), start, end)


def espeak(text: str, voice: str) -> bytes:
    """``text`` spoken by espeak-ng (deterministic for a version), as PCM16 24 kHz."""
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "speech.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True, capture_output=True)
        return read_wav(path)


@dataclass
class MinimalPairs:
    """What :func:`minimal_pair_matches` found. ``closest_db``: among the comparisons the bits alone
    would match, the smallest windowed level difference (the verification's margin; inf if none)."""

    compared: int = 0
    bits_only: int = 0
    closest_db: float = float("inf")
    matched: list[tuple[str, str, str, str]] = field(default_factory=list)  # voice, query, stored, how


def minimal_pair_matches() -> MinimalPairs:
    """Every ordered pair within each group of :data:`MINIMAL_PAIRS`, per voice, the first as made and
    through Opus at 32 kb/s, against the second as made."""
    found = MinimalPairs()
    for voice in MINIMAL_PAIR_VOICES:
        for group in MINIMAL_PAIRS:
            spoken = {text: espeak(text, voice) for text in group}
            for query, stored in itertools.permutations(group, 2):
                print_ = fp.fingerprint(spoken[stored])
                for how, pcm in (
                    ("as made", spoken[query]),
                    ("opus32k", opus_round_trip(spoken[query], 32_000, 77)),
                ):
                    found.compared += 1
                    queries = fp.query_prints(pcm)
                    if fp.match(queries, print_) is not None:
                        found.matched.append((voice, query, stored, how))
                    bits = fp.best_alignment(queries, print_)
                    if bits is not None and bits.ber <= fp.MAX_BER:
                        found.bits_only += 1
                        local_db = fp.local_difference(queries[bits.phase], print_, bits.shift_frames)
                        found.closest_db = min(found.closest_db, local_db)
    return found


def clip_folders(extra: list[Path] | None = None, corpus: bool = True) -> list[Path]:
    """tests/data/utterances, the conformance clips, every split of the turn corpus (built on first
    use, about a minute a split) when ``corpus``, and ``extra`` folders."""
    folders = [ROOT / "tests" / "data" / "utterances", ROOT / "mockengine" / "conformance" / "clips"]
    if corpus:
        from mockengine import turn_corpus

        folders += [turn_corpus.build(split.name) for split in turn_corpus.splits()]
    return folders + (extra or [])


def find_clips(folders: list[Path]) -> dict[str, bytes]:
    """Every clip of ``folders`` by a unique name (folder/file), byte-identical duplicates dropped."""
    clips = {}
    for folder in folders:
        for path in sorted(folder.glob("*.wav")):
            clips[f"{folder.name}/{path.name}"] = read_wav(path)
    return distinct(clips)


def clip_texts(folders: list[Path]) -> dict[str, str]:
    """What each clip says (lower case, letters only), from the folders' ``labels.json`` (a list of
    ``{file, text}``) or ``clips.json`` (``{"clips": {name: {file, text}}}``): two clips saying the
    same words may match (the same transcript is right for both)."""
    texts = {}
    for folder in folders:
        for name in ("labels.json", "clips.json"):
            path = folder / name
            if not path.is_file():
                continue
            data = json.loads(path.read_text())
            entries = data["clips"].values() if isinstance(data, dict) else data
            for entry in entries:
                if isinstance(entry, dict) and "file" in entry and "text" in entry:
                    words = re.sub(r"[^a-z ]", "", entry["text"].lower()).split()
                    texts[f"{folder.name}/{entry['file']}"] = " ".join(words)
    return texts


def distinct(clips: dict[str, bytes]) -> dict[str, bytes]:
    """The clips with byte-identical duplicates dropped (the first name kept)."""
    seen: set[int] = set()
    kept = {}
    for name, pcm in clips.items():
        digest = zlib.crc32(pcm) ^ len(pcm) << 32
        if digest not in seen:
            seen.add(digest)
            kept[name] = pcm
    return kept


Finding = tuple[str, str, str, float]  # query clip, its variant, stored clip, bit error rate


@dataclass
class Tally:
    """What :func:`evaluate` counts."""

    hits: dict[str, list[float]] = field(default_factory=dict)  # variant → BER per clip (inf: missed)
    local_dbs: list[float] = field(default_factory=list)
    false: list[Finding] = field(default_factory=list)
    same_words: list[Finding] = field(default_factory=list)
    distinct_bers: list[float] = field(default_factory=list)
    pairs: int = 0
    bits_only: int = 0  # distinct pairs the bits alone would match: the level check decided

    def own(self, label: str, query: tuple[fp.Fingerprint, ...], stored: fp.Fingerprint) -> None:
        found = fp.match(query, stored)
        self.hits.setdefault(label, []).append(found.ber if found else float("inf"))
        if found is not None and found.local_db is not None:
            self.local_dbs.append(found.local_db)

    def other(
        self, query: tuple[fp.Fingerprint, ...], stored: fp.Fingerprint, finding: Finding, same: bool
    ) -> None:
        self.pairs += 1
        found = fp.best_alignment(query, stored)
        if found is None:
            return
        self.distinct_bers.append(found.ber)
        if found.ber > fp.MAX_BER:
            return
        self.bits_only += 1
        if fp.match(query, stored) is not None:
            (self.same_words if same else self.false).append((*finding[:3], found.ber))


def evaluate(
    clips: dict[str, bytes],
    progress: Callable[[str], None] = lambda _: None,
    texts: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Hit rates per variant and false matches over every pair of distinct clips (see the module);
    a match between two clips whose ``texts`` are the same words is counted apart, not as false."""
    texts = texts or {}
    names = sorted(clips)
    prints = {name: fp.fingerprint(clips[name]) for name in names}
    tally = Tally()
    for index, name in enumerate(names):
        if index % 100 == 0:
            progress(f"{index}/{len(names)} clips")
        queries = [("original", fp.query_prints(clips[name]))]
        for label, pcm in variants(clips[name], zlib.crc32(name.encode())):
            query = fp.query_prints(pcm)
            queries += [(label, query)] if label in CROSS_CHECKED else []
            tally.own(label, query, prints[name])
        for other in names:
            if other == name or abs(prints[other].frames - prints[name].frames) > 2 * fp.MAX_LENGTH_DIFF:
                continue
            same = name in texts and texts[name] == texts.get(other)
            for label, query in queries:
                if abs(query[0].frames - prints[other].frames) <= fp.MAX_LENGTH_DIFF:
                    tally.other(query, prints[other], (name, label, other, 0.0), same)
    return {
        "clips": len(names),
        "hits": tally.hits,
        "hit_local_db_max": max(tally.local_dbs, default=None),
        "distinct_pairs_compared": tally.pairs,
        "distinct_pairs_passing_the_bits": tally.bits_only,
        "false_matches": tally.false,
        "same_words_matches": tally.same_words,
        "distinct_bers": tally.distinct_bers,
    }


def report(result: dict[str, Any]) -> dict[str, Any]:
    """The printable summary of :func:`evaluate`'s result."""
    hit_rows = {}
    for label, bers in result["hits"].items():
        finite = [b for b in bers if np.isfinite(b)]
        hit_rows[label] = {
            "hit_rate": len(finite) / len(bers),
            "ber_median": float(np.median(finite)) if finite else None,
            "ber_max": max(finite) if finite else None,
        }
    distinct = np.array(result["distinct_bers"]) if result["distinct_bers"] else np.array([np.inf])
    return {
        "clips": result["clips"],
        "max_ber": fp.MAX_BER,
        "hit_local_db_max": result["hit_local_db_max"],
        "hits": hit_rows,
        "distinct_pairs_compared": result["distinct_pairs_compared"],
        "distinct_pairs_passing_the_bits": result["distinct_pairs_passing_the_bits"],
        "false_matches": len(result["false_matches"]),
        "same_words_matches": len(result["same_words_matches"]),
        "false_match_examples": result["false_matches"][:5],
        "distinct_ber_min": float(distinct.min()),
        "distinct_ber_p01": float(np.percentile(distinct, 0.1)),
        "distinct_ber_p1": float(np.percentile(distinct, 1)),
    }


def run(folders: list[Path]) -> dict[str, Any]:
    """Evaluate the clips of ``folders`` and the minimal pairs, and print; returns the summary."""
    started = time.perf_counter()
    clips, texts = find_clips(folders), clip_texts(folders)
    summary = report(evaluate(clips, lambda text: print(f"  fingerprint: {text}", flush=True), texts))
    print_summary(summary, time.perf_counter() - started)
    pairs = minimal_pair_matches()
    summary["minimal_pairs"] = dataclasses.asdict(pairs)
    print(
        f"  minimal pairs (one word apart, same voice): {pairs.compared} compared, {pairs.bits_only} pass "
        f"the bits, closest level difference {pairs.closest_db:.2f} dB: {len(pairs.matched)} matched "
        f"{pairs.matched}"
    )
    return summary


def print_summary(summary: dict[str, Any], seconds: float) -> None:
    print(
        f"fingerprint: {summary['clips']} distinct clips, MAX_BER {summary['max_ber']}, MAX_LOCAL_DB "
        f"{fp.MAX_LOCAL_DB} (largest on a hit: {summary['hit_local_db_max']:.2f} dB)"
    )
    for label, row in summary["hits"].items():
        median, worst = row["ber_median"], row["ber_max"]
        print(f"  {label:12s} hit rate {row['hit_rate']:.3f}  BER median {median:.3f}  max {worst:.3f}")
    print(
        f"  distinct pairs compared {summary['distinct_pairs_compared']} "
        f"({summary['distinct_pairs_passing_the_bits']} pass the bits): false matches "
        f"{summary['false_matches']} (and {summary['same_words_matches']} of clips saying the same words), "
        f"lowest BER {summary['distinct_ber_min']:.3f} (0.1 %: "
        f"{summary['distinct_ber_p01']:.3f}, 1 %: {summary['distinct_ber_p1']:.3f}); {seconds:.0f} s"
    )
    for example in summary["false_match_examples"]:
        print("  false match:", example)


def bench_fingerprint(ctx: BenchContext) -> None:
    ctx.results["fingerprint"] = run(clip_folders())


SECTION = Section("fingerprint", bench_fingerprint, default=False)

if __name__ == "__main__":  # python -m mockengine.bench.fingerprint [--no-corpus] [FOLDER ...]
    import sys

    folders = [Path(arg) for arg in sys.argv[1:] if arg != "--no-corpus"]
    run(clip_folders(folders, corpus="--no-corpus" not in sys.argv))
