"""Fault specs, the seeded schedule and the session writer's filter (no sockets)."""

from __future__ import annotations

import asyncio

import pytest

from mockengine.faults.spec import (
    KINDS,
    FaultProfile,
    FaultSpecError,
    fault_schema,
    load_profile,
    parse_compact,
    parse_faults,
)
from mockengine.faults.state import HANDLE_SEPARATOR, FaultState
from mockengine.faults.ws import SessionFaults
from mockengine.realtime.response import Usage


def test_compact_and_json_forms_agree():
    compact = parse_faults(
        "close_after_audio_delta:3;http_rate_limit:retry_after_s=0.5,rate=0.1,path=/v1/models"
    )
    as_json = parse_faults(
        '[{"kind": "close_after_audio_delta", "k": 3},'
        ' {"kind": "http_rate_limit", "retry_after_s": 0.5, "rate": 0.1, "path": "/v1/models"}]'
    )
    assert compact == as_json
    assert compact[0].params == {"k": 3, "code": 1006} and compact[0].layer == "ws"
    assert compact[1].layer == "http" and compact[1].rate == 0.1
    assert parse_compact(compact[1].describe()) == compact[1]


def test_describe_keeps_times_1():
    """``times=1`` (one 429, then fine) is shown where a profile or armed fault is listed (GET
    /mockengine/faults, the log), and the compact form it gives reads back as the same fault."""
    once = parse_compact("http_rate_limit:retry_after_s=0.5,times=1")
    assert once.describe() == "http_rate_limit:retry_after_s=0.5,times=1"
    assert parse_compact(once.describe()) == once
    assert parse_compact("slow_drip:rate=1").describe() == "slow_drip:ms=500"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nope", "unknown fault kind 'nope'"),
        ("slow_drip:x", "expected an integer"),
        ("slow_drip:foo=1", "unknown parameter 'foo'"),
        ("http_status:404", "less than the minimum of 500"),
        ('{"kind": "slow_drip", "bogus": 1}', "unknown parameter 'bogus'; it takes ms, rate, times"),
        ("slow_drip:rate=2", "greater than the maximum of 1"),
        ("withhold_session_created:5", "needs a name"),
        ("{not json", "does not parse"),
    ],
)
def test_bad_specs_say_what_is_wrong(text, message):
    with pytest.raises(FaultSpecError, match=message):
        parse_faults(text)


HUGE = "9" * 400  # an integer Python takes, a float overflows: time.sleep, round(x * 1000), orjson


@pytest.mark.parametrize(
    "text",
    [
        f"http_hang:ms={HUGE}",
        f"delay_session_created:{HUGE}",
        f"slow_drip:{HUGE}",
        f"close_after_ms:{HUGE}",
        f"session_expired:{HUGE}",
        "http_rate_limit:retry_after_s=1e308",
        f"rate_limits:limit={HUGE}",
        f"close_after_events:n={HUGE}",
        f"http_quota,times={HUGE}",
    ],
)
def test_a_parameter_past_what_the_engine_can_wait_or_send_is_refused(text):
    """Every integer and number parameter has an upper bound: ``http_hang:ms=<400 nines>`` and
    ``http_rate_limit:retry_after_s=1e308`` were taken, then the request was a 500 (OverflowError in
    ``ms / 1000.0`` and ``round(s * 1000)``), and ``delay_session_created`` / ``close_after_ms`` /
    ``session_expired`` so large failed the upgrade with a 500 and ``slow_drip`` broke the socket."""
    with pytest.raises(FaultSpecError, match="greater than the maximum"):
        parse_faults(text)
    kind = text.partition(":")[0].partition(",")[0]
    assert parse_faults(f'{{"kind": "{kind}"}}')[0].kind == kind  # the defaults stay within it


@pytest.mark.parametrize("code", [1004, 1005, 1015, 1016, 2000, 2999])
@pytest.mark.parametrize("kind", ["close_after_events", "close_after_ms", "close_after_audio_delta"])
def test_a_close_code_no_close_frame_may_carry_is_refused(kind, code):
    """RFC 6455 7.4: 1004, 1005, 1015 and 1016-2999 never go in a close frame. They were taken and sent,
    and the client (websockets, the openai SDK's) saw a protocol error (1002) instead of the code asked."""
    with pytest.raises(FaultSpecError, match=f"code {code} cannot be sent in a close frame"):
        parse_faults(f"{kind}:code={code}")
    with pytest.raises(FaultSpecError, match="cannot be sent in a close frame"):
        parse_faults(f'{{"kind": "{kind}", "code": {code}}}')
    for usable in (1000, 1003, 1006, 1007, 1014, 3000, 4999):  # 1006: dropped without a frame
        assert parse_faults(f"{kind}:code={usable}")[0]["code"] == usable


@pytest.mark.parametrize("path", ["v1/chat/completions", "chat", "/healthz", "/mockengine/faults"])
def test_an_http_path_no_request_can_match_is_refused(path):
    """HTTP faults act on ``/v1/`` routes, matched by prefix: ``http_status,path=v1`` was armed and
    listed, and hit no request ever (a load test's "5 % of requests fail" that never failed one)."""
    with pytest.raises(FaultSpecError, match="path must be a route prefix under /v1"):
        parse_faults(f"http_status,path={path}")
    with pytest.raises(FaultSpecError, match="path must be a route prefix under /v1"):
        parse_faults(f'{{"kind": "http_status", "path": "{path}"}}')
    assert parse_faults("http_status,path=/v1/chat/completions")[0].path == "/v1/chat/completions"
    assert parse_faults("http_status,path=/v1")[0].path == "/v1"


def test_every_kind_has_a_schema_and_defaults():
    schema = fault_schema()
    assert set(schema["properties"]["kind"]["enum"]) == set(KINDS)
    for kind in KINDS:
        assert parse_faults(kind)[0].kind == kind  # every parameter has a usable default


def test_profile_file(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("seed: 3\nfaults:\n  - slow_drip:ms=5\n  - {kind: http_quota, rate: 0.5}\n")
    profile = load_profile(str(path))
    assert profile.seed == 3 and [s.kind for s in profile.faults] == ["slow_drip", "http_quota"]
    path.write_text("faults: [{kind: nope}]\n")
    with pytest.raises(FaultSpecError, match="p.yaml"):
        load_profile(str(path))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "seeed: 7\nfaults: [slow_drip]\n",
            "unknown key 'seeed' (did you mean 'seed'?); a profile takes seed, faults",
        ),
        ("seed: 7\nfautls: [slow_drip]\n", "unknown key 'fautls' (did you mean 'faults'?)"),
        ("seed: true\nfaults: [slow_drip]\n", "seed must be an integer"),
    ],
)
def test_a_profile_key_misspelt_is_refused_with_its_near_miss(tmp_path, text, said):
    """``seeed: 7`` was ignored: the server drew a random seed, and the sessions a ``rate`` hit changed
    from run to run while the profile said they would not."""
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(FaultSpecError) as refused:
        load_profile(str(path))
    assert said in str(refused.value) and str(path) in str(refused.value)


def test_same_seed_same_schedule_other_seed_other_schedule():
    profile = FaultProfile(tuple(parse_faults("close_after_audio_delta:3,rate=0.05;slow_drip:ms=1,rate=0.5")))
    first = FaultState(profile=profile, seed=7).schedule("ws", 400)
    assert first == FaultState(profile=profile, seed=7).schedule("ws", 400)
    assert first != FaultState(profile=profile, seed=8).schedule("ws", 400)
    dropped = sum("close_after_audio_delta" in kinds for kinds in first)
    assert 5 <= dropped <= 40  # about 5 % of 400, whatever the seed: not all, not none
    assert FaultState(profile=profile, seed=7).schedule("http", 10) == [[]] * 10


def test_the_schedule_counts_times_as_the_server_does():
    """`faults schedule` of docs/faults-and-tokens.md's profile listed the `times: 1` rule ("one 429,
    then fine") on all 100 requests: the preview ignored `times`."""
    text = "http_rate_limit:retry_after_s=0.5,times=1;http_status:503,rate=0.3,times=2;slow_drip:rate=0.5"
    profile = FaultProfile(tuple(parse_faults(text)))
    for layer in ("http", "ws"):
        preview = FaultState(profile=profile, seed=7).schedule(layer, 50)
        server = FaultState(profile=profile, seed=7)  # as a server picks them, request after request
        assert preview == [[s.kind for s in server._from_profile(layer, n, "/v1/x")] for n in range(1, 51)]
    http = FaultState(profile=profile, seed=7).schedule("http", 50)
    assert http[0] == ["http_rate_limit", *(["http_status"] if "http_status" in http[0] else [])]
    assert sum("http_rate_limit" in kinds for kinds in http) == 1
    assert sum("http_status" in kinds for kinds in http) == 2


class Actions:
    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.ids = 0

    async def close(self, code, reason):
        self.log.append(("close", code))

    def kill(self):
        self.log.append(("kill",))

    def fail_response(self, response_id, error):
        self.log.append(("fail", response_id, error["code"]))

    def expire(self):
        self.log.append(("expire",))

    def event_id(self):
        self.ids += 1
        return f"event_{self.ids}"

    def model(self):
        return "gpt-realtime-mini"

    def record(self, spec, **detail):
        self.log.append(("record", spec if isinstance(spec, str) else spec.kind))


def response_events(rid: str, deltas: int) -> list[dict]:
    item = {"id": f"item_{rid}", "type": "message", "status": "completed"}
    return [
        {"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "response_id": rid, "item": item},
        {"type": "conversation.item.added", "item": item},
        *(
            {"type": "response.output_audio.delta", "response_id": rid, "delta": str(n)}
            for n in range(deltas)
        ),
        {"type": "response.output_audio.done", "response_id": rid},
        {"type": "response.done", "response": {"id": rid, "status": "completed", "output": [dict(item)]}},
        {"type": "rate_limits.updated", "rate_limits": [{"name": "tokens", "limit": 1, "remaining": 1}]},
    ]


async def run(faults: SessionFaults, events: list[dict]) -> list[dict]:
    sent = []
    for event in events:
        for out in await faults.before_send(event):
            sent.append(out)
            sent += await faults.after_send(out)
    return sent


async def test_response_failed_drops_the_rest_and_fails_the_done():
    actions = Actions()
    sent = await run(SessionFaults(parse_faults("response_failed:k=2"), actions), response_events("r1", 5))
    kinds = [e["type"] for e in sent]
    assert kinds.count("response.output_audio.delta") == 2
    done = next(e for e in sent if e["type"] == "response.done")["response"]
    assert done["status"] == "failed" and done["output"][0]["status"] == "incomplete"
    assert ("fail", "r1", None) in actions.log  # the core is told to stop the response
    assert ("record", "response_failed") in actions.log


async def test_rate_limit_refusal_drops_the_whole_response():
    actions = Actions()
    faults = SessionFaults(parse_faults("rate_limits:responses=1,limit=100"), actions)
    first = await run(faults, response_events("r1", 2))
    billed = response_events("r2", 2)
    billed[-2]["response"]["usage"] = Usage(input_text_tokens=12, output_audio_tokens=40).wire()
    second = await run(faults, billed)
    assert first[-1]["rate_limits"][0]["remaining"] == 0
    assert [e["type"] for e in second] == ["response.created", "response.done", "rate_limits.updated"]
    error = second[1]["response"]["status_details"]["error"]
    assert error["code"] == "rate_limit_exceeded" and "for gpt-realtime-mini in" in error["message"]
    assert second[1]["response"]["output"] == []
    # Refused before any output, it bills nothing: the usage's shape with every count 0.
    assert second[1]["response"]["usage"] == Usage().wire()


async def test_withhold_session_created_holds_forever():
    faults = SessionFaults(parse_faults("withhold_session_created"), Actions())
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(faults.before_send({"type": "session.created"}), 0.05)
    assert await faults.before_send({"type": "session.updated"}) == [{"type": "session.updated"}]


def test_cli_prints_kinds_and_the_schedule(capsys):
    from mockengine.cli import main

    assert main(["faults", "kinds"]) == 0
    assert "close_after_audio_delta" in capsys.readouterr().out
    args = [
        "faults",
        "schedule",
        "--fault",
        "close_after_audio_delta:3,rate=0.25",
        "--seed",
        "7",
        "--count",
        "8",
    ]
    assert main(args) == 0
    printed = capsys.readouterr().out
    expected = FaultState(
        profile=FaultProfile(tuple(parse_faults("close_after_audio_delta:3,rate=0.25"))), seed=7
    )
    hits = sum(1 for kinds in expected.schedule("ws", 8) if kinds)
    assert printed.startswith("seed 7, ws ordinals 1..8") and f"{hits} of 8 hit" in printed
    assert main(["faults", "schedule", "--fault", "nope"]) == 2


def test_a_schedule_of_no_fault_says_so(capsys):
    """`faults schedule` alone printed 20 rows of "-" and "0 of 20 hit", status 0."""
    from mockengine.cli import main

    assert main(["faults", "schedule", "--seed", "7"]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith("mockengine: no fault given")
    assert "--faults FILE.yaml" in lines[0] and "--fault SPEC" in lines[0]


# -- rate in every way of asking (issue 15) -----------------------------------------------------------


def _hits(state: FaultState, kind: str, count: int, **request) -> list[bool]:
    from aiohttp.test_utils import make_mocked_request

    get = state.for_connection if kind == "ws" else state.for_request
    one = make_mocked_request("GET", **request)  # (slow to make; the state only reads it)
    return [bool(get(one)) for _ in range(count)]


@pytest.mark.parametrize(
    ("layer", "request_args"),
    [
        ("ws", {"path": "/v1/realtime?fault=close_after_events:n=1,rate={rate}"}),
        ("ws", {"path": "/v1/realtime", "headers": {"X-Mockengine-Fault": "dead_peer:rate={rate}"}}),
        ("http", {"path": "/v1/models", "headers": {"X-Mockengine-Fault": "http_quota:rate={rate}"}}),
    ],
)
def test_rate_of_a_connection_or_request_fault_is_honoured_and_seeded(layer, request_args):
    def run(seed: int, rate: float) -> list[bool]:
        args = {k: v if isinstance(v, str) else dict(v) for k, v in request_args.items()}
        args["path"] = args["path"].format(rate=rate)
        if "headers" in args:
            args["headers"] = {k: v.format(rate=rate) for k, v in args["headers"].items()}
        return _hits(FaultState(seed=seed), layer, 200, **args)

    assert not any(run(1, 0.0)) and all(run(1, 1.0))
    share = run(1, 0.05)
    assert share == run(1, 0.05) and share != run(2, 0.05)
    assert 2 <= sum(share) <= 25  # about 5 % of 200


@pytest.mark.parametrize("layer", ["ws", "http"])
def test_rate_of_faults_armed_for_the_next_connections_is_honoured_and_seeded(layer):
    kind = "close_after_events:n=1" if layer == "ws" else "http_quota"
    path = "/v1/realtime" if layer == "ws" else "/v1/models"

    def run(seed: int, rate: float) -> list[bool]:
        state = FaultState(seed=seed)
        state.arm_next(parse_faults(f"{kind}{',' if ':' in kind else ':'}rate={rate}"), 100)
        return _hits(state, layer, 120, path=path)

    assert run(1, 1.0) == [True] * 100 + [False] * 20  # armed for 100, then spent
    assert not any(run(1, 0.0))
    half = run(3, 0.5)
    assert half == run(3, 0.5) and half != run(4, 0.5)
    assert 30 <= sum(half) <= 70 and not any(half[100:])


def test_rate_of_a_scenario_rule_fault_is_honoured_per_firing():
    class Drawing(Actions):
        def __init__(self, state: FaultState) -> None:
            super().__init__()
            self.state = state

        def draw(self, key, rate):
            return self.state.draw(f"rule:sess_1:{key}", rate)

    def firings(seed: int, rate: float) -> int:
        spec = parse_faults(f"error_mid_response:k=1,rate={rate}")[0]
        faults = SessionFaults([], Drawing(FaultState(seed=seed)), {"scenario:r": (spec,)})
        for n in range(100):
            faults.on_rule("scenario:r", f"resp_{n}")
        return len(faults.specs)

    assert firings(1, 1.0) == 100 and firings(1, 0.0) == 0
    assert firings(5, 0.3) == firings(5, 0.3) and 15 <= firings(5, 0.3) <= 45


async def test_close_after_events_armed_on_a_live_session_counts_from_then():
    """Armed at run time (the console's "fire on this session") after more than n events went out, it
    closes n events later: counted from the connection's start it never fired."""
    actions = Actions()
    faults = SessionFaults([], actions)
    await run(faults, response_events("r1", 3))  # 8 events before the fault is armed
    faults.arm(parse_faults("close_after_events:n=2")[0])
    await run(faults, response_events("r2", 0)[:1])
    assert ("close", 1011) not in actions.log
    await run(faults, response_events("r2", 0)[1:2])
    assert ("close", 1011) in actions.log


async def test_a_control_request_waits_for_a_session_still_opening_and_no_longer() -> None:
    """The 101 names a handle before the session is listed: a request naming it (or its session id)
    waits until it is listed or given up; one for another session, or with none opening, does not."""
    state = FaultState()
    handle = state.open_handle("sess_A")
    loop = asyncio.get_running_loop()
    waiting = [loop.create_task(state.until_opened(name)) for name in (handle, "sess_A", None)]
    started = loop.time()
    await state.until_opened("sess_B", timeout_s=5)  # another session: no wait
    await state.until_opened(f"sess_A{HANDLE_SEPARATOR}99", timeout_s=5)
    assert loop.time() - started < 0.5
    await asyncio.sleep(0.01)
    assert not any(task.done() for task in waiting)
    state.opened(handle)  # listed, or the client left during the handshake
    await asyncio.wait_for(asyncio.gather(*waiting), 1)
    assert state.opening == {}
    state.opened(handle)  # idempotent: the endpoint's finally settles it again
    gone = state.open_handle("sess_C")
    started = loop.time()
    await state.until_opened(gone, timeout_s=0.05)  # never settled: the bound holds
    assert 0.04 < loop.time() - started < 1
