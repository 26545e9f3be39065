"""Auth as the live service does it (and as HTTP 401 on request), session lifetime, keepalive, and the
bounds that keep one client from hurting the others — over real sockets."""

from __future__ import annotations

import asyncio
import base64
import json

import aiohttp
import pytest

from mockengine.server.handshake import key_accepted
from mockengine.settings import Settings
from tests.eventually import eventually
from tests.speech import validate_server_event


async def receive(ws, kind: str, timeout: float = 10) -> dict:
    while True:
        msg = await ws.receive(timeout=timeout)
        assert msg.type == aiohttp.WSMsgType.TEXT, (
            f"{msg.type} {msg.data} {msg.extra} while waiting for {kind}"
        )
        event = json.loads(msg.data)
        validate_server_event(event)
        if event["type"] == kind:
            return event


async def set_turn_detection(ws, detection: dict | None) -> None:
    update = {
        "type": "session.update",
        "session": {"type": "realtime", "audio": {"input": {"turn_detection": detection}}},
    }
    await ws.send_str(json.dumps(update))


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_key_policy_any_non_empty_key_by_default_else_only_configured(tmp_path):
    assert key_accepted(Settings(), "anything") and not key_accepted(Settings(), "")
    assert not key_accepted(Settings(), None)
    keys_file = tmp_path / "keys.txt"
    keys_file.write_text("# team keys\nsk-file-1\n\nsk-file-2  # Bob\n")
    settings = Settings(api_key="sk-one", api_keys=("sk-two",), api_keys_file=str(keys_file))
    for key in ("sk-one", "sk-two", "sk-file-1", "sk-file-2"):
        assert key_accepted(settings, key), key
    assert not key_accepted(settings, "sk-three") and not key_accepted(settings, "# team keys")


async def test_bad_key_gets_masked_invalid_api_key_then_close_3000(engine, tmp_path):
    keys_file = tmp_path / "keys.txt"
    keys_file.write_text("sk-good-key\n")
    eng = await engine(api_keys_file=str(keys_file))
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(eng.realtime, headers=bearer("sk-proj-abcdefghijklmnopWXYZ")) as ws:
            error = json.loads((await ws.receive(timeout=5)).data)
            validate_server_event(error)
            assert error["error"]["code"] == "invalid_api_key"
            assert "sk-proj-…WXYZ" in error["error"]["message"]
            assert "abcdefghijklmnop" not in error["error"]["message"]
            closing = await ws.receive(timeout=5)
            assert (closing.data, closing.extra) == (3000, "invalid_request_error.invalid_api_key")
        async with http.ws_connect(eng.realtime, headers=bearer("sk-good-key")) as ws:
            await receive(ws, "session.created")
        # Keys rotate with the file, no restart.
        keys_file.write_text("sk-rotated\n")
        import os

        os.utime(keys_file, ns=(1, 2_000_000_000_000_000_000))
        async with http.ws_connect(eng.realtime, headers=bearer("sk-rotated")) as ws:
            await receive(ws, "session.created")
        async with http.ws_connect(eng.realtime, headers=bearer("sk-good-key")) as ws:
            assert json.loads((await ws.receive(timeout=5)).data)["error"]["code"] == "invalid_api_key"


async def test_missing_key_is_code_null_and_close_3000_with_type_as_reason(engine):
    eng = await engine(api_keys=("sk-a",))
    async with aiohttp.ClientSession() as http, http.ws_connect(eng.realtime) as ws:
        error = json.loads((await ws.receive(timeout=5)).data)["error"]
        assert error["code"] is None
        assert error["message"] == "Missing bearer or basic authentication in header"
        closing = await ws.receive(timeout=5)
        assert (closing.data, closing.extra) == (3000, "invalid_request_error")


async def test_auth_failure_http_answers_401_with_the_openai_body_and_model_errors_still_close_4000(engine):
    eng = await engine(api_keys=("sk-a",), auth_failure="http")
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(eng.realtime, headers=bearer("sk-wrong-key-1234"))
        assert refused.value.status == 401
        async with http.get(f"{eng.http_url}/v1/realtime?model=gpt-realtime", headers=bearer("sk-x")) as r:
            assert r.status == 401
            body = await r.json()
        assert body["error"]["code"] == "invalid_api_key" and body["error"]["type"] == "invalid_request_error"
        async with http.get(f"{eng.http_url}/v1/realtime?model=gpt-realtime") as r:
            body = await r.json()
        assert r.status == 401 and body["error"]["code"] is None
        assert "You didn't provide an API key" in body["error"]["message"]
        async with http.ws_connect(f"{eng.url}/realtime?model=gpt-nope", headers=bearer("sk-a")) as ws:
            assert json.loads((await ws.receive(timeout=5)).data)["error"]["code"] == "invalid_model"
            closing = await ws.receive(timeout=5)
            assert (closing.data, closing.extra) == (4000, "invalid_request_error.invalid_model")


async def test_max_sessions_refuses_with_503_and_frees_the_slot(engine):
    eng = await engine(max_sessions=1)
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(eng.realtime, headers=bearer("sk-1")) as first:
            await receive(first, "session.created")
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(eng.realtime, headers=bearer("sk-2"))
            assert refused.value.status == 503
            # the refused handshake's body (aiohttp's client keeps it from ws_connect's caller)
            url = f"{eng.http_url}/v1/realtime?model=gpt-realtime"
            async with http.get(url, headers={**bearer("k"), **UPGRADE}) as r:
                body = await r.json()
                assert (r.status, r.headers["Retry-After"]) == (503, "1")
            assert body["error"]["code"] == "too_many_sessions"
            await first.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
            await receive(first, "input_audio_buffer.cleared")  # the admitted session is unaffected
        await eng.wait_until_idle()
        async with http.ws_connect(eng.realtime, headers=bearer("sk-3")) as ws:
            await receive(ws, "session.created")


# What a WebSocket client's handshake request carries (RFC 6455 §4.1).
UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": base64.b64encode(bytes(16)).decode(),
}


@pytest.mark.parametrize(
    ("path", "model"),
    [("/v1/realtime", "gpt-realtime"), ("/v1/realtime/translations", "gpt-realtime-translate")],
)
async def test_a_plain_get_while_full_is_told_to_upgrade_as_when_there_is_room(engine, path, model):
    """A GET without the upgrade got 503 too_many_sessions while --max-sessions were in use and 426
    otherwise: it is no session, and now gets the 426 either way (the upgrade itself still gets the 503)."""
    eng = await engine(max_sessions=1)
    url = f"{eng.http_url}{path}?model={model}"
    async with aiohttp.ClientSession() as http:
        async with http.get(url, headers=bearer("k")) as r:
            with_room = (r.status, r.headers.get("Upgrade"), await r.json())
        async with http.ws_connect(eng.realtime, headers=bearer("sk-1")) as first:
            await receive(first, "session.created")
            async with http.get(url, headers=bearer("k")) as r:
                when_full = (r.status, r.headers.get("Upgrade"), await r.json())
            async with http.get(url, headers={**bearer("k"), **UPGRADE}) as r:
                upgrade_when_full = (r.status, (await r.json())["error"]["code"])
            await first.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
            await receive(first, "input_audio_buffer.cleared")  # the admitted session is unaffected
    assert with_room[:2] == (426, "websocket") and with_room[2]["error"]["type"] == "invalid_request_error"
    assert when_full == with_room
    assert upgrade_when_full == (503, "too_many_sessions")


async def test_session_expires_with_session_expired_then_close_1001(engine):
    eng = await engine(session_max_s=1)
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers=bearer("sk-1")) as ws,
    ):
        created = await receive(ws, "session.created")
        error = (await receive(ws, "error", timeout=5))["error"]
        assert error["code"] == "session_expired"
        assert error["message"] == "Your session hit the maximum duration of 1 second."
        closing = await ws.receive(timeout=5)
        assert (closing.type, closing.data, closing.extra) == (
            aiohttp.WSMsgType.CLOSE,
            1001,
            error["message"],
        )
    assert created["session"]["expires_at"] > 0
    await eng.wait_until_idle()


async def test_a_peer_that_stops_answering_pings_is_dropped_and_one_that_answers_stays(engine):
    eng = await engine(heartbeat_s=0.2)
    async with aiohttp.ClientSession() as http:
        live = await http.ws_connect(eng.realtime, headers=bearer("sk-1"))  # answers pings while reading
        silent = await http.ws_connect(eng.realtime, headers=bearer("sk-2"), autoping=False)
        await receive(live, "session.created")
        assert eng.sessions_active() == 2
        received: list[str] = []

        async def keep_reading() -> None:
            async for msg in live:
                received.append(json.loads(msg.data)["type"])

        reader = asyncio.create_task(keep_reading())
        await eventually(
            lambda: eng.sessions_active() == 1, timeout_s=5, message="the silent peer was not dropped"
        )
        await asyncio.sleep(0.5)  # a few more heartbeats (every 0.2 s here): the answering peer stays
        await live.send_str(json.dumps({"type": "input_audio_buffer.clear"}))
        await eventually(lambda: "input_audio_buffer.cleared" in received)
        assert not live.closed
        await live.close()
        await reader
        await silent.close()
    await eng.wait_until_idle()


async def test_input_buffer_bound_refuses_the_append_and_keeps_what_was_accepted(engine):
    eng = await engine(max_input_buffer_s=1)
    chunk = base64.b64encode(bytes(48 * 600)).decode()  # 600 ms
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers=bearer("sk-1")) as ws,
    ):
        await receive(ws, "session.created")
        await set_turn_detection(ws, None)
        await receive(ws, "session.updated")
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk}))
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk, "event_id": "a2"}))
        error = (await receive(ws, "error"))["error"]
        assert (error["code"], error["param"], error["event_id"]) == (
            "input_audio_buffer_full",
            "audio",
            "a2",
        )
        await ws.send_str(json.dumps({"type": "input_audio_buffer.commit"}))
        committed = await receive(ws, "input_audio_buffer.committed")
        await ws.send_str(json.dumps({"type": "conversation.item.retrieve", "item_id": committed["item_id"]}))
        item = (await receive(ws, "conversation.item.retrieved"))["item"]
        assert len(base64.b64decode(item["content"][0]["audio"])) == 48 * 600  # the first append, whole


async def test_conversation_bound_makes_room_for_client_items_and_replies(engine):
    eng = await engine(max_conversation_items=2)

    def user(text: str, event_id: str) -> str:
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        return json.dumps({"type": "conversation.item.create", "item": item, "event_id": event_id})

    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers=bearer("sk-1")) as ws,
    ):
        await receive(ws, "session.created")
        await ws.send_str(user("one", "c1"))
        first = (await receive(ws, "conversation.item.done"))["item"]["id"]
        await ws.send_str(user("two", "c2"))
        second = (await receive(ws, "conversation.item.done"))["item"]["id"]
        await ws.send_str(user("three", "c3"))
        deleted = json.loads((await ws.receive(timeout=10)).data)  # accepted: no error first
        assert (deleted["type"], deleted.get("item_id")) == ("conversation.item.deleted", first)
        await receive(ws, "conversation.item.added")
        await ws.send_str(
            json.dumps({"type": "response.create", "response": {"output_modalities": ["text"]}})
        )
        deleted = await receive(ws, "conversation.item.deleted")
        assert deleted["item_id"] == second  # and again for the reply
        done = await receive(ws, "response.done")
        assert done["response"]["status"] == "completed"


async def test_a_frame_over_the_bound_closes_1009(engine):
    eng = await engine(max_frame_bytes=4096)
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers=bearer("sk-1")) as ws,
    ):
        await receive(ws, "session.created")
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": "A" * 8000}))
        closing = await ws.receive(timeout=5)
        assert (closing.type, closing.data) == (aiohttp.WSMsgType.CLOSE, 1009)
    await eng.wait_until_idle()


async def test_the_smallest_frame_bound_serve_takes_still_carries_a_second_of_audio(engine):
    """64 KiB, serve's floor for --max-frame-bytes (operations.md): one second of 24 kHz pcm16 in one
    append fits under it, so a client sending 20 ms to 1 s chunks works at the floor."""
    import base64

    from mockengine.server.settings_checks import MIN_FRAME_BYTES

    eng = await engine(max_frame_bytes=MIN_FRAME_BYTES)
    second = base64.b64encode(bytes(48000)).decode()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers=bearer("sk-1")) as ws,
    ):
        await receive(ws, "session.created")
        await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": second}))
        await ws.send_str(json.dumps({"type": "input_audio_buffer.clear", "event_id": "after"}))
        await receive(ws, "input_audio_buffer.cleared")
    await eng.wait_until_idle()


@pytest.mark.slow  # waits out the 5 s idle_timeout_ms floor in real time
async def test_idle_timeout_fires_after_the_reply_would_have_been_heard(engine):
    """Real clock (idle_timeout_ms has a 5000 ms floor): the client streams silence; the timeout comes
    no earlier than first delta + reply duration + idle_timeout_ms, then commit and a new response."""
    eng = await engine(audio_pace=20.0, first_delta_delay_ms=0)
    loop = asyncio.get_running_loop()
    detection = {"type": "server_vad", "idle_timeout_ms": 5000}
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers=bearer("sk-1")) as ws,
    ):
        await receive(ws, "session.created")
        await set_turn_detection(ws, detection)
        item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
        await ws.send_str(json.dumps({"type": "conversation.item.create", "item": item}))
        requested_at = loop.time()  # the first delta cannot go out before this
        await ws.send_str(json.dumps({"type": "response.create"}))

        async def stream_silence() -> None:
            # 100 ms chunks on a schedule, not 100 ms apart: each late wake-up on a loaded machine added
            # to the next gap, so the audio sent fell behind the clock and the buffer held less than the
            # 5 s of silence the timeout's clock had counted (a stall is made up by the next chunks).
            chunk = base64.b64encode(bytes(48 * 100)).decode()
            started, sent = loop.time(), 0
            while True:
                await ws.send_str(json.dumps({"type": "input_audio_buffer.append", "audio": chunk}))
                sent += 1
                await asyncio.sleep(max(0.0, started + sent * 0.1 - loop.time()))

        streamer = asyncio.create_task(stream_silence())
        first_delta_at, reply_ms, events = None, 0.0, []
        try:
            async with asyncio.timeout(30):
                while True:
                    event = json.loads((await ws.receive()).data)
                    events.append(event["type"])
                    if event["type"] == "response.output_audio.delta":
                        first_delta_at = first_delta_at or loop.time()
                        reply_ms += len(base64.b64decode(event["delta"])) / 48
                    if event["type"] == "input_audio_buffer.timeout_triggered":
                        triggered_at, triggered = loop.time(), event
                    if (
                        event["type"] == "response.created"
                        and "input_audio_buffer.timeout_triggered" in events
                    ):
                        break
        finally:
            streamer.cancel()
    assert first_delta_at is not None
    # Measured from the request, not from the first delta's arrival: the engine counts from when it sent
    # the first delta, and a loaded machine that read that delta late (the test and the engine share a
    # loop) put the arrival after the send by more than the 0.1 s this allowed (the two were ~3 ms apart
    # unloaded). The request is a bound the send cannot precede, so the timeout coming early still
    # fails: armed at the response's start (no reply_ms) or at its paced end (reply_ms / 20).
    assert triggered_at >= requested_at + (reply_ms + 5000) / 1000 - 0.02
    after = events[events.index("input_audio_buffer.timeout_triggered") :]
    assert after[:4] == [
        "input_audio_buffer.timeout_triggered",
        "input_audio_buffer.committed",
        "conversation.item.added",
        "conversation.item.done",
    ]
    assert triggered["audio_end_ms"] - triggered["audio_start_ms"] >= 5000


async def test_only_accepted_keys_mint_client_secrets_and_the_secret_opens_sessions(engine, tmp_path):
    keys_file = tmp_path / "keys.txt"
    keys_file.write_text("sk-minter\n")
    eng = await engine(api_keys_file=str(keys_file))
    mint = f"{eng.http_url}/v1/realtime/client_secrets"
    async with aiohttp.ClientSession() as http:
        async with http.post(mint, headers=bearer("sk-stranger-123456")) as response:
            assert response.status == 401
            assert (await response.json())["error"]["code"] == "invalid_api_key"
        async with http.post(mint, headers=bearer("sk-minter"), json={}) as response:
            assert response.status == 200
            secret = (await response.json())["value"]
        async with http.ws_connect(eng.realtime, headers=bearer(secret)) as ws:
            await receive(ws, "session.created")  # the ek_ secret is a vetted key, not a configured one


async def test_chat_completions_ask_the_same_key_policy(engine):
    eng = await engine(api_keys=("sk-chat-a", "sk-chat-b"))
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello"}]}
    url = f"{eng.http_url}/v1/chat/completions"
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=body, headers=bearer("sk-chat-b")) as response:
            assert response.status == 200
        async with http.post(url, json=body, headers=bearer("sk-not-configured")) as response:
            assert response.status == 401
            assert (await response.json())["error"]["code"] == "invalid_api_key"
