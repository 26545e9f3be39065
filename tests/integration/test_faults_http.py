"""HTTP faults seen through the official ``openai`` SDK: its error classes and retry logic get what they
would get from the real service (status, body, Retry-After)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import aiohttp
import openai
import pytest
from aiohttp import web
from openai import AsyncOpenAI

from mockengine.server.app import create_app
from tests.eventually import eventually


@pytest.fixture
def http_engine(aiohttp_server, resources):
    """An engine plus a small SSE route (``POST /v1/test_stream``) standing in for streamed answers."""

    async def start(**overrides) -> str:
        settings = dataclasses.replace(resources.settings, **overrides)
        app = create_app(settings, dataclasses.replace(resources, settings=settings))

        async def stream(request: web.Request) -> web.StreamResponse:
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            for n in range(5):
                await response.write(f"data: {json.dumps({'n': n})}\n\n".encode())
            await response.write(b"data: [DONE]\n\n")
            return response

        app.router.add_post("/v1/test_stream", stream)
        server = await aiohttp_server(app)
        return f"http://127.0.0.1:{server.port}"

    return start


AUTH = {"Authorization": "Bearer sk-x"}


def sdk(base: str, fault: str | None = None, **kwargs) -> AsyncOpenAI:
    headers = {"X-Mockengine-Fault": fault} if fault else {}
    return AsyncOpenAI(api_key="sk-x", base_url=f"{base}/v1", default_headers=headers, **kwargs)


async def injected(base: str) -> dict[str, int]:
    async with aiohttp.ClientSession() as http, http.get(f"{base}/healthz") as reply:
        return (await reply.json())["faults_injected"]


async def test_rate_limit_429_with_retry_after_is_retried_by_the_sdk(http_engine):
    base = await http_engine()
    async with sdk(base, "http_rate_limit:retry_after_s=0.05", max_retries=2) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            await client.models.list()
    error = caught.value
    assert error.status_code == 429 and error.code == "rate_limit_exceeded"
    assert "Please try again in 50ms" in error.message
    assert error.response.headers["retry-after-ms"] == "50"
    assert error.response.headers["x-ratelimit-remaining-requests"] == "0"
    assert (await injected(base))["http_rate_limit"] == 3  # the first try and max_retries=2 retries


async def test_a_single_429_then_success(http_engine):
    """A server-wide rule with times=1: the SDK's one retry (after Retry-After) succeeds."""
    base = await http_engine(fault="http_rate_limit:retry_after_s=0.05,times=1,path=/v1/models")
    async with sdk(base, max_retries=1) as client:
        models = await client.models.list()
        assert models.data[0].id == "gpt-4o-mini"  # the chat model HRP's connection test picks
        assert (await client.realtime.client_secrets.create()).value.startswith("ek_")  # other path: no fault
    assert (await injected(base)) == {"http_rate_limit": 1}


@pytest.mark.parametrize(
    ("fault", "code", "text"),
    [
        ("http_quota", "insufficient_quota", "You exceeded your current quota"),
        ("http_too_large", "rate_limit_exceeded", "Request too large for gpt-realtime-mini in"),
    ],
)
async def test_other_429_bodies(http_engine, fault, code, text):
    base = await http_engine()
    async with sdk(base, fault, max_retries=0) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            await client.realtime.client_secrets.create(
                session={"type": "realtime", "model": "gpt-realtime-mini"}
            )
    assert caught.value.code == code and text in caught.value.message


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_server_errors(http_engine, status):
    base = await http_engine()
    async with sdk(base, f"http_status:{status}", max_retries=1) as client:
        with pytest.raises(openai.InternalServerError) as caught:
            await client.realtime.client_secrets.create()
    assert caught.value.status_code == status
    assert (await injected(base))["http_status"] == 2  # retried once, like against the real service


async def test_hang_is_a_timeout_and_drop_is_a_connection_error(http_engine):
    base = await http_engine()
    # The hang never answers (600 s; it ends when the client leaves), so the client's timeout is what is
    # tested: it may be long enough for a loaded machine to get the request to the server first.
    async with sdk(base, "http_hang", max_retries=0, timeout=3.0) as client:
        with pytest.raises(openai.APITimeoutError):
            await client.models.list()
    async with sdk(base, "http_drop", max_retries=0) as client:
        with pytest.raises(openai.APIConnectionError) as caught:
            await client.models.list()
        assert not isinstance(caught.value, openai.APITimeoutError)

    async def both_counted() -> dict[str, int] | None:
        counts = await injected(base)
        return counts if counts.get("http_hang") and counts.get("http_drop") else None

    counts = await eventually(both_counted, message="the hang and the drop were not both counted")
    assert counts["http_hang"] == 1 and counts["http_drop"] == 1


async def test_malformed_json(http_engine):
    base = await http_engine()
    async with sdk(base, "http_malformed_json", max_retries=0) as client:
        with pytest.raises(json.JSONDecodeError):  # what the SDK raises on a body that does not parse
            await client.models.list()


async def test_truncated_event_stream(http_engine):
    base = await http_engine()
    async with sdk(base, max_retries=0) as client:
        stream = await client.post(
            "/test_stream", cast_to=object, body={}, stream=True, stream_cls=openai.AsyncStream[object]
        )
        assert [chunk async for chunk in stream] == [{"n": n} for n in range(5)]
    async with sdk(base, "sse_truncate:after_events=2", max_retries=0) as client:
        stream = await client.post(
            "/test_stream", cast_to=object, body={}, stream=True, stream_cls=openai.AsyncStream[object]
        )
        received = []
        with pytest.raises(openai.APIConnectionError):
            async for chunk in stream:
                received.append(chunk)
        assert received == [{"n": 0}, {"n": 1}]
    assert (await injected(base))["sse_truncate"] == 1


async def test_a_misplaced_control_field_is_refused_and_arms_nothing(http_engine):
    """A count for the other layer (``requests`` with a WebSocket kind), a count beside ``session_id``
    or a misspelt field was ignored and the fault armed for one: refused by name, nothing armed."""
    base = await http_engine()
    async with aiohttp.ClientSession() as http:
        for body, param in (
            ({"fault": "slow_drip", "requests": 5}, "requests"),
            ({"fault": "http_quota", "connections": 5}, "connections"),
            ({"fault": "http_quota", "request": 5}, "request"),
            ({"fault": "slow_drip", "session_id": "sess_x", "connections": 2}, "connections"),
            # the ws part valid, the http count not: neither is armed
            ({"fault": "slow_drip;http_quota", "connections": 2, "requests": 0}, "requests"),
        ):
            async with http.post(f"{base}/mockengine/faults", json=body) as reply:
                assert reply.status == 400, body
                assert (await reply.json())["error"]["param"] == param, body
        async with http.get(f"{base}/mockengine/faults") as reply:
            assert (await reply.json())["armed"] == []
        async with http.post(
            f"{base}/mockengine/faults",
            json={"fault": "slow_drip;http_quota", "connections": 2, "requests": 3},
        ) as reply:
            assert (await reply.json())["armed"] == [
                {"fault": "slow_drip:ms=500", "connections": 2},
                {"fault": "http_quota", "requests": 3},
            ]


async def test_a_misspelt_control_field_is_named_with_its_near_miss(http_engine):
    # "Unknown parameter: 'conections'" listed every field without saying which was meant, where the
    # fault specs' own mistakes (a misspelt kind or parameter) get their near miss.
    base = await http_engine()
    async with aiohttp.ClientSession() as http:
        for field, meant in (
            ("conections", "connections"),
            ("session", "session_id"),
            ("request", "requests"),
        ):
            body = {"fault": "close_after_audio_delta:2", field: 3}
            async with http.post(f"{base}/mockengine/faults", json=body) as reply:
                assert reply.status == 400
                message = (await reply.json())["error"]["message"]
                assert f"Unknown parameter: '{field}' (did you mean '{meant}'?)." in message, message
        async with http.post(f"{base}/mockengine/faults", json={"fault": "http_quota", "zzz": 1}) as reply:
            assert "did you mean" not in (await reply.json())["error"]["message"]


async def test_bad_fault_header_is_a_400(http_engine):
    base = await http_engine()
    async with sdk(base, "http_status:404", max_retries=0) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.models.list()
    assert "Invalid mockengine fault" in caught.value.message


@pytest.mark.parametrize("fault", ["http_rate_limit:retry_after_s=1e308", "http_hang:ms=" + "9" * 400])
async def test_a_fault_header_past_the_parameters_bound_is_a_400_not_a_500(http_engine, fault):
    """Taken before, then the request failed inside the engine: a 500 ``server_error`` (OverflowError)."""
    base = await http_engine()
    async with sdk(base, fault, max_retries=0, timeout=10) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.models.list()
    assert "greater than the maximum" in caught.value.message


async def test_control_endpoint_arms_the_next_requests_and_is_guarded(http_engine):
    base = await http_engine()
    async with aiohttp.ClientSession() as http:
        async with http.post(
            f"{base}/mockengine/faults", json={"fault": "http_status:503", "requests": 2}
        ) as reply:
            assert (await reply.json())["armed"] == [{"fault": "http_status:status=503", "requests": 2}]
        statuses = []
        for _ in range(3):
            async with http.get(f"{base}/v1/models", headers=AUTH) as reply:
                statuses.append(reply.status)
        assert statuses == [503, 503, 200]
        async with http.post(f"{base}/mockengine/faults", json={"fault": "http_nope"}) as reply:
            assert reply.status == 400
        # nesting past the parser's depth was a 500; NaN is not JSON: the live 400 of every JSON route
        for raw in (b"[" * 100_000 + b"]" * 100_000, b'{"fault": {"kind": "http_status", "rate": NaN}}'):
            async with http.post(f"{base}/mockengine/faults", data=raw) as reply:
                error = (await reply.json())["error"]
                assert reply.status == 400 and error["message"].startswith("We could not parse the JSON")
        async with http.post(
            f"{base}/mockengine/faults", json={"fault": "slow_drip", "session_id": "sess_x"}
        ) as reply:
            assert reply.status == 404
    guarded = await http_engine(control_token="s3cret")
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{guarded}/mockengine/faults") as reply:
            assert reply.status == 403
            # A loopback caller is refused too once a token is set: the answer said "loopback clients
            # only, or requests with the control token", which read as if loopback were let in.
            message = (await reply.json())["error"]["message"]
            assert "need the control token" in message and "--control-token" in message
        async with http.get(
            f"{guarded}/mockengine/faults", headers={"Authorization": "Bearer s3cret"}
        ) as reply:
            assert reply.status == 200
        async with http.get(
            f"{guarded}/mockengine/sessions", headers={"X-Mockengine-Control-Token": "s3cret"}
        ) as reply:
            assert reply.status == 200 and (await reply.json()) == {"sessions": [], "live": [], "changes": 0}


async def test_profile_file_rates_are_seeded(http_engine, tmp_path):
    profile = tmp_path / "faults.yaml"
    profile.write_text(
        "seed: 5\nfaults:\n  - {kind: http_status, status: 502, rate: 0.3, path: /v1/models}\n"
    )

    async def statuses() -> list[int]:
        base = await http_engine(faults_file=str(profile))
        async with aiohttp.ClientSession() as http:
            out = []
            for _ in range(20):
                async with http.get(f"{base}/v1/models", headers=AUTH) as reply:
                    out.append(reply.status)
            return out

    first, again = await statuses(), await statuses()
    assert first == again and set(first) == {200, 502}


@pytest.mark.slow  # a mockengine subprocess
def test_a_bad_server_fault_fails_start_up_with_a_clear_message():
    result = subprocess.run(
        [sys.executable, "-m", "mockengine", "serve", "--port", "0", "--fault", "slow_drip:rate=2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "slow_drip" in result.stderr and "greater than the maximum of 1" in result.stderr


async def test_a_control_body_that_is_not_json_or_names_no_session_is_said_plainly(http_engine):
    """`curl -d 'close_after_ms:5' …/mockengine/faults` (the compact spec without its JSON object) got
    "Invalid mockengine fault: Expecting value: line 1 column 1 (char 0)", Python's decoder talking; a
    `"fault": null` read "fault None: at fault: None is not of type 'object'"; a `session_id` that is not
    a string (`5`) was looked up as '5' and answered 404. Each is now a 400 that says what was sent wrong:
    the live body for unparsable JSON (as the other JSON routes answer), what a fault may be, the type."""
    base = await http_engine()
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{base}/mockengine/faults", data="close_after_ms:5") as reply:
            assert reply.status == 400
            error = (await reply.json())["error"]
            assert error["message"].startswith("We could not parse the JSON body of your request.")
            assert "Expecting value" not in error["message"]
        async with http.post(f"{base}/mockengine/faults", json={"fault": None}) as reply:
            assert reply.status == 400
            error = (await reply.json())["error"]
            assert error["param"] == "fault"
            assert "None" not in error["message"] and "null" in error["message"], error["message"]
        async with http.post(
            f"{base}/mockengine/faults", json={"fault": "response_failed:1", "session_id": 5}
        ) as reply:
            assert reply.status == 400
            error = (await reply.json())["error"]
            assert (error["param"], error["code"]) == ("session_id", "invalid_type"), error
        async with http.get(f"{base}/mockengine/faults") as reply:
            assert (await reply.json())["armed"] == []
