"""openai-node's ``OpenAIRealtimeTranslationWS`` (openai 7.59, ``openai/realtime/translations/ws``)
against a translation session with the real models. The SDK accepts only an ``https:`` base URL, so the
engine serves TLS with a test CA that Node trusts (``NODE_EXTRA_CA_CERTS``). Needs Node ≥ 20 and npm
(tests/js)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os

import pytest
import trustme

from mockengine.server.app import create_app
from mockengine.server.tls import server_ssl_context
from tests.integration.compat.test_js_agents import JS_DIR, TIMEOUT_S, _install, _tools
from tests.speech import DATA, load_wav_24k

pytestmark = pytest.mark.models


async def test_openai_node_translates_over_wss(aiohttp_server, real_resources, tmp_path) -> None:
    node, npm = _tools()
    await _install(npm)
    ca = trustme.CA()
    cert = ca.issue_cert("localhost", "127.0.0.1")
    cert_file, key_file, ca_file = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "ca.pem"
    cert.cert_chain_pems[0].write_to_path(str(cert_file))
    key_file.write_bytes(cert.private_key_pem.bytes())
    ca.cert_pem.write_to_path(str(ca_file))
    settings = dataclasses.replace(
        real_resources.settings, tls=True, tls_cert=str(cert_file), tls_key=str(key_file)
    )
    app = create_app(settings, dataclasses.replace(real_resources, settings=settings))
    server = await aiohttp_server(app, ssl=server_ssl_context(settings).context)
    pcm_file = tmp_path / "coffee.pcm"
    speech = load_wav_24k(DATA / "utterances" / "10_i_would_like_some_coffee.wav")
    pcm_file.write_bytes(speech + bytes(48 * 1000))
    process = await asyncio.create_subprocess_exec(
        node,
        "openai_translation_ws.mjs",
        f"https://localhost:{server.port}/v1",
        str(pcm_file),
        cwd=JS_DIR,
        env={**os.environ, "NODE_EXTRA_CA_CERTS": str(ca_file)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT_S)
    assert process.returncode == 0, err.decode()
    report = json.loads(out.decode().strip().splitlines()[-1])
    assert not report["errors"], report["errors"]
    assert report["types"][0] == "session.created" and report["types"][-1] == "session.closed"
    assert "session.updated" in report["types"]
    assert "coffee" in report["input"].lower() and report["output"] == report["input"]
    assert report["audioBytes"] > 24_000
    assert all(ms % 200 == 0 for ms in report["elapsed"]) and report["elapsed"] == sorted(report["elapsed"])
