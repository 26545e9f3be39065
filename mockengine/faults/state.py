"""Which faults hit which connection or request, and the record of every fault injected.

Sources of faults, merged for each new connection (WebSocket) or request (HTTP):
1. the server profile (``--faults FILE.yaml`` / ``--fault SPEC``), each rule with its ``rate``: rule *i*
   hits the connection with ordinal *n* iff ``Random(f"{seed}:{i}:{n}").random() < rate``, so the same
   seed gives the same schedule whatever the timing;
2. faults armed at run time for the next N connections or requests (``POST /mockengine/faults``): each
   of those N is hit with probability ``rate``, drawn from ``f"{seed}:armed:{k}:{n}"`` (the k-th arming);
3. the connection's own ``?fault=`` query parameter or ``X-Mockengine-Fault`` header: its j-th fault hits
   with probability ``rate``, drawn from ``f"{seed}:own:{j}:{kind}:{n}"``.
Faults for a live session (control endpoint, scenario rules) go straight to that session, each arming
(or rule firing) hit with probability ``rate`` (``f"{seed}:live:{session}:{k}:{i}"`` for the i-th session
of that id, ``f"{seed}:rule:{session}:{rule}:{k}"`` for the k-th firing). ``rate`` 1 always hits, 0 never.

Every injected fault is logged on ``mockengine.faults`` (kind, session id or request path) and counted by
kind (``GET /healthz`` → ``faults_injected``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from mockengine.faults.spec import FaultProfile, FaultSpec, parse_faults

log = logging.getLogger("mockengine.faults")
FAULT_HEADER = "X-Mockengine-Fault"
FAULT_QUERY = "fault"


# Between a session id and the ordinal in a live session's handle (``sess_…~3``): session ids are
# ``sess_`` and base62, so the handle never reads as an id, and ``~`` is safe in a URL path.
HANDLE_SEPARATOR = "~"

# How long a control request waits for a session still opening (its handle named in the 101, its
# session not listed yet): the few milliseconds to its session.created, more when a replay's audio
# loads; a bound only, as every opening is settled (listed, or given up) by the endpoint that began it.
OPENING_WAIT_S = 5.0


class LiveSession(Protocol):
    """What the control endpoint can do to a running Realtime session."""

    def arm(self, spec: FaultSpec) -> None: ...

    def kill(self) -> None: ...


@dataclass
class Armed:
    spec: FaultSpec
    remaining: int  # connections or requests still to consider (each hit with probability spec.rate)
    serial: int = 0  # which arming this is: its draws are its own


@dataclass
class FaultState:
    profile: FaultProfile = field(default_factory=FaultProfile)
    seed: int = 0
    injected: Counter[str] = field(default_factory=Counter)
    connections: int = 0  # WebSocket connections seen (ordinals start at 1)
    requests: int = 0  # HTTP requests seen under a fault-able path
    armed: list[Armed] = field(default_factory=list)
    # Session id → its live sessions (seeded sessions share ids: same seed, same ids).
    live: dict[str, list[LiveSession]] = field(default_factory=dict)
    # Handle → its one live session (``new_handle``): what tells apart sessions that share an id.
    handles: dict[str, LiveSession] = field(default_factory=dict)
    handles_issued: int = 0
    # Sessions listed or unlisted so far (``list_changed``): ``GET /mockengine/sessions?changed_from=N``
    # waits for the next change, so a page learns of another client's session ending at once.
    changes: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _stopping: bool = False
    # Handles a transport's answer named (the 101) whose session is not listed yet: a control request
    # naming one, or listing the sessions, waits for them (``until_opened``), rather than answer 404
    # "No live session" to a client that acts on its session at once.
    opening: dict[str, asyncio.Event] = field(default_factory=dict)
    fired: Counter[int] = field(default_factory=Counter)  # profile rule index → times fired
    # Scenario name → "scenario:<rule id>" → the faults that rule fires (checked at start-up).
    rule_faults: dict[str, dict[str, tuple[FaultSpec, ...]]] = field(default_factory=dict)
    # Told the kind of every injected fault (the server counts them in /metrics).
    on_injected: Callable[[str], None] | None = None

    def faults_of_rules(self, scenario: str | None) -> dict[str, tuple[FaultSpec, ...]]:
        """Rule faults for a session: every loaded scenario's (the instructions marker may switch
        scenario per reply), the session's own scenario winning a clash of rule ids."""
        merged: dict[str, tuple[FaultSpec, ...]] = {}
        for name, rules in self.rule_faults.items():
            if name != scenario:
                merged.update(rules)
        merged.update(self.rule_faults.get(scenario or "", {}))
        return merged

    def record(self, spec: FaultSpec | str, where: str, **detail: Any) -> None:
        """Log and count one injected fault (``where``: a session id, or ``METHOD path``)."""
        kind = spec if isinstance(spec, str) else spec.kind
        self.injected[kind] += 1
        if self.on_injected is not None:
            self.on_injected(kind)
        extra = " ".join(f"{k}={v}" for k, v in detail.items())
        log.warning("fault injected kind=%s at=%s %s", kind, where, extra)

    arms: int = 0  # armings so far (control endpoint), numbering their draws

    def hits(self, rule_index: int, ordinal: int, rate: float) -> bool:
        """Whether profile rule ``rule_index`` hits ordinal ``ordinal`` (seeded, clock-free)."""
        return self.draw(f"{rule_index}:{ordinal}", rate)

    def draw(self, key: str, rate: float) -> bool:
        """True with probability ``rate``, decided by the seed and ``key`` alone (never the clock)."""
        if rate >= 1.0:
            return True
        return random.Random(f"{self.seed}:{key}").random() < rate

    def new_handle(self, session_id: str) -> str:
        """A handle no other session of this process has had: ``<session_id>~<n>``, n counting the
        sessions this process served (from 1). Taken before the session is listed (``LiveHandle``), so a
        transport can name it in its answer's headers."""
        self.handles_issued += 1
        return f"{session_id}{HANDLE_SEPARATOR}{self.handles_issued}"

    def open_handle(self, session_id: str) -> str:
        """:meth:`new_handle` for a session that will be listed later: until :meth:`opened` is told so,
        control requests naming it wait for it."""
        handle = self.new_handle(session_id)
        self.opening[handle] = asyncio.Event()
        return handle

    def opened(self, handle: str) -> None:
        """``handle``'s session is listed, or never will be (refused, or the client left first)."""
        event = self.opening.pop(handle, None)
        if event is not None:
            event.set()

    async def until_opened(self, name: str | None = None, timeout_s: float = OPENING_WAIT_S) -> None:
        """Wait, at most ``timeout_s``, for the sessions still opening that ``name`` (a handle or a session
        id) names, or for every one (None)."""
        waiting = [
            event.wait()
            for handle, event in self.opening.items()
            if name is None or handle == name or handle.startswith(f"{name}{HANDLE_SEPARATOR}")
        ]
        if waiting:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout_s):
                    await asyncio.gather(*waiting)

    def list_changed(self) -> None:
        """A session was listed or unlisted: wake the requests waiting for a change."""
        self.changes += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def until_changed(self, seen: int, timeout_s: float) -> None:
        """Wait, at most ``timeout_s``, until the list has changed since it was at ``seen`` changes (at
        once when it already has, or when the server is shutting down)."""
        if self.changes != seen or self._stopping:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._changed.wait()

    def stop_waiting(self) -> None:
        """The server is shutting down: waiting requests answer now (it waits for requests in flight)."""
        self._stopping = True
        self._changed.set()

    def find_live(self, name: str) -> list[LiveSession]:
        """The live sessions ``name`` names: a handle its one session, a session id every session
        holding that id ([] for neither)."""
        if HANDLE_SEPARATOR in name:
            found = self.handles.get(name)
            return [found] if found is not None else []
        return list(self.live.get(name, []))

    def next_arming(self) -> int:
        self.arms += 1
        return self.arms

    def schedule(self, layer: str, count: int) -> list[list[str]]:
        """The profile's faults for ordinals 1..count of a layer (``ws`` or ``http``): what a load test of
        ``count`` sessions will meet. A rule's ``times`` is counted as a server counts it (a rule that
        fired that often hits nothing more); its ``path`` is not known here, so every request is taken to
        match it (exact for ``ws`` and for an ``http`` run whose requests all go to that path)."""
        fired: Counter[int] = Counter()
        rows = []
        for n in range(1, count + 1):
            row = []
            for i, spec in enumerate(self.profile.faults):
                if spec.layer != layer or (spec.times is not None and fired[i] >= spec.times):
                    continue
                if self.hits(i, n, spec.rate):
                    fired[i] += 1
                    row.append(spec.kind)
            rows.append(row)
        return rows

    def _from_profile(self, layer: str, ordinal: int, path: str | None) -> list[FaultSpec]:
        chosen = []
        for index, spec in enumerate(self.profile.faults):
            if spec.layer != layer or not _path_matches(spec, path):
                continue
            if spec.times is not None and self.fired[index] >= spec.times:
                continue
            if self.hits(index, ordinal, spec.rate):
                self.fired[index] += 1
                chosen.append(spec)
        return chosen

    def _from_armed(self, layer: str, ordinal: int, path: str | None) -> list[FaultSpec]:
        chosen = []
        for armed in self.armed:
            if armed.spec.layer == layer and armed.remaining > 0 and _path_matches(armed.spec, path):
                armed.remaining -= 1
                if self.draw(f"armed:{armed.serial}:{ordinal}", armed.spec.rate):
                    chosen.append(armed.spec)
        self.armed = [a for a in self.armed if a.remaining > 0]
        return chosen

    def _own(self, request: web.Request, layer: str, ordinal: int) -> list[FaultSpec]:
        specs = [s for s in own_faults(request) if s.layer == layer]
        return [s for j, s in enumerate(specs) if self.draw(f"own:{j}:{s.kind}:{ordinal}", s.rate)]

    def for_connection(self, request: web.Request) -> list[FaultSpec]:
        """The WebSocket faults of a new connection (raises FaultSpecError on a bad ``?fault=``)."""
        own_faults(request)  # a bad spec is refused before the connection counts
        self.connections += 1
        n = self.connections
        return (
            self._from_profile("ws", n, None) + self._from_armed("ws", n, None) + self._own(request, "ws", n)
        )

    def for_request(self, request: web.Request) -> list[FaultSpec]:
        """The HTTP faults of a new request (raises FaultSpecError on a bad header / query)."""
        own_faults(request)
        self.requests += 1
        n, path = self.requests, request.path
        return (
            self._from_profile("http", n, path)
            + self._from_armed("http", n, path)
            + self._own(request, "http", n)
        )

    def arm_next(self, specs: Iterable[FaultSpec], count: int) -> None:
        self.armed.extend(Armed(spec, count, self.next_arming()) for spec in specs)

    def snapshot(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "profile": [s.describe() for s in self.profile.faults],
            "armed": [{"fault": a.spec.describe(), "remaining": a.remaining} for a in self.armed],
            "injected": dict(self.injected),
            "live_sessions": sorted(self.live),
        }


def own_faults(request: web.Request) -> list[FaultSpec]:
    specs: list[FaultSpec] = []
    for text in (request.query.get(FAULT_QUERY), request.headers.get(FAULT_HEADER)):
        if text:
            specs += _parsed_faults(text)
    return specs


@functools.lru_cache(maxsize=256)
def _parsed_faults(text: str) -> tuple[FaultSpec, ...]:
    """A request's fault text parsed once: clients repeat the same few on every connection, and each
    parse validates against the fault schema (about a millisecond). Bad text raises every time."""
    return tuple(parse_faults(text))


def _path_matches(spec: FaultSpec, path: str | None) -> bool:
    return path is None or path.startswith(spec.path or "/v1/")


FAULTS = web.AppKey("faults", FaultState)


def fault_state(profile: FaultProfile, server_seed: int | None) -> FaultState:
    """The state for a server: seed from the profile, else the server's ``--seed``, else a random one
    (logged, so a run can be repeated with ``seed:`` in the profile)."""
    seed = profile.seed if profile.seed is not None else server_seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
        if profile.faults:
            log.info("fault profile seed %d (set seed: in the profile to repeat this schedule)", seed)
    return FaultState(profile=profile, seed=seed)
