"""Issue 4: semantic_vad on the labelled espeak-ng utterance set, with the real whisper model.

Decisions do not depend on how fast whisper is (a late transcript is applied retroactively), so these
runs use zero modelled latency and assert the policy goals; ``make bench`` prints the same table with
this machine's transcription latency added.
"""

from __future__ import annotations

import statistics

import pytest

from mockengine.turn_eval import (
    CONFIGS,
    MAX_WAIT_MS,
    CachingTranscriber,
    load_labels,
    run_utterance,
    summarize,
)
from tests.speech import DATA, load_wav_24k

pytestmark = pytest.mark.models
UTTERANCES = DATA / "utterances"
SEMANTIC = ("semantic_vad high", "semantic_vad medium", "semantic_vad low")


@pytest.fixture(scope="module")
def outcomes(real_resources):
    transcriber = CachingTranscriber(real_resources.transcriber)
    results = []
    for label in load_labels(UTTERANCES):
        pcm = load_wav_24k(UTTERANCES / label["file"])
        for name in SEMANTIC:
            results.append(run_utterance(label, pcm, name, transcriber, measured_latency=False))
    return results


def test_labelled_set_has_enough_of_each_kind():
    labels = load_labels(UTTERANCES)
    kinds = [label["kind"] for label in labels]
    assert len(labels) >= 40
    assert kinds.count("complete") >= 10 and kinds.count("question") >= 10 and kinds.count("trailing") >= 20


def test_every_finished_utterance_ends_its_turn(outcomes):
    finished = [o for o in outcomes if o.kind in ("complete", "question")]
    assert all(o.decided_at_ms is not None for o in finished)
    assert all(not o.was_cut_off for o in finished)


def test_high_eagerness_ends_complete_utterances_fast(outcomes):
    summary = summarize(outcomes, "semantic_vad high")
    assert summary["median_policy_delay_ms"] < 400, summary


@pytest.mark.parametrize("config", SEMANTIC)
def test_mid_thought_pauses_are_rarely_cut_off(outcomes, config):
    summary = summarize(outcomes, config)
    assert summary["trailing_counted"] >= 10
    assert summary["cut_off_share"] <= 0.10, summary


def test_lower_eagerness_is_never_faster(outcomes):
    by_key = {(o.utterance_id, o.config): o for o in outcomes}
    finished = {o.utterance_id for o in outcomes if o.kind in ("complete", "question")}
    for uid in finished:
        high, medium, low = (by_key[(uid, c)].policy_delay_ms for c in SEMANTIC)
        assert high <= medium <= low, (uid, high, medium, low)


def test_a_timeout_ends_the_turn_at_the_maximum_wait(outcomes):
    timeouts = [o for o in outcomes if o.reason and o.reason.startswith("timeout")]
    assert timeouts
    for o in timeouts:
        waited = o.decided_at_ms - o.stopped_speech_end_ms
        assert MAX_WAIT_MS[o.config.split()[-1]] <= waited <= MAX_WAIT_MS[o.config.split()[-1]] + 20, o


def test_reasons_are_observable(outcomes):
    reasons = {o.reason.split(":")[0] for o in outcomes if o.reason}
    assert {"complete_utterance", "question"} <= reasons


@pytest.mark.parametrize("config", SEMANTIC)
def test_decisions_do_not_depend_on_transcription_latency(real_resources, config):
    transcriber = CachingTranscriber(real_resources.transcriber)
    labels = [label for label in load_labels(UTTERANCES) if label["kind"] == "trailing"][:6]
    for label in labels:
        pcm = load_wav_24k(UTTERANCES / label["file"])
        instant = run_utterance(label, pcm, config, transcriber, measured_latency=False)
        slow = run_utterance(label, pcm, config, transcriber, measured_latency=False, fixed_latency_ms=1700)
        assert (instant.decided_at_ms, instant.stopped_speech_end_ms, instant.reason) == (
            slow.decided_at_ms,
            slow.stopped_speech_end_ms,
            slow.reason,
        )


def test_server_vad_waits_its_silence(real_resources):
    transcriber = CachingTranscriber(real_resources.transcriber)
    labels = [label for label in load_labels(UTTERANCES) if label["kind"] == "complete"][:5]
    delays = []
    for label in labels:
        outcome = run_utterance(
            label,
            load_wav_24k(UTTERANCES / label["file"]),
            "server_vad 500 ms",
            transcriber,
            measured_latency=False,
        )
        delays.append(outcome.policy_delay_ms)
    assert 480 <= statistics.median(delays) <= 560
    assert set(CONFIGS) >= set(SEMANTIC)
