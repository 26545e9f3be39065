"""``GET /v1/realtime``: the thin asyncio shell around one :class:`RealtimeSession`.

The shell owns the socket, the clock and the workers. Per session it keeps one ordered writer (events go
out in the order the core produced them), one serial transcription lane and one serial speech lane (so
results come back in the order the core asked for them, which keeps seeded sessions deterministic), and
one timer for paced audio. Model calls never run on the event loop: whisper has a thread of its own
(it runs one call at a time), piper a small pool. Jobs whose results can no longer matter (a cancelled
reply's sentences, a pause the speaker already talked through) are skipped.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from typing import Any

from aiohttp import WSMsgType, web

from mockengine.brain.image import describe_image
from mockengine.brain.selection import MODEL_PREFIX, UnknownScenario
from mockengine.faults.shell import attach, connection_faults, detach
from mockengine.faults.ws import NoActions, SessionFaults
from mockengine.ids import IdFactory
from mockengine.protocol import errors
from mockengine.protocol.client_events import parse_client_event
from mockengine.protocol.errors import ProtocolError
from mockengine.realtime.effects import Step, Synthesize, Trace, Transcribe
from mockengine.realtime.response import Pacing
from mockengine.realtime.session import RealtimeSession, SessionOptions
from mockengine.server.client_secrets import CLIENT_SECRETS, resolve_client_secret
from mockengine.server.handshake import Refusal, api_key_from, check_connection
from mockengine.server.resources import Resources
from mockengine.server.state import RESOURCES, STATS, TRACER
from mockengine.server.trace import Tracer

log = logging.getLogger("mockengine.session")
# A 15 MiB append is 20 MiB of base64; a frame up to this size gets a proper error, a larger one closes
# the socket (1009, message too big).
MAX_FRAME_BYTES = 32 * 1024 * 1024


class SessionRunner:
    def __init__(
        self, ws: web.WebSocketResponse, session: RealtimeSession, resources: Resources, tracer: Tracer
    ) -> None:
        self.ws = ws
        self.session = session
        self.resources = resources
        self.tracer = tracer
        self.loop = asyncio.get_running_loop()
        self.outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.stt_lane: asyncio.Queue[Transcribe] = asyncio.Queue()
        self.tts_lane: asyncio.Queue[Synthesize] = asyncio.Queue()
        self.timer: asyncio.TimerHandle | None = None
        self.session_id = session.config["id"]
        self.faults = SessionFaults([], NoActions())  # faults.shell.attach() arms this session's faults

    def now_ms(self) -> float:
        return self.loop.time() * 1000.0

    def apply(self, step: Step) -> None:
        for event in step.events:
            self.outbox.put_nowait(event)
        for effect in step.effects:
            if isinstance(effect, Transcribe):
                self.stt_lane.put_nowait(effect)
            elif isinstance(effect, Synthesize):
                self.tts_lane.put_nowait(effect)
            elif isinstance(effect, Trace):
                log.info("%s %s %s", self.session_id, effect.kind, json.dumps(effect.data))
                self.tracer.write(self.session_id, effect.kind, effect.data)
                if effect.kind == "reply":  # a scenario rule may fire a fault (faults.ws.on_rule)
                    self.faults.on_rule(str(effect.data.get("rule")), effect.data.get("response_id"))
        self._arm_timer()

    def _arm_timer(self) -> None:
        deadline = self.session.next_deadline_ms()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if deadline is not None:
            self.timer = self.loop.call_at(max(deadline / 1000.0, self.loop.time()), self._on_timer)

    def _on_timer(self) -> None:
        self.timer = None
        try:
            self.apply(self.session.tick(self.now_ms()))
        except Exception:
            log.exception("session %s failed in a timer", self.session_id)
            asyncio.ensure_future(self._close_after_flush(1011, "internal error"))

    async def writer(self) -> None:
        while (event := await self.outbox.get()) is not None:
            # Injected faults may delay, hold, drop or rewrite an event, or act once it is out.
            for out in await self.faults.before_send(event):
                if not await self._send(out):
                    return
                for extra in await self.faults.after_send(out):
                    if not await self._send(extra):
                        return

    async def _send(self, event: dict[str, Any]) -> bool:
        if self.ws.closed:
            return False
        if self.tracer.is_enabled:
            self.tracer.write(self.session_id, "server_event", event)
        try:
            await self.ws.send_str(json.dumps(event, ensure_ascii=False))
        except ConnectionError:
            return False  # the client went away; the reader ends the session
        return True

    async def stt_worker(self) -> None:
        transcriber = self.resources.transcriber
        while True:
            job = await self.stt_lane.get()
            if not self.session.is_wanted(job.key):
                continue
            try:
                result = await self.loop.run_in_executor(
                    self.resources.stt_executor,
                    functools.partial(
                        transcriber.transcribe, job.pcm16, language=job.language, prompt=job.prompt
                    ),
                )
            except Exception as exc:  # an engine failure is reported in the protocol's own shape
                log.exception("transcription failed")
                self.apply(self.session.on_transcript_failed(job.key, str(exc), self.now_ms()))
                continue
            self.apply(self.session.on_transcript(job.key, result.text, self.now_ms()))

    async def tts_worker(self) -> None:
        synthesizer = self.resources.synthesizer
        while True:
            job = await self.tts_lane.get()
            if not self.session.is_wanted(job.key):
                continue
            try:
                segments = await self.loop.run_in_executor(
                    self.resources.tts_executor,
                    functools.partial(synthesizer.synthesize, job.text, voice=job.voice, speed=job.speed),
                )
            except Exception as exc:
                log.exception("speech synthesis failed")
                self.apply(self.session.on_speech_failed(job.key, str(exc), self.now_ms()))
                continue
            pcm = b"".join(segment.pcm16 for segment in segments)
            self.apply(self.session.on_speech(job.key, pcm, self.now_ms()))

    async def reader(self) -> None:
        async for msg in self.ws:
            await self.faults.reader_gate()  # a dead peer (fault) reads nothing more
            if msg.type == WSMsgType.TEXT:
                try:
                    event = parse_client_event(msg.data)
                except ProtocolError as exc:
                    self.apply(self.session.error(exc))
                    continue
                if self.tracer.is_enabled:  # the audio path runs 50 × a second: no second parse
                    self.tracer.write(self.session_id, "client_event", _loggable(msg.data))
                self.apply(self.session.receive(event, self.now_ms()))
            elif msg.type == WSMsgType.BINARY:
                self.apply(self.session.error(errors.binary_frame()))
            elif msg.type == WSMsgType.ERROR:
                log.warning("websocket error: %s", self.ws.exception())
                return

    async def run(self) -> None:
        """Serve the session until the client leaves. Should the engine itself fail (a bug, never client
        input), the failure is logged and the socket closed with 1011 rather than left hanging."""
        self.apply(self.session.start())
        writer = asyncio.create_task(self.writer())
        tasks = [asyncio.create_task(coro) for coro in (self.reader(), self.stt_worker(), self.tts_worker())]
        expiry = self.loop.call_later(self.resources.settings.session_max_s, self._expire)
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            failure = next((t.exception() for t in done if not t.cancelled() and t.exception()), None)
            if failure is not None:
                log.error("session %s failed", self.session_id, exc_info=failure)
                await self._close_after_flush(1011, "internal error")
        finally:
            expiry.cancel()
            if self.timer is not None:
                self.timer.cancel()
            self.outbox.put_nowait(None)
            await asyncio.wait([writer], timeout=1.0)
            for task in [writer, *tasks]:
                task.cancel()
            await asyncio.gather(writer, *tasks, return_exceptions=True)

    def _expire(self) -> None:
        minutes = self.resources.settings.session_max_s // 60
        self.apply(self.session.error(errors.session_expired(minutes)))
        self.outbox.put_nowait(None)
        asyncio.ensure_future(
            self._close_after_flush(1001, f"Your session hit the maximum duration of {minutes} minutes.")
        )

    async def _close_after_flush(self, code: int, reason: str) -> None:
        await asyncio.sleep(0.05)
        await self.ws.close(code=code, message=reason.encode()[:120])


def _loggable(raw: str) -> Any:
    """Client events for the trace, with audio payloads replaced by their size."""
    try:
        data = json.loads(raw)
    except ValueError:
        return raw[:200]
    if isinstance(data, dict) and isinstance(data.get("audio"), str):
        data["audio"] = f"<{len(data['audio'])} base64 chars>"
    return data


async def realtime_handler(request: web.Request) -> web.StreamResponse:
    resources = request.app[RESOURCES]
    fault_specs = connection_faults(request)
    if isinstance(fault_specs, web.StreamResponse):
        return fault_specs  # a refused upgrade (fault) or a bad ?fault=
    protocols = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    ws = web.WebSocketResponse(
        protocols=("realtime",),
        max_msg_size=MAX_FRAME_BYTES,
        heartbeat=resources.settings.heartbeat_s,
        compress=False,
    )
    await ws.prepare(request)
    settings = resources.settings
    api_key = api_key_from(request.headers, protocols)
    # An ek_ client secret stands in for the API key and brings its session config (and model).
    secret, refusal = resolve_client_secret(request.app[CLIENT_SECRETS], api_key)
    model = request.query.get("model")
    if secret is not None and ("model" in secret.session or not model):
        model = secret.model  # the minting server chose it (reference §9: either is accepted)
    # A model named after a loaded scenario ("mockengine-NAME") selects it and is accepted as a model.
    scenario_model = resources.scenarios.for_model(model)
    refusal = refusal or check_connection(
        api_key,
        "gpt-realtime" if scenario_model is not None else model,
        request.headers.get("OpenAI-Beta")
        or next((p for p in protocols if p.startswith("openai-beta.")), None),
        None if secret is not None else settings.api_key,
    )
    seed = _session_seed(request, settings.seed)
    ids = IdFactory(seed)
    brain = None
    if refusal is None:
        try:
            brain = resources.brain(
                seed,
                model=model,
                api_key=api_key,
                scenario=request.query.get("scenario"),
                role=request.query.get("role"),
            )
        except UnknownScenario as exc:
            refusal = Refusal(ProtocolError("unknown_scenario", str(exc), "scenario"), 4000)
    if refusal is not None and model and model.startswith(MODEL_PREFIX) and scenario_model is None:
        # "mockengine-NAME" names a scenario that is not loaded: say so rather than "unsupported model".
        message = f"Unknown scenario '{model[len(MODEL_PREFIX) :]}' in model '{model}'. Loaded scenarios: "
        message += ", ".join(resources.scenarios.names()) + "."
        refusal = Refusal(ProtocolError("unknown_scenario", message, "model"), 4000)
    if refusal is not None or brain is None:
        assert refusal is not None
        event = {"type": "error", "event_id": ids.event(), "error": refusal.error.payload()}
        await ws.send_str(json.dumps(event))
        await ws.close(code=refusal.close_code, message=refusal.close_reason.encode())
        return ws
    options = SessionOptions(
        model=model or "gpt-realtime",
        pacing=Pacing(
            pace=settings.audio_pace,
            first_delta_delay_ms=settings.first_delta_delay_ms,
            delta_ms=settings.audio_delta_ms,
        ),
        session_max_s=settings.session_max_s,
        created_at_s=int(time.time()),
        voice=brain.scenario.persona_for(request.query.get("role")).voice,
        initial_session=secret.session if secret is not None else None,
    )
    session = RealtimeSession(
        options, brain=brain, ids=ids, tokens=resources.tokens, describe_image=describe_image
    )
    stats = request.app[STATS]
    stats.sessions_active += 1
    stats.sessions_total += 1
    runner = SessionRunner(ws, session, resources, request.app[TRACER])
    attach(runner, request, fault_specs)
    try:
        await runner.run()
    finally:
        detach(runner, request)
        stats.sessions_active -= 1
    return ws


def _session_seed(request: web.Request, default: int | None) -> int | None:
    """``?seed=N`` on the URL overrides the server's seed for this session (handy for tests)."""
    raw = request.query.get("seed")
    try:
        return int(raw) if raw is not None and raw.isascii() else default
    except ValueError:
        return default
