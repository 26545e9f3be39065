"""Glue between the Realtime shells (``server/realtime_ws.py``, ``server/translation_ws.py``, the calls)
and the session faults: which faults a new connection gets (or the refused upgrade), the
:class:`SessionActions` a running session offers, and its place in the control endpoint's list."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from mockengine.faults.spec import FaultSpec, FaultSpecError, translation_misfit, websocket_misfit
from mockengine.faults.state import FAULTS, FaultState, own_faults
from mockengine.faults.ws import SessionActions, SessionFaults
from mockengine.protocol.http_errors import error_body, error_response

if TYPE_CHECKING:
    from mockengine.server.session_loop import SessionLoop as SessionRunner
    from mockengine.server.session_shell import SessionShell

log = logging.getLogger("mockengine.faults")
UPGRADE_BODIES: dict[int, str] = {
    429: "Too many concurrent sessions. Please try again later.",
    500: "The server had an error while processing your request. Sorry about that!",
    502: "Bad gateway.",
    503: "The engine is currently overloaded, please try again later",
}


def connection_faults(
    request: web.Request, translation: str | None = None, websocket: bool = False
) -> list[FaultSpec] | web.Response:
    """The faults of a new WebSocket connection (or WebRTC call), or the HTTP answer that replaces the
    upgrade (a refused upgrade, or 400 for a ``?fault=`` / ``X-Mockengine-Fault`` that does not parse).

    ``translation`` ("websocket" or "webrtc"): a translation session's connection; ``websocket``: a
    voice-agent session's WebSocket (the call kinds cannot act on it). A kind of its own (``?fault=`` /
    the header) that cannot act on it is refused (400 naming why); one from the server profile or armed
    for the next connections is left out with a warning on ``mockengine.faults`` (those serve the other
    sessions too)."""
    state = request.app[FAULTS]
    misfit_of = _misfit_of(translation, websocket)
    try:
        if misfit_of is not None:
            for spec in own_faults(request):
                misfit = misfit_of(spec)
                if misfit is not None:
                    return error_response(400, f"Invalid mockengine fault: {misfit}.", param="fault")
        specs = state.for_connection(request)
    except FaultSpecError as exc:
        return error_response(400, f"Invalid mockengine fault: {exc}", param="fault")
    if misfit_of is not None:
        what = "a translation session" if translation is not None else "a WebSocket session"
        specs = _fitting(specs, misfit_of, f"connection#{state.connections}", what)
    refuse = next((s for s in specs if s.kind == "refuse_upgrade"), None)
    if refuse is not None:
        status = int(refuse["status"])
        state.record(refuse, f"upgrade#{state.connections}", status=status)
        message = UPGRADE_BODIES.get(status, "The request was refused.")
        kind = "server_error" if status >= 500 else "invalid_request_error"
        return web.json_response(error_body(message, type=kind), status=status)
    return specs


def _misfit_of(translation: str | None, websocket: bool) -> Callable[[FaultSpec], str | None] | None:
    if translation is not None:
        return lambda spec: translation_misfit(spec, translation)
    return websocket_misfit if websocket else None


def _fitting(
    specs: list[FaultSpec], misfit_of: Callable[[FaultSpec], str | None], where: str, what: str
) -> list[FaultSpec]:
    kept = []
    for spec in specs:
        misfit = misfit_of(spec)
        if misfit is None:
            kept.append(spec)
        else:
            log.warning("fault not injected at=%s (%s): %s", where, what, misfit)
    return kept


class ShellActions:
    """What :class:`~mockengine.faults.ws.SessionActions` does alike on every session, voice-agent or
    translation: the expiry (the very path ``--session-max-s`` takes), and the faults' records and seeded
    draws under the session's handle."""

    def __init__(self, shell: SessionShell, state: FaultState) -> None:
        self.shell = shell
        self.state = state
        self.handle: str | None = None  # set once the session is listed (list_live)

    def expire(self) -> None:
        self.shell.expire()

    def record(self, spec: FaultSpec | str, **detail: Any) -> None:
        """Log and count the injection, and write it to the session's trace and journal as a ``fault``
        engine record: a failed response or a close there read as an engine bug, the fault being on the
        log alone."""
        self.state.record(spec, self.shell.session_id, **detail)
        shell = self.shell
        data = {"kind": spec if isinstance(spec, str) else spec.kind, **detail}
        shell.tracer.write(shell.trace_name, "fault", data)
        if shell.journal is not None:
            shell.journal.engine("fault", data)

    def draw(self, key: str, rate: float) -> bool:
        """A seeded draw for this session's scenario-rule faults (``FaultState.draw``), keyed by its
        handle: sessions of a seeded server share their id, and drawn under it every session was hit or
        none (``rate=0.5`` dropped all of them), where ``<id>~<n>`` counts them apart, in connection
        order, the same way every run."""
        return self.state.draw(f"rule:{self.handle or self.shell.session_id}:{key}", rate)


class RunnerActions(ShellActions):
    """:class:`~mockengine.faults.ws.SessionActions` on top of a running ``SessionRunner``."""

    def __init__(self, runner: SessionRunner, request: web.Request) -> None:
        super().__init__(runner, request.app[FAULTS])
        self.runner = runner

    async def close(self, code: int, reason: str) -> None:
        await self.runner.close_transport(code, reason)

    def kill(self) -> None:
        self.runner.abort_transport()

    def fail_response(self, response_id: str, error: dict[str, Any]) -> None:
        runner = self.runner
        runner.apply(runner.session.fail_response(response_id, error, runner.now_ms()))

    def event_id(self) -> str:
        return self.runner.session.ids.event()

    def model(self) -> str:
        return str(self.runner.session.config.get("model", ""))  # none in a transcription session

    def is_gone(self) -> bool:
        """The connection is closed or lost (by the client, or by unanswered pings)."""
        if self.runner.is_transport_closed:
            return True
        transport = getattr(self.runner, "transport", None)  # a WebSocket's TCP connection
        return transport is not None and transport.is_closing()


# A transport's answer names the session's handle here (the WebSocket upgrade's 101, a call's 201), so a
# client whose sessions share an id (seeded) can tell the control endpoints which one it means.
HANDLE_HEADER = "X-Mockengine-Session-Handle"


class LiveHandle:
    """What the control endpoint sees of a live session."""

    def __init__(
        self,
        faults: SessionFaults,
        actions: SessionActions,
        journal: str | None = None,
        *,
        handle: str = "",
        session_id: str = "",
        transport: str = "websocket",
        session_type: str = "realtime",
        misfit: Callable[[FaultSpec], str | None] | None = None,
    ) -> None:
        self.faults = faults
        self.actions = actions
        # The name of its journal directory (``<session_id>``, or ``<session_id>.2``, … when a seeded
        # session's id was taken), None when journaling is off.
        self.journal = journal
        self.handle = handle  # ``<session_id>~<n>``: this session alone (FaultState.new_handle)
        self.session_id = session_id
        self.transport = transport  # "websocket" or "webrtc"
        self.session_type = session_type  # "realtime", "transcription" or "translation"
        self._misfit = misfit

    def listed(self) -> dict[str, Any]:
        """Its entry in ``GET /mockengine/sessions``."""
        return {
            "handle": self.handle,
            "session_id": self.session_id,
            "transport": self.transport,
            "type": self.session_type,
            "journal": self.journal,
        }

    def misfit(self, spec: FaultSpec) -> str | None:
        """Why ``spec`` cannot be armed on this session (None: it can)."""
        return None if self._misfit is None else self._misfit(spec)

    def arm(self, spec: FaultSpec) -> None:
        self.faults.arm(spec)

    def kill(self) -> None:
        self.actions.record("kill")
        self.actions.kill()


def attach(
    runner: SessionRunner,
    request: web.Request,
    specs: list[FaultSpec],
    handle: str | None = None,
    transport: str = "websocket",
) -> LiveHandle:
    """Give ``runner`` its faults and list the session for the control endpoint (until :func:`detach`),
    under ``handle`` (one ``FaultState.new_handle`` gave; None: a new one) and its session id."""
    actions = RunnerActions(runner, request)
    scenario = getattr(getattr(runner.session.brain, "scenario", None), "name", None)
    runner.faults = SessionFaults(specs, actions, actions.state.faults_of_rules(scenario))
    journal = runner.journal.path.name if runner.journal is not None else None
    return list_live(
        actions.state,
        runner.faults,
        actions,
        runner.session_id,
        journal=journal,
        handle=handle,
        transport=transport,
        session_type=str(runner.session.config.get("type", "realtime")),
        misfit=websocket_misfit if transport == "websocket" else None,
    )


def list_live(
    state: FaultState,
    faults: SessionFaults,
    actions: SessionActions,
    session_id: str,
    *,
    journal: str | None,
    handle: str | None,
    transport: str,
    session_type: str,
    misfit: Callable[[FaultSpec], str | None] | None = None,
) -> LiveHandle:
    """Start ``faults`` and list the session for the control endpoint, whatever kind of session it is
    (until :func:`unlist_live`); ``misfit`` tells which faults cannot be armed on it."""
    faults.start(asyncio.get_running_loop())
    live = LiveHandle(
        faults,
        actions,
        journal,
        handle=handle or state.new_handle(session_id),
        session_id=session_id,
        transport=transport,
        session_type=session_type,
        misfit=misfit,
    )
    # Seeded sessions share their ids (the same seed gives the same ids), so one id may name several;
    # the handle names this one alone.
    if isinstance(actions, ShellActions):
        actions.handle = live.handle
    state.live.setdefault(session_id, []).append(live)
    state.handles[live.handle] = live
    state.opened(live.handle)  # control requests that waited for it go on
    state.list_changed()
    return live


def detach(runner: SessionRunner, request: web.Request) -> None:
    unlist_live(request.app[FAULTS], runner.faults, runner.session_id)


def unlist_live(state: FaultState, faults: SessionFaults, session_id: str) -> None:
    """The session ended: its faults stop and it leaves the control endpoint's list."""
    faults.stop()
    live = state.live
    mine = [h for h in live.get(session_id, []) if getattr(h, "faults", None) is faults]
    others = [h for h in live.get(session_id, []) if getattr(h, "faults", None) is not faults]
    if others:
        live[session_id] = others
    else:
        live.pop(session_id, None)
    for handle in mine:
        state.handles.pop(getattr(handle, "handle", ""), None)
    if mine:
        state.list_changed()
