"""Ephemeral client secrets: minted with the openai SDK, then used to open WebSocket sessions."""

from __future__ import annotations

import json

import aiohttp
import openai
import pytest
from openai import AsyncOpenAI

from mockengine.server.client_secrets import ClientSecretStore

SESSION = {
    "type": "realtime",
    "model": "gpt-realtime-mini",
    "instructions": "You are a tour guide.",
    "audio": {"output": {"voice": "coral"}, "input": {"turn_detection": {"type": "semantic_vad"}}},
}


def _client(base: str, key: str = "sk-test", **kwargs) -> AsyncOpenAI:
    return AsyncOpenAI(
        api_key=key, base_url=base.replace("ws://", "http://"), websocket_base_url=base, **kwargs
    )


async def _first_frames(url: str, headers=None, protocols=()) -> tuple[dict, aiohttp.WSMessage | None]:
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(url, headers=headers or {}, protocols=protocols) as ws,
    ):
        first = json.loads((await ws.receive(timeout=10)).data)
        closing = await ws.receive(timeout=10) if first["type"] == "error" else None
        return first, closing


async def test_minted_secret_opens_a_session_with_its_config(engine_url):
    base = await engine_url()
    async with _client(base) as client:
        secret = await client.realtime.client_secrets.create(
            session=SESSION, expires_after={"anchor": "created_at", "seconds": 120}
        )
    assert secret.value.startswith("ek_") and len(secret.value) == 35
    assert secret.session.type == "realtime" and secret.session.instructions == "You are a tour guide."
    assert secret.session.audio.output.voice == "coral"
    assert secret.session.expires_at == 0
    # The secret as a bearer key through the SDK: session.created carries the secret's session.
    async with (
        _client(base, key=secret.value) as client,
        client.realtime.connect(model="gpt-realtime") as conn,
    ):
        created = await conn.recv()
    assert created.type == "session.created"
    assert created.session.model == "gpt-realtime-mini"
    assert created.session.instructions == "You are a tour guide."
    assert created.session.audio.input.turn_detection.type == "semantic_vad"
    assert created.session.expires_at > secret.expires_at - 120
    # ... and as the browser subprotocol, without ?model= (the secret names it); usable more than once.
    first, _ = await _first_frames(
        f"{base}/realtime", protocols=("realtime", f"openai-insecure-api-key.{secret.value}")
    )
    assert first["type"] == "session.created" and first["session"]["audio"]["output"]["voice"] == "coral"


async def test_unknown_and_expired_secrets_are_refused_like_a_bad_key(engine_url, monkeypatch):
    base = await engine_url()
    async with _client(base) as client:
        secret = await client.realtime.client_secrets.create(
            session={"type": "realtime"}, expires_after={"anchor": "created_at", "seconds": 10}
        )
    first, closing = await _first_frames(
        f"{base}/realtime?model=gpt-realtime", headers={"Authorization": "Bearer ek_" + "0" * 32}
    )
    assert first["error"]["code"] == "invalid_api_key"
    assert closing is not None and closing.type == aiohttp.WSMsgType.CLOSE and closing.data == 3000
    # Move the store's clock past the expiry: the same secret is now refused.
    real_clock = ClientSecretStore.lookup

    def later(self, value):
        self.clock = lambda: secret.expires_at + 1.0
        return real_clock(self, value)

    monkeypatch.setattr(ClientSecretStore, "lookup", later)
    first, closing = await _first_frames(
        f"{base}/realtime?model=gpt-realtime", headers={"Authorization": f"Bearer {secret.value}"}
    )
    assert first["error"]["code"] == "invalid_api_key"
    assert closing is not None and closing.data == 3000


async def test_secret_opens_sessions_even_when_the_engine_requires_a_key(engine_url):
    base = await engine_url(api_key="sk-right")
    async with _client(base, key="sk-wrong", max_retries=0) as client:
        with pytest.raises(openai.AuthenticationError):
            await client.realtime.client_secrets.create()
    async with (
        aiohttp.ClientSession() as http,
        http.post(base.replace("ws://", "http://") + "/realtime/client_secrets") as reply,
    ):
        assert reply.status == 401
        assert "didn't provide an API key" in (await reply.json())["error"]["message"]
    async with _client(base, key="sk-right") as client:
        secret = await client.realtime.client_secrets.create()
    assert secret.session.model == "gpt-realtime" and secret.expires_at > 0
    first, _ = await _first_frames(
        f"{base}/realtime?model=gpt-realtime", headers={"Authorization": f"Bearer {secret.value}"}
    )
    assert first["type"] == "session.created"
    async with _client(base, key=secret.value, max_retries=0) as client:
        with pytest.raises(openai.AuthenticationError):  # a secret cannot mint secrets
            await client.realtime.client_secrets.create()


async def test_a_wrong_key_is_masked_on_client_secrets_as_on_the_other_rest_routes(engine_url):
    """The REST routes mask a key with one ``*`` a hidden character; client_secrets used the Realtime
    socket's ``…`` (``sk-wrong…6789`` beside /v1/models' ``sk-wrong*****6789``)."""
    base = await engine_url(api_key="sk-right")
    key = "sk-wrong-key-0123456789"
    async with _client(base, key=key, max_retries=0) as client:
        with pytest.raises(openai.AuthenticationError) as minting:
            await client.realtime.client_secrets.create()
        with pytest.raises(openai.AuthenticationError) as listing:
            await client.models.list()
    assert minting.value.code == "invalid_api_key"
    assert minting.value.message == listing.value.message
    assert "Incorrect API key provided: sk-wrong***********6789." in minting.value.message


async def test_a_secret_is_refused_outside_the_realtime_api(engine_url):
    """A client secret "grants access to the Realtime API": Chat Completions, Responses, models and audio
    refuse it with 401 (they took any ``ek_`` while no API key was configured), and it still opens a
    Realtime session."""
    base = await engine_url()
    async with _client(base) as client:
        secret = await client.realtime.client_secrets.create(session={"type": "realtime"})
    async with _client(base, key=secret.value, max_retries=0) as client:
        with pytest.raises(openai.AuthenticationError) as caught:
            await client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
            )
        assert caught.value.code == "invalid_api_key"
        with pytest.raises(openai.AuthenticationError):
            await client.responses.create(model="gpt-4o-mini", input="hi")
        with pytest.raises(openai.AuthenticationError):
            await client.models.list()
        with pytest.raises(openai.AuthenticationError):
            await client.audio.speech.create(model="tts-1", voice="alloy", input="hi")
    first, _ = await _first_frames(
        f"{base}/realtime?model=gpt-realtime", headers={"Authorization": f"Bearer {secret.value}"}
    )
    assert first["type"] == "session.created"


async def test_a_secrets_transcription_is_echoed_with_the_live_nulls(engine_url):
    """The live echo of ``{"model": …}`` is ``{"model": …, "language": null, "prompt": null}`` (reference
    §4): in the minted session, and in the session.created of a session the secret opens."""
    base = await engine_url()
    transcription = {"model": "gpt-4o-mini-transcribe"}
    async with _client(base) as client:
        secret = await client.post(
            "/realtime/client_secrets",
            body={"session": {"type": "realtime", "audio": {"input": {"transcription": transcription}}}},
            cast_to=object,
        )
    echoed = {"model": "gpt-4o-mini-transcribe", "language": None, "prompt": None}
    assert secret["session"]["audio"]["input"]["transcription"] == echoed
    first, _ = await _first_frames(
        f"{base}/realtime?model=gpt-realtime", headers={"Authorization": f"Bearer {secret['value']}"}
    )
    assert list(first["session"]["audio"]["input"]["transcription"].items()) == list(echoed.items())


@pytest.mark.parametrize(
    ("body", "code", "param"),
    [
        (
            {"expires_after": {"anchor": "created_at", "seconds": 5}},
            "integer_below_min_value",
            "expires_after.seconds",
        ),
        ({"expires_after": {"seconds": 7201}}, "integer_above_max_value", "expires_after.seconds"),
        ({"expires_after": {"anchor": "now"}}, "invalid_value", "expires_after.anchor"),
        ({"session": {"type": "realtime", "bogus": 1}}, "unknown_parameter", "session.bogus"),
        ({"session": {"instructions": "x"}}, "missing_required_parameter", "session.type"),
        (
            {"session": {"type": "realtime", "audio": {"output": {"voice": "nope"}}}},
            "invalid_value",
            "session.audio.output.voice",
        ),
        ({"extra": True}, "unknown_parameter", "extra"),
    ],
)
async def test_bad_requests_get_the_real_400_shape(engine_url, body, code, param):
    base = await engine_url()
    async with _client(base, max_retries=0) as client:
        with pytest.raises(openai.BadRequestError) as caught:
            await client.post("/realtime/client_secrets", body=body, cast_to=object)
    error = caught.value.body
    assert caught.value.status_code == 400
    assert error["code"] == code and error["param"] == param and error["type"] == "invalid_request_error"


async def test_invalid_json_body(engine_url):
    base = (await engine_url()).replace("ws://", "http://")
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{base}/realtime/client_secrets", data=b"{nope", headers={"Authorization": "Bearer sk-x"}
        ) as reply,
    ):
        assert reply.status == 400
        assert "could not parse the JSON body" in (await reply.json())["error"]["message"]


@pytest.mark.parametrize(
    "raw",
    [
        # NaN once minted a secret whose session failed every response (and came back as `NaN`, not JSON)
        b'{"session": {"type": "realtime", "audio": {"output": {"speed": NaN}}}}',
        b'{"expires_after": {"seconds": Infinity}}',
        # a lone surrogate, which no UTF-8 text carries; nesting past the parser's depth (was a 500)
        b'{"session": {"type": "realtime", "instructions": "\\ud800"}}',
        b'{"session": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        # under the parser's limit, but past what the session checks walk (their recursion was a 500)
        b'{"session": {"type": "realtime", "tools": [{"type": "function", "name": "x", "parameters": '
        + b'{"a": ' * 500
        + b"1"
        + b"}" * 500
        + b"}]}}",
    ],
)
async def test_bodies_json_cannot_carry_are_invalid_json(engine_url, raw):
    base = (await engine_url()).replace("ws://", "http://")
    headers = {"Authorization": "Bearer sk-x", "Content-Type": "application/json"}
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{base}/realtime/client_secrets", data=raw, headers=headers) as reply,
    ):
        assert reply.status == 400
        error = (await reply.json())["error"]
        assert (
            "could not parse the JSON body" in error["message"] and error["type"] == "invalid_request_error"
        )


def test_seeded_secrets_repeat_and_unseeded_differ():
    def mint_two(seed):
        store = ClientSecretStore(seed, clock=lambda: 1_000.0)
        return [store.mint({"type": "realtime"}, 60)[0].value for _ in range(2)]

    assert mint_two(5) == mint_two(5)
    assert mint_two(5) != mint_two(6)
    assert mint_two(None) != mint_two(None)
    store = ClientSecretStore(5, clock=lambda: 1_000.0)
    secret, effective = store.mint({"type": "realtime"}, 60)
    assert secret.expires_at == 1_060 and effective["expires_at"] == 0
    assert store.lookup(secret.value) == secret
    store.clock = lambda: 1_060.0
    assert store.lookup(secret.value) is None


async def test_a_secret_may_name_a_scenario_model(engine_url):
    base = await engine_url()
    async with _client(base) as client:
        secret = await client.realtime.client_secrets.create(
            session={"type": "realtime", "model": "mockengine-default"}
        )
    first, _ = await _first_frames(f"{base}/realtime", headers={"Authorization": f"Bearer {secret.value}"})
    assert first["type"] == "session.created" and first["session"]["model"] == "mockengine-default"


@pytest.mark.parametrize("path", ["/realtime/client_secrets", "/realtime/translations/client_secrets"])
async def test_a_whole_decimal_lifetime_is_an_invalid_type(engine_url, path):
    """``"seconds": 600.0`` passed the schema (a whole decimal is an integer to JSON Schema) and the
    answer's ``expires_at`` came out a decimal (``1796662770.0``, where the SDK has ``int``). It is
    refused as ``600.5`` is, as every integer parameter is (schema_errors.VALIDATOR_CLASS)."""
    base = (await engine_url()).replace("ws://", "http://")
    body: dict = {"expires_after": {"anchor": "created_at", "seconds": 600.0}}
    if "translations" in path:
        body["session"] = {"model": "gpt-realtime-translate"}
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{base}{path}", json=body, headers={"Authorization": "Bearer sk-test"}) as reply,
    ):
        assert reply.status == 400, await reply.text()
        error = (await reply.json())["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error",
        "invalid_type",
        "expires_after.seconds",
    )
    assert error["message"] == (
        "Invalid type for 'expires_after.seconds': expected an integer, but got a decimal instead."
    )
