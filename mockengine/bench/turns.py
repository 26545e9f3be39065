"""``--only semantic``: the turn-detection table (``mockengine.turn_eval``) on the labelled utterance
set: how long each configuration waits after speech ends, and how often it cuts a speaker off."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mockengine.bench.context import UTTERANCES, BenchContext
from mockengine.bench.figures import fmt
from mockengine.bench.sections import Section


def bench_turns(ctx: BenchContext) -> None:
    from mockengine.audio.pcm import float32_to_pcm16
    from mockengine.engines.stt import WhisperTranscriber
    from mockengine.turn_eval import CONFIGS, CachingTranscriber, load_labels, run_utterance, summarize

    if not (UTTERANCES / "labels.json").exists():
        print("semantic: labelled set not found (run from a source checkout)")
        return
    labels = load_labels(UTTERANCES)
    transcriber = CachingTranscriber(WhisperTranscriber())
    outcomes = []
    started = time.perf_counter()
    for label in labels:
        pcm = _read_wav_24k(UTTERANCES / label["file"], float32_to_pcm16)
        for name in CONFIGS:
            outcomes.append(run_utterance(label, pcm, name, transcriber, measured_latency=True))
    kinds = {k: sum(1 for lab in labels if lab["kind"] == k) for k in ("complete", "question", "trailing")}
    print(
        f"\nturn detection on {len(labels)} utterances ({kinds}), whisper tiny.en on this machine "
        f"({time.perf_counter() - started:.0f} s):"
    )
    print(
        f"  {'config':<22}{'end→stopped (policy)':>22}{'incl. STT, median':>19}{'p95':>8}"
        f"{'cut off mid-thought':>22}"
    )
    table = {}
    for name in CONFIGS:
        s = summarize(outcomes, name)
        table[name] = s
        print(
            f"  {name:<22}{fmt(s['median_policy_delay_ms']):>22}{fmt(s['median_wall_delay_ms']):>19}"
            f"{fmt(s['p95_wall_delay_ms']):>8}"
            f"{s['cut_off']:>8}/{s['trailing_counted']:<3} ({100 * s['cut_off_share']:.0f} %)"
        )
    print(
        "  policy = audio the engine waited for after the speech ended; incl. STT adds the measured "
        "transcription latency (semantic_vad must hear the words before it decides)."
    )
    ctx.results["semantic"] = table


def _read_wav_24k(path: Path, to_pcm16: Callable[[Any], bytes]) -> bytes:
    import wave

    import numpy as np
    import soxr

    with wave.open(str(path), "rb") as handle:
        rate = handle.getframerate()
        samples = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2")
    return to_pcm16(soxr.resample(samples.astype(np.float32) / 32768.0, rate, 24_000))


SECTION = Section("semantic", bench_turns)
