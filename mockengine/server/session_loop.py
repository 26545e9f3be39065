"""The transport-independent loop around one :class:`RealtimeSession`.

A session reaches its client over a WebSocket (``server/realtime_ws.py``) or a WebRTC call
(``server/webrtc/``). Everything else is the same and lives here, once: per session one ordered writer
(events go out in the order the core produced them), one serial transcription lane (bounded per session:
``server/transcription_lane.py``) and one serial speech lane (so results come back in the order the core
asked for them, which keeps seeded sessions deterministic), one timer for paced audio, flow control
against a slow peer, the session's faults, trace, journal and metrics. Model calls never run on the
event loop: whisper has a thread of its own (it runs one call at a time), piper a small pool. Jobs whose
results can no longer matter (a cancelled reply's sentences, a pause the speaker already talked through)
are skipped.

What a translation session does at its connection too (sending through the faults with the trace,
journal and counters, the close, the expiry, the records) is the
:class:`~mockengine.server.session_shell.SessionShell` this loop is built on. A transport subclasses
:class:`SessionLoop` and supplies :meth:`read` (its receive loop, handing client JSON to
:meth:`on_client_text`) and the shell's transport: ``deliver`` (one server event out, as the UTF-8 JSON
made once when the core produced it: a WebSocket sends those bytes as its TEXT frame, issue 15),
``close_transport`` / ``abort_transport`` (the end of the connection).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections import deque
from typing import Any

import orjson

from mockengine.brain.model import Reply
from mockengine.engines.stt import Transcript
from mockengine.engines.tts import SpeechSegment
from mockengine.protocol import codec
from mockengine.protocol.client_events import (
    ClientEvent,
    InputAudioBufferAppend,
    ResponseCancel,
    Transport,
    bare_append_audio,
    parse_client_event,
    parse_plain_append,
)
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.effects import (
    CallMcpTool,
    CountTexts,
    ListMcpTools,
    Step,
    Synthesize,
    Think,
    Trace,
    Transcribe,
)
from mockengine.realtime.probe_job import Heard, engine_for, run_transcribe
from mockengine.realtime.session import RealtimeSession
from mockengine.server import mcp_client, metrics
from mockengine.server.brain_lane import BrainLane
from mockengine.server.journal import SessionJournal
from mockengine.server.resources import Resources
from mockengine.server.session_shell import EXPIRED_CLOSE_CODE, SessionShell
from mockengine.server.single_consumer_queue import SingleConsumerQueue
from mockengine.server.trace import Tracer, loggable_client_event
from mockengine.server.transcription_lane import TranscriptionLane

log = logging.getLogger("mockengine.session")
APPEND_TYPE = InputAudioBufferAppend.type


Queued = tuple[dict[str, Any], bytes] | None  # a server event and its JSON as UTF-8; None ends the writer


class Outbox(SingleConsumerQueue[Queued]):
    """The session's server events between the core and its one writer, oldest first; ``None`` ends the
    writer. The writer takes them from ``queued`` directly while any are queued (see
    :class:`~mockengine.server.single_consumer_queue.SingleConsumerQueue`)."""


class SessionLoop(SessionShell):
    """One session's loop; subclasses add the transport (see the module docstring)."""

    transport_name: Transport = "websocket"  # which client event types are accepted (the registry's)

    def __init__(
        self,
        session: RealtimeSession,
        resources: Resources,
        tracer: Tracer,
        journal: SessionJournal | None = None,
    ) -> None:
        self.init_shell(resources.settings, tracer, journal, session.config["id"])
        self.session = session
        self.resources = resources
        self.loop = asyncio.get_running_loop()
        # Server events (with their JSON as UTF-8, which sizes the backlog) in the order the core
        # produced them; None ends the writer.
        self.outbox = Outbox()
        self.backlog_bytes = 0  # queued and not yet written to the transport
        # The size of each queued event, oldest first (the outbox's order), so the disconnect bound can
        # leave out the one the writer takes next: see _unread_bytes.
        self._queued_sizes: deque[int] = deque()
        self.is_closing = False
        # Flow control: cleared while the peer reads slower than reply audio is produced. Then no paced
        # audio is released and no synthesized speech enters the session until the backlog drains.
        # While held the session's clock stands still (paced audio resumes where it stopped, not in a
        # burst): session time = loop time − time spent held.
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._held_at_ms: float | None = None
        self._held_total_ms = 0.0
        self.stt_lane = TranscriptionLane()  # bounded per session: see server/transcription_lane.py
        self._has_logged_backlog = False
        self.tts_lane: asyncio.Queue[Synthesize] = asyncio.Queue()
        self.brain_lane = BrainLane(resources.brain_executor, resources.tokens)
        if isinstance(session, RealtimeSession):  # (a replayed session's shadow answers inline)
            session.think_aside()
        self.timer: asyncio.TimerHandle | None = None
        self.timer_deadline_ms: float | None = None
        self._closer: asyncio.Task[None] | None = None
        self._writer_task: asyncio.Task[None] | None = None
        # (realtime_faults.attach() arms this session's faults)
        # Engine-side turn latencies for /metrics (loop time, seconds).
        self.stopped_at: float | None = None
        self.cancel_at: float | None = None
        self._mcp_jobs: set[asyncio.Task[None]] = set()  # MCP listings and calls under way

    # -- what a transport supplies -----------------------------------------------------------------

    async def read(self) -> None:
        """Receive from the client until it leaves (returning ends the session)."""
        raise NotImplementedError

    def parse(self, raw: str) -> ClientEvent:
        """One client JSON text → a typed event (``ProtocolError`` for bad input, or for a type this
        transport does not accept)."""
        return parse_client_event(raw, self.transport_name, self.session.view.input_format.type)

    # -- the clock and flow control ----------------------------------------------------------------

    def now_ms(self) -> float:
        """The session's clock: loop time, standing still while outgoing audio is held."""
        loop_ms = self.loop.time() * 1000.0 if self._held_at_ms is None else self._held_at_ms
        return loop_ms - self._held_total_ms

    def _hold(self) -> None:
        if self._held_at_ms is None:
            self._held_at_ms = self.loop.time() * 1000.0
            self._flowing.clear()

    def _resume(self) -> None:
        if self._held_at_ms is not None:
            self._held_total_ms += self.loop.time() * 1000.0 - self._held_at_ms
            self._held_at_ms = None
            self._flowing.set()
            self._on_timer()

    @property
    def _audio_high_water(self) -> int:
        """Unsent bytes above which reply audio is held back (a quarter of the disconnect bound)."""
        return self.settings.max_send_backlog_bytes // 4

    @property
    def _unread_bytes(self) -> int:
        """What the disconnect bound judges, before a step's events are queued: the events queued behind
        the next one to go out (the one being written is no longer counted either). A reply larger than
        the bound answers a request the limits allowed (the retrieval of a 300 s user item carries 19 MB
        of base64; a long text item is echoed twice, in ``added`` and ``done``), not a peer that stopped
        reading: it is sent, and only what a peer leaves unread behind it counts. Memory stays bounded
        by the bound, one step's events and the event at the head of the queue."""
        head = self._queued_sizes[0] if self._queued_sizes else 0
        return self.backlog_bytes - head

    @property
    def is_flow_held(self) -> bool:
        return not self._flowing.is_set()

    # -- steps from the core -----------------------------------------------------------------------

    def apply(self, step: Step) -> None:
        if self.is_closing:
            return  # the session is ending: nothing more goes out or starts
        left_unread = self._unread_bytes  # judged before this step's own events join the queue
        for event in step.events:
            try:  # codec.dumps_utf8's usual case inline: one Python call fewer per event (eighth pass)
                data = orjson.dumps(event)
            except TypeError:
                data = codec.dumps_utf8(event)
            self.backlog_bytes += len(data)
            self._queued_sizes.append(len(data))
            self.outbox.put_nowait((event, data))
        transcribes = False
        for effect in step.effects:
            if isinstance(effect, Transcribe):
                self.stt_lane.put_nowait(effect)
                transcribes = True
            elif isinstance(effect, Synthesize):
                self.tts_lane.put_nowait(effect)
            elif isinstance(effect, Think | CountTexts):
                self.brain_lane.ask(effect)
            elif isinstance(effect, ListMcpTools | CallMcpTool):
                job = asyncio.ensure_future(self._mcp(effect))
                self._mcp_jobs.add(job)
                job.add_done_callback(self._mcp_jobs.discard)
            elif isinstance(effect, Trace):
                if log.isEnabledFor(logging.INFO):  # (json.dumps would run for nothing)
                    log.info("%s %s %s", self.session_id, effect.kind, json.dumps(effect.data))
                self.tracer.write(self.trace_name, effect.kind, effect.data)
                if self.journal is not None:
                    self.journal.engine(effect.kind, effect.data)
                if effect.kind == "reply":  # a scenario rule may fire a fault (faults.ws.on_rule)
                    self.faults.on_rule(str(effect.data.get("rule")), effect.data.get("response_id"))
        if transcribes or (step.events and self.stt_lane.queued):
            # (a commit can make a waiting pause probe the turn's transcript: it counts from then on)
            self._bound_transcriptions()
        if left_unread > self.settings.max_send_backlog_bytes:
            log.warning(
                "session %s: disconnecting a peer that does not read (%d bytes of events unsent, limit %d)",
                self.session_id,
                left_unread,
                self.settings.max_send_backlog_bytes,
            )
            self.shutdown(1008, "slow reader: too many unsent events", flush=False)
            return
        if self.backlog_bytes > self._audio_high_water:
            self._hold()
        self._arm_timer()

    def _bound_transcriptions(self) -> None:
        """At most ``max_pending_transcriptions`` item transcriptions wait per session: the oldest beyond
        it are reported failed (``…input_audio_transcription.failed``, ``transcription_backlog``)."""
        limit = self.settings.max_pending_transcriptions
        session = self.session
        for job in self.stt_lane.bound(limit, session.is_wanted, session.is_item_transcript):
            if not self._has_logged_backlog:  # once a session: under overload every turn would log
                self._has_logged_backlog = True
                log.info(
                    "session %s: more than %d transcriptions waiting for whisper; the oldest fail "
                    "(transcription_backlog), counted in mockengine_server_events",
                    self.session_id,
                    limit,
                )
            self.apply(session.on_transcription_backlog(job.key, limit, self.now_ms()))

    def _arm_timer(self) -> None:
        deadline = self.session.next_deadline_ms()
        if deadline == self.timer_deadline_ms and self.timer is not None:
            return  # unchanged (the usual case on the 20 ms audio path): keep the armed timer
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.timer_deadline_ms = deadline
        if deadline is not None and not self.is_closing:
            at_s = (deadline + self._held_total_ms) / 1000.0
            self.timer = self.loop.call_at(max(at_s, self.loop.time()), self._on_timer)

    def _on_timer(self) -> None:
        self.timer = None
        self.timer_deadline_ms = None
        if not self._flowing.is_set():
            return  # held: the writer ticks again once the peer has read the backlog down
        try:
            self.apply(self.session.tick(self.now_ms()))
        except Exception:
            log.exception("session %s failed in a timer", self.session_id)
            self.shutdown(1011, "internal error")

    def formats(self) -> tuple[str, str]:
        view = self.session.view
        return view.input_format.type, view.output_format.type

    # -- client input ------------------------------------------------------------------------------

    def on_client_text(self, raw: str) -> None:
        """One client JSON event, whatever carried it: journal, parse, count, trace, into the core (after
        the reply the brain is working out, ``brain_lane``)."""
        if self.brain_lane.is_busy:
            self.brain_lane.waiting.append(raw)
            return
        if self.journal is not None:
            input_format, output_format = self.formats()
            self.journal.client_text(raw, input_format, output_format)
        if self.tracer.is_enabled:  # before the parse: a refused event is traced beside its error
            self.tracer.write(self.trace_name, "client_event", loggable_client_event(raw))
        audio = bare_append_audio(raw)
        if audio is not None:
            # A bare append (``type`` and canonical base64 ``audio`` only, 50 a second per session): what
            # the plain path below does with it, without its parse call or the format's look-up.
            metrics.CLIENT_EVENT_COUNTER.count(APPEND_TYPE)
            step = self.session.receive_audio(audio, None, self.now_ms())
            if step.events or step.effects:
                self.apply(step)
            return
        try:
            plain = parse_plain_append(raw, self.session.view.input_format.type)
            event = self.parse(raw) if plain is None else None
        except ProtocolError as exc:
            metrics.CLIENT_EVENT_COUNTER.count("invalid")
            self.apply(self.session.error(exc, self.now_ms()))
            return
        metrics.CLIENT_EVENT_COUNTER.count(APPEND_TYPE if event is None else event.type)
        if isinstance(event, ResponseCancel):
            self.cancel_at = self.loop.time()
        if event is not None:
            self.receive(event)
            return
        # A plain append (50 a second per session): no event object, no dispatch (see receive()).
        assert plain is not None
        audio, event_id = plain  # (unpacked here: `*plain` in the call builds a new argument tuple)
        step = self.session.receive_audio(audio, event_id, self.now_ms())
        if step.events or step.effects:
            self.apply(step)

    def receive(self, event: ClientEvent) -> None:
        step = self.session.receive(event, self.now_ms())
        if step.events or step.effects or not isinstance(event, InputAudioBufferAppend):
            # An append that emits and asks for nothing (most of them) changes no deadline
            # either (appends move none; see RealtimeSession.next_deadline_ms): no apply.
            self.apply(step)

    # -- server output -----------------------------------------------------------------------------

    async def writer(self) -> None:
        outbox = self.outbox
        pending = outbox.queued  # taken directly while not empty (`await outbox.get()` made a coroutine)
        held = False
        while (queued := pending.popleft() if pending else await outbox.get()) is not None:
            event, data = queued
            self.backlog_bytes -= len(data)
            self._queued_sizes.popleft()
            # Events queued together (a paced tick's transcript and audio deltas, a reply's opening and
            # closing events) leave in one socket write: the same bytes, one system call (issue 15,
            # seventeenth pass). Only with no fault armed: a fault may wait, and held bytes would wait too.
            if not held and self._may_batch():
                held = self.hold_sends()
            await self.send_filtered(event, data)
            if held and not self._may_batch():  # (looked at again: the send may have let a fault in)
                held = False
                await self.release_sends()
            if self.is_flow_held and self.backlog_bytes <= self._audio_high_water // 2:
                if held:  # (written before the session goes on: _resume may queue, close or cut)
                    held = False
                    await self.release_sends()
                self._resume()
        if held:
            await self.release_sends()

    def _may_batch(self) -> bool:
        """More events wait behind the one being sent and no fault is armed (a fault may wait, and held
        bytes would wait with it): the writer may hold their frames for one socket write."""
        return bool(self.outbox.queued) and not self.faults.specs and not self.faults.is_dead

    def _observe(self, kind: str) -> None:
        """Count the event (the shell's) and time the engine's turns: speech stopped → the reply's first
        audio, ``response.cancel`` → its ``response.done``."""
        metrics.SERVER_EVENT_COUNTER.count(kind)  # the shell's _observe, without a super() call per event
        if kind == "input_audio_buffer.speech_stopped":
            self.stopped_at = self.loop.time()
        elif kind == "response.output_audio.delta" and self.stopped_at is not None:
            metrics.TURN_LATENCY.labels(stage="response_start").observe(self.loop.time() - self.stopped_at)
            self.stopped_at = None
        elif kind == "response.done" and self.cancel_at is not None:
            metrics.TURN_LATENCY.labels(stage="cancel").observe(self.loop.time() - self.cancel_at)
            self.cancel_at = None

    # -- model workers -----------------------------------------------------------------------------

    async def stt_worker(self) -> None:
        while True:
            job = await self.stt_lane.get()
            if not self.session.is_wanted(job.key):
                continue
            transcriber = engine_for(job, self.resources.transcriber, self.resources.turn_transcriber)
            try:
                # A cached transcript skips the whisper queue (the lookup only hashes the audio); a probe's
                # prosody still runs in the executor, with or without whisper.
                lookup = getattr(transcriber, "lookup", None)
                cached: Transcript | None = (
                    lookup(job.pcm16, language=job.language, prompt=job.prompt) if lookup else None
                )
                if cached is not None and job.prosody_at_ms is None:
                    heard = Heard(cached)
                else:
                    heard = await self.loop.run_in_executor(
                        self.resources.stt_executor,
                        functools.partial(run_transcribe, transcriber, job, cached),
                    )
            except Exception as exc:  # an engine failure is reported in the protocol's own shape
                log.exception("transcription failed")
                self.apply(self.session.on_transcript_failed(job.key, str(exc), self.now_ms()))
                continue
            result = heard.transcript
            self.apply(
                self.session.on_transcript(
                    job.key, result.text, self.now_ms(), result.words, heard.prosody, result.language
                )
            )

    async def tts_worker(self) -> None:
        synthesizer = self.resources.synthesizer
        while True:
            job = await self.tts_lane.get()
            if not self.session.is_wanted(job.key):
                continue
            try:
                # Cached speech skips the thread pool and its queue.
                lookup = getattr(synthesizer, "lookup", None)
                segments: list[SpeechSegment] | None = (
                    lookup(job.text, voice=job.voice, speed=job.speed) if lookup else None
                )
                if segments is None:
                    segments = await self.loop.run_in_executor(
                        self.resources.tts_executor,
                        functools.partial(synthesizer.synthesize, job.text, voice=job.voice, speed=job.speed),
                    )
            except Exception as exc:
                log.exception("speech synthesis failed")
                self.apply(self.session.on_speech_failed(job.key, str(exc), self.now_ms()))
                continue
            pcm = b"".join(segment.pcm16 for segment in segments)
            await self._flowing.wait()  # speech enters the session (and goes out) as the peer reads
            self.apply(self.session.on_speech(job.key, pcm, self.now_ms()))

    async def _mcp(self, job: ListMcpTools | CallMcpTool) -> None:
        """List or call a hosted MCP server's tools (``server/mcp_client.py``); its failure is the
        protocol's (``mcp_list_tools.failed``, ``response.mcp_call.failed``), the session goes on."""
        timeout_s = self.settings.mcp_timeout_s
        try:
            if isinstance(job, ListMcpTools):
                try:
                    tools: list[dict[str, Any]] | None = await mcp_client.list_tools(job.server, timeout_s)
                except mcp_client.McpFailure as exc:
                    log.info(
                        "session %s: listing MCP server %s failed: %s",
                        self.session_id,
                        job.server.server_label,
                        exc,
                    )
                    tools = None
                if self.session.is_wanted(job.key):
                    self.apply(self.session.on_mcp_tools(job.key, tools, self.now_ms()))
                return
            output, error = None, None
            try:
                output = await mcp_client.call_tool(job.server, job.name, job.arguments, timeout_s)
            except mcp_client.McpFailure as exc:
                error = exc.error
            if self.session.is_wanted(job.key):
                self.apply(self.session.on_mcp_call(job.key, output, error, self.now_ms()))
        except Exception:
            log.exception("session %s failed handling an MCP result", self.session_id)
            self.shutdown(1011, "internal error")

    def _on_reply(self, job: Think | CountTexts, outcome: Reply | Exception | None) -> None:
        if isinstance(job, CountTexts):
            self.apply(self.session.on_counted(job.key, self.now_ms()))
        else:
            assert outcome is not None  # a Think's job returns the reply or the error that fails it
            self.apply(self.session.on_reply(job.key, outcome, self.now_ms()))

    # -- lifetime ----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Serve the session until the client leaves. Should the engine itself fail (a bug, never client
        input), the failure is logged and the connection closed with 1011 rather than left hanging."""
        self.apply(self.session.start())
        writer = self._writer_task = asyncio.create_task(self.writer())
        writer.add_done_callback(self._on_writer_done)
        thinking = self.brain_lane.run(self._on_reply, self.on_client_text)
        tasks = [
            asyncio.create_task(c) for c in (self.read(), self.stt_worker(), self.tts_worker(), thinking)
        ]
        expiry = self.arm_expiry()
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            failure = next((t.exception() for t in done if not t.cancelled() and t.exception()), None)
            if failure is not None:
                log.error("session %s failed", self.session_id, exc_info=failure)
                self.shutdown(1011, "internal error")
            if self._closer is not None:
                await asyncio.wait([self._closer], timeout=2.0)
        finally:
            expiry.cancel()
            self.is_closing = True
            if self.timer is not None:
                self.timer.cancel()
            self.outbox.put_nowait(None)
            await asyncio.wait([writer], timeout=1.0)
            for task in [writer, *tasks, *self._mcp_jobs]:
                task.cancel()
            if self._closer is not None:
                self._closer.cancel()
            await asyncio.gather(writer, *tasks, *[t for t in [self._closer] if t], return_exceptions=True)
            self.session.close()  # its items, audio and buffers go now, not at the next full collection
            self.close_records()

    def _on_writer_done(self, writer: asyncio.Task[None]) -> None:
        """A writer that failed (a bug) sends nothing more: the session is closed with 1011 and the failure
        logged, as for the other tasks. It was noticed only at the session's end: a call whose writer
        died (an event aiortc refused to send) stayed open and silent."""
        if writer.cancelled() or writer.exception() is None:
            return
        log.error("session %s: its writer failed", self.session_id, exc_info=writer.exception())
        self.shutdown(1011, "internal error", flush=False)

    def expire(self) -> None:
        """The maximum duration is reached (reference §0), or a ``session_expired`` fault:
        ``session_expired``, then close 1001 once what is queued is out."""
        error = self.expiry_error()
        self.apply(self.session.error(error))
        self.shutdown(EXPIRED_CLOSE_CODE, error.message)

    def shutdown(self, code: int, reason: str, *, flush: bool = True) -> None:
        """End the session from the server side: no more input or events; what is queued goes out first
        (``flush``), then the close. A peer that does not read (``flush=False``) gets the close if the
        transport takes it within a second, else the connection is aborted."""
        if self.is_closing:
            return
        self.is_closing = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self._closer = asyncio.ensure_future(self._close(code, reason, flush))

    async def _close(self, code: int, reason: str, flush: bool) -> None:
        if flush and self._writer_task is not None:
            self.outbox.put_nowait(None)  # the writer sends what is queued, then stops
            await asyncio.wait([self._writer_task], timeout=2.0)
        await self.close_or_abort(code, reason)
