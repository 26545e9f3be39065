"""Turn-detection evaluation on a labelled set of spoken utterances (issue 4's measurements).

Each utterance is streamed through a real :class:`RealtimeSession` in virtual time (``virtual_time``) with the
real whisper model; the first ``speech_stopped`` is compared with the labels:

* complete statements and questions: the end-of-speech → ``speech_stopped`` delay, both as the audio the
  policy waited for (``decided_at_ms`` − true speech end; independent of machine speed) and including the
  measured transcription latency on this machine;
* utterances with a mid-thought pause: *cut off* when the turn ended before the speaker resumed.

The labels format is ``tests/data/utterances/labels.json`` (see ``tools/make_speech.py``).
"""

from __future__ import annotations

import hashlib
import json
import pickle
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mockengine.brain.image import describe_image
from mockengine.brain.participant import ScriptedBrain
from mockengine.brain.scenario import load_scenario
from mockengine.engines.fakes import FakeSynthesizer
from mockengine.engines.stt import Transcript
from mockengine.engines.tokens import TokenCounter
from mockengine.ids import IdFactory
from mockengine.protocol import client_events as ce
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.virtual_time import VirtualTimeDriver

MAX_WAIT_MS = {"high": 2000, "medium": 4000, "auto": 4000, "low": 8000}
CONFIGS: dict[str, dict[str, Any]] = {
    "semantic_vad high": {"type": "semantic_vad", "eagerness": "high", "create_response": False},
    "semantic_vad medium": {"type": "semantic_vad", "eagerness": "medium", "create_response": False},
    "semantic_vad low": {"type": "semantic_vad", "eagerness": "low", "create_response": False},
    "server_vad 500 ms": {"type": "server_vad", "silence_duration_ms": 500, "create_response": False},
}


class CachingTranscriber:
    """Memoizes transcripts by audio; ``last_cost_ms`` is what the last result cost when first computed.

    ``store``: a pickle file that keeps the memo across runs (tuning re-runs the same probes many
    times; the machine is shared). Its entries are keyed by the audio's SHA-1 and the model's path, so a
    different model never reads another's transcripts. ``save()`` writes it."""

    def __init__(self, inner: Any, store: Path | None = None) -> None:
        self.inner = inner
        self._store = store
        self._model = str(getattr(inner, "model_path", type(inner).__name__))
        self._cache: dict[bytes, tuple[Transcript, float]] = {}
        if store is not None and store.exists():
            self._cache = pickle.loads(store.read_bytes()).get(self._model, {})
        self.last_cost_ms: float | None = None
        self.costs_ms: list[float] = []  # every call that really ran the model

    def save(self) -> None:
        if self._store is not None:
            self._store.parent.mkdir(parents=True, exist_ok=True)
            self._store.write_bytes(pickle.dumps({self._model: self._cache}))

    def transcribe(
        self, pcm16: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        key = hashlib.sha1(pcm16).digest()
        if key not in self._cache:
            started = time.perf_counter()
            result = self.inner.transcribe(pcm16, language=language, prompt=prompt)
            self._cache[key] = (result, (time.perf_counter() - started) * 1000)
            self.costs_ms.append(self._cache[key][1])
        result, self.last_cost_ms = self._cache[key]
        return result


@dataclass(frozen=True)
class Outcome:
    utterance_id: str
    kind: str
    config: str
    pause_ms: int | None
    speech_end_ms: int
    stopped_speech_end_ms: int | None  # speech end the engine reported for its first turn
    decided_at_ms: int | None
    emitted_at_ms: float | None  # virtual time incl. modelled transcription latency
    reason: str | None
    transcript: str | None = None  # what the deciding probe heard
    cues: tuple[dict[str, Any], ...] = ()  # its scored cues (semantic_vad)

    @property
    def policy_delay_ms(self) -> int | None:
        return None if self.decided_at_ms is None else self.decided_at_ms - self.speech_end_ms

    @property
    def wall_delay_ms(self) -> float | None:
        return None if self.emitted_at_ms is None else self.emitted_at_ms - self.speech_end_ms

    @property
    def was_cut_off(self) -> bool:
        """The turn ended at the mid-thought pause, before the speaker resumed."""
        return (
            self.stopped_speech_end_ms is not None and self.stopped_speech_end_ms < self.speech_end_ms - 200
        )


def load_labels(directory: Path) -> list[dict[str, Any]]:
    return json.loads((directory / "labels.json").read_text())


def run_utterance(
    label: dict[str, Any],
    pcm16: bytes,
    config_name: str,
    transcriber: Any,
    measured_latency: bool = True,
    fixed_latency_ms: float | None = None,
    turn_transcriber: Any = None,
) -> Outcome:
    session = RealtimeSession(
        SessionOptions("gpt-realtime", Pacing(pace=0.0)),
        brain=ScriptedBrain(load_scenario(None), seed=1),
        ids=IdFactory(1),
        tokens=TokenCounter(None),
        describe_image=describe_image,
    )
    driver = VirtualTimeDriver(
        session,
        transcriber,
        FakeSynthesizer(),
        measured_latency=measured_latency,
        fixed_latency_ms=fixed_latency_ms,
        turn_transcriber=turn_transcriber,
    )
    driver.start()
    driver.send(
        ce.SessionUpdate({"type": "realtime", "audio": {"input": {"turn_detection": CONFIGS[config_name]}}})
    )
    driver.stream(pcm16)
    driver.stream_silence(MAX_WAIT_MS["low"] + 1000 if "low" in config_name else 5000)
    driver.run_until_idle()
    first = next(((t, e) for t, e in driver.events if e["type"] == "input_audio_buffer.speech_stopped"), None)
    trace = next((tr.data for tr in driver.traces if tr.kind == "turn_end"), None)
    return Outcome(
        label["id"],
        label["kind"],
        config_name,
        label.get("pause_ms"),
        label["speech_end_ms"],
        trace["speech_end_ms"] if trace else None,
        trace["decided_at_ms"] if trace else None,
        first[0] if first else None,
        trace["reason"] if trace else None,
        trace["transcript"] if trace else None,
        tuple(trace.get("cues", ())) if trace else (),
    )


def summarize(outcomes: list[Outcome], config_name: str) -> dict[str, Any]:
    mine = [o for o in outcomes if o.config == config_name]
    finished = [o for o in mine if o.kind in ("complete", "question") and o.decided_at_ms is not None]
    policy = [o.policy_delay_ms for o in finished if o.policy_delay_ms is not None]
    wall = [o.wall_delay_ms for o in finished if o.wall_delay_ms is not None]
    eagerness = config_name.split()[-1]
    limit = MAX_WAIT_MS.get(eagerness, 10**9)
    trailing = [o for o in mine if o.kind == "trailing" and (o.pause_ms or 0) < limit]
    return {
        "config": config_name,
        "median_policy_delay_ms": statistics.median(policy) if policy else None,
        "median_wall_delay_ms": statistics.median(wall) if wall else None,
        "p95_wall_delay_ms": _p95(wall),
        "complete_missed": sum(o.decided_at_ms is None for o in mine if o.kind in ("complete", "question")),
        "trailing_counted": len(trailing),
        "cut_off": sum(o.was_cut_off for o in trailing),
        "cut_off_share": (sum(o.was_cut_off for o in trailing) / len(trailing)) if trailing else 0.0,
    }


def _p95(values: list[float]) -> float | None:
    data = sorted(values)
    if not data:
        return None
    return data[min(len(data) - 1, round(0.95 * (len(data) - 1)))]
