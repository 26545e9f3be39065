"""wss:// with certificate verification on: the generated local CA, the user's own certificate, and the
official openai SDK as the client."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import ssl
import sys

import aiohttp
import pytest
import trustme
from openai import AsyncOpenAI

from mockengine.server.app import create_app
from mockengine.server.tls import CA_CERT_FILE, server_ssl_context
from mockengine.settings import Settings

pytestmark = pytest.mark.models


async def start_tls_engine(aiohttp_server, real_resources, **overrides):
    settings = dataclasses.replace(real_resources.settings, tls=True, **overrides)
    tls = server_ssl_context(settings)
    app = create_app(settings, dataclasses.replace(real_resources, settings=settings))
    server = await aiohttp_server(app, ssl=tls.context)
    return server, tls


async def test_generated_ca_serves_wss_and_https_that_verify(aiohttp_server, real_resources, tmp_path):
    server, tls = await start_tls_engine(aiohttp_server, real_resources, tls_dir=str(tmp_path / "tls"))
    assert tls.ca_file == tmp_path / "tls" / CA_CERT_FILE
    client_context = ssl.create_default_context(cafile=str(tls.ca_file))
    async with aiohttp.ClientSession() as http:
        async with http.get(f"https://localhost:{server.port}/healthz", ssl=client_context) as response:
            assert response.status == 200
        async with http.ws_connect(
            f"wss://127.0.0.1:{server.port}/v1/realtime?model=gpt-realtime",
            headers={"Authorization": "Bearer sk-tls"},
            ssl=client_context,
        ) as ws:
            assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
        # Without trusting the CA, verification fails: the certificate is really checked.
        with pytest.raises(aiohttp.ClientConnectorCertificateError):
            await http.get(f"https://127.0.0.1:{server.port}/healthz", ssl=ssl.create_default_context())
    # The CA is kept and reused by the next start, so clients trust it once.
    again = server_ssl_context(Settings(tls=True, tls_dir=str(tmp_path / "tls")))
    assert again.ca_file is not None and again.ca_file.read_bytes() == tls.ca_file.read_bytes()


async def test_user_certificate_and_the_openai_sdk_over_wss(aiohttp_server, real_resources, tmp_path):
    ca = trustme.CA()
    cert = ca.issue_cert("localhost", "127.0.0.1")
    cert_file, key_file, ca_file = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "ca.pem"
    cert.cert_chain_pems[0].write_to_path(str(cert_file))
    key_file.write_bytes(cert.private_key_pem.bytes())
    ca.cert_pem.write_to_path(str(ca_file))
    server, tls = await start_tls_engine(
        aiohttp_server, real_resources, tls_cert=str(cert_file), tls_key=str(key_file)
    )
    assert tls.ca_file is None
    client = AsyncOpenAI(api_key="sk-tls", websocket_base_url=f"wss://localhost:{server.port}/v1")
    options = {"ssl": ssl.create_default_context(cafile=str(ca_file))}
    async with client.realtime.connect(model="gpt-realtime", websocket_connection_options=options) as conn:
        event = await conn.recv()
        assert event.type == "session.created"


def test_half_a_certificate_pair_is_refused():
    with pytest.raises(ValueError, match="go together"):
        server_ssl_context(Settings(tls=True, tls_cert="cert.pem"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_serve_tls_prints_the_ca_and_serves_wss(tmp_path):
    port = free_port()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "mockengine",
        "serve",
        "--tls",
        "--port",
        str(port),
        "--api-key",
        "sk-a",
        "--api-key",
        "sk-b",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
    )
    try:
        lines = []
        async with asyncio.timeout(60):
            while not any(line.startswith("TLS certificate authority:") for line in lines):
                lines.append((await process.stdout.readline()).decode())
        assert lines[0].startswith(f"mockengine listening on wss://127.0.0.1:{port}/")
        ca_file = tmp_path / "mockengine" / "tls" / CA_CERT_FILE
        assert str(ca_file) in lines[-1]
        context = ssl.create_default_context(cafile=str(ca_file))
        async with aiohttp.ClientSession() as http:  # printed once the socket listens: connect at once
            ws = await http.ws_connect(
                f"wss://127.0.0.1:{port}/v1/realtime?model=gpt-realtime",
                headers={"Authorization": "Bearer sk-b"},
                ssl=context,
            )
            assert json.loads((await ws.receive(timeout=10)).data)["type"] == "session.created"
            await ws.close()
    finally:
        process.terminate()
        await process.wait()
