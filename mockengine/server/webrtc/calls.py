"""``POST /v1/realtime/calls`` (a WebRTC call opens) and ``POST /v1/realtime/calls/{call_id}/hangup``.

Source: reference §13 (the SDK's ``resources/realtime/calls.py`` and ``call_create_params.py``, the
OpenAPI ``/realtime/calls``). The offer comes as ``application/sdp`` (``?model=`` optional) or as
``multipart/form-data`` with ``sdp`` and an optional ``session`` (JSON, the session a
``client_secrets`` request carries). Auth: an API key under the engine's key policy
(``handshake.key_accepted``) or a live ``ek_`` client secret, whose session (and model) the call starts
with; a ``session`` in the request applies over it. Answer: ``201``, ``application/sdp``, the answer, and
``Location: /v1/realtime/calls/{call_id}``. Errors are the REST API's JSON bodies: 401 for the key, 400
for the SDP, the session or the model, 503 when admission control refuses, 404 for an unknown call.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Protocol

from aiohttp import web
from aiortc import RTCPeerConnection, RTCSessionDescription

from mockengine.brain.selection import UnknownScenario
from mockengine.faults.spec import FaultSpec
from mockengine.ids import IdFactory
from mockengine.protocol.codec import loads_strict
from mockengine.protocol.errors import ProtocolError
from mockengine.protocol.http_errors import INVALID_JSON_BODY, MISSING_API_KEY, error_response
from mockengine.protocol.session_config import (
    check_reasoning,
    check_session_type,
    validate_noise_reduction,
    validate_session_update,
    validate_tool_choice,
    validate_transcription,
)
from mockengine.realtime.session import RealtimeSession
from mockengine.realtime.translation import TRANSLATION_MODELS
from mockengine.rtc.answer_sdp import with_opus_fec
from mockengine.rtc.closing import PC_CLOSE_WAIT_S, close_peer
from mockengine.rtc.ice import include_loopback, offline_configuration
from mockengine.rtc.media import ReplyTrack
from mockengine.rtc.pion.plane import PION_PLANE, OfferRefused, PionPlane
from mockengine.rtc.rtp_send import send_on_shared_grid
from mockengine.server.client_secrets import CLIENT_SECRETS, SECRET_PREFIX, ClientSecret, bearer_key
from mockengine.server.handshake import (
    MODEL_PATTERN,
    key_accepted,
    rest_incorrect_api_key_message,
    translation_model_message,
)
from mockengine.server.realtime_faults import HANDLE_HEADER, attach, connection_faults, detach
from mockengine.server.session_setup import (
    admission_refusal,
    build_session,
    register,
    release_seat,
    session_seed,
    take_seat,
)
from mockengine.server.state import RESOURCES, TRACER
from mockengine.server.webrtc.call import CallRunner
from mockengine.server.webrtc.faults import CallFaults, before_answer
from mockengine.server.webrtc.pion_call import PionCallRunner
from mockengine.server.webrtc.siblings import SIBLINGS, forward_request, sibling_owner

log = logging.getLogger("mockengine.webrtc")
CALLS = web.AppKey("calls", dict)  # call id → CallRunner, while the call lasts
CALL_ORDINALS = web.AppKey("call_ordinals", itertools.count)  # numbers this process's calls: 1, 2, …
DEFAULT_MODEL = "gpt-realtime"
# A call whose client never opens its data channel (never completes ICE after its 201, or left before
# any check) is given up this long after its answer. No ICE state ends it sooner: aioice's check of a
# pair that is never answered fails after ~39.5 s (7 STUN tries, 0.5 s doubling), the connection fails
# only once the offer has signalled the end of its candidates (a browser's offer, posted as soon as it
# is set, never does), and consent freshness starts once connected. A client's ICE + DTLS + SCTP take
# ~1 s on loopback, seconds across the internet; pages give up at 8 s (the console, the voice-client
# spec). 15 s: about twice that, and half the 30 s it was (a seat held that long per abandoned connect).
CONNECT_TIMEOUT_S = 15.0
CLIENT_CLOSED_REQUEST = 499  # nginx's status for a request its client abandoned (never delivered; logged)
SHUTDOWN_WAIT_S = 5.0
FAULT_CLOCK_S = 0.1  # how often the timed WebRTC faults (media_stall, server_hangup) are checked


# The fields of a call's form (reference §13): the offer and the optional session.
OFFER_FIELDS = ("sdp", "session")


class BadCall(Exception):
    """A request the engine answers with a 4xx JSON error."""

    def __init__(self, status: int, message: str, *, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code

    def response(self) -> web.Response:
        return error_response(self.status, self.message, param=self.param, code=self.code)


async def create_call(request: web.Request) -> web.StreamResponse:
    """``POST /v1/realtime/calls`` → 201 with the answer SDP (see the module docstring)."""
    try:
        secret = _authorize(request)
        sdp, session_config = await _read_offer(request)
        model = _model(request, secret, session_config)
        initial = _call_session(secret.session if secret is not None else {}, session_config)
        _check_reasoning(model, initial)
    except BadCall as exc:
        return exc.response()
    fault_specs = connection_faults(request)  # refused or slow calls (faults), or a bad ?fault=
    if isinstance(fault_specs, web.StreamResponse):
        return fault_specs
    refused = await seat_call(request, fault_specs)
    if refused is not None:
        return refused
    try:
        return await _open_call(request, sdp, model, initial, fault_specs)
    except BaseException:
        release_seat(request.app)
        raise


async def seat_call(request: web.Request, fault_specs: list[FaultSpec]) -> web.StreamResponse | None:
    """A call whose offer is read meets a fault first (``refuse_call``'s refusal; ``slow_call`` waits
    here), then admission control (503). None: it took a seat (``release_seat`` once it ends)."""
    refused = await before_answer(request, fault_specs)
    if refused is None:
        refused = admission_refusal(request)
    if refused is None:
        take_seat(request.app)
    return refused


async def _open_call(
    request: web.Request,
    sdp: str,
    model: str,
    initial: dict[str, Any],
    fault_specs: list[FaultSpec],
) -> web.StreamResponse:
    try:
        session = build_session(
            request.app,
            model=model,
            api_key=bearer_key(request),
            initial_session=initial or None,
            seed=session_seed(request, request.app[RESOURCES].settings.seed),
            scenario=request.query.get("scenario"),
            role=request.query.get("role"),
        )
    except UnknownScenario as exc:
        release_seat(request.app)
        return error_response(400, str(exc), param="scenario", code="unknown_scenario")
    except ProtocolError as exc:
        release_seat(request.app)
        return error_response(400, exc.message, type=exc.type, param=exc.param, code=exc.code)
    plane = request.app.get(PION_PLANE)
    if plane is not None:  # serve --media-plane pion
        return await _open_pion_call(request, plane, sdp, session, fault_specs)
    pc = RTCPeerConnection(offline_configuration())
    call_id = _new_call_id(request.app, session_seed(request, request.app[RESOURCES].settings.seed))
    runner = CallRunner(pc, call_id, session, request.app[RESOURCES], request.app[TRACER])

    async def drop_peer() -> None:
        await close_peer(pc, PC_CLOSE_WAIT_S)

    try:
        answer = await _answer(pc, sdp, runner.track)
    except BadCall as exc:
        await _not_opened(request, runner, drop_peer)
        return exc.response()
    return await _go_live(request, runner, session, fault_specs, answer, drop_peer)


async def _not_opened(
    request: web.Request, runner: CallRunner, drop_peer: Callable[[], Awaitable[None]]
) -> None:
    """A call that will never run (its offer refused, or its client gone before the answer): its peer
    connection dropped, its trace name and its seat given back."""
    await drop_peer()
    request.app[TRACER].end_session(runner.trace_name)
    release_seat(request.app)


async def _go_live(
    request: web.Request,
    runner: CallRunner,
    session: RealtimeSession,
    fault_specs: list[FaultSpec],
    answer: str,
    drop_peer: Callable[[], Awaitable[None]],
) -> web.StreamResponse:
    """An answered call (either media plane) registered, served and its answer sent: ``201``,
    ``application/sdp``, ``Location: /v1/realtime/calls/{call_id}``; or 499 if the client left first."""
    if request.transport is None or request.transport.is_closing():
        # The client gave up before its answer (a page's connect timeout while the engine was slow):
        # no one can ever connect to this call, which held its seat until the data-channel watchdog.
        await _not_opened(request, runner, drop_peer)
        log.info("call %s: the client left before its answer; not opened", runner.call_id)
        return error_response(CLIENT_CLOSED_REQUEST, "The client closed the request before the answer.")
    runner.journal = register(request.app, session)
    request.app[CALLS][runner.call_id] = runner
    request.app[CALL_CLOCK].wake()
    live = attach(runner, request, fault_specs, transport="webrtc")
    runner.serving = asyncio.get_running_loop().create_task(_serve_call(request.app, request, runner))
    return web.Response(
        status=201,
        body=answer.encode(),
        content_type="application/sdp",
        headers={"Location": f"/v1/realtime/calls/{runner.call_id}", HANDLE_HEADER: live.handle},
    )


async def _open_pion_call(
    request: web.Request,
    plane: PionPlane,
    sdp: str,
    session: RealtimeSession,
    fault_specs: list[FaultSpec],
) -> web.StreamResponse:
    """``_open_call`` on the pion media plane: the sidecar answers the offer (pion_call.py)."""
    call_id = _new_call_id(request.app, session_seed(request, request.app[RESOURCES].settings.seed))
    runner = PionCallRunner(plane, call_id, session, request.app[RESOURCES], request.app[TRACER])

    async def drop_peer() -> None:
        runner.abort_transport()

    try:
        answer = await runner.answer(sdp)
    except OfferRefused as exc:
        await _not_opened(request, runner, drop_peer)
        return BadCall(400, f"Invalid SDP offer: {exc}.", param="sdp").response()
    return await _go_live(request, runner, session, fault_specs, answer, drop_peer)


def _new_call_id(app: web.Application, seed: int | None) -> str:
    """An id no live call has. Seeded, the n-th call of the process gets the same id every run (from
    ``f"{seed}:call:{n}"``): one factory from the seed alone gave every call the same id, and the
    registry, the sideband and hangup then mixed the calls up. Under ``serve --workers N`` the id's
    last character names this worker (siblings.py)."""
    ordinals: itertools.count[int] = app[CALL_ORDINALS]
    while True:
        ordinal = next(ordinals)
        call_id = IdFactory(None if seed is None else f"{seed}:call:{ordinal}").rtc_call()
        if SIBLINGS in app:
            call_id = app[SIBLINGS].tag(call_id)
        if call_id not in app[CALLS]:
            return call_id


async def _answer(pc: RTCPeerConnection, sdp: str, track: ReplyTrack) -> str:
    """The answer to ``sdp``, the reply track on the offer's audio line (BadCall: no usable offer)."""
    try:
        await pc.setRemoteDescription(RTCSessionDescription(sdp=sdp, type="offer"))
    except Exception as exc:  # aiortc raises ValueError / KeyError / … on SDP it cannot use
        raise BadCall(400, f"Invalid SDP offer: {exc or type(exc).__name__}.", param="sdp") from exc
    if pc.sctp is None:
        raise BadCall(
            400, "Invalid SDP offer: it has no data channel (m=application) for oai-events.", param="sdp"
        )
    microphone = next((t for t in pc.getTransceivers() if t.kind == "audio"), None)
    for transceiver in pc.getTransceivers():
        if transceiver is not microphone:
            # One microphone, no video (images come as conversation items). Answered inactive, the page
            # sends nothing there: accepted, aiortc decoded a camera's frames into a queue no one read
            # (the engine grew ~13 MB/s with a 720p camera), and a second audio track's frames were
            # appended between the first's (2 s of a call made 4 s of input audio).
            transceiver.direction = "inactive"
    if any(t.kind == "audio" for t in pc.getTransceivers()):
        sender = pc.addTrack(track)  # takes the offer's audio transceiver: sendrecv
        send_on_shared_grid(sender, track)  # one timer for all calls' reply packets
    include_loopback(pc)
    try:
        answer = await pc.createAnswer()
        await pc.setLocalDescription(RTCSessionDescription(sdp=with_opus_fec(answer.sdp), type="answer"))
    except Exception as exc:  # e.g. no codec in common (the offer has no Opus, PCMU or PCMA)
        raise BadCall(400, f"Invalid SDP offer: {exc or type(exc).__name__}.", param="sdp") from exc
    return pc.localDescription.sdp


async def _serve_call(app: web.Application, request: web.Request, runner: CallRunner) -> None:
    watchdog = asyncio.get_running_loop().call_later(CONNECT_TIMEOUT_S, _give_up_unopened, runner)
    try:
        await runner.run()
    except Exception:
        log.exception("call %s failed", runner.call_id)
    finally:
        watchdog.cancel()
        detach(runner, request)
        if app[CALLS].get(runner.call_id) is runner:
            del app[CALLS][runner.call_id]
        release_seat(app)


def _give_up_unopened(runner: CallRunner) -> None:
    if not runner.channel_open.is_set():
        log.warning("call %s: no data channel after %.0f s, ending it", runner.call_id, CONNECT_TIMEOUT_S)
        runner.ended.set()


class HasCallFaults(Protocol):
    @property
    def call_faults(self) -> CallFaults: ...


class HangsUp(Protocol):
    """A live call that ``POST …/hangup`` ends."""

    @property
    def is_closing(self) -> bool: ...

    def shutdown(self, code: int, reason: str) -> None: ...


async def hangup_call(request: web.Request) -> web.Response:
    """``POST /v1/realtime/calls/{call_id}/hangup`` → 200; 404 for a call that is not live. Under
    ``serve --workers N`` a sibling's call is hung up there (its worker checks the key)."""
    call_id = request.match_info["call_id"]
    runner = request.app[CALLS].get(call_id)
    elsewhere = sibling_owner(request, call_id) if runner is None else None
    if elsewhere is not None:
        return await forward_request(request, *elsewhere)
    return hang_up(request, call_id, runner)


def hang_up(request: web.Request, call_id: str, runner: HangsUp | None) -> web.Response:
    """A hang-up by URL of ``runner`` (None: no such call here) → 200; 401 for a bad key, 404 for a
    call that is not live (voice-agent and translation calls alike)."""
    key = bearer_key(request)
    if key is None:
        return error_response(401, MISSING_API_KEY)
    if not _key_valid(request, key):
        return error_response(401, rest_incorrect_api_key_message(key), code="invalid_api_key")
    if runner is None or runner.is_closing:  # a call already ending is no longer live
        return error_response(404, f"Call '{call_id}' not found.", param="call_id")
    runner.shutdown(1000, "hangup")
    return web.Response(status=200)


def _key_valid(request: web.Request, key: str) -> bool:
    if key.startswith(SECRET_PREFIX):
        return request.app[CLIENT_SECRETS].lookup(key) is not None
    return key_accepted(request.app[RESOURCES].settings, key)


def _authorize(request: web.Request) -> ClientSecret | None:
    """The ``ek_`` secret the call uses (None for an API key); BadCall 401 for a missing or bad key."""
    key = bearer_key(request)
    if key is None:
        raise BadCall(401, MISSING_API_KEY)
    if not _key_valid(request, key):
        raise BadCall(401, rest_incorrect_api_key_message(key), code="invalid_api_key")
    return request.app[CLIENT_SECRETS].lookup(key) if key.startswith(SECRET_PREFIX) else None


async def _read_offer(
    request: web.Request, session_from: Callable[[str | None], dict[str, Any]] | None = None
) -> tuple[str, dict[str, Any]]:
    """The offer SDP and the request's session config ({} when none), read by ``session_from`` (a
    voice-agent session by default; translation calls read theirs).

    The offer is checked before anything else the request carries (the offer is the call): a request
    without one is told so (400 ``missing_required_parameter``, param ``sdp``) whatever its session or,
    for an empty body, its content type says."""
    session_text: str | None = None
    unknown: list[str] = []
    if request.content_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
        try:
            form = await request.post()
        except (ValueError, AssertionError, web.RequestPayloadError) as exc:
            # aiohttp's form reader raises these for a body that is not the form its type names (a
            # boundary that never appears, a truncated part): the client's mistake, not a 500.
            kind = "multipart" if request.content_type == "multipart/form-data" else "urlencoded"
            raise BadCall(400, f"Could not read the {kind} form: {exc}") from exc
        sdp, session_text = _form_text(form.get("sdp")), _form_text(form.get("session"))
        unknown = [key for key in form if key not in OFFER_FIELDS]
    elif request.content_type in ("application/sdp", "text/plain"):
        # SDP is UTF-8 (RFC 8866 §5), whatever charset the header names: request.text() raised
        # UnicodeDecodeError for other bytes and LookupError for an unknown charset (500s).
        try:
            sdp = (await request.read()).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadCall(400, "Invalid SDP offer: the body is not UTF-8 text.", param="sdp") from exc
    elif not await request.read():
        # An empty body has no type to speak of: a bare POST is typed application/octet-stream by
        # aiohttp, a type the client never sent. What it lacks is the offer.
        sdp = ""
    else:
        raise BadCall(
            400,
            f"Unsupported content type '{request.content_type}': send the SDP offer as application/sdp, "
            "or multipart/form-data with the fields 'sdp' and 'session'.",
        )
    if not sdp or not sdp.strip():
        raise BadCall(
            400, "Missing required parameter: 'sdp'.", param="sdp", code="missing_required_parameter"
        )
    _check_looks_like_sdp(sdp)
    if unknown:
        # As the audio routes answer a field they do not take (chat.transcription.check_fields): the
        # live answer to an unknown JSON argument, its multipart answer not public (ours).
        raise BadCall(400, f"Unrecognized request argument supplied: {unknown[0]}")
    return sdp, (session_from or _session_from)(session_text)


def _check_looks_like_sdp(sdp: str) -> None:
    """BadCall (400, param ``sdp``) for a body that is not SDP at all. aiortc parses any text into an
    empty description, so such a body was answered "it has no data channel", which misleads most of
    all the page that posted ``JSON.stringify(pc.localDescription)``: its offer has one, inside JSON.
    An offer begins with its version line, ``v=0`` (RFC 8866 §5)."""
    text = sdp.lstrip()
    if text.startswith("v="):
        return
    if text.startswith("{"):
        try:
            wrapped = loads_strict(text)
        except ValueError:
            wrapped = None
        if isinstance(wrapped, dict) and "sdp" in wrapped:
            raise BadCall(
                400,
                "Invalid SDP offer: the body is a JSON session description; send the offer's SDP text "
                "itself (pc.localDescription.sdp, which begins with 'v=0') as application/sdp.",
                param="sdp",
            )
    raise BadCall(400, "Invalid SDP offer: the body is not SDP (an offer begins with 'v=0').", param="sdp")


def _form_text(field: Any) -> str | None:
    """A form field's text, whether sent as a plain field or as a file part."""
    if field is None or isinstance(field, str):
        return field
    data = field.file.read() if hasattr(field, "file") else field
    return bytes(data).decode("utf-8", "replace")


def session_json(text: str | None) -> Any:
    """A call's ``session`` form field parsed (``{}`` when absent): any JSON value, for the caller to
    validate. Raises :class:`BadCall` 400 ``invalid_json`` (param ``session``) when it is not JSON."""
    if text is None:
        return {}
    try:
        return loads_strict(text)
    except ValueError as exc:
        raise BadCall(400, INVALID_JSON_BODY, param="session") from exc


def _session_from(text: str | None) -> dict[str, Any]:
    if text is None:  # no session field: optional in the form, as with an application/sdp body
        return {}
    session = session_json(text)
    try:
        validate_session_update(session)
        check_session_type("realtime", session)  # transcription sessions are WebSocket-only here
    except ProtocolError as exc:
        raise BadCall(400, exc.message, param=exc.param, code=exc.code) from exc
    return session


def _check_reasoning(model: str, session: dict[str, Any]) -> None:
    """A call's ``reasoning`` (its own or its secret's) on a model without it: 400, as ``session.update``
    refuses it (``session_config.check_reasoning``)."""
    try:
        check_reasoning(model, session.get("reasoning"), "session")
    except ProtocolError as exc:
        raise BadCall(400, exc.message, param=exc.param, code=exc.code) from exc


def _call_session(secret_session: dict[str, Any], call_session: dict[str, Any]) -> dict[str, Any]:
    """The session a call starts with: the client secret's, with the call's ``session`` applied over it
    as a ``session.update`` would be — top-level fields replaced, ``audio.input`` and ``audio.output``
    field by field (a call that sets only its turn detection keeps the secret's voice and formats).

    The live service's rule is not public; this is ``session.update``'s (docs/webrtc.md). Raises
    :class:`BadCall` (400) when the merged session breaks a rule that spans fields (a ``noise_reduction``
    without a type, a ``tool_choice`` naming no tool).
    """
    merged = {**secret_session, **call_session}
    secret_audio, call_audio = secret_session.get("audio"), call_session.get("audio")
    if isinstance(secret_audio, dict) and isinstance(call_audio, dict):
        merged["audio"] = {**secret_audio}
        for direction, fields in call_audio.items():
            merged["audio"][direction] = _over(secret_audio.get(direction), fields)
            noise = merged["audio"][direction].get("noise_reduction") if isinstance(fields, dict) else None
            if isinstance(noise, dict) and isinstance(secret_audio.get(direction), dict):
                # While the secret has it on, a call naming only the strength keeps its type (the
                # merge rule of session.update).
                below = secret_audio[direction].get("noise_reduction")
                merged["audio"][direction]["noise_reduction"] = _over(below, noise)
    try:
        validate_noise_reduction(merged)
        validate_transcription(merged)
        validate_tool_choice(merged.get("tool_choice", "auto"), merged.get("tools", []), "session")
    except ProtocolError as exc:
        raise BadCall(400, exc.message, param=exc.param, code=exc.code) from exc
    return merged


def _over(below: Any, above: Any) -> Any:
    """``above``'s fields over ``below``'s when both are objects; otherwise ``above`` as it is."""
    if isinstance(below, dict) and isinstance(above, dict):
        return {**below, **above}
    return above


def _model(request: web.Request, secret: ClientSecret | None, session: dict[str, Any]) -> str:
    if secret is not None and secret.session.get("type") == "transcription":
        raise BadCall(
            400,
            "This client secret opens a transcription session, which mockengine serves over WebSocket "
            "only (wss://HOST/v1/realtime?intent=transcription).",
            param="session.type",
            code="invalid_value",
        )
    if secret is not None and secret.session.get("type") == "translation":
        raise BadCall(
            400,
            "This client secret opens a translation session, which mockengine serves over WebSocket only "
            "(wss://HOST/v1/realtime/translations?model=gpt-realtime-translate).",
            param="session.type",
            code="invalid_value",
        )
    model = session.get("model") or request.query.get("model")
    if not model:
        model = secret.model if secret is not None else DEFAULT_MODEL
    scenarios = request.app[RESOURCES].scenarios
    if model in TRANSLATION_MODELS:
        raise BadCall(400, translation_model_message(model), param="model", code="invalid_model")
    if not MODEL_PATTERN.match(model) and scenarios.for_model(model) is None:
        raise BadCall(
            400, f'Model "{model}" is not supported in realtime mode.', param="model", code="invalid_model"
        )
    return str(model)


async def calls_context(app: web.Application) -> AsyncIterator[None]:
    """Calls live in the application: on shutdown each is hung up, and waited for (their peer
    connections close before the event loop does)."""
    app[CALLS] = {}
    app[CALL_ORDINALS] = itertools.count(1)
    calls: dict[str, CallRunner] = app[CALLS]
    app[CALL_CLOCK] = FaultClock(calls)
    yield
    app[CALL_CLOCK].stop()
    runners = list(app[CALLS].values())
    for runner in runners:
        runner.shutdown(1001, "server shutting down")
    serving = [r.serving for r in runners if r.serving is not None]
    if serving:
        await asyncio.wait(serving, timeout=SHUTDOWN_WAIT_S)


class FaultClock:
    """The timed WebRTC faults (media_stall, server_hangup) of every call in ``calls``, checked by one
    task every FAULT_CLOCK_S while a call is open (not a timer per call). With no call open it has no
    task: it woke an idle engine ten times a second, ~24 % of the loop thread's instructions in
    tools/append_bench.py's count of WebSocket sessions (cpu.md, tenth pass)."""

    def __init__(self, calls: Mapping[str, HasCallFaults]) -> None:
        self._calls = calls
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        """Called once a call is in ``calls``: starts the clock if it was stopped."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while self._calls:
            await asyncio.sleep(FAULT_CLOCK_S)
            _tick_faults(self._calls)


CALL_CLOCK = web.AppKey("call_fault_clock", FaultClock)  # ticks the calls' timed faults


def _tick_faults(calls: Mapping[str, HasCallFaults]) -> None:
    # A function of its own: the loop variable held in _fault_clock's frame kept the last call ticked
    # (runner, peer connection, session and all) alive while the clock slept, for good once no call
    # was left to rebind it.
    for runner in list(calls.values()):
        runner.call_faults.on_tick()


def add_routes(app: web.Application) -> None:
    app.cleanup_ctx.append(calls_context)
    app.router.add_post("/v1/realtime/calls", create_call)
    app.router.add_post("/v1/realtime/calls/{call_id}/hangup", hangup_call)
