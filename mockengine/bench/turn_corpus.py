"""Bench section ``turns``: semantic_vad on the turn corpus, both splits, per category.

Every utterance of ``turn_corpus`` is replayed through a real session with the real whisper model
(``turn_eval.run_utterance``) at each eagerness. Printed per split, eagerness and category:

* mid-thought categories: pauses cut (the turn ended before the speaker resumed) among pauses shorter
  than the eagerness's maximum wait (a longer pause is a turn end by definition);
* finished categories: median speech end → ``speech_stopped`` (the audio the policy waited for, and with
  this machine's transcription latency added) and the longest wait, against the maximum wait;
* the cost per pause: whisper calls per probe (one by construction), milliseconds per call, and the
  prosody measurement.

A telephone line (``MOCKENGINE_BENCH_TURN_LINE=audio/pcmu`` or ``audio/pcma``, :data:`LINE_ENV`): every
clip is first encoded to 8 kHz G.711 in 20 ms frames and decoded by the engine's own input stream
(:class:`~mockengine.audio.g711.G711InputStream`), the 24 kHz audio a phone bridge's ``audio/pcmu``
appends become in a session; whisper then hears narrowband audio and decodes it with
``MOCKENGINE_NARROWBAND_BEAM_SIZE`` beams (the ``serve`` setting; 1 is greedy).

Pause synthesis (``MOCKENGINE_BENCH_TURN_PAUSE_SYNTHESIS=inside``, :data:`SYNTHESIS_ENV`): the
mid-thought items are spoken as one sentence with the pause inside it (espeak voices since round 17,
piper voices since round 18; ``turn_corpus.speech.SYNTHESIS_MODES``) instead of as two utterances.

Splits: every split of ``turn_corpus.splits()`` (round 1's ``tune`` and ``heldout``, then any
``dev_r<N>`` / ``heldout_r<N>`` module found in the package), each printed with its status: tuned on,
burned (held out once, tuned on since) or sealed (never tuned on; the result that counts).
"""

from __future__ import annotations

import os
import statistics
import time
from collections import defaultdict
from typing import Any

from mockengine.bench.sections import Section
from mockengine.realtime.prosody import measure_prosody
from mockengine.turn_corpus import load, read_pcm, splits
from mockengine.turn_eval import MAX_WAIT_MS, CachingTranscriber, Outcome, run_utterance

SPLIT_NOTES = {
    "tuning": "tuned on",
    "burned": "held out once, then tuned on",
    "sealed": "held out: never tuned on",
}
SEMANTIC = ("semantic_vad high", "semantic_vad medium", "semantic_vad low")
FINISHED = ("complete", "question", "one_word")
GOALS = {"high": 0.05, "low": 0.02}
# A comma-separated list of splits to run (default: all), for iterating on a subset.
SPLITS_ENV = "MOCKENGINE_BENCH_TURN_SPLITS"
FRAME_MS = 20  # a decision lands on the VAD frame that reaches its moment
# The input format every clip is passed through (audio/pcmu, audio/pcma; unset or audio/pcm: wideband).
LINE_ENV = "MOCKENGINE_BENCH_TURN_LINE"
LINE_FRAME_BYTES = 160  # 20 ms of 8 kHz G.711, as a phone bridge appends it
# How mid-thought pauses of espeak voices are spoken (turn_corpus.speech.SYNTHESIS_MODES): unset or
# "separate" (the corpus as scored in every round), "inside" (one sentence with an SSML break, round 17).
SYNTHESIS_ENV = "MOCKENGINE_BENCH_TURN_PAUSE_SYNTHESIS"


def synthesis_from_env() -> str:
    """The pause synthesis :data:`SYNTHESIS_ENV` names (unset or empty: ``separate``). ValueError naming
    the variable and the modes for any other value."""
    from mockengine.turn_corpus.speech import SYNTHESIS_MODES

    mode = os.environ.get(SYNTHESIS_ENV) or "separate"
    if mode not in SYNTHESIS_MODES:
        raise ValueError(f"{SYNTHESIS_ENV}={mode!r}: choose from {', '.join(SYNTHESIS_MODES)}")
    return mode


def line_from_env() -> str:
    """The input format :data:`LINE_ENV` names (unset or empty: ``audio/pcm``, wideband). Raises
    ValueError naming the variable and the formats for any other value."""
    from mockengine.audio.g711 import AUDIO_FORMAT_TYPES, FORMAT_PCM

    line = os.environ.get(LINE_ENV) or FORMAT_PCM
    if line not in AUDIO_FORMAT_TYPES:
        raise ValueError(f"{LINE_ENV}={line!r}: choose from {', '.join(AUDIO_FORMAT_TYPES)}")
    return line


def over_line(pcm16_24k: bytes, format_type: str) -> bytes:
    """``pcm16_24k`` as it reaches the engine over a ``format_type`` line (``audio/pcm``: unchanged):
    encoded to 8 kHz G.711, sent in 20 ms frames, decoded and brought back to 24 kHz by the session's
    :class:`~mockengine.audio.g711.G711InputStream`. ValueError for an unknown format."""
    from mockengine.audio.g711 import FORMAT_PCM, G711InputStream, from_pcm16_24k

    if format_type == FORMAT_PCM:
        G711InputStream(format_type)  # validates
        return pcm16_24k
    encoded = from_pcm16_24k(pcm16_24k, format_type)
    stream = G711InputStream(format_type)
    return b"".join(
        stream.decode(encoded[i : i + LINE_FRAME_BYTES], format_type)
        for i in range(0, len(encoded), LINE_FRAME_BYTES)
    )


def evaluate(
    split: str,
    transcriber: Any,
    measured_latency: bool,
    turn_transcriber: Any = None,
    line: str = "audio/pcm",
    synthesis: str = "separate",
) -> list[tuple[dict[str, Any], Outcome]]:
    """Replay every utterance of ``split`` at each semantic eagerness; ``turn_transcriber`` hears the
    pause probes (None: ``transcriber``); ``line``: the input format each clip passes through first
    (:func:`over_line`); ``synthesis``: how the corpus speaks mid-thought pauses (:data:`SYNTHESIS_ENV`)."""
    directory, labels = load(split, synthesis=synthesis)
    results = []
    for label in labels:
        pcm = over_line(read_pcm(directory, label), line)
        for config in SEMANTIC:
            outcome = run_utterance(
                label,
                pcm,
                config,
                transcriber,
                measured_latency=measured_latency,
                turn_transcriber=turn_transcriber,
            )
            results.append((label, outcome))
    return results


def category_table(results: list[tuple[dict[str, Any], Outcome]]) -> dict[str, dict[str, dict[str, Any]]]:
    """{eagerness: {category: figures}} (see the module docstring for the figures)."""
    grouped: dict[tuple[str, str], list[Outcome]] = defaultdict(list)
    mid_thought = set()
    for label, outcome in results:
        grouped[(outcome.config.split()[-1], label["category"])].append(outcome)
        if label["kind"] == "trailing":
            mid_thought.add(label["category"])
    table: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (eagerness, category), outcomes in grouped.items():
        table[eagerness][category] = _figures(eagerness, category in mid_thought, outcomes)
    for eagerness, categories in table.items():
        categories["all mid-thought"] = _pool_cuts(
            [categories[c] for c in sorted(mid_thought) if c in categories]
        )
        finished = [
            o for (e, c), outcomes in grouped.items() if e == eagerness and c in FINISHED for o in outcomes
        ]
        categories["all finished"] = _figures(eagerness, False, finished)
    return table


def _figures(eagerness: str, is_mid_thought: bool, outcomes: list[Outcome]) -> dict[str, Any]:
    limit = MAX_WAIT_MS[eagerness]
    if is_mid_thought:
        counted = [o for o in outcomes if (o.pause_ms or 0) < limit]
        return {"cut": sum(o.was_cut_off for o in counted), "counted": len(counted)}
    policy = [o.policy_delay_ms for o in outcomes if o.policy_delay_ms is not None]
    wall = [o.wall_delay_ms for o in outcomes if o.wall_delay_ms is not None]
    return {
        "n": len(outcomes),
        "median_policy_ms": statistics.median(policy) if policy else None,
        "median_wall_ms": statistics.median(wall) if wall else None,
        "max_policy_ms": max(policy) if policy else None,
        "ended_within_max_wait": sum(d <= limit + FRAME_MS for d in policy),
    }


def _pool_cuts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cut": sum(r["cut"] for r in rows), "counted": sum(r["counted"] for r in rows)}


def print_table(split: str, table: dict[str, dict[str, dict[str, Any]]], status: str = "") -> None:
    print(f"\n  split {split} ({SPLIT_NOTES.get(status, status)}):")
    print(
        f"    {'eagerness':<10}{'category':<17}{'mid-thought cut':>16}{'end→stopped policy':>20}"
        f"{'incl. STT':>11}{'longest':>9}{'within max':>12}"
    )
    for eagerness in ("high", "medium", "low"):
        for category, f in sorted(table.get(eagerness, {}).items(), key=lambda kv: _order(kv[0])):
            if "cut" in f:
                share = f["cut"] / f["counted"] if f["counted"] else 0.0
                goal = GOALS.get(eagerness)
                mark = (
                    ""
                    if goal is None or category != "all mid-thought"
                    else (" ok" if share <= goal else " MISS")
                )
                cut = f"{f['cut']:>7}/{f['counted']:<3} {100 * share:3.0f} %"
                print(f"    {eagerness:<10}{category:<17}{cut}{mark}")
            else:
                print(
                    f"    {eagerness:<10}{category:<17}{'':>16}{_ms(f['median_policy_ms']):>20}"
                    f"{_ms(f['median_wall_ms']):>11}{_ms(f['max_policy_ms']):>9}"
                    f"{f['ended_within_max_wait']:>8}/{f['n']:<3}"
                )


def _order(category: str) -> tuple[int, str]:
    return (category.startswith("all"), category)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def prosody_cost_ms(split: str = "tune", limit: int = 40) -> float:
    """Median time of one prosody measurement on a probe's audio (this machine)."""
    directory, labels = load(split)
    costs = []
    for label in labels[:limit]:
        pcm = read_pcm(directory, label)
        started = time.perf_counter()
        measure_prosody(pcm, label["speech_end_ms"])
        costs.append((time.perf_counter() - started) * 1000)
    return statistics.median(costs)


def bench_turn_corpus(ctx: Any) -> None:
    """The ``turns`` bench section (several minutes: whisper on ~1000 probes; :data:`SPLITS_ENV` picks
    splits)."""
    from mockengine.engines.stt import WhisperTranscriber
    from mockengine.settings import from_env

    settings = from_env()  # MOCKENGINE_TURN_WHISPER_MODEL, MOCKENGINE_NARROWBAND_BEAM_SIZE, as `serve`
    beams = settings.narrowband_beam_size
    transcriber = CachingTranscriber(WhisperTranscriber(narrowband_beam_size=beams))
    turn_model = settings.turn_whisper_model
    pauses = (
        transcriber
        if turn_model == "same"
        else CachingTranscriber(WhisperTranscriber(turn_model, narrowband_beam_size=beams))
    )
    line = line_from_env()  # checked by the runner before any section runs
    synthesis = synthesis_from_env()
    started = time.perf_counter()
    results = {}
    heard = (
        "wideband (24 kHz PCM)"
        if line == "audio/pcm"
        else f"over an 8 kHz {line} line, narrowband beam width {beams}"
    )
    print(
        "\nsemantic_vad on the turn corpus (issue 18; espeak-ng and piper voices; pauses heard by whisper "
        f"{'tiny.en' if pauses is transcriber else turn_model} on this machine, {heard}; mid-thought pauses "
        f"spoken {synthesis}; timings are noisy on a shared machine):"
    )
    chosen = [name for name in os.environ.get(SPLITS_ENV, "").split(",") if name]
    for split in splits():
        if chosen and split.name not in chosen:
            continue
        results[split.name] = category_table(evaluate(split.name, transcriber, True, pauses, line, synthesis))
        print_table(split.name, results[split.name], split.status)
    costs = pauses.costs_ms
    print(
        f"  cost per pause: 1 whisper call (with word timings) per probe; {len(costs)} calls, median "
        f"{statistics.median(costs):.0f} ms, p95 {sorted(costs)[int(0.95 * (len(costs) - 1))]:.0f} ms; "
        f"prosody {prosody_cost_ms():.1f} ms; total {time.perf_counter() - started:.0f} s"
    )
    ctx.results["turns"] = {split: dict(table) for split, table in results.items()}


SECTION = Section("turns", bench_turn_corpus)
