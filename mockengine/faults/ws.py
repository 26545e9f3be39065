"""WebSocket faults of one Realtime session: a filter on the session's single writer.

The shell's writer hands every server event to :meth:`SessionFaults.before_send` (which may delay it,
hold it forever, drop or rewrite it) and then to :meth:`after_send` (which may close the socket, inject
an ``error``, fail the response or play dead). Timed faults (``close_after_ms``, ``session_expired``)
run on the loop. What the faults do to the socket goes through :class:`SessionActions`, implemented by
the shell, so this module never touches aiohttp.

A failed response (``response_failed``, or the refusal at the end of a ``rate_limits`` countdown): its
remaining deltas are dropped, the core is told to end it (so nothing more is synthesized) and its
``response.done`` goes out with ``status: "failed"`` and the error in ``status_details`` (reference §3,
the protocol's own failure shape). When the refusal comes at ``response.created`` the whole response is
dropped apart from ``response.created`` and the failed ``response.done`` (output ``[]``).
"""

from __future__ import annotations

import asyncio
import copy
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from mockengine.faults.spec import FaultSpec
from mockengine.protocol import server_events as se

SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"
log = logging.getLogger("mockengine.faults")
# How often a session playing dead checks whether its connection is gone (no callback tells it: the
# reader, which would see the close, is the one held).
GONE_POLL_S = 0.25
PER_RESPONSE = ("close_after_audio_delta", "error_mid_response", "response_failed")
OUTPUT_DELTAS = ("response.output_audio.delta", "response.output_text.delta")
# A translation session's output is one stream with no responses: its audio deltas are counted as the
# deltas of one response of this id (close_after_audio_delta, error_mid_response, datachannel_close).
TRANSLATION_AUDIO_DELTA = "session.output_audio.delta"
TRANSLATION_STREAM = "translation"
DROPPED_WHEN_FAILED = OUTPUT_DELTAS + (
    "response.output_audio_transcript.delta",
    "response.function_call_arguments.delta",
)


class SessionActions(Protocol):
    """What a fault can do to the session (implemented by the shell)."""

    async def close(self, code: int, reason: str) -> None: ...

    def kill(self) -> None: ...

    def fail_response(self, response_id: str, error: dict[str, Any]) -> None: ...

    def expire(self) -> None: ...

    def event_id(self) -> str: ...

    def model(self) -> str: ...

    def record(self, spec: FaultSpec | str, **detail: Any) -> None: ...

    def is_gone(self) -> bool: ...

    def draw(self, key: str, rate: float) -> bool: ...


@dataclass
class _Failure:
    error: dict[str, Any]
    drop_everything: bool  # refused at response.created: no output at all
    items: set[str]


def _response_id(event: dict[str, Any]) -> str | None:
    if "response_id" in event:
        return str(event["response_id"])
    response = event.get("response")
    return str(response["id"]) if isinstance(response, dict) and "id" in response else None


class SessionFaults:
    def __init__(
        self,
        specs: list[FaultSpec],
        actions: SessionActions,
        rule_faults: dict[str, tuple[FaultSpec, ...]] | None = None,
    ) -> None:
        self.specs: list[FaultSpec] = []
        self.only_response: list[str | None] = []  # per spec: the one response it is limited to
        self.armed_at: list[int] = []  # per spec: events sent when it was armed (counts start there)
        self.rule_faults = rule_faults or {}  # "scenario:<rule id>" → the rule's faults
        self.actions = actions
        self.events_sent = 0
        self.deltas: dict[str, int] = {}  # response id → output deltas sent
        self.audio_deltas: dict[str, int] = {}
        self.failures: dict[str, _Failure] = {}
        self.responses_done = 0
        self.is_dead = False
        self.rule_firings: dict[str, int] = {}
        self._dripping: list[FaultSpec] = []
        self._timers: list[asyncio.TimerHandle] = []
        self._close_task: asyncio.Future[None] | None = None  # kept so the task is not collected early
        self._loop: asyncio.AbstractEventLoop | None = None
        for spec in specs:
            self.arm(spec)

    def _first(self, kind: str) -> FaultSpec | None:
        return next((s for s in self.specs if s.kind == kind), None)

    # -- arming and timers ------------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the timed faults (call once the session runs)."""
        self._loop = loop
        for spec in self.specs:
            self._schedule(spec)

    def arm(self, spec: FaultSpec, response_id: str | None = None) -> None:
        """Add a fault (at connection time, or later from the control endpoint or a scenario rule);
        ``response_id`` limits a per-response kind to that response."""
        self.specs.append(spec)
        self.only_response.append(response_id if spec.kind in PER_RESPONSE else None)
        self.armed_at.append(self.events_sent)
        if self._loop is not None:
            self._schedule(spec)
        if spec.kind == "dead_peer" and self.events_sent >= spec["after_events"]:
            self._play_dead(spec)

    def on_rule(self, rule: str, response_id: str | None) -> None:
        """A scenario rule decided a reply: arm its ``fault:`` (per-response kinds for that reply only;
        a session-wide kind once, however often the rule fires)."""
        self.rule_firings[rule] = firing = self.rule_firings.get(rule, 0) + 1
        for spec in self.rule_faults.get(rule, ()):
            if spec.kind not in PER_RESPONSE and spec in self.specs:
                continue
            if not self.actions.draw(f"{rule}:{spec.kind}:{firing}", spec.rate):
                continue  # this firing is not hit (seeded)
            log.info("scenario rule %s arms fault %s", rule, spec.describe())
            self.arm(spec, response_id)

    def _applies(self, index: int, response_id: str) -> bool:
        return self.only_response[index] in (None, response_id)

    def _schedule(self, spec: FaultSpec) -> None:
        assert self._loop is not None
        if spec.kind == "close_after_ms":
            self._timers.append(
                self._loop.call_later(spec["ms"] / 1000.0, lambda: self._close_soon(spec, "timer"))
            )
        elif spec.kind == "session_expired":
            self._timers.append(self._loop.call_later(spec["ms"] / 1000.0, lambda: self._expire(spec)))

    def stop(self) -> None:
        """The session ended: timers off, and what was kept for its responses goes (a reply cut by the
        close, a hang-up or a fault never had its ``response.done`` sent, which would have dropped it)."""
        for timer in self._timers:
            timer.cancel()
        for response_id in {*self.deltas, *self.audio_deltas, *self.failures, *self.only_response}:
            if response_id is not None:
                self.end_response(response_id)

    def end_response(self, response_id: str) -> None:
        """``response_id`` brings no more events: its delta counts, its failure and the faults armed for
        it alone (a scenario rule's, one per firing) go. Kept, they grew with the session's length."""
        self.deltas.pop(response_id, None)
        self.audio_deltas.pop(response_id, None)
        self.failures.pop(response_id, None)
        for index in reversed(range(len(self.specs))):
            if self.only_response[index] == response_id:
                del self.specs[index], self.only_response[index], self.armed_at[index]

    def _close_soon(self, spec: FaultSpec, why: str) -> None:
        self.actions.record(spec, code=spec["code"], why=why)
        self._close_task = asyncio.ensure_future(self._close(spec))

    def _expire(self, spec: FaultSpec) -> None:
        self.actions.record(spec, ms=spec["ms"])
        self.actions.expire()

    async def _close(self, spec: FaultSpec) -> None:
        if spec["code"] == 1006:  # abnormal closure is never sent on the wire: drop the connection instead
            self.actions.kill()
        else:
            await self.actions.close(spec["code"], close_reason(spec.kind))

    def _play_dead(self, spec: FaultSpec) -> None:
        if not self.is_dead:
            self.is_dead = True
            self.actions.record(spec, after_events=self.events_sent)

    async def reader_gate(self) -> None:
        """Awaited by the reader before each frame: a dead peer reads nothing (so answers no pings) until
        its connection is gone — closed by the client, or by the server's own pings going unanswered
        (``heartbeat_s``) — and then returns, so the session ends like any other lost connection."""
        await self._until_gone()

    async def _until_gone(self) -> None:
        while self.is_dead and not self.actions.is_gone():
            await asyncio.sleep(GONE_POLL_S)

    # -- the writer filter ------------------------------------------------------------------------

    async def before_send(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The events to send in place of ``event`` (after any delay the faults ask for)."""
        if self.is_dead:
            await self._until_gone()
            return []  # nothing goes out to a dead peer, and its connection is gone now
        if not self.specs:  # every server event passes here (audio deltas too): nothing armed, nothing to do
            return [event]
        kind = event.get("type")
        for spec in self.specs:
            if spec.kind == "slow_drip":
                if spec not in self._dripping:  # logged once per session, not per event
                    self._dripping.append(spec)
                    self.actions.record(spec, ms=spec["ms"])
                await asyncio.sleep(spec["ms"] / 1000.0)
        if kind in ("session.created", "session.updated"):
            await self._hold(str(kind))
        if kind == "response.created":
            self._maybe_refuse(event)
        if kind == "rate_limits.updated":
            return [self._count_down(event)]
        rid = _response_id(event)
        failure = self.failures.get(rid) if rid else None
        if failure is None:
            failure = self._failure_of_item(event)
        if failure is not None:
            return self._apply_failure(event, failure)
        return [event]

    async def _hold(self, kind: str) -> None:
        name = kind.split(".")[1]  # created / updated
        withhold = self._first(f"withhold_session_{name}")
        if withhold is not None:
            self.actions.record(withhold)
            await asyncio.Event().wait()
        delay = self._first(f"delay_session_{name}")
        if delay is not None:
            self.actions.record(delay, ms=delay["ms"])
            await asyncio.sleep(delay["ms"] / 1000.0)

    def count_sent(self, event: dict[str, Any]) -> None:
        """What :meth:`after_send` does when no fault is armed, without a coroutine (every server event
        passes here): the counts a fault armed later starts from, and a finished response forgotten."""
        self.events_sent += 1
        self._count_response(event)

    def _count_response(self, event: dict[str, Any]) -> tuple[str, int, int | None] | None:
        """A finished response forgotten; an output delta counted: (its response id, its deltas so far,
        its audio deltas so far or None for another kind of delta), or None for any other event."""
        kind = event.get("type")
        if kind == "response.done":
            self.responses_done += 1
            self.end_response(str(event.get("response", {}).get("id")))
        if kind == TRANSLATION_AUDIO_DELTA:
            rid = TRANSLATION_STREAM
        elif kind in OUTPUT_DELTAS:
            rid = str(event["response_id"])
        else:
            return None
        self.deltas[rid] = count = self.deltas.get(rid, 0) + 1
        audio = None
        if kind in ("response.output_audio.delta", TRANSLATION_AUDIO_DELTA):
            self.audio_deltas[rid] = audio = self.audio_deltas.get(rid, 0) + 1
        return rid, count, audio

    async def after_send(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Act on what has just gone out; returns events to send right after it."""
        if not self.specs:
            self.count_sent(event)
            return []
        self.events_sent += 1
        extra: list[dict[str, Any]] = []
        for index, spec in enumerate(self.specs):
            if spec.kind == "close_after_events" and self.events_sent - self.armed_at[index] == spec["n"]:
                self.actions.record(spec, events=self.events_sent)
                await self._close(spec)
            elif spec.kind == "dead_peer" and self.events_sent >= spec["after_events"]:
                self._play_dead(spec)
        counted = self._count_response(event)
        if counted is None:
            return extra
        rid, count, audio = counted
        if audio is not None:
            for index, spec in enumerate(self.specs):
                if (
                    spec.kind == "close_after_audio_delta"
                    and audio == spec["k"]
                    and self._applies(index, rid)
                ):
                    self.actions.record(spec, response_id=rid, audio_delta=audio, code=spec["code"])
                    await self._close(spec)
                    return extra
        for index, spec in enumerate(self.specs):
            if not self._applies(index, rid):
                continue
            if spec.kind == "error_mid_response" and count == spec["k"]:
                self.actions.record(spec, response_id=rid, delta=count)
                extra.append(self._server_error_event())
            elif spec.kind == "response_failed" and count == spec["k"] and rid not in self.failures:
                self.actions.record(spec, response_id=rid, delta=count)
                self._fail(rid, {"type": "server_error", "code": None, "message": SERVER_ERROR}, False)
        return extra

    def _server_error_event(self) -> dict[str, Any]:
        error = {
            "type": "server_error",
            "code": None,
            "message": SERVER_ERROR,
            "param": None,
            "event_id": None,
        }
        return se.error(self.actions.event_id(), error=error)

    # -- failed responses and rate limits ---------------------------------------------------------

    def _fail(self, response_id: str, error: dict[str, Any], drop_everything: bool) -> None:
        self.failures[response_id] = _Failure(error, drop_everything, set())
        self.actions.fail_response(response_id, error)

    def _failure_of_item(self, event: dict[str, Any]) -> _Failure | None:
        item = event.get("item")
        if not str(event.get("type", "")).startswith("conversation.item.") or not isinstance(item, dict):
            return None
        return next((f for f in self.failures.values() if item.get("id") in f.items), None)

    def _apply_failure(self, event: dict[str, Any], failure: _Failure) -> list[dict[str, Any]]:
        kind = event.get("type")
        if kind == "response.output_item.added":
            failure.items.add(event["item"]["id"])
        if kind == "response.done":
            return [self._failed_done(event, failure)]
        if failure.drop_everything and kind != "response.created":
            return []
        if kind in DROPPED_WHEN_FAILED:
            return []
        return [event]

    def _failed_done(self, event: dict[str, Any], failure: _Failure) -> dict[str, Any]:
        done = copy.deepcopy(event)
        response = done["response"]
        response["status"] = "failed"
        response["status_details"] = {"type": "failed", "error": failure.error}
        if failure.drop_everything:
            # Refused before any output: nothing is billed, as the core reports a response that fails
            # before its first output (the usage keeps its shape, every count 0).
            response["output"] = []
            if isinstance(response.get("usage"), dict):
                response["usage"] = _zeroed(response["usage"])
        for item in response.get("output", []):
            if item.get("status") == "completed":
                item["status"] = "incomplete"
        return done

    def _maybe_refuse(self, event: dict[str, Any]) -> None:
        spec = self._first("rate_limits")
        if spec is None or self.responses_done < spec["responses"]:
            return
        rid = str(event["response"]["id"])
        self.actions.record(spec, response_id=rid, responses_done=self.responses_done)
        model = self.actions.model()
        error = {
            "type": "tokens",
            "code": "rate_limit_exceeded",
            "message": (
                f"Rate limit reached for {model} in organization org-mockengine on tokens per min (TPM): "
                f"Limit {spec['limit']}, Used {spec['limit']}, Requested 1. Please try again in 6s. "
                "Visit https://platform.openai.com/account/rate-limits to learn more."
            ),
        }
        self._fail(rid, error, True)

    def _count_down(self, event: dict[str, Any]) -> dict[str, Any]:
        spec = self._first("rate_limits")
        if spec is None:
            return event
        limit, total = spec["limit"], max(1, spec["responses"])
        remaining = max(0, limit - (limit * self.responses_done) // total)
        counted = copy.deepcopy(event)
        counted["rate_limits"] = [
            {
                "name": "tokens",
                "limit": limit,
                "remaining": remaining,
                "reset_seconds": 6.0 if remaining == 0 else 0.001,
            }
        ]
        return counted


def _zeroed(usage: dict[str, Any]) -> dict[str, Any]:
    """``usage`` with every count 0 (nested details too)."""
    return {key: _zeroed(value) if isinstance(value, dict) else 0 for key, value in usage.items()}


def close_reason(kind: str) -> str:
    """The close frame's reason when a fault of ``kind`` closes the session: ``mockengine_fault.<kind>``
    (``mockengine_fault.close_after_events``), in the live service's ``<error.type>.<error.code>`` shape
    of close reasons (reference §0), so a client that logs or parses the reason reads an injected fault
    and which one. It was "mockengine fault" for every kind, which said neither which fault nor, to a
    client parsing type.code, anything."""
    return f"mockengine_fault.{kind}"


class NoActions:
    """For a session without faults (nothing is ever asked of it)."""

    async def close(self, code: int, reason: str) -> None:
        raise AssertionError("no faults armed")

    def kill(self) -> None:
        raise AssertionError("no faults armed")

    def fail_response(self, response_id: str, error: dict[str, Any]) -> None:
        raise AssertionError("no faults armed")

    def expire(self) -> None:
        raise AssertionError("no faults armed")

    def event_id(self) -> str:
        raise AssertionError("no faults armed")

    def model(self) -> str:
        raise AssertionError("no faults armed")

    def record(self, spec: FaultSpec | str, **detail: Any) -> None:
        raise AssertionError("no faults armed")

    def is_gone(self) -> bool:
        raise AssertionError("no faults armed")

    def draw(self, key: str, rate: float) -> bool:
        raise AssertionError("no faults armed")
