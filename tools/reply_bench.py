"""CPU of the reply path per second of reply audio, without a socket (docs/cpu.md, sixth pass).

Drives a real :class:`SessionLoop` (fake engines, no faults, no journal or trace: as under load) through
spoken replies: ``response.create``, the brain's reply handed in at once, each sentence's speech handed in
at once, then the session's ``tick`` at each paced delta's due time and ``apply``, and the real writer
(faults, metrics, the send path) into a transport that only counts the bytes, or with ``--socket PORT``
through aiohttp's WebSocket over loopback to a reader in another process (its CPU is not counted; the
sending system calls are). The timer is not armed
(the bench is the clock). Prints µs of CPU (``time.process_time``) per reply-second, best of
``--repeat``, and with ``--profile`` a cProfile of one run.

Usage: ``PYTHONPATH=. .venv/bin/python tools/reply_bench.py [--replies 40] [--repeat 5] [--profile]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import pstats
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.bench.audio import bare_session
from mockengine.brain.model import Reply
from mockengine.protocol.client_events import parse_client_event
from mockengine.realtime.effects import Step, Synthesize, Think
from mockengine.server.session_loop import SessionLoop
from mockengine.server.session_shell import WebSocketTransport, session_websocket
from mockengine.server.trace import Tracer
from mockengine.settings import Settings

TEXT = (
    "Sure, I can help with that. The weather in Paris tomorrow looks mild, with a light breeze from the "
    "west. "
    "Expect some sunshine in the morning and a few clouds later in the afternoon. "
    "Would you like me to check anything else for your trip?"
)


class CountingLoop(SessionLoop):
    """A session loop whose transport counts what it is given; the bench drives the clock."""

    sent_bytes = 0
    sent_events = 0

    async def deliver(self, event: dict[str, Any], data: bytes) -> bool:
        self.sent_bytes += len(data)
        self.sent_events += 1
        return True

    @property
    def is_transport_closed(self) -> bool:
        return False

    def _arm_timer(self) -> None:
        pass


class SocketLoop(WebSocketTransport, CountingLoop):
    """The same, sending through aiohttp's WebSocket to a reader in another process (``--socket``)."""

    async def deliver(self, event: dict[str, Any], data: bytes) -> bool:
        self.sent_events += 1
        return await WebSocketTransport.deliver(self, event, data)

    @property
    def is_transport_closed(self) -> bool:
        return self.ws.closed


READER = """
import asyncio, sys, aiohttp
async def main():
    async with aiohttp.ClientSession() as http, http.ws_connect(sys.argv[1]) as ws:
        async for _ in ws:
            pass
asyncio.run(main())
"""


@contextlib.asynccontextmanager
async def _socket(port: int) -> AsyncIterator[web.WebSocketResponse]:
    """A WebSocket served on loopback ``port`` whose client, another process, reads and drops everything."""
    connected: asyncio.Future[web.WebSocketResponse] = asyncio.get_running_loop().create_future()
    finished = asyncio.Event()

    async def handle(request: web.Request) -> web.WebSocketResponse:
        ws = session_websocket(Settings(heartbeat_s=0))
        await ws.prepare(request)
        connected.set_result(ws)
        await finished.wait()
        await ws.close()
        return ws

    app = web.Application()
    app.router.add_get("/ws", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    reader = await asyncio.create_subprocess_exec(sys.executable, "-c", READER, f"ws://127.0.0.1:{port}/ws")
    try:
        yield await asyncio.wait_for(connected, 30)
    finally:
        finished.set()
        await reader.wait()
        await runner.cleanup()


def _resources() -> Any:
    from tests.conftest import make_fake_resources

    return make_fake_resources(Settings(seed=3))


async def _run(
    resources: Any, replies: int, pcm_by_sentence: dict[int, bytes], port: int | None = None
) -> tuple[float, float, int]:
    """(CPU seconds, reply audio seconds, events) for ``replies`` spoken replies."""
    if port is None:
        return await _replies(CountingLoop(bare_session(), resources, Tracer(None)), replies, pcm_by_sentence)
    async with _socket(port) as ws:
        loop = SocketLoop(bare_session(), resources, Tracer(None))
        loop.ws, loop.transport = ws, None
        return await _replies(loop, replies, pcm_by_sentence)


async def _replies(
    loop: CountingLoop, replies: int, pcm_by_sentence: dict[int, bytes]
) -> tuple[float, float, int]:
    session = loop.session
    writer = asyncio.create_task(loop.writer())
    audio_s = 0.0
    now_ms = 0.0
    cpu = 0.0
    create = parse_client_event('{"type":"response.create"}')
    for _ in range(replies):
        started = time.process_time()
        step = session.receive(create, now_ms)
        pending = list(step.effects)
        loop.apply(Step(events=step.events))
        while pending:
            effect = pending.pop(0)
            if isinstance(effect, Think):
                step = session.on_reply(effect.key, Reply(TEXT), now_ms)
            elif isinstance(effect, Synthesize):
                pcm = pcm_by_sentence.get(len(effect.text))
                if pcm is None:  # (made once: the synthesis is not what is measured)
                    pcm = pcm_by_sentence[len(effect.text)] = synthetic_voiced_pcm16(45 * len(effect.text))
                audio_s += len(pcm) / 48_000
                step = session.on_speech(effect.key, pcm, now_ms)
            else:
                continue
            pending += step.effects
            loop.apply(Step(events=step.events))
        while (deadline := session.next_deadline_ms()) is not None:
            now_ms = max(now_ms, deadline)
            loop.apply(session.tick(now_ms))
            await asyncio.sleep(0)  # the writer takes what was queued
        while loop.backlog_bytes:
            await asyncio.sleep(0)
        cpu += time.process_time() - started
        now_ms += 1000.0
    loop.outbox.put_nowait(None)
    await writer
    return cpu, audio_s, loop.sent_events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replies", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--socket", type=int, metavar="PORT", help="send over a real WebSocket on PORT")
    args = parser.parse_args()
    resources = _resources()
    speech: dict[int, bytes] = {}
    asyncio.run(_run(resources, 1, speech))
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        asyncio.run(_run(resources, args.replies, speech, args.socket))
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        return
    best = float("inf")
    for _ in range(args.repeat):
        cpu, audio_s, events = asyncio.run(_run(resources, args.replies, speech, args.socket))
        best = min(best, cpu / audio_s * 1e6)
    print(f"{best:.1f} µs CPU per reply-second ({events} events, {audio_s:.1f} s of reply audio per run)")


if __name__ == "__main__":
    main()
