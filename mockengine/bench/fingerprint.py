"""How well the transcript cache's acoustic fingerprint (:mod:`mockengine.engines.fingerprint`) holds up.

``mockengine bench --only fingerprint`` takes every clip it can find (the committed test utterances, the
conformance clips, every built split of the turn corpus), runs each through the transformations a turn's
audio meets on its way to the engine, and prints:

* the **hit rate**: a transformed clip matches its own original (the cache holds the original);
* the **false matches**: a clip (original or transformed) matches another clip's original, over every
  pair of distinct clips; and the lowest bit error rate among distinct pairs, against ``MAX_BER``.

Transformations (:data:`VARIANTS`): Opus as a browser sends it (48 kHz, 20 ms frames, ``voip``) at 16,
24, 32 and 64 kb/s, decoded as the engine decodes (libopus at 24 kHz mono), each with the packet grid
starting at a different offset into the clip; resampling 24→48→24 kHz; gain ±3 dB; Opus after -6 dB.
Every variant is also cut as turn detection might: a few ms more or less at each end.
"""

from __future__ import annotations

import time
import wave
import zlib
from collections.abc import Callable, Iterator
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


def find_clips(extra: list[Path] | None = None, corpus: bool = True) -> dict[str, bytes]:
    """Every clip by a unique name: tests/data/utterances, the conformance clips, every split of the
    turn corpus (built on first use, about a minute a split) when ``corpus``, and ``extra`` folders."""
    folders = [ROOT / "tests" / "data" / "utterances", ROOT / "mockengine" / "conformance" / "clips"]
    if corpus:
        from mockengine import turn_corpus

        folders += [turn_corpus.build(split.name) for split in turn_corpus.splits()]
    folders += extra or []
    clips = {}
    for folder in folders:
        for path in sorted(folder.glob("*.wav")):
            clips[f"{folder.name}/{path.name}"] = read_wav(path)
    return distinct(clips)


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


def evaluate(clips: dict[str, bytes], progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Hit rates per variant and false matches over every pair of distinct clips (see the module)."""
    names = sorted(clips)
    prints = {name: fp.fingerprint(clips[name]) for name in names}
    hits: dict[str, list[float]] = {}
    false: list[tuple[str, str, str, float]] = []
    distinct_bers: list[float] = []
    pairs = 0
    for index, name in enumerate(names):
        if index % 100 == 0:
            progress(f"{index}/{len(names)} clips")
        queries = [("original", fp.query_prints(clips[name]))]
        for label, pcm in variants(clips[name], zlib.crc32(name.encode())):
            query = fp.query_prints(pcm)
            queries.append((label, query))
            found = fp.match(query, prints[name])
            hits.setdefault(label, []).append(found.ber if found else float("inf"))
        for other in names:
            if other == name or abs(prints[other].frames - prints[name].frames) > 2 * fp.MAX_LENGTH_DIFF:
                continue
            for label, query in queries:
                if abs(query[0].frames - prints[other].frames) > fp.MAX_LENGTH_DIFF:
                    continue
                pairs += 1
                found = fp.best_alignment(query, prints[other])
                if found is None:
                    continue
                distinct_bers.append(found.ber)
                if found.ber <= fp.MAX_BER:
                    false.append((name, label, other, found.ber))
    return {
        "clips": len(names),
        "hits": hits,
        "distinct_pairs_compared": pairs,
        "false_matches": false,
        "distinct_bers": distinct_bers,
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
        "hits": hit_rows,
        "distinct_pairs_compared": result["distinct_pairs_compared"],
        "false_matches": len(result["false_matches"]),
        "false_match_examples": result["false_matches"][:5],
        "distinct_ber_min": float(distinct.min()),
        "distinct_ber_p01": float(np.percentile(distinct, 0.1)),
        "distinct_ber_p1": float(np.percentile(distinct, 1)),
    }


def run(clips: dict[str, bytes]) -> dict[str, Any]:
    """Evaluate and print; returns the summary."""
    started = time.perf_counter()
    summary = report(evaluate(clips, lambda text: print(f"  fingerprint: {text}", flush=True)))
    print(f"fingerprint: {summary['clips']} distinct clips, MAX_BER {summary['max_ber']}")
    for label, row in summary["hits"].items():
        median, worst = row["ber_median"], row["ber_max"]
        print(f"  {label:12s} hit rate {row['hit_rate']:.3f}  BER median {median:.3f}  max {worst:.3f}")
    print(
        f"  distinct pairs compared {summary['distinct_pairs_compared']}: false matches "
        f"{summary['false_matches']}, lowest BER {summary['distinct_ber_min']:.3f} (0.1 %: "
        f"{summary['distinct_ber_p01']:.3f}, 1 %: {summary['distinct_ber_p1']:.3f}); "
        f"{time.perf_counter() - started:.0f} s"
    )
    for example in summary["false_match_examples"]:
        print("  false match:", example)
    return summary


def bench_fingerprint(ctx: BenchContext) -> None:
    ctx.results["fingerprint"] = run(find_clips())


SECTION = Section("fingerprint", bench_fingerprint, default=False)

if __name__ == "__main__":  # python -m mockengine.bench.fingerprint [--no-corpus] [FOLDER ...]
    import sys

    folders = [Path(arg) for arg in sys.argv[1:] if arg != "--no-corpus"]
    run(find_clips(folders, corpus="--no-corpus" not in sys.argv))
