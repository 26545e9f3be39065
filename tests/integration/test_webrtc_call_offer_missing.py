"""``POST /v1/realtime/calls`` without an offer: whatever else the request got wrong, the missing offer
is what it is told first (the offer is the call), in the shape an empty ``application/sdp`` body gets
(400 ``missing_required_parameter``, param ``sdp``; docs/webrtc.md)."""

from __future__ import annotations

import aiohttp
import pytest

MISSING_SDP = {
    "message": "Missing required parameter: 'sdp'.",
    "type": "invalid_request_error",
    "param": "sdp",
    "code": "missing_required_parameter",
}


async def _post(server, headers: dict[str, str] | None = None, **kwargs) -> tuple[int, dict]:
    async with aiohttp.ClientSession() as http:
        reply = await http.post(
            f"{server.http_url}/v1/realtime/calls",
            headers={"Authorization": "Bearer sk-test", **(headers or {})},
            **kwargs,
        )
        return reply.status, (await reply.json())["error"]


async def test_an_empty_post_without_a_content_type_is_told_the_offer_is_missing(engine) -> None:
    """It was told "Unsupported content type 'application/octet-stream'" (aiohttp's default for a
    request that names none), a type the client never sent."""
    server = await engine()
    status, error = await _post(server)
    assert (status, error) == (400, MISSING_SDP)
    assert server.sessions_active() == 0


@pytest.mark.parametrize("session", ["{}", '{"type": "realtime"}', "{not json"])
async def test_a_form_without_the_sdp_is_told_the_offer_is_missing_before_its_session(
    engine, session
) -> None:
    """A form with ``session={}`` and no ``sdp`` was told "Missing required parameter: 'session.type'"
    and, once that was fixed, about the offer only on its second try."""
    server = await engine()
    form = aiohttp.FormData(default_to_multipart=True)
    form.add_field("session", session)
    status, error = await _post(server, data=form)
    assert (status, error) == (400, MISSING_SDP)


async def test_a_body_of_an_unsupported_type_is_still_named_for_its_type(engine) -> None:
    """A body that is there, of a type the endpoint does not take, keeps its message."""
    server = await engine()
    status, error = await _post(server, data=b"v=0\r\n", headers={"Content-Type": "application/json"})
    assert status == 400 and "Unsupported content type 'application/json'" in error["message"], error


@pytest.mark.parametrize("path", ["/v1/realtime/calls", "/v1/realtime/translations/calls"])
@pytest.mark.parametrize(
    ("content_type", "body", "kind"),
    [
        ("multipart/form-data; boundary=x", b"garbage", "multipart"),  # the boundary never appears
        ("application/x-www-form-urlencoded", b"sdp=v%3D0\xff\xfe", "urlencoded"),  # not UTF-8
    ],
)
async def test_a_malformed_form_body_is_a_400_not_a_server_error(
    engine, path, content_type, body, kind
) -> None:
    """A form body its type does not describe (a multipart boundary that never appears, urlencoded bytes
    that are not UTF-8: hand-built requests) was a 500 ``server_error`` with aiohttp's ValueError in the
    log: the form reader's failure is the client's, and the message names the form it expected."""
    server = await engine()
    async with aiohttp.ClientSession() as http:
        reply = await http.post(
            f"{server.http_url}{path}",
            headers={"Authorization": "Bearer sk-test", "Content-Type": content_type},
            data=body,
        )
        assert reply.status == 400, await reply.text()
        error = (await reply.json())["error"]
    assert error["type"] == "invalid_request_error"
    assert f"Could not read the {kind} form" in error["message"], error
    assert server.sessions_active() == 0


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/sdp", b"v=0\r\n\xff\xfe\r\n"),  # not UTF-8
        ("application/sdp; charset=bogus", b"v=0\r\n"),  # a charset Python does not know
    ],
)
async def test_an_offer_that_is_not_utf8_text_is_a_400(engine, content_type, body) -> None:
    """``request.text()`` raised UnicodeDecodeError / LookupError for these: a 500 ``server_error``. SDP
    is UTF-8 (RFC 8866 §5); an offer that is not is the client's mistake."""
    server = await engine()
    status, error = await _post(server, data=body, headers={"Content-Type": content_type})
    assert status == 400, error
    assert (error["type"], error["param"]) == ("invalid_request_error", "sdp"), error
    assert server.sessions_active() == 0
