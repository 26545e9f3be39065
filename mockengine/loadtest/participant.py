"""One simulated participant: an open microphone at real-time pace, spoken turns, barge-ins, and timing.

The microphone sends one 20 ms ``input_audio_buffer.append`` (PCM16 24 kHz, 960 bytes) on a fixed
schedule from ``loop.time()`` (send jitter never accumulates; a late chunk is sent at once and counted as
late, which tells the driver itself fell behind). Between turns it sends silence. Every ~``turn_every_s``
(jittered by a seeded generator) it plays one of the speech clips, waits for the engine's reply, and with
probability ``barge_in`` interrupts the reply shortly after its first audio with ``response.cancel``
while starting to speak again — what a platform does when its user talks over the agent.

Figures per turn (all wall-clock, measured by the client):
* ``onset_ms``: the chunk holding the clip's speech onset sent → ``input_audio_buffer.speech_started``;
* ``response_ms``: ``speech_stopped`` received → first ``response.output_audio.delta`` received;
* ``cancel_ms``: ``response.cancel`` sent → ``response.done`` received;
* ``gaps_ms``: time between consecutive server events of a response (``response.created`` … ``done``).

Against the bare baseline server (``mode="baseline"``) one append a second carries an ``event_id`` that
the server acknowledges; ``ack_ms`` is that round trip.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson

from mockengine.conformance.audio import Clip

CHUNK_MS = 20
CHUNK_BYTES = 24_000 * 2 * CHUNK_MS // 1000
# Errors that are races of a correct client, not failures: cancelling a reply that just finished.
BENIGN_ERRORS = frozenset({"response_cancel_not_active"})
# How long a participant waits after its stop time for a reply under way to finish.
DRAIN_S = 30.0
# A turn without speech_started / response after this long counts as missed.
TURN_TIMEOUT_S = 15.0


def append_message(pcm: bytes, event_id: str | None = None) -> str:
    event: dict[str, Any] = {"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm).decode()}
    if event_id is not None:
        event["event_id"] = event_id
    return json.dumps(event)


@dataclass(frozen=True)
class ClipMessages:
    """A clip cut into ready-to-send 20 ms append messages (the driver encodes each once)."""

    clip: Clip
    messages: tuple[str, ...]
    onset_chunk: int  # index of the chunk holding the speech onset

    @classmethod
    def of(cls, clip: Clip) -> ClipMessages:
        pcm = clip.pcm + bytes(-len(clip.pcm) % CHUNK_BYTES)
        messages = tuple(append_message(pcm[i : i + CHUNK_BYTES]) for i in range(0, len(pcm), CHUNK_BYTES))
        return cls(clip, messages, int(clip.speech_onset_ms // CHUNK_MS))


SILENCE = append_message(bytes(CHUNK_BYTES))
PROBE = append_message(bytes(CHUNK_BYTES), event_id="probe")


@dataclass
class TurnRecord:
    at_s: float  # seconds since the run started
    concurrency: int  # sessions connected when the turn started
    clip: str
    onset_ms: float | None = None
    response_ms: float | None = None
    cancel_ms: float | None = None
    barged_in: bool = False


@dataclass
class SessionResult:
    index: int
    connected: bool = False
    refused: bool = False  # HTTP 503 before the upgrade (admission control)
    dropped: bool = False  # closed by the server or the network before its time
    connect_ms: float | None = None
    turns: list[TurnRecord] = field(default_factory=list)
    gaps_ms: list[float] = field(default_factory=list)
    acks_ms: list[tuple[float, int, float]] = field(default_factory=list)  # (at_s, concurrency, ms)
    errors: Counter[str] = field(default_factory=Counter)
    lost_events: Counter[str] = field(default_factory=Counter)  # by reason
    missed_turns: int = 0  # turns without speech_started or without reply audio
    chunks_sent: int = 0
    chunks_late: int = 0


@dataclass
class RunState:
    """Shared by every participant of a run: the clock origin and live counters for the progress line."""

    t0: float
    active: int = 0
    results: list[SessionResult] = field(default_factory=list)


class Participant:
    def __init__(
        self,
        index: int,
        url: str,
        clips: list[ClipMessages],
        run: RunState,
        *,
        seed: int,
        turn_every_s: float,
        barge_in: float,
        mode: str = "realtime",
        api_key: str = "sk-bench",
        silence_duration_ms: int = 500,
    ) -> None:
        self.url = url
        self.clips = clips
        self.run_state = run
        self.rng = random.Random(seed * 1_000_003 + index)
        self.turn_every_s = turn_every_s
        self.barge_in = barge_in
        self.is_baseline = mode == "baseline"
        self.headers = {"Authorization": f"Bearer {api_key}"}
        self.silence_duration_ms = silence_duration_ms
        self.result = SessionResult(index)
        self.loop = asyncio.get_running_loop()
        self.ready = asyncio.Event()
        # Microphone: the clip being played (its messages) and where in it we are.
        self.playing: deque[str] = deque()
        self.turn: TurnRecord | None = None
        self.onset_chunk_left: int | None = None
        self.onset_sent_at: float | None = None
        self.stopped_at: float | None = None
        self.first_audio_seen = False
        self.turn_started_at = 0.0
        self.next_turn_at = 0.0
        # Responses: open ids, the last event time of each, and a pending barge-in.
        self.open_responses: dict[str, float] = {}
        self.created_at: dict[str, float] = {}
        self.audio_deltas: Counter[str] = Counter()
        self.cancel_due_at: float | None = None
        self.cancel_sent_at: float | None = None
        self.speech_open = 0
        self.probes: deque[float] = deque()

    def _now_s(self) -> float:
        return self.loop.time() - self.run_state.t0

    async def run(self, http: aiohttp.ClientSession, start_s: float, stop_s: float) -> SessionResult:
        await asyncio.sleep(max(0.0, self.run_state.t0 + start_s - self.loop.time()))
        began = self.loop.time()
        try:
            ws = await http.ws_connect(self.url, headers=self.headers, max_msg_size=0, autoping=True)
        except aiohttp.WSServerHandshakeError as exc:
            self.result.refused = exc.status == 503
            self.result.errors[f"http_{exc.status}"] += 1
            return self.result
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            self.result.errors[type(exc).__name__] += 1
            return self.result
        self.result.connected = True
        self.result.connect_ms = (self.loop.time() - began) * 1000
        self.run_state.active += 1
        reader = asyncio.create_task(self._read(ws))
        try:
            await asyncio.wait_for(self.ready.wait(), 10.0)
            if not self.is_baseline:
                await ws.send_str(json.dumps(self._session_update()))
            self.next_turn_at = self.loop.time() + self.rng.uniform(0.2, 1.0) * self.turn_every_s
            await self._microphone(ws, self.run_state.t0 + stop_s)
        except (TimeoutError, ConnectionError, RuntimeError):
            self.result.dropped = True
        finally:
            self.run_state.active -= 1
            if not ws.closed:
                await ws.close()
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        self.result.lost_events["response_without_done"] += len(self.open_responses)
        self.result.lost_events["speech_started_without_stopped"] += max(0, self.speech_open)
        if not self.is_baseline:
            self.result.missed_turns = sum(
                1 for t in self.result.turns if t.onset_ms is None or t.response_ms is None
            )
        return self.result

    def _session_update(self) -> dict[str, Any]:
        detection = {"type": "server_vad", "silence_duration_ms": self.silence_duration_ms}
        session = {"type": "realtime", "audio": {"input": {"turn_detection": detection}}}
        return {"type": "session.update", "session": session}

    # -- microphone -----------------------------------------------------------------------------------

    async def _microphone(self, ws: aiohttp.ClientWebSocketResponse, stop_at: float) -> None:
        base = self.loop.time()
        k = 0
        drain_until = stop_at + DRAIN_S
        while True:
            target = base + (k + 1) * CHUNK_MS / 1000
            delay = target - self.loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -CHUNK_MS / 1000:
                self.result.chunks_late += 1
            if ws.closed:
                raise ConnectionError("closed by the server")
            now = self.loop.time()
            if now >= stop_at and self._is_idle() or now >= drain_until:
                return
            await ws.send_str(self._next_message(now, k, is_stopping=now >= stop_at))
            self.result.chunks_sent += 1
            k += 1
            if self.cancel_due_at is not None and now >= self.cancel_due_at:
                await self._barge_in(ws, now)

    def _is_idle(self) -> bool:
        """Nothing playing, no reply under way or awaited (a turn gives up after TURN_TIMEOUT_S)."""
        turn = self.turn
        is_awaiting = (
            not self.is_baseline
            and turn is not None
            and turn.response_ms is None
            and self.loop.time() - self.turn_started_at < TURN_TIMEOUT_S
        )
        return not self.playing and not self.open_responses and self.speech_open <= 0 and not is_awaiting

    def _next_message(self, now: float, k: int, *, is_stopping: bool) -> str:
        if self.is_baseline and k % 50 == 0:
            self.probes.append(now)
            return PROBE
        if not self.playing and not is_stopping and now >= self.next_turn_at and self._is_idle():
            self._start_turn(now)
        if not self.playing:
            return SILENCE
        if self.onset_chunk_left is not None:
            if self.onset_chunk_left == 0:
                self.onset_sent_at = now
            self.onset_chunk_left -= 1
        return self.playing.popleft()

    def _start_turn(self, now: float, clip: ClipMessages | None = None) -> None:
        clip = clip or self.rng.choice(self.clips)
        self.turn = TurnRecord(round(self._now_s(), 3), self.run_state.active, clip.clip.name)
        self.result.turns.append(self.turn)
        self.playing.extend(clip.messages)
        self.onset_chunk_left = clip.onset_chunk
        self.onset_sent_at = None
        self.stopped_at = None
        self.first_audio_seen = False
        self.turn_started_at = now
        self.next_turn_at = now + self.rng.uniform(0.8, 1.2) * self.turn_every_s

    async def _barge_in(self, ws: aiohttp.ClientWebSocketResponse, now: float) -> None:
        self.cancel_due_at = None
        if not self.open_responses or self.turn is None:
            return
        self.turn.barged_in = True
        self.cancel_sent_at = now
        await ws.send_str(json.dumps({"type": "response.cancel"}))
        interrupt = next((c for c in self.clips if c.clip.name == "interrupt"), None)
        self._start_turn(now, interrupt)

    # -- server events ----------------------------------------------------------------------------------

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            self._on_event(orjson.loads(msg.data), self.loop.time())
        self.ready.set()  # unblock a participant still waiting for session.created

    def _on_event(self, event: dict[str, Any], now: float) -> None:
        kind = event.get("type", "")
        response_id = _response_id(event)
        if response_id is not None and response_id in self.open_responses:
            self.result.gaps_ms.append((now - self.open_responses[response_id]) * 1000)
            self.open_responses[response_id] = now
        if kind == "response.output_audio.delta":
            self._on_audio_delta(event, now)
        elif kind == "input_audio_buffer.speech_started":
            self.speech_open += 1
            if self.turn is not None and self.turn.onset_ms is None and self.onset_sent_at is not None:
                self.turn.onset_ms = (now - self.onset_sent_at) * 1000
        elif kind == "input_audio_buffer.speech_stopped":
            self.speech_open -= 1
            self.stopped_at = now
        elif kind == "response.created":
            self.open_responses[event["response"]["id"]] = now
            self.created_at[event["response"]["id"]] = now
        elif kind == "response.done":
            self._on_response_done(event["response"], now)
        elif kind == "ack":
            if self.probes:
                sent = self.probes.popleft()
                ack = (round(self._now_s(), 3), self.run_state.active, (now - sent) * 1000)
                self.result.acks_ms.append(ack)
        elif kind == "error":
            code = event.get("error", {}).get("code") or event.get("error", {}).get("type", "error")
            if code not in BENIGN_ERRORS:
                self.result.errors[str(code)] += 1
        elif kind == "session.created":
            self.ready.set()

    def _on_audio_delta(self, event: dict[str, Any], now: float) -> None:
        response_id = event.get("response_id", "")
        self.audio_deltas[response_id] += 1
        if self.first_audio_seen or self.turn is None or self.stopped_at is None:
            return
        if self.created_at.get(response_id, 0.0) < self.stopped_at:
            return  # audio of an earlier reply (e.g. the one being interrupted)
        self.first_audio_seen = True
        self.turn.response_ms = (now - self.stopped_at) * 1000
        if self.barge_in > 0 and self.rng.random() < self.barge_in:
            self.cancel_due_at = now + self.rng.uniform(0.2, 0.6)

    def _on_response_done(self, response: dict[str, Any], now: float) -> None:
        response_id = response.get("id", "")
        self.open_responses.pop(response_id, None)
        self.created_at.pop(response_id, None)
        status = response.get("status")
        if status == "completed" and not self.audio_deltas.pop(response_id, 0):
            modalities = response.get("output_modalities") or ["audio"]
            if "audio" in modalities:
                # A completed spoken reply whose audio never arrived.
                self.result.lost_events["completed_reply_without_audio"] += 1
        if status == "failed":
            self.result.errors["response_failed"] += 1
        if self.cancel_sent_at is not None:
            if status == "cancelled" and self.result.turns:
                # The cancelled reply belongs to the turn before the barge-in one.
                previous = self.result.turns[-2] if len(self.result.turns) > 1 else self.result.turns[-1]
                previous.cancel_ms = (now - self.cancel_sent_at) * 1000
            self.cancel_sent_at = None


def _response_id(event: dict[str, Any]) -> str | None:
    if "response_id" in event:
        return str(event["response_id"])
    response = event.get("response")
    if isinstance(response, dict) and event.get("type") == "response.done":
        return str(response.get("id"))
    return None
