"""``POST /v1/realtime/calls`` as a form whose ``session`` field is left out: the field is optional
(reference §13, docs/webrtc.md), as it is for a page holding an ``ek_`` secret that already carries its
session. It was refused with 400 "Missing required parameter: 'session.type'" (an absent field read as
``{}`` and validated as a session)."""

from __future__ import annotations

import aiohttp
import pytest
from aiortc import RTCSessionDescription

from tests.webrtc_client import CallClient


@pytest.mark.parametrize("multipart", [True, False], ids=["multipart", "urlencoded"])
async def test_a_form_with_only_the_sdp_opens_a_call_with_the_secrets_session(engine, multipart):
    server = await engine()
    client = CallClient()
    try:
        async with aiohttp.ClientSession() as http:
            minted = await http.post(
                f"{server.http_url}/v1/realtime/client_secrets",
                json={"session": {"type": "realtime", "instructions": "Speak like a lighthouse keeper."}},
                headers={"Authorization": "Bearer sk-test"},
            )
            secret = (await minted.json())["value"]
            form = aiohttp.FormData(default_to_multipart=multipart)
            form.add_field("sdp", await client.offer())
            calls, auth = f"{server.http_url}/v1/realtime/calls", {"Authorization": f"Bearer {secret}"}
            answer = await http.post(calls, data=form, headers=auth)
            body = await answer.text()
        assert answer.status == 201, body
        await client.pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
        created = await client.wait_for("session.created")
    finally:
        await client.close()
    assert created["session"]["instructions"] == "Speak like a lighthouse keeper."


async def test_a_form_whose_session_is_empty_is_still_refused_for_its_missing_type(engine) -> None:
    """A ``session`` that is sent must still be a session: ``{}`` has no ``type``."""
    server = await engine()
    client = CallClient()
    try:
        offer = await client.offer()
        form = aiohttp.FormData(default_to_multipart=True)
        form.add_field("sdp", offer)
        form.add_field("session", "{}")
        async with aiohttp.ClientSession() as http:
            reply = await http.post(
                f"{server.http_url}/v1/realtime/calls", data=form, headers={"Authorization": "Bearer sk-test"}
            )
            error = (await reply.json())["error"]
        assert (reply.status, error["param"]) == (400, "session.type")
    finally:
        await client.close()


async def test_an_unknown_form_field_is_an_unrecognized_argument(engine) -> None:
    """Only ``sdp`` and ``session``: another field is refused as the audio routes refuse one (400
    "Unrecognized request argument supplied: <name>", param and code null; docs/webrtc.md)."""
    server = await engine()
    client = CallClient()
    try:
        form = aiohttp.FormData(default_to_multipart=True)
        form.add_field("sdp", await client.offer())
        form.add_field("session", '{"type": "realtime"}')
        form.add_field("voice", "marin")
        async with aiohttp.ClientSession() as http:
            reply = await http.post(
                f"{server.http_url}/v1/realtime/calls", data=form, headers={"Authorization": "Bearer sk-test"}
            )
            error = (await reply.json())["error"]
    finally:
        await client.close()
    assert reply.status == 400
    assert error == {
        "message": "Unrecognized request argument supplied: voice",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
