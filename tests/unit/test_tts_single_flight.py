"""A sentence being synthesized is not synthesized again for a second caller (docs/cpu.md, twelfth pass).

``PiperSynthesizer._cached_sentence`` makes a caller that asks for a sentence already in synthesis wait
for those bytes. These tests stand a counting fake in for piper's model call (the real model's output for
concurrent callers is what a cache hit gives, which the integration tests of the cache cover) and check:
one synthesis for concurrent callers of one sentence, every caller the same bytes as a later cache hit,
distinct sentences each synthesized, an error given to every waiter and the next caller trying afresh.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from mockengine.engines.cache import ByteLRU
from mockengine.engines.tts import PiperSynthesizer
from mockengine.engines.voices import load_voice_catalog


class _CountingModel:
    """Stands in for `_speak_sentence`; each call's bytes differ. With ``waiters``, a synthesis goes on
    only once that many other callers wait for it (up to 10 s): a fixed 0.2 s let a caller whose thread a
    loaded machine started late find the failed synthesis gone and try afresh (a second call). Without,
    it takes 0.2 s, so that callers of distinct sentences overlap."""

    def __init__(self, fail: bool = False, waiters: int = 0) -> None:
        self.calls: list[str] = []
        self.fail = fail
        self.waiters = waiters
        self.synthesizer: PiperSynthesizer | None = None
        self._lock = threading.Lock()

    def waiting(self) -> int:
        """Callers blocked on an in-flight synthesis's result (its Future's condition's waiters)."""
        assert self.synthesizer is not None
        flights = list(self.synthesizer._in_flight.values())
        return sum(len(flight._condition._waiters) for flight in flights)  # type: ignore[attr-defined]

    def __call__(self, profile: object, speed: float, sentence: str) -> bytes:
        with self._lock:
            self.calls.append(sentence)
            n = len(self.calls)
        if self.waiters:
            deadline = time.monotonic() + 10.0
            while self.waiting() < self.waiters and time.monotonic() < deadline:
                time.sleep(0.005)
        else:
            time.sleep(0.2)
        if self.fail:
            raise RuntimeError(f"synthesis {n} failed")
        return f"{sentence}#{n}".encode().ljust(960, b"\0")


def _synthesizer(monkeypatch: pytest.MonkeyPatch, model: _CountingModel) -> PiperSynthesizer:
    synthesizer = PiperSynthesizer(load_voice_catalog(), cache=ByteLRU(1024 * 1024))
    monkeypatch.setattr(synthesizer, "_speak_sentence", model)
    model.synthesizer = synthesizer
    return synthesizer


def test_concurrent_callers_of_one_sentence_share_one_synthesis(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _CountingModel(waiters=5)  # the five other callers wait for the first's synthesis
    synthesizer = _synthesizer(monkeypatch, model)
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: synthesizer.synthesize("Tell me more.", voice="alloy"), range(6)))
    assert model.calls == ["Tell me more."]
    later = synthesizer.synthesize("Tell me more.", voice="alloy")  # a cache hit
    assert all(r[0].pcm16 == later[0].pcm16 for r in results)
    assert synthesizer._in_flight == {}


def test_distinct_sentences_are_each_synthesized(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _CountingModel()
    synthesizer = _synthesizer(monkeypatch, model)
    texts = ["Tell me more.", "That sounds interesting.", "Tell me more.", "I see what you mean."]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda text: synthesizer.synthesize(text, voice="alloy"), texts))
    assert sorted(model.calls) == ["I see what you mean.", "Tell me more.", "That sounds interesting."]
    assert results[0][0].pcm16 == results[2][0].pcm16
    assert results[0][0].pcm16 != results[1][0].pcm16


def test_a_failed_synthesis_reaches_every_waiter_and_the_next_caller_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = _CountingModel(fail=True, waiters=2)  # both other callers wait for the one that fails
    synthesizer = _synthesizer(monkeypatch, model)
    with ThreadPoolExecutor(3) as pool:
        futures = [pool.submit(synthesizer.synthesize, "Tell me more.", voice="alloy") for _ in range(3)]
        errors = [f.exception() for f in futures]
    assert all(isinstance(e, RuntimeError) for e in errors)
    assert len(model.calls) == 1
    assert synthesizer._in_flight == {}
    model.fail = False
    model.waiters = 0  # a lone caller now
    assert synthesizer.synthesize("Tell me more.", voice="alloy")[0].pcm16.startswith(b"Tell me more.#2")
    assert len(model.calls) == 2
