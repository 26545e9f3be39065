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
            assert answer.headers["Access-Control-Expose-Headers"] == "Location"
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
