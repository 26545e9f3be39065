"""The official openai Node SDK's Realtime WebSocket client (``openai/realtime/ws``, pinned in
tests/js/package-lock.json) with an app's own tool, on a key minted by
``client.realtime.clientSecrets.create``. The SDK always connects with ``wss:`` (it sets the protocol
whatever the base URL says), so the engine serves TLS and Node trusts its CA through
``NODE_EXTRA_CA_CERTS``, as docs/operations.md tells a JS developer. tests/js/openai_realtime_ws.mjs
drives the SDK and reports what it saw; this test asserts on it. Needs Node ≥ 20 and npm."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from tests.integration.compat.test_js_agents import JS_DIR, TIMEOUT_S, _install, _tools
from tests.integration.test_tls import start_tls_engine

pytestmark = pytest.mark.models


async def test_openai_node_sdk_realtime_ws_tool_call_output_and_errors(
    aiohttp_server, real_resources, tmp_path
) -> None:
    node, npm = _tools()
    await _install(npm)
    server, tls = await start_tls_engine(aiohttp_server, real_resources, tls_dir=str(tmp_path / "tls"))
    process = await asyncio.create_subprocess_exec(
        node,
        "openai_realtime_ws.mjs",
        f"https://127.0.0.1:{server.port}/v1",
        cwd=JS_DIR,
        env={**os.environ, "NODE_EXTRA_CA_CERTS": str(tls.ca_file)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT_S)
    assert process.returncode == 0, err.decode()
    report = json.loads(out.decode().strip().splitlines()[-1])

    assert report["url"].startswith("wss://")
    assert report["sessionCreated"]["instructions"] == "You help customers with orders."  # the secret's
    assert report["sessionUpdated"]["audio"]["output"]["voice"] == "marin"
    call = report["call"]
    assert call["name"] == "lookup_order" and json.loads(call["arguments"]) == {"order_id": "4471"}
    deltas = report["argumentDeltas"]
    assert deltas and all(d["call_id"] == call["call_id"] and d["item_id"] == call["id"] for d in deltas)
    assert "".join(d["delta"] for d in deltas) == report["argumentsDone"]["arguments"] == call["arguments"]
    assert report["firstStatus"] == report["secondStatus"] == "completed"
    assert "shipped" in report["transcript"]

    got = {m["sent"]: m["got"]["error"] for m in report["mistakes"]}
    assert got["evt_bad_call"]["code"] == "invalid_tool_call_id"
    bad_field = got["evt_bad_field"]
    assert (bad_field["code"], bad_field["param"]) == ("unknown_parameter", "session.voice")
    assert got["evt_no_response"]["code"] == "response_cancel_not_active"
    assert all(error["event_id"] == sent for sent, error in got.items())  # each error names its event
