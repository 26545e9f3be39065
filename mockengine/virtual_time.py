"""A virtual-time driver: a :class:`RealtimeSession` run synchronously on a virtual clock, with real or
fake engines (not to be confused with the replay of recordings, ``mockengine.recordings``).

Used by tests and ``mockengine bench``: audio is fed in 20 ms chunks, effects run at
once on the given engines, and their results come back after a *modelled* latency — zero, or the wall
time the engine really took (``measured_latency=True``), queued per lane as the server does. So a whole
conversation replays faster than real time, yet decisions see realistic result timing.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mockengine.protocol import client_events as ce
from mockengine.realtime.effects import Step, Synthesize, Trace, Transcribe
from mockengine.realtime.probe_job import engine_for, run_transcribe
from mockengine.realtime.session import RealtimeSession

CHUNK_MS = 20
BYTES_PER_MS = 48


@dataclass
class VirtualTimeDriver:
    """One session on a virtual clock: ``send`` client events, ``stream`` audio, ``advance`` time; the
    events sent are in ``events`` with their session time, the traces in ``traces``."""

    session: RealtimeSession
    transcriber: Any
    synthesizer: Any
    measured_latency: bool = False
    fixed_latency_ms: float | None = None  # overrides the measured/zero latency of every effect
    turn_transcriber: Any = None  # hears semantic_vad's pause probes (None: ``transcriber`` does)
    now_ms: float = 0.0
    events: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    traces: list[Trace] = field(default_factory=list)
    audio_sent_ms: int = 0
    _queue: list[tuple[float, int, Callable[[], Step]]] = field(default_factory=list)
    _lane_free_ms: dict[str, float] = field(default_factory=lambda: {"stt": 0.0, "tts": 0.0})
    _seq: Any = field(default_factory=itertools.count)

    def start(self) -> None:
        self._apply(self.session.start())

    def send(self, event: ce.ClientEvent) -> None:
        self._apply(self.session.receive(event, self.now_ms))

    def stream(self, pcm16: bytes, chunk_ms: int = CHUNK_MS) -> None:
        """Append audio in real-time-sized chunks, advancing the clock by each chunk's duration."""
        step = chunk_ms * BYTES_PER_MS
        for offset in range(0, len(pcm16), step):
            chunk = pcm16[offset : offset + step]
            self.advance(self.now_ms + len(chunk) / BYTES_PER_MS)
            self.audio_sent_ms += len(chunk) // BYTES_PER_MS
            self._apply(self.session.receive(ce.InputAudioBufferAppend(chunk), self.now_ms))

    def stream_silence(self, duration_ms: int) -> None:
        self.stream(bytes(duration_ms * BYTES_PER_MS))

    def advance(self, to_ms: float) -> None:
        """Deliver every effect result and timer due up to ``to_ms``, in time order."""
        while True:
            deadline = self.session.next_deadline_ms()
            if (
                deadline is not None
                and deadline <= to_ms
                and (not self._queue or deadline < self._queue[0][0])
            ):
                self.now_ms = max(self.now_ms, deadline)
                self._apply(self.session.tick(self.now_ms))
                continue
            if self._queue and self._queue[0][0] <= to_ms:
                due, _, deliver = heapq.heappop(self._queue)
                self.now_ms = max(self.now_ms, due)
                self._apply(deliver())
                continue
            break
        self.now_ms = max(self.now_ms, to_ms)

    def run_until_idle(self, limit_ms: float = 120_000) -> None:
        """Advance until nothing is pending (or ``limit_ms`` of virtual time passed)."""
        end = self.now_ms + limit_ms
        while (self._queue or self.session.next_deadline_ms() is not None) and self.now_ms < end:
            nexts = [
                t
                for t in (self._queue[0][0] if self._queue else None, self.session.next_deadline_ms())
                if t is not None
            ]
            self.advance(max(min(nexts), self.now_ms))

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [event for _, event in self.events if event["type"] == kind]

    def first(self, kind: str) -> tuple[float, dict[str, Any]] | None:
        return next(((t, e) for t, e in self.events if e["type"] == kind), None)

    def _apply(self, step: Step) -> None:
        for event in step.events:
            self.events.append((self.now_ms, event))
        for effect in step.effects:
            if isinstance(effect, Transcribe):
                self._run("stt", effect, self._transcribe)
            elif isinstance(effect, Synthesize):
                self._run("tts", effect, self._synthesize)
            elif isinstance(effect, Trace):
                self.traces.append(effect)

    def _run(self, lane: str, effect: Any, work: Callable[[Any], Callable[[], Step]]) -> None:
        started = time.perf_counter()
        deliver = work(effect)
        took_ms = (time.perf_counter() - started) * 1000 if self.measured_latency else 0.0
        # A caching engine reports what the work cost when it was really done.
        engine = self._stt_engine(effect) if lane == "stt" else self.synthesizer
        if self.measured_latency and getattr(engine, "last_cost_ms", None) is not None:
            took_ms = engine.last_cost_ms
        if self.fixed_latency_ms is not None:
            took_ms = self.fixed_latency_ms
        begin = max(self.now_ms, self._lane_free_ms[lane])
        self._lane_free_ms[lane] = begin + took_ms
        heapq.heappush(self._queue, (begin + took_ms, next(self._seq), deliver))

    def _stt_engine(self, job: Transcribe) -> Any:
        return engine_for(job, self.transcriber, self.turn_transcriber)

    def _transcribe(self, job: Transcribe) -> Callable[[], Step]:
        heard = run_transcribe(self._stt_engine(job), job)
        text, words, language = heard.transcript.text, heard.transcript.words, heard.transcript.language
        return lambda: self.session.on_transcript(job.key, text, self.now_ms, words, heard.prosody, language)

    def _synthesize(self, job: Synthesize) -> Callable[[], Step]:
        pcm = b"".join(
            s.pcm16 for s in self.synthesizer.synthesize(job.text, voice=job.voice, speed=job.speed)
        )
        return lambda: self.session.on_speech(job.key, pcm, self.now_ms)
