"""The brain's lane of one server session: its replies are worked out off the event loop.

The participant's work for one reply is bounded (``brain.utterance.acted_tail``), but a turn over hundreds
of declared tools, or the first turn after a new tool set (its vocabularies are built then), still takes
longer than the event loop may stand still: every session's paced audio, VAD and ``/healthz`` share it.
So a server session thinks aside (``RealtimeSession.think_aside``): the core returns a ``Think`` effect
and the lane runs the brain in the brain executor, one job at a time in the order asked, and hands the
outcome back. The texts a job names are counted there too (``Think.texts``: the instructions; the items'
texts were counted when the response's context was fitted, and are kept with the items). A client item
too long to count on the loop (a pasted 1 MB message, a tool's 1 MB output) is counted here before the
response fits its context (``CountTexts``, a job of its own in the same order).

Event order stays what it was inline: while a reply is being worked out, the session's client messages
wait, in order, and are handled once the reply's events are out, as if the brain had answered at once.
(Timers, transcripts and speech keep running: they never waited for the brain's answer either.) Over a
WebSocket they wait in aiohttp's queue, whose flow control stops reading the socket past 128 KiB, so a
client that floods while its reply is worked out is held back by TCP, not by the engine's memory
(``realtime_ws``: the reader loop awaits :meth:`BrainLane.until_idle`); messages from other carriers (a
WebRTC call's data channel) wait in :attr:`BrainLane.waiting`.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor

from mockengine.brain.model import Reply
from mockengine.realtime.effects import CountTexts, Think
from mockengine.realtime.responses import ask
from mockengine.realtime.usage import TokenCounting, text_tokens


class BrainLane:
    """The ``Think`` jobs of one session and the client messages that wait for them."""

    def __init__(self, executor: Executor, tokens: TokenCounting) -> None:
        self.executor = executor
        self.tokens = tokens
        self.jobs: asyncio.Queue[Think | CountTexts] = asyncio.Queue()
        self.in_flight = 0  # asked and not yet answered
        # Whether a reply is being worked out (``in_flight > 0``): an attribute, not a property, as every
        # client frame reads it twice (a property read is a Python call in 3.11; docs/cpu.md,
        # twenty-first pass). Changed only with ``in_flight``.
        self.is_busy = False
        self.waiting: deque[str] = deque()  # client messages that came while a reply was worked out
        self._idle = asyncio.Event()
        self._idle.set()

    def ask(self, job: Think | CountTexts) -> None:
        self.in_flight += 1
        self.is_busy = True
        self._idle.clear()
        self.jobs.put_nowait(job)

    async def until_idle(self) -> None:
        """Return once no reply is being worked out and the messages that waited for it are handled."""
        await self._idle.wait()

    def _work(self, job: Think | CountTexts) -> Reply | Exception | None:
        """The job's texts counted, and a ``Think``'s reply from the brain (None for a ``CountTexts``)."""
        for text in job.texts:
            text_tokens(self.tokens, text)
        return ask(job.brain, job.request) if isinstance(job, Think) else None

    async def run(
        self,
        answer: Callable[[Think | CountTexts, Reply | Exception | None], None],
        handle: Callable[[str], None],
    ) -> None:
        """Work out each job's reply in the executor, ``answer`` it, then ``handle`` the client messages
        that waited, in order, until one of them asks the brain again."""
        loop = asyncio.get_running_loop()
        while True:
            job = await self.jobs.get()
            outcome = await loop.run_in_executor(self.executor, functools.partial(self._work, job))
            self.in_flight -= 1
            self.is_busy = self.in_flight > 0
            answer(job, outcome)
            while self.waiting and not self.is_busy:
                handle(self.waiting.popleft())
            if not self.is_busy:
                self._idle.set()
