"""Fault specs: what can go wrong on purpose, and the compact syntax to ask for it.

A fault is a ``kind`` plus its parameters, and three optional modifiers shared by every kind:

- ``rate`` (0–1, default 1): the share of connections / requests it hits, decided from the seed and the
  connection's or request's ordinal (never from the clock), so a rerun hits the same ones;
- ``times`` (default unlimited): how often a server-wide rule fires in all, e.g. one 429 then success;
- ``path`` (HTTP kinds only, default ``/v1/``): the route prefix it applies to.

Compact form (command line, ``?fault=``, ``X-Mockengine-Fault``): ``kind[:value][,key=value…]``, several
joined with ``;``. A bare value fills the kind's main parameter: ``close_after_audio_delta:3`` is
``close_after_audio_delta:k=3``. JSON / YAML form: ``{"kind": "close_after_audio_delta", "k": 3}`` or a
list of those. Both are validated with the JSON Schema built from :data:`KINDS`; a bad spec raises
:class:`FaultSpecError` naming the kind and the parameter.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import yaml

from mockengine.near_miss import did_you_mean


class FaultSpecError(ValueError):
    """A fault spec that does not parse or does not fit the schema."""


@dataclass(frozen=True)
class Param:
    type: str  # JSON Schema type: "integer", "number", "string"
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    doc: str = ""


@dataclass(frozen=True)
class Kind:
    layer: str  # "ws" (a Realtime WebSocket session) or "http" (any REST route)
    doc: str
    params: Mapping[str, Param] = field(default_factory=dict)
    main: str | None = None  # the parameter a bare value fills


_CODE = Param(
    "integer",
    1011,
    1000,
    4999,
    "close code: 1000-1003, 1007-1014 or 3000-4999; 1006 drops the TCP connection without a close frame",
)
KINDS: dict[str, Kind] = {
    # -- WebSocket --------------------------------------------------------------------------------
    "refuse_upgrade": Kind(
        "ws",
        "answer the upgrade with this HTTP status instead of 101",
        {"status": Param("integer", 503, 400, 599)},
        "status",
    ),
    "delay_session_created": Kind(
        "ws", "hold session.created back for ms", {"ms": Param("integer", 10_000, 0)}, "ms"
    ),
    "withhold_session_created": Kind("ws", "never send session.created (a hanging handshake)"),
    "delay_session_updated": Kind(
        "ws", "hold every session.updated back for ms", {"ms": Param("integer", 10_000, 0)}, "ms"
    ),
    "withhold_session_updated": Kind("ws", "never send session.updated"),
    "close_after_events": Kind(
        "ws",
        "close after n server events (armed on a live session: n more from then)",
        {"n": Param("integer", 1, 1), "code": _CODE},
        "n",
    ),
    "close_after_ms": Kind(
        "ws", "close ms after the connection opened", {"ms": Param("integer", 1000, 0), "code": _CODE}, "ms"
    ),
    "close_after_audio_delta": Kind(
        "ws",
        "close right after the k-th response.output_audio.delta of a response",
        {"k": Param("integer", 1, 1), "code": Param("integer", 1006, 1000, 4999, _CODE.doc)},
        "k",
    ),
    "dead_peer": Kind(
        "ws",
        "after n server events stop sending and reading (no close, no pongs): a dead peer",
        {"after_events": Param("integer", 1, 0)},
        "after_events",
    ),
    "slow_drip": Kind("ws", "wait ms before every server event", {"ms": Param("integer", 500, 0)}, "ms"),
    "error_mid_response": Kind(
        "ws",
        "an `error` event (server_error) right after the k-th output delta of a response; it goes on",
        {"k": Param("integer", 1, 1)},
        "k",
    ),
    "response_failed": Kind(
        "ws",
        "after the k-th output delta the response ends: response.done status failed (server_error)",
        {"k": Param("integer", 1, 1)},
        "k",
    ),
    "session_expired": Kind(
        "ws",
        "after ms: the session_expired error and close 1001, as at the 60-minute limit",
        {"ms": Param("integer", 1000, 0)},
        "ms",
    ),
    "rate_limits": Kind(
        "ws",
        "rate_limits.updated counts down over n responses; the next one fails with rate_limit_exceeded",
        {"responses": Param("integer", 3, 0), "limit": Param("integer", 40_000, 1)},
        "responses",
    ),
    # -- WebRTC calls (POST /v1/realtime/calls; server/webrtc/faults.py) ----------------------------
    "refuse_call": Kind(
        "ws",
        "WebRTC: answer POST /v1/realtime/calls with this HTTP status (JSON error) instead of 201",
        {"status": Param("integer", 503, 400, 599)},
        "status",
    ),
    "slow_call": Kind(
        "ws",
        "WebRTC: wait ms before answering POST /v1/realtime/calls",
        {"ms": Param("integer", 10_000, 0)},
        "ms",
    ),
    "datachannel_close": Kind(
        "ws",
        "WebRTC: close the oai-events data channel right after the k-th audio delta of a response",
        {"k": Param("integer", 1, 1)},
        "k",
    ),
    "media_stall": Kind(
        "ws",
        "WebRTC: ms after the call opened, media stops both ways; the connection and channel stay up",
        {"after_ms": Param("integer", 2000, 0)},
        "after_ms",
    ),
    "server_hangup": Kind(
        "ws", "WebRTC: the server ends the call ms after it opened", {"ms": Param("integer", 2000, 0)}, "ms"
    ),
    # -- HTTP -------------------------------------------------------------------------------------
    "http_rate_limit": Kind(
        "http",
        "429 rate_limit_exceeded (requests per min) with Retry-After and x-ratelimit-* headers",
        {"retry_after_s": Param("number", 2.0, 0)},
        "retry_after_s",
    ),
    "http_quota": Kind("http", "429 insufficient_quota (not worth retrying)"),
    "http_too_large": Kind("http", "429 rate_limit_exceeded: request too large for the tokens-per-min limit"),
    "http_status": Kind(
        "http",
        "a server error: 500, 502 or 503 with the real body",
        {"status": Param("integer", 500, 500, 599)},
        "status",
    ),
    "http_hang": Kind(
        "http",
        "wait ms before answering (the client's timeout fires first)",
        {"ms": Param("integer", 600_000, 0)},
        "ms",
    ),
    "http_drop": Kind("http", "drop the TCP connection without an answer"),
    "http_malformed_json": Kind("http", "200 whose JSON body is cut in half"),
    "sse_truncate": Kind(
        "http",
        "a streamed (SSE) answer breaks off inside event n+1 and the connection drops",
        {"after_events": Param("integer", 1, 0)},
        "after_events",
    ),
}
# The WebSocket-layer kinds that act on WebRTC calls only (server/webrtc/faults.py).
CALL_KINDS = frozenset({"refuse_call", "slow_call", "datachannel_close", "media_stall", "server_hangup"})
# What a translation session (/v1/realtime/translations and its calls) can meet. It has no responses, so
# not response_failed nor rate_limits; its output is one stream, whose session.output_audio.delta are
# what close_after_audio_delta, error_mid_response and datachannel_close count.
TRANSLATION_KINDS = frozenset(
    {
        "refuse_upgrade",
        "delay_session_created",
        "withhold_session_created",
        "delay_session_updated",
        "withhold_session_updated",
        "close_after_events",
        "close_after_ms",
        "close_after_audio_delta",
        "dead_peer",
        "slow_drip",
        "error_mid_response",
        "session_expired",
        *CALL_KINDS,
    }
)


def translation_misfit(spec: FaultSpec, transport: str) -> str | None:
    """Why ``spec`` cannot act on a translation session served over ``transport`` ("websocket" or
    "webrtc"), or None when it can (HTTP kinds are not a session's: None, as on voice-agent sessions)."""
    if spec.layer != "ws":
        return None
    if spec.kind in CALL_KINDS and transport != "webrtc":
        return f"fault {spec.kind!r} acts on WebRTC calls only, not on a translation WebSocket"
    if spec.kind not in TRANSLATION_KINDS:
        usable = sorted(k for k in TRANSLATION_KINDS if transport == "webrtc" or k not in CALL_KINDS)
        return (
            f"fault {spec.kind!r} does not apply to translation sessions (they have no responses); "
            f"they take {', '.join(usable)}"
        )
    return None


def websocket_misfit(spec: FaultSpec) -> str | None:
    """Why ``spec`` cannot act on a voice-agent session served over a WebSocket (a call kind: it acts on
    WebRTC calls only), or None when it can."""
    if spec.kind in CALL_KINDS:
        return f"fault {spec.kind!r} acts on WebRTC calls only, not on a WebSocket session"
    return None


COMMON: dict[str, Param] = {
    "rate": Param("number", 1.0, 0.0, 1.0),
    "times": Param("integer", None, 1),
    "path": Param("string", None),
}


@dataclass(frozen=True)
class FaultSpec:
    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)  # the kind's parameters, defaults filled
    rate: float = 1.0
    times: int | None = None
    path: str | None = None

    @property
    def layer(self) -> str:
        return KINDS[self.kind].layer

    def __getitem__(self, name: str) -> Any:
        return self.params[name]

    def describe(self) -> str:
        """The compact form, e.g. ``close_after_audio_delta:k=3,code=1006``."""
        parts = [f"{k}={v}" for k, v in self.params.items()]
        # Each left out only at its own default: ``times=1`` (one 429, then fine) equals the rate's 1.0.
        if self.rate != 1.0:
            parts.append(f"rate={self.rate}")
        parts += [f"{k}={v}" for k, v in (("times", self.times), ("path", self.path)) if v is not None]
        return self.kind + (":" + ",".join(parts) if parts else "")


# The bound of every integer and number parameter without one of its own. Python takes any integer, but
# the engine turns waits into floats (``ms / 1000.0``, ``round(s * 1000)``) and counts go out as JSON
# (orjson: 64 bits): ``http_hang:ms=<400 nines>`` was taken and each request it hit was a 500.
LARGEST_PARAMETER = 2**31 - 1


def _schema_of(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": param.type if param.default is not None or param.type == "string" else [param.type, "null"]
    }
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    elif param.type in ("integer", "number"):
        schema["maximum"] = LARGEST_PARAMETER
    if param.doc:
        schema["description"] = param.doc
    return schema


@functools.cache
def fault_schema() -> dict[str, Any]:
    """JSON Schema of one fault in the JSON / YAML form (also used for scenario ``fault:`` actions)."""
    variants: list[dict[str, Any]] = []
    for name, kind in KINDS.items():
        properties = {
            "kind": {"const": name},
            **{p: _schema_of(s) for p, s in {**kind.params, **COMMON}.items()},
        }
        variants.append(
            {
                "type": "object",
                "description": kind.doc,
                "properties": properties,
                "required": ["kind"],
                "additionalProperties": False,
            }
        )
    return {
        "type": "object",
        "properties": {"kind": {"enum": sorted(KINDS)}},
        "required": ["kind"],
        "allOf": [
            {"if": {"properties": {"kind": {"const": name}}}, "then": variant}
            for name, variant in zip(KINDS, variants, strict=True)
        ],
    }


def _offered(kind: str) -> dict[str, Param]:
    """The parameters ``kind`` takes: its own, ``rate``, ``times`` and, for an HTTP kind, ``path`` (a
    route prefix; a Realtime session's fault has no route to narrow)."""
    common = COMMON if KINDS[kind].layer == "http" else {k: v for k, v in COMMON.items() if k != "path"}
    return {**KINDS[kind].params, **common}


def _unknown_kind(name: str) -> FaultSpecError:
    return FaultSpecError(
        f"unknown fault kind {name!r}{did_you_mean(name, KINDS)}; known kinds: {', '.join(sorted(KINDS))}"
    )


def _unknown_parameter(kind: str, name: str) -> FaultSpecError:
    offered = _offered(kind)
    hint = did_you_mean(name, offered)
    return FaultSpecError(f"fault {kind}: unknown parameter {name!r}{hint}; it takes {', '.join(offered)}")


def from_mapping(raw: Any) -> FaultSpec:
    """One fault from its JSON / YAML object form. An unknown kind or parameter is named with its near
    miss and what is allowed, as in the compact form (jsonschema said only "Additional properties are
    not allowed ('kk' was unexpected)")."""
    if isinstance(raw, dict) and isinstance(raw.get("kind"), str):
        if raw["kind"] not in KINDS:
            raise _unknown_kind(raw["kind"])
        allowed = {**KINDS[raw["kind"]].params, **COMMON}
        for name in raw:
            if name != "kind" and name not in allowed:
                raise _unknown_parameter(raw["kind"], str(name))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(fault_schema()).iter_errors(raw))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "fault"
        kind = raw.get("kind") if isinstance(raw, dict) else None
        raise FaultSpecError(f"fault {kind or raw!r}: at {where}: {error.message}")
    for name, value in raw.items():  # JSON's NaN and Infinity pass every range check
        if isinstance(value, float) and not math.isfinite(value):
            raise FaultSpecError(f"fault {raw['kind']!r}: at {name}: expected a finite number, got {value}")
    kind = KINDS[raw["kind"]]
    params = {name: raw.get(name, p.default) for name, p in kind.params.items()}
    path = raw.get("path")
    if path is not None and not path.startswith("/v1"):  # never matched: HTTP faults act on /v1/ routes
        raise FaultSpecError(
            f"fault {raw['kind']}: path must be a route prefix under /v1/ (HTTP faults act on /v1/ "
            f"routes), e.g. /v1/chat/completions, not {path!r}"
        )
    if "code" in params and not _sendable_close_code(params["code"]):
        raise FaultSpecError(
            f"fault {raw['kind']}: code {params['code']} cannot be sent in a close frame (RFC 6455 7.4); "
            "use 1000-1003, 1007-1014 or 3000-4999, or 1006 to drop the connection without one"
        )
    return FaultSpec(
        raw["kind"],
        params,
        rate=float(raw.get("rate", 1.0)),
        times=raw.get("times"),
        path=raw.get("path"),
    )


def _sendable_close_code(code: int) -> bool:
    """Whether a close frame may carry ``code`` (RFC 6455 7.4; 1006 is the engine's "drop the TCP
    connection"). 1004, 1005, 1015 and 1016-2999 were sent, and the client failed the connection with a
    protocol error (1002) instead of reading the code asked for."""
    return code == 1006 or 1000 <= code <= 1003 or 1007 <= code <= 1014 or 3000 <= code <= 4999


def _coerce(text: str, param: Param, where: str) -> Any:
    try:
        if param.type == "integer":
            return int(text)
        if param.type == "number" and math.isfinite(number := float(text)):
            return number
        if param.type == "number":  # nan passes every range check and would never fire
            raise ValueError(text)
    except ValueError:
        wanted = "an integer" if param.type == "integer" else "a finite number"
        raise FaultSpecError(f"{where}: expected {wanted}, got {text!r}") from None
    return text


def parse_compact(text: str) -> FaultSpec:
    """One fault from ``kind[:value][,key=value…]``: named parameters may follow the kind directly
    (``http_quota,times=1``); a bare value only after the colon."""
    text = text.strip()
    cut = min((i for i in (text.find(":"), text.find(",")) if i >= 0), default=len(text))
    head, separator, rest = text[:cut], text[cut : cut + 1], text[cut + 1 :]
    kind = KINDS.get(head.strip())
    if kind is None:
        raise _unknown_kind(head.strip())
    raw: dict[str, Any] = {"kind": head.strip()}
    params = {**kind.params, **COMMON}
    for index, piece in enumerate(p.strip() for p in rest.split(",") if p.strip()):
        name, eq, value = piece.partition("=")
        if not eq:
            if index != 0 or kind.main is None or separator != ":":
                raise FaultSpecError(f"fault {head}: {piece!r} needs a name (name=value)")
            name, value = kind.main, piece
        name = name.strip()
        if name not in params:
            raise _unknown_parameter(head.strip(), name)
        raw[name] = _coerce(value.strip(), params[name], f"fault {head}: {name}")
    return from_mapping(raw)


def parse_faults(text: str) -> list[FaultSpec]:
    """Faults from the compact form (``;``-separated) or JSON (an object or a list of objects)."""
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] in "[{":
        try:
            data = json.loads(stripped)
        except ValueError as exc:
            raise FaultSpecError(f"fault JSON does not parse: {exc}") from exc
        return faults_from_data(data)
    return [parse_compact(piece) for piece in stripped.split(";") if piece.strip()]


def faults_from_data(data: Any) -> list[FaultSpec]:
    """Faults from parsed JSON / YAML: one object, a list, or compact strings in a list."""
    items = data if isinstance(data, list) else [data]
    return [
        spec
        for item in items
        for spec in (parse_faults(item) if isinstance(item, str) else [from_mapping(item)])
    ]


def scenario_rule_faults(scenarios: Iterable[Any]) -> dict[str, dict[str, tuple[FaultSpec, ...]]]:
    """Scenario name → ``scenario:<rule id>`` → the rule's parsed ``fault:`` (rules without one left
    out). Raises FaultSpecError naming the scenario file, the line, the rule (its place and its id) and
    what is wrong: ``flaky.yaml: line 6: at $.rules[0].fault: rule 'story': fault response_failed: unknown
    parameter 'kk' (did you mean 'k'?); it takes k, rate, times``."""
    found: dict[str, dict[str, tuple[FaultSpec, ...]]] = {}
    for scenario in scenarios:
        for index, rule in enumerate(scenario.rules):
            if not rule.faults:
                continue
            try:
                specs = tuple(s for item in rule.faults for s in faults_from_data(item))
            except FaultSpecError as exc:
                raise FaultSpecError(
                    f"{scenario.source}: {rule.fault_line}at $.rules[{index}].fault: rule {rule.id!r}: {exc}"
                ) from exc
            found.setdefault(scenario.name, {})[f"scenario:{rule.id}"] = specs
    return found


@dataclass(frozen=True)
class FaultProfile:
    """A server-wide profile (``--faults FILE.yaml``): ``seed`` (optional) and ``faults`` (a list)."""

    faults: tuple[FaultSpec, ...] = ()
    seed: int | None = None


PROFILE_KEYS = ("seed", "faults")


def load_profile(path: str) -> FaultProfile:
    """Read a profile file: ``{seed: 7, faults: [...]}`` or just a list of faults."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except (OSError, yaml.YAMLError) as exc:
        raise FaultSpecError(f"{path}: cannot read fault profile: {exc}") from exc
    if isinstance(data, dict) and "kind" not in data:  # a profile, not one fault's object
        # ``seeed: 7`` was ignored, and the server drew a random seed the profile meant to fix.
        for key in data:
            if key not in PROFILE_KEYS:
                hint = did_you_mean(str(key), PROFILE_KEYS)
                raise FaultSpecError(
                    f"{path}: unknown key {str(key)!r}{hint}; a profile takes {', '.join(PROFILE_KEYS)}"
                )
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise FaultSpecError(f"{path}: seed must be an integer")
        try:
            return FaultProfile(tuple(faults_from_data(data.get("faults") or [])), seed)
        except FaultSpecError as exc:
            raise FaultSpecError(f"{path}: {exc}") from exc
    try:
        return FaultProfile(tuple(faults_from_data(data or [])))
    except FaultSpecError as exc:
        raise FaultSpecError(f"{path}: {exc}") from exc
