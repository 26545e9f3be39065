"""``POST /v1/realtime/calls`` as multipart with the offer alone: ``session`` is optional in the form
(openai-python's ``calls.create(sdp=…, session=…)`` types it ``Omit``-able; docs/webrtc.md: "``sdp``
and an optional ``session``"). A form with no ``session`` field was refused with 400 "Missing required
parameter: 'session.type'", as if an empty session had been sent; it now starts the default session,
as the ``application/sdp`` body does."""

from __future__ import annotations

import aiohttp

from tests.webrtc_client import CallClient


async def test_a_form_with_the_offer_alone_starts_a_default_session(engine) -> None:
    server = await engine()
    client = CallClient()
    try:
        offer = await client.offer()
        form = aiohttp.FormData(default_to_multipart=True)
        form.add_field("sdp", offer)
        async with aiohttp.ClientSession() as http:
            reply = await http.post(
                f"{server.http_url}/v1/realtime/calls", data=form, headers={"Authorization": "Bearer sk-test"}
            )
            body = await reply.text()
        assert reply.status == 201, body
        assert reply.headers["Content-Type"].startswith("application/sdp") and body.startswith("v=0")
    finally:
        await client.close()


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
