"""Run-time control of faults: ``/mockengine/faults`` and ``/mockengine/sessions``.

- ``GET /mockengine/faults``: the profile, what is armed, counts of injected faults by kind, live sessions.
- ``POST /mockengine/faults`` with ``{"fault": <compact string | object | list>, <target>}``, the target
  being one of ``"session_id": "sess_…"`` (a live session's id or handle, from now on),
  ``"connections": N`` (the next N WebSocket connections) or ``"requests": N`` (the next N HTTP
  requests); without a target the next one connection (WebSocket kinds) or request (HTTP kinds). → 200
  ``{"armed": [...]}``; 400 on a bad spec, another field, a count for the other layer (``requests``
  with only WebSocket kinds) or a count beside ``session_id`` (then nothing is armed); 404 for an
  unknown session.
- ``DELETE /mockengine/faults``: disarm everything armed for future connections / requests.
- ``GET /mockengine/sessions``: ``{"sessions": [the live session ids], "live": [{"handle", "session_id",
  "transport", "journal"}, …], "changes": N}``, one entry per live session, oldest first; ``changes``
  counts the sessions listed and unlisted so far. With ``?changed_from=N`` (an earlier answer's
  ``changes``) it answers once the list has changed since (at once if it already has), or after 25 s
  as it is: a long poll, so a watcher learns of a session starting or ending at once (400 when ``N`` is
  not a non-negative integer).
- ``POST /mockengine/sessions/{id or handle}/kill``: drop that session's TCP connection now, without a
  close frame (what a client sees when the network dies: close 1006).

Each live session has a handle, ``<session_id>~<n>`` (n counts the sessions this process served), named
in ``GET /mockengine/sessions`` and in the ``X-Mockengine-Session-Handle`` header of the transport's
answer (the WebSocket upgrade's 101, a call's 201). Sessions of a seeded server share their ids (same
seed, same ids, on the wire as in the journal): a session id names all of them and the answers say how
many (``"sessions": n``); a handle names one.

With ``serve --workers N`` (N > 1) each process has its own faults and sessions: an answer is the
answering worker's alone, and says so (``pid``, ``workers``, ``scope``); arm faults for every worker with
a server-wide profile (``--fault``), per connection (``?fault=``) or per request (the fault header).

Guard: with ``--control-token T`` a request must carry ``Authorization: Bearer T`` or
``X-Mockengine-Control-Token: T``; without one, only loopback clients are served. Others get 403.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any

from aiohttp import web

from mockengine.faults.spec import FaultSpec, FaultSpecError, faults_from_data, parse_faults
from mockengine.faults.state import FAULTS
from mockengine.near_miss import did_you_mean
from mockengine.protocol.codec import loads_strict
from mockengine.protocol.http_errors import INVALID_JSON_BODY, error_response
from mockengine.protocol.schema_errors import json_type_name

CONTROL_TOKEN_HEADER = "X-Mockengine-Control-Token"
CONTROL_TOKEN = web.AppKey("control_token", str)
ARM_FIELDS = ("fault", "connections", "requests", "session_id")  # POST /mockengine/faults
WORKERS = web.AppKey("workers", int)  # serve --workers: how many processes, each with its own state


def is_allowed(request: web.Request) -> bool:
    token = request.app.get(CONTROL_TOKEN)
    if token:
        auth = request.headers.get("Authorization", "")
        return request.headers.get(CONTROL_TOKEN_HEADER) == token or auth == f"Bearer {token}"
    try:
        return request.remote is not None and ipaddress.ip_address(request.remote).is_loopback
    except ValueError:
        return False


def forbidden(request: web.Request) -> web.Response:
    """403 saying which rule refused: with a control token every caller needs it, loopback ones too
    (behind a reverse proxy on the same machine every request comes from loopback)."""
    if request.app.get(CONTROL_TOKEN):
        message = (
            "The mockengine control endpoints need the control token this engine was started with "
            f"(--control-token): send Authorization: Bearer <token> or {CONTROL_TOKEN_HEADER}: <token>."
        )
    else:
        message = (
            "The mockengine control endpoints answer loopback clients only; start the engine with "
            "--control-token to open them to callers that send that token."
        )
    return error_response(403, message, code="forbidden")


def answer(request: web.Request, body: dict[str, Any]) -> web.Response:
    """``body`` as JSON, with which worker answered when there are several (their states are apart)."""
    workers = request.app.get(WORKERS, 1)
    if workers > 1:
        scope = "this worker only: each of the workers has its own faults and sessions"
        body = {**body, "pid": os.getpid(), "workers": workers, "scope": scope}
    return web.json_response(body)


async def list_faults(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    return answer(request, request.app[FAULTS].snapshot())


async def arm_faults(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    state = request.app[FAULTS]
    try:
        body = loads_strict(await request.read())
    except ValueError:  # Python's decoder ("Expecting value: line 1 column 1") said nothing to a user
        return error_response(400, INVALID_JSON_BODY)
    try:
        if not isinstance(body, dict) or "fault" not in body:
            raise FaultSpecError('expected a JSON object with "fault"')
        raw = body["fault"]
        if not isinstance(raw, (str, dict, list)):  # `null` read "fault None: … None is not of type 'object'"
            raise FaultSpecError(
                '"fault" must be a compact string ("close_after_ms:5"), an object with "kind" or a list '
                f"of those, not {json_type_name(raw)}"
            )
        specs = parse_faults(raw) if isinstance(raw, str) else faults_from_data(raw)
        if not specs:
            raise FaultSpecError("no fault given")
    except (ValueError, FaultSpecError) as exc:
        return error_response(400, f"Invalid mockengine fault: {exc}", param="fault")
    # A misspelt or misplaced field was ignored, and the fault armed for one connection or request:
    # refused by name instead, as the API refuses an unknown parameter.
    for name in body:
        if name not in ARM_FIELDS:
            return error_response(
                400,
                f"Unknown parameter: '{name}'{did_you_mean(name, ARM_FIELDS)}. A fault is armed with "
                '"fault" and one of "connections", "requests" or "session_id".',
                param=name,
                code="unknown_parameter",
            )
    session_id = body.get("session_id")
    if session_id is not None and not isinstance(session_id, str):  # 5 was looked up as '5': a 404
        return error_response(
            400,
            "Invalid type for 'session_id': expected a string, "
            f"but got {json_type_name(session_id)} instead.",
            param="session_id",
            code="invalid_type",
        )
    if session_id is not None:
        counts = [key for key in ("connections", "requests") if key in body]
        if counts:
            return error_response(
                400,
                f"'{counts[0]}' and 'session_id' cannot be combined: a fault armed on a live session "
                "acts on that session.",
                param=counts[0],
            )
        await state.until_opened(str(session_id))  # a session named in its 101, still opening
        sessions = state.find_live(str(session_id))
        if not sessions:
            return error_response(404, f"No live session with id '{session_id}'.", param="session_id")
        if any(s.layer != "ws" for s in specs):
            return error_response(400, "Only WebSocket faults can be armed for a session.", param="fault")
        for live in sessions:  # a translation session has no responses: refused, nothing armed
            for spec in specs:
                misfit_of = getattr(live, "misfit", None)
                misfit = misfit_of(spec) if misfit_of is not None else None
                if misfit is not None:
                    return error_response(400, f"Invalid mockengine fault: {misfit}.", param="fault")
        hit = 0
        for spec in specs:
            serial = state.next_arming()
            for index, live in enumerate(sessions):
                if state.draw(f"live:{session_id}:{serial}:{index}", spec.rate):
                    live.arm(spec)
                    hit += 1
        return answer(
            request,
            {
                "armed": [s.describe() for s in specs],
                "session_id": session_id,
                "sessions": len(sessions),
                "handles": [getattr(live, "handle", "") for live in sessions],
                "hit": hit,  # (fault, session) pairs armed: each drawn with the fault's rate
            },
        )
    # Every count checked before anything is armed, so a refused request arms nothing.
    plan: list[tuple[list[FaultSpec], str, int]] = []
    for layer, key in (("ws", "connections"), ("http", "requests")):
        chosen = [s for s in specs if s.layer == layer]
        count = body.get(key, 1)
        if not chosen:
            if key in body:
                other = "requests" if key == "connections" else "connections"
                return error_response(
                    400,
                    f"'{key}' counts {'WebSocket/WebRTC sessions' if layer == 'ws' else 'HTTP requests'}, "
                    f"but no {layer} fault was given; {', '.join(s.kind for s in specs)}: use '{other}'.",
                    param=key,
                )
            continue
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            return error_response(400, f"'{key}' must be a positive integer.", param=key)
        plan.append((chosen, key, count))
    armed: list[dict[str, Any]] = []
    for chosen, key, count in plan:
        state.arm_next(chosen, count)
        armed += [{"fault": s.describe(), key: count} for s in chosen]
    return answer(request, {"armed": armed})


async def clear_faults(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    state = request.app[FAULTS]
    cleared = len(state.armed)
    state.armed.clear()
    return answer(request, {"cleared": cleared})


# How long ``GET /mockengine/sessions?changed_from=N`` waits for a change before answering the list as it
# is: under the 30 s many proxies and browsers give an idle request, and the client asks again.
SESSIONS_WAIT_S = 25.0


async def list_sessions(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    state = request.app[FAULTS]
    changed_from = request.query.get("changed_from")
    if changed_from is not None:
        if not changed_from.isdigit():
            return error_response(
                400,
                f"'changed_from' must be a count of changes (a non-negative integer, the 'changes' of an "
                f"earlier answer), got {changed_from!r}.",
                param="changed_from",
            )
        await state.until_changed(int(changed_from), SESSIONS_WAIT_S)
    await state.until_opened()  # sessions whose 101 is out, their session.created not yet
    listed = [live.listed() for live in state.handles.values() if hasattr(live, "listed")]
    return answer(request, {"sessions": sorted(state.live), "live": listed, "changes": state.changes})


async def _stop_waiting(app: web.Application) -> None:
    app[FAULTS].stop_waiting()


async def kill_session(request: web.Request) -> web.Response:
    if not is_allowed(request):
        return forbidden(request)
    session_id = request.match_info["session_id"]  # an id, or one session's handle
    await request.app[FAULTS].until_opened(session_id)  # named in its 101, still opening
    sessions = request.app[FAULTS].find_live(session_id)
    if not sessions:
        return error_response(404, f"No live session with id '{session_id}'.", param="session_id")
    for live in sessions:
        live.kill()
    handles = [getattr(live, "handle", "") for live in sessions]
    return answer(request, {"killed": session_id, "sessions": len(sessions), "handles": handles})


def add_routes(app: web.Application) -> None:
    app.router.add_get("/mockengine/faults", list_faults)
    app.router.add_post("/mockengine/faults", arm_faults)
    app.router.add_delete("/mockengine/faults", clear_faults)
    app.router.add_get("/mockengine/sessions", list_sessions)
    app.router.add_post("/mockengine/sessions/{session_id}/kill", kill_session)
    app.on_shutdown.append(_stop_waiting)
