"""semantic_vad over a telephone line (the turns bench's ``MOCKENGINE_BENCH_TURN_LINE``): the pause probes
of a µ-law call are decoded with the narrowband beams, and a call's decisions repeat exactly, run after
run, with fresh transcript memos (docs/turn-detection.md, "Over a telephone line")."""

from __future__ import annotations

import pytest

from mockengine.bench.turn_corpus import over_line
from mockengine.engines.stt import is_narrowband, pcm16_24k_to_float_16k
from mockengine.turn_corpus import load, read_pcm
from mockengine.turn_eval import CachingTranscriber, run_utterance
from tests.needs import need_espeak_ng

pytestmark = pytest.mark.models

need_espeak_ng()


def test_a_phone_calls_turn_decisions_repeat_with_beams(real_resources):
    assert real_resources.transcriber.inner.narrowband_beam_size == 5  # the default a phone call gets
    directory, labels = load("tune")
    chosen = [
        next(lab for lab in labels if lab["kind"] == kind) for kind in ("trailing", "complete", "question")
    ]
    runs = []
    for _ in range(2):
        memo = CachingTranscriber(real_resources.transcriber.inner)  # nothing carried over between runs
        outcomes = []
        for label in chosen:
            pcm = over_line(read_pcm(directory, label), "audio/pcmu")
            assert is_narrowband(pcm16_24k_to_float_16k(pcm))
            outcomes.append(run_utterance(label, pcm, "semantic_vad high", memo, measured_latency=False))
        runs.append(
            [(o.decided_at_ms, o.stopped_speech_end_ms, o.reason, o.transcript, o.cues) for o in outcomes]
        )
        assert all(o.decided_at_ms is not None for o in outcomes)
    assert runs[0] == runs[1]
