"""CORS: browser pages on a developer's localhost may call the REST routes; other origins may not."""

from __future__ import annotations

import aiohttp
import pytest


@pytest.mark.parametrize(
    ("origins", "origin", "allowed"),
    [
        ((), "http://localhost:5173", True),
        ((), "http://127.0.0.1:3000", True),
        ((), "https://[::1]:8443", True),
        ((), "https://evil.example", False),
        ((), "http://localhost.evil.example", False),
        (("https://app.example",), "https://app.example", True),
        (("https://app.example",), "http://localhost:5173", False),
        (("*",), "https://anything.example", True),
        # Configured as a person may type it; the browser sends the origin's serialization: lower case,
        # no default port (these matched no page).
        (("HTTPS://App.Example",), "https://app.example", True),
        (("https://app.example:443",), "https://app.example", True),
        (("http://App.Example:80/",), "http://app.example", True),
        (("https://app.example:8443",), "https://app.example", False),
        (("http://app.example:443",), "http://app.example", False),
    ],
)
async def test_preflight_and_answers_follow_the_allowed_origins(engine, origins, origin, allowed):
    server = await engine(cors_origins=origins)
    async with aiohttp.ClientSession() as http:
        preflight = await http.options(
            f"{server.http_url}/v1/realtime/calls",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
            },
        )
        models = await http.get(
            f"{server.http_url}/v1/models", headers={"Origin": origin, "Authorization": "Bearer sk-test"}
        )
        refused = await http.post(f"{server.http_url}/v1/realtime/client_secrets", headers={"Origin": origin})
    assert models.status == 200 and refused.status == 401
    if allowed:
        assert preflight.status == 204
        assert preflight.headers["Access-Control-Allow-Origin"] == origin
        assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
        assert "authorization" in preflight.headers["Access-Control-Allow-Headers"].lower()
        for answer in (models, refused):  # errors too: the page must be able to read them
            assert answer.headers["Access-Control-Allow-Origin"] == origin
            assert "Location" in answer.headers["Access-Control-Expose-Headers"].split(", ")
    else:
        assert preflight.status == 403
        assert "Access-Control-Allow-Origin" not in models.headers


async def test_a_localhost_page_may_call_the_responses_api(engine):
    server = await engine()
    origin = "http://localhost:5173"
    async with aiohttp.ClientSession() as http:
        preflight = await http.options(
            f"{server.http_url}/v1/responses",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
        )
        answer = await http.post(
            f"{server.http_url}/v1/responses",
            json={"model": "gpt-4o-mini", "input": "Hello"},
            headers={"Origin": origin, "Authorization": "Bearer sk-test"},
        )
        assert (await answer.json())["object"] == "response"
    assert preflight.status == 204 and answer.headers["Access-Control-Allow-Origin"] == origin


# What a page on another origin may read without Access-Control-Expose-Headers (the CORS-safelisted
# response headers), and the transport's and CORS's own.
NOT_FOR_THE_PAGE = {
    "cache-control", "content-language", "content-length", "content-type", "expires", "last-modified",
    "pragma", "date", "server", "connection", "keep-alive", "transfer-encoding", "vary",
    "access-control-allow-origin", "access-control-expose-headers",
}  # fmt: skip


async def test_every_header_the_engine_answers_with_is_exposed(engine):
    """Only Location was exposed: a page could not read x-request-id, retry-after or x-ratelimit-* (a 429
    from http_rate_limit, a 503 from the session limit) of the answers it got."""
    server = await engine(max_sessions=1)
    origin = "http://localhost:5173"
    headers = {"Origin": origin, "Authorization": "Bearer sk-test"}
    chat = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello"}]}
    async with aiohttp.ClientSession() as http:
        answers = [
            await http.post(f"{server.http_url}/v1/chat/completions", json=chat, headers=headers),
            await http.post(
                f"{server.http_url}/v1/chat/completions", json={**chat, "stream": True}, headers=headers
            ),
            await http.post(
                f"{server.http_url}/v1/responses",
                json={"model": "gpt-4o-mini", "input": "Hi"},
                headers=headers,
            ),
            await http.post(
                f"{server.http_url}/v1/chat/completions",
                json=chat,
                headers={**headers, "X-Mockengine-Fault": "http_rate_limit:retry_after_s=0.5"},
            ),
        ]
        async with http.ws_connect(server.realtime, headers={"Authorization": "Bearer sk-test"}) as ws:
            await ws.receive(timeout=10)  # session.created: the one seat is taken
            answers.append(
                await http.post(
                    f"{server.http_url}/v1/realtime/calls",
                    data="v=0",
                    headers={**headers, "Content-Type": "application/sdp"},
                )
            )
        for answer in answers:
            await answer.read()
    assert [a.status for a in answers] == [200, 200, 200, 429, 503]
    assert {"x-request-id", "retry-after", "retry-after-ms", "x-ratelimit-reset-tokens"} <= {
        k.lower() for a in answers for k in a.headers
    }
    for answer in answers:
        exposed = {h.lower() for h in answer.headers["Access-Control-Expose-Headers"].split(", ")}
        wanted = {k.lower() for k in answer.headers} - NOT_FOR_THE_PAGE
        assert wanted <= exposed, (answer.url, answer.status, wanted - exposed)


@pytest.mark.parametrize(
    ("origins", "allowed_now"),
    [((), "localhost, 127.0.0.1 or [::1]"), (("https://app.example",), "only https://app.example")],
)
async def test_a_refused_preflight_is_an_openai_shaped_error_naming_the_origin_and_the_flag(
    engine, origins, allowed_now
):
    """It was a plain-text 403; a developer reading it in the network panel gets the OpenAI error shape,
    the origin refused, what is allowed now and the flag that allows it."""
    server = await engine(cors_origins=origins)
    async with aiohttp.ClientSession() as http:
        preflight = await http.options(
            f"{server.http_url}/v1/realtime/calls",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        )
        assert preflight.status == 403
        assert preflight.content_type == "application/json"
        body = await preflight.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    error = body["error"]
    assert (error["type"], error["code"], error["param"]) == ("request_forbidden", "origin_not_allowed", None)
    assert "https://evil.example" in error["message"] and allowed_now in error["message"]
    assert "--cors-origin https://evil.example" in error["message"]
    assert "Access-Control-Allow-Origin" not in preflight.headers  # still refused to the page
