"""A soak: ``sessions`` HyperStudy-like participants for ``minutes``, sessions ending and new ones joining.

Each of ``sessions`` slots runs sessions back to back: a session lasts a seeded ``0.5–1.5 × wave_s``,
then, after a 1–3 s gap, a new one joins, so the engine sees sessions end and start in waves all along.
A session is a :class:`StudyParticipant`: the load driver's participant (a real-time microphone, a spoken
turn every ~``turn_every_s``, barge-ins) that also sends what HyperStudy sends between turns — a
``[context]`` screen item now and then, and a question (``[context]`` question item, then a text-only
``response.create`` the brain answers with the ``answer_scale`` tool), as the HRP contract describes.

Every ``sample_s`` the sampler records the engine's resident memory and CPU time (``/proc``), the
driver's CPU, the sessions connected and ``/healthz``'s round trip and event-loop lag; turns carry their
own time. :mod:`mockengine.loadtest.soak_report` turns that into per-minute rows with a verdict, the
memory growth per session-minute and a plot.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from mockengine.loadtest.driver import load_turn_clips
from mockengine.loadtest.participant import Participant, RunState, SessionResult
from mockengine.loadtest.processes import Child
from mockengine.loadtest.soak_memory import fetch_memory

ANSWER_TOOL = {
    "type": "function",
    "name": "answer_scale",
    "description": "Answer the open question with a number on its scale.",
    "parameters": {"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"]},
}
SCREENS = ("instructions", "video", "rating", "chat", "break")


def _context(event: dict[str, Any]) -> str:
    item = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "[context] " + json.dumps(event)}],
    }
    return json.dumps({"type": "conversation.item.create", "item": item})


class StudyParticipant(Participant):
    """A participant with HyperStudy's traffic between spoken turns: ``[context]`` screens and questions.

    Those text events go out in place of a silent 20 ms chunk (never during speech), so the microphone's
    schedule is kept; a question waits until no reply is under way, as HyperStudy's queue does."""

    def __init__(self, *args: Any, question_every_s: float = 45.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.texts: list[str] = []
        self.question_every_s = question_every_s
        self.next_question_at = self.loop.time() + self.rng.uniform(0.3, 1.0) * question_every_s
        self.questions = 0

    def _session_update(self) -> dict[str, Any]:
        update = super()._session_update()
        update["session"]["tools"] = [ANSWER_TOOL]
        return update

    def _start_turn(self, now: float, clip: Any = None) -> None:
        super()._start_turn(now, clip)
        if self.rng.random() < 0.3:
            self.texts.append(_context({"event": "screen", "screen": self.rng.choice(SCREENS)}))

    def _next_message(self, now: float, k: int, *, is_stopping: bool) -> str:
        if not self.playing and not is_stopping:
            if now >= self.next_question_at and self._is_idle() and not self.texts:
                self._ask_question(now)
            if self.texts:
                return self.texts.pop(0)
        return super()._next_message(now, k, is_stopping=is_stopping)

    def _ask_question(self, now: float) -> None:
        self.questions += 1
        question = {"event": "question", "tool": "answer_scale", "question": "How warm was it? 0 to 100."}
        response = {"output_modalities": ["text"], "tool_choice": "required"}
        self.texts += [_context(question), json.dumps({"type": "response.create", "response": response})]
        self.next_question_at = now + self.rng.uniform(0.8, 1.2) * self.question_every_s
        self.next_turn_at = max(self.next_turn_at, now + 2.0)  # the answer first, then speech again


@dataclass
class Sample:
    at_s: float
    sessions: int
    rss_bytes: int | None
    engine_cpu_s: float | None
    driver_cpu_s: float
    healthz_ms: float | None
    loop_lag_ms: float | None
    cache_bytes: int = 0  # the engine's speech and transcript caches (bounded by their own settings)


@dataclass
class SoakRun:
    sessions: int
    minutes: float
    wave_s: float
    samples: list[Sample] = field(default_factory=list)
    results: list[SessionResult] = field(default_factory=list)
    idle_rss_bytes: int | None = None
    after_rss_bytes: int | None = None
    questions: int = 0
    python_malloc: str | None = None  # the engine's allocator for Python objects, from /healthz
    idle_memory: dict[str, Any] | None = None  # /mockengine/memory at idle and after every session ended
    after_memory: dict[str, Any] | None = None


async def _healthz(http: aiohttp.ClientSession, url: str) -> tuple[float | None, dict[str, Any]]:
    """``/healthz``'s round trip (ms) and body (``{}`` when it did not answer)."""
    started = time.perf_counter()
    try:
        async with http.get(url + "/healthz", timeout=aiohttp.ClientTimeout(total=10)) as reply:
            body = await reply.json()
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None, {}
    return (time.perf_counter() - started) * 1000, body


async def _sampler(
    run: SoakRun, state: RunState, engine: Child | None, http_url: str, every_s: float
) -> None:
    loop = asyncio.get_running_loop()
    async with aiohttp.ClientSession() as http:
        while True:
            healthz_ms, body = await _healthz(http, http_url)
            cache_bytes = sum(int(c.get("size_bytes", 0)) for c in (body.get("caches") or {}).values())
            run.python_malloc = body.get("python_malloc", run.python_malloc)
            run.samples.append(
                Sample(
                    at_s=round(loop.time() - state.t0, 2),
                    sessions=state.active,
                    rss_bytes=engine.rss_bytes() if engine else None,
                    engine_cpu_s=engine.cpu_seconds() if engine else None,
                    driver_cpu_s=time.process_time(),
                    healthz_ms=healthz_ms,
                    loop_lag_ms=body.get("event_loop_lag_ms"),
                    cache_bytes=cache_bytes,
                )
            )
            await asyncio.sleep(every_s)


async def _slot(
    index: int, url: str, run: SoakRun, state: RunState, http: aiohttp.ClientSession, seed: int, **kw: Any
) -> None:
    """Sessions back to back in one slot until the soak's end."""
    rng = random.Random(seed * 7919 + index)
    loop = asyncio.get_running_loop()
    end_s = run.minutes * 60
    clips = load_turn_clips()
    start_s = 5.0 * index / max(run.sessions, 1)  # the first wave joins over 5 s
    number = 0
    while start_s < end_s - 5:
        stop_s = min(end_s, start_s + rng.uniform(0.5, 1.5) * run.wave_s)
        participant = StudyParticipant(index * 10_000 + number, url, clips, state, seed=seed, **kw)
        result = await participant.run(http, start_s, stop_s)
        run.results.append(result)
        run.questions += participant.questions
        number += 1
        start_s = max(stop_s, loop.time() - state.t0) + rng.uniform(1.0, 3.0)


async def run_soak(
    url: str,
    http_url: str,
    engine: Child | None,
    *,
    sessions: int,
    minutes: float,
    wave_s: float = 120.0,
    turn_every_s: float = 10.0,
    barge_in: float = 0.2,
    seed: int = 1,
    sample_s: float = 5.0,
    warm_up: bool = True,
) -> SoakRun:
    """Run the soak against ``url``; ``engine`` (a local child) gives the memory and CPU figures (after a
    short warm-up soak, so the idle figure is of an engine whose models have run)."""
    run = SoakRun(sessions, minutes, wave_s)
    loop = asyncio.get_running_loop()
    if engine is not None:
        if warm_up:  # first model calls allocate their working memory; caches fill; not measured
            await run_soak(url, http_url, None, sessions=4, minutes=0.4, wave_s=10, seed=seed, warm_up=False)
            await asyncio.sleep(8.0)  # the warm-up's sessions reclaimed
        run.idle_rss_bytes = engine.rss_bytes()
        run.idle_memory = await fetch_memory(http_url)
    state = RunState(t0=loop.time() + 0.2)
    sampler = asyncio.create_task(_sampler(run, state, engine, http_url, sample_s))
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    timeout = aiohttp.ClientTimeout(total=None, connect=30, sock_connect=30)
    try:
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
            await asyncio.gather(
                *(
                    _slot(i, url, run, state, http, seed, turn_every_s=turn_every_s, barge_in=barge_in)
                    for i in range(sessions)
                )
            )
        if engine is not None:
            await asyncio.sleep(max(sample_s, 8.0))  # sessions gone: the engine reclaims their memory
    finally:
        sampler.cancel()
        await asyncio.gather(sampler, return_exceptions=True)
    if engine is not None:
        run.after_rss_bytes = engine.rss_bytes()
        run.after_memory = await fetch_memory(http_url)
    return run
