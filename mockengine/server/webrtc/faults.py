"""The WebRTC fault kinds (``faults/spec.py``: ``refuse_call``, ``slow_call``, ``datachannel_close``,
``media_stall``, ``server_hangup``) acting on one call.

They are chosen like every session fault (``--fault``, a profile, ``?fault=`` / ``X-Mockengine-Fault`` on
the ``POST``, the control endpoint, a scenario rule; ``rate`` decided from the seed and the connection's
ordinal) and live in the session's :class:`~mockengine.faults.ws.SessionFaults`, so the WebSocket kinds
(``close_after_events``, ``slow_drip``, ``response_failed`` …) act on a call too. This module reads the
WebRTC kinds from there: the two that concern the ``POST`` before the call exists, and per audio delta
and every 100 ms the timed ones, the three that act on a live call.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from aiohttp import web
from aiortc import RTCDataChannel

from mockengine.faults.http import STATUS_BODIES
from mockengine.faults.spec import FaultSpec
from mockengine.faults.state import FAULTS
from mockengine.faults.ws import SessionFaults
from mockengine.protocol.http_errors import error_body


class FaultedCall(Protocol):
    """What the call faults act on: a voice-agent call (``call.CallRunner``) or a translation call
    (``translation_call.TranslationCall``)."""

    @property
    def faults(self) -> SessionFaults: ...

    @property
    def channel(self) -> RTCDataChannel | None: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...

    def stall_media(self) -> None: ...

    def shutdown(self, code: int, reason: str) -> None: ...


CALL_REFUSALS: dict[int, str] = {429: "Too many concurrent sessions. Please try again later."}


async def before_answer(request: web.Request, specs: list[FaultSpec]) -> web.Response | None:
    """``slow_call`` waits; ``refuse_call`` gives the JSON error answer that replaces the call."""
    state = request.app[FAULTS]
    slow = next((s for s in specs if s.kind == "slow_call"), None)
    if slow is not None:
        state.record(slow, f"call#{state.connections}", ms=slow["ms"])
        await asyncio.sleep(slow["ms"] / 1000.0)
    refuse = next((s for s in specs if s.kind == "refuse_call"), None)
    if refuse is None:
        return None
    status = int(refuse["status"])
    state.record(refuse, f"call#{state.connections}", status=status)
    if status in STATUS_BODIES:  # the bodies http_status answers with, as the live API's 500/502/503
        return web.json_response(STATUS_BODIES[status], status=status)
    message = CALL_REFUSALS.get(status, "The request was refused.")
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return web.json_response(error_body(message, type=kind), status=status)


class CallFaults:
    def __init__(self, runner: FaultedCall) -> None:
        self.runner = runner
        self.opened_at = runner.loop.time()
        self.fired: list[FaultSpec] = []
        self.audio_deltas: dict[str, int] = {}

    def _armed(self, kind: str) -> list[FaultSpec]:
        return [s for s in self.runner.faults.specs if s.kind == kind and s not in self.fired]

    def _fire(self, spec: FaultSpec, **detail: object) -> None:
        self.fired.append(spec)
        self.runner.faults.actions.record(spec, **detail)

    def on_audio_delta(self, response_id: str) -> None:
        count = self.audio_deltas[response_id] = self.audio_deltas.get(response_id, 0) + 1
        for spec in self._armed("datachannel_close"):
            if count == spec["k"] and self.runner.channel is not None:
                self._fire(spec, k=count, response_id=response_id)
                self.runner.channel.close()

    def on_response_done(self, response_id: str) -> None:
        """The response brings no more audio: its count goes (one per response, kept, grew with the
        call's length)."""
        self.audio_deltas.pop(response_id, None)

    def close(self) -> None:
        """The call ended: the counts of replies it cut (no ``response.done`` went out for them) go."""
        self.audio_deltas.clear()

    def on_tick(self) -> None:
        """Every 100 ms of the call: the timed kinds."""
        if not self.runner.faults.specs:
            return
        elapsed_ms = (self.runner.loop.time() - self.opened_at) * 1000.0
        for spec in self._armed("media_stall"):
            if elapsed_ms >= spec["after_ms"]:
                self._fire(spec, after_ms=spec["after_ms"])
                self.runner.stall_media()
        for spec in self._armed("server_hangup"):
            if elapsed_ms >= spec["ms"]:
                self._fire(spec, ms=spec["ms"])
                self.runner.shutdown(1000, "server hangup (fault)")
