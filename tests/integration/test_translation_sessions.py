"""Realtime translation sessions over a real socket with the fake engines (every transcript is
FAKE_TRANSCRIPT, speech a tone): openai-python's ``client.realtime.translations`` as the client —
session.created/updated, frames and elapsed_ms, session.close's flush, client secrets, refusals, and bad
events answered with ``error`` while the session keeps working."""

from __future__ import annotations

import base64
import json
from typing import Any

import aiohttp
import pytest
from openai import AsyncOpenAI, BadRequestError

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.realtime.translation import FRAME_BYTES
from tests.conftest import FAKE_TRANSCRIPT

HEADERS = {"Authorization": "Bearer sk-test"}
SILENCE_1S = bytes(2 * 24_000)


def _client(base: str, key: str = "sk-test") -> AsyncOpenAI:
    return AsyncOpenAI(api_key=key, base_url=base.replace("ws://", "http://"), websocket_base_url=base)


def speech_then_silence(speech_ms: int = 1200) -> bytes:
    return SILENCE_1S[: FRAME_BYTES * 2] + synthetic_voiced_pcm16(speech_ms) + SILENCE_1S


async def stream(conn: Any, pcm: bytes, chunk_bytes: int = FRAME_BYTES) -> None:
    for start in range(0, len(pcm), chunk_bytes):
        await conn.send(
            {
                "type": "session.input_audio_buffer.append",
                "audio": base64.b64encode(pcm[start : start + chunk_bytes]).decode(),
            }
        )


async def until_closed(conn: Any) -> list[dict[str, Any]]:
    events = []
    async for event in conn:
        events.append(event.model_dump(exclude_unset=True))
        if event.type == "session.closed":
            break
    return events


async def test_the_sdk_translates_a_phrase_and_close_flushes_then_closes(engine) -> None:
    eng = await engine()
    async with (
        _client(eng.url) as client,
        client.realtime.translations.connect(model="gpt-realtime-translate") as conn,
    ):
        created = await conn.recv()
        assert created.type == "session.created"
        assert created.session.type == "translation" and created.session.model == "gpt-realtime-translate"
        assert created.session.id.startswith("sess_") and created.session.expires_at > 0
        await conn.send(
            {
                "type": "session.update",
                "session": {
                    "audio": {
                        "input": {"transcription": {"model": "gpt-realtime-whisper"}},
                        "output": {"language": "es"},
                    }
                },
            }
        )
        updated = await conn.recv()
        assert updated.type == "session.updated"
        assert updated.session.audio.input.transcription.model == "gpt-realtime-whisper"
        assert updated.session.audio.output.language == "es"
        # 100 ms chunks: buffered into 200 ms frames; the speech's last 600 ms are sent without a pause
        await stream(conn, speech_then_silence()[: -FRAME_BYTES * 2], FRAME_BYTES // 2)
        await conn.send({"type": "session.close"})
        events = await until_closed(conn)
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "session.closed"
    inputs = "".join(e["delta"] for e in events if e["type"] == "session.input_transcript.delta")
    outputs = "".join(e["delta"] for e in events if e["type"] == "session.output_transcript.delta")
    assert inputs == FAKE_TRANSCRIPT and outputs == FAKE_TRANSCRIPT  # identity "translation"
    audio = [e for e in events if e["type"] == "session.output_audio.delta"]
    assert audio and all(base64.b64decode(e["delta"]) for e in audio)
    assert {(e["sample_rate"], e["channels"], e["format"]) for e in audio} == {(24_000, 1, "pcm16")}
    elapsed = [e["elapsed_ms"] for e in events if "elapsed_ms" in e]
    assert all(ms % 200 == 0 for ms in elapsed) and elapsed == sorted(elapsed)
    audio_ms = [e["elapsed_ms"] for e in audio]
    assert all(b - a == 200 for a, b in zip(audio_ms, audio_ms[1:], strict=False))  # one chunk a frame


async def test_no_input_transcript_unless_configured_and_silence_says_nothing(engine) -> None:
    eng = await engine()
    async with (
        _client(eng.url) as client,
        client.realtime.translations.connect(model="gpt-realtime-translate") as conn,
    ):
        assert (await conn.recv()).type == "session.created"
        await stream(conn, SILENCE_1S * 2)
        await stream(conn, speech_then_silence(), FRAME_BYTES * 3)  # longer appends are split
        await conn.send({"type": "session.close"})
        events = await until_closed(conn)
    kinds = {e["type"] for e in events}
    assert "session.input_transcript.delta" not in kinds
    first = min(e["elapsed_ms"] for e in events if "elapsed_ms" in e)
    assert first > 2000  # nothing during the 2 s of silence


async def test_bad_events_get_errors_and_the_session_keeps_working(engine) -> None:
    eng = await engine()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(
            f"{eng.url}/realtime/translations?model=gpt-realtime-translate", headers=HEADERS
        ) as ws,
    ):
        assert json.loads((await ws.receive()).data)["type"] == "session.created"
        bad = [
            {"type": "response.create", "event_id": "evt_1"},
            {"type": "session.update", "session": {"type": "realtime"}},
            {"type": "session.update", "session": {"instructions": "hi"}},
            {
                "type": "session.update",
                "session": {"audio": {"input": {"noise_reduction": {"strength": 2}}}},
            },
            {
                "type": "session.update",
                "session": {"audio": {"input": {"transcription": {"model": "x"}}}},
            },
            {"type": "session.input_audio_buffer.append", "audio": "not base64!"},
            {"event_id": "evt_2"},
        ]
        for event in bad:
            await ws.send_str(json.dumps(event))
        await ws.send_str("{not json")
        errors = [json.loads((await ws.receive()).data) for _ in range(len(bad) + 1)]
        assert [e["type"] for e in errors] == ["error"] * (len(bad) + 1)
        params = [e["error"]["param"] for e in errors]
        assert params[:7] == [
            "type",
            "session.type",
            "session.instructions",
            "session.audio.input.noise_reduction.type",
            "session.audio.input.transcription.model",
            "audio",
            "type",
        ]
        assert errors[0]["error"]["event_id"] == "evt_1"
        assert "'session.update'" in errors[0]["error"]["message"]
        assert errors[1]["error"]["code"] == "immutable_parameter"
        # A model is set at creation: an update naming another is taken, the session keeps its own.
        await ws.send_str(json.dumps({"type": "session.update", "session": {"model": "gpt-realtime"}}))
        kept = json.loads((await ws.receive()).data)
        assert (kept["type"], kept["session"]["model"]) == ("session.updated", "gpt-realtime-translate")
        await ws.send_str(
            json.dumps(
                {
                    "type": "session.update",
                    "session": {"audio": {"input": {"noise_reduction": {"type": "far_field"}}}},
                }
            )
        )
        updated = json.loads((await ws.receive()).data)
        assert updated["type"] == "session.updated"
        assert updated["session"]["audio"]["input"]["noise_reduction"] == {
            "type": "far_field",
            "strength": 1.0,
        }
        assert updated["session"]["model"] == "gpt-realtime-translate"


@pytest.mark.parametrize(
    ("query", "code", "words"),
    [
        ("model=gpt-realtime", "invalid_model", "/v1/realtime"),
        ("model=whisper-1", "invalid_model", "gpt-realtime-translate"),
        ("", "missing_model", "model parameter"),
    ],
)
async def test_wrong_models_are_refused_on_the_translation_url(engine, query, code, words) -> None:
    eng = await engine()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{eng.url}/realtime/translations?{query}", headers=HEADERS) as ws,
    ):
        error = json.loads((await ws.receive()).data)
        assert error["type"] == "error" and error["error"]["code"] == code
        assert words in error["error"]["message"]
        await ws.receive()
        assert ws.close_code == 4000


async def test_the_translate_model_is_refused_on_the_voice_agent_url_and_listed(engine) -> None:
    eng = await engine()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{eng.url}/realtime?model=gpt-realtime-translate", headers=HEADERS) as ws,
    ):
        error = json.loads((await ws.receive()).data)
        assert error["error"]["code"] == "invalid_model"
        assert "/v1/realtime/translations" in error["error"]["message"]
        async with http.get(f"{eng.http_url}/v1/models", headers=HEADERS) as response:
            ids = [m["id"] for m in (await response.json())["data"]]
    assert "gpt-realtime-translate" in ids


async def test_a_bad_key_is_refused(engine) -> None:
    eng = await engine(api_key="sk-right")
    async with aiohttp.ClientSession() as http:
        url = f"{eng.url}/realtime/translations?model=gpt-realtime-translate"
        async with http.ws_connect(url, headers={"Authorization": "Bearer sk-wrong"}) as ws:
            error = json.loads((await ws.receive()).data)
            assert error["error"]["code"] == "invalid_api_key"
            await ws.receive()
            assert ws.close_code == 3000


async def test_client_secret_flow(engine) -> None:
    eng = await engine()
    async with _client(eng.url) as client:
        secret = await client.realtime.translations.client_secrets.create(
            session={
                "model": "gpt-realtime-translate",
                "audio": {
                    "output": {"language": "fr"},
                    "input": {"transcription": {"model": "gpt-4o-mini-transcribe"}},
                },
            },
            expires_after={"anchor": "created_at", "seconds": 60},
        )
        assert secret.value.startswith("ek_") and secret.session.type == "translation"
        assert secret.session.audio.output.language == "fr"
        with pytest.raises(BadRequestError) as refused:
            await client.realtime.translations.client_secrets.create(session={"model": "gpt-realtime"})
        assert refused.value.body["param"] == "session.model"
        with pytest.raises(BadRequestError):
            await client.realtime.translations.client_secrets.create(session={})  # type: ignore[typeddict-item]
    async with (
        _client(eng.url, key=secret.value) as browser,
        browser.realtime.translations.connect(model="gpt-realtime-translate") as conn,
    ):
        created = await conn.recv()
        assert created.session.audio.output.language == "fr"
        assert created.session.audio.input.transcription.model == "gpt-4o-mini-transcribe"
    async with aiohttp.ClientSession() as http:
        # a translation secret opens translation sessions only
        auth = {"Authorization": f"Bearer {secret.value}"}
        async with http.ws_connect(f"{eng.url}/realtime?model=gpt-realtime", headers=auth) as ws:
            assert json.loads((await ws.receive()).data)["error"]["code"] == "invalid_client_secret"
        # and a voice-agent secret opens no translation session
        async with _client(eng.url) as client:
            agent = await client.realtime.client_secrets.create(session={"type": "realtime"})
        auth = {"Authorization": f"Bearer {agent.value}"}
        url = f"{eng.url}/realtime/translations?model=gpt-realtime-translate"
        async with http.ws_connect(url, headers=auth) as ws:
            error = json.loads((await ws.receive()).data)["error"]
            assert error["code"] == "invalid_client_secret" and "'realtime'" in error["message"]


async def test_an_expired_translation_secret_is_refused(engine) -> None:
    from mockengine.server.client_secrets import CLIENT_SECRETS

    eng = await engine()
    async with _client(eng.url) as client:
        secret = await client.realtime.translations.client_secrets.create(
            session={"model": "gpt-realtime-translate"}
        )
    store = eng.app[CLIENT_SECRETS]
    now = store.clock()
    store.clock = lambda: now + 601
    async with aiohttp.ClientSession() as http:
        url = f"{eng.url}/realtime/translations?model=gpt-realtime-translate"
        async with http.ws_connect(url, headers={"Authorization": f"Bearer {secret.value}"}) as ws:
            assert json.loads((await ws.receive()).data)["error"]["code"] == "invalid_api_key"
            await ws.receive()
            assert ws.close_code == 3000


async def test_a_seeded_session_repeats_its_events_byte_for_byte(engine) -> None:
    eng = await engine()
    runs = []
    for _ in range(2):
        async with (
            _client(eng.url) as client,
            client.realtime.translations.connect(
                model="gpt-realtime-translate", extra_query={"seed": "11"}
            ) as conn,
        ):
            await stream(conn, speech_then_silence() + speech_then_silence(800), FRAME_BYTES)
            await conn.send({"type": "session.close"})
            runs.append([{k: v for k, v in e.items() if k != "session"} for e in await until_closed(conn)])
    assert runs[0] == runs[1]
    assert len([e for e in runs[0] if e["type"] == "session.output_transcript.delta"]) >= 2


async def test_a_plain_get_is_told_to_upgrade(engine) -> None:
    eng = await engine()
    async with aiohttp.ClientSession() as http:
        url = f"{eng.http_url}/v1/realtime/translations?model=gpt-realtime-translate"
        async with http.get(url, headers=HEADERS) as response:
            assert response.status == 426 and response.headers["Upgrade"] == "websocket"
            body = await response.json()
    assert "/v1/realtime/translations?model=gpt-realtime-translate" in body["error"]["message"]


async def test_translation_calls_refuse_bad_requests_with_rest_errors(engine) -> None:
    eng = await engine()
    url = f"{eng.http_url}/v1/realtime/translations/calls"
    sdp_headers = {**HEADERS, "Content-Type": "application/sdp"}
    async with _client(eng.url) as client:
        agent = await client.realtime.client_secrets.create(session={"type": "realtime"})
    async with aiohttp.ClientSession() as http:
        async with http.post(url, data="v=0\r\n", headers={"Content-Type": "application/sdp"}) as reply:
            assert reply.status == 401
        auth = {"Authorization": f"Bearer {agent.value}", "Content-Type": "application/sdp"}
        async with http.post(url, data="v=0\r\n", headers=auth) as reply:
            assert reply.status == 400
            assert (await reply.json())["error"]["code"] == "invalid_client_secret"
        async with http.post(f"{url}?model=gpt-realtime", data="v=0\r\n", headers=sdp_headers) as reply:
            assert reply.status == 400
            error = (await reply.json())["error"]
            assert error["code"] == "invalid_model" and "/v1/realtime" in error["message"]
        async with http.post(url, data='{"sdp": "v=0"}', headers=sdp_headers) as reply:
            assert reply.status == 400 and (await reply.json())["error"]["param"] == "sdp"
        async with http.post(url, data="v=0\r\n", headers=sdp_headers) as reply:
            assert reply.status == 400  # no data channel for oai-events
            assert "oai-events" in (await reply.json())["error"]["message"]
    assert eng.sessions_active() == 0


class _BrokenTranscriber:
    def transcribe(self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None):
        raise RuntimeError("whisper broke")


async def test_an_engine_failure_is_a_server_error_and_a_1011_close(aiohttp_server, fake_resources) -> None:
    import dataclasses

    from mockengine.server.app import create_app

    app = create_app(
        fake_resources.settings, dataclasses.replace(fake_resources, transcriber=_BrokenTranscriber())
    )
    server = await aiohttp_server(app)
    async with aiohttp.ClientSession() as http:
        url = f"ws://127.0.0.1:{server.port}/v1/realtime/translations?model=gpt-realtime-translate"
        async with http.ws_connect(url, headers=HEADERS) as ws:
            assert json.loads((await ws.receive()).data)["type"] == "session.created"
            for start in range(0, len(speech_then_silence()), FRAME_BYTES):
                chunk = speech_then_silence()[start : start + FRAME_BYTES]
                event = {
                    "type": "session.input_audio_buffer.append",
                    "audio": base64.b64encode(chunk).decode(),
                }
                await ws.send_str(json.dumps(event))
            error = json.loads((await ws.receive(timeout=10)).data)
            assert error["type"] == "error" and error["error"]["type"] == "server_error"
            await ws.receive(timeout=10)
            assert ws.close_code == 1011


async def test_every_server_event_validates_against_the_sdk_types(engine) -> None:
    """Each event, as sent, validated by pydantic against openai-python's RealtimeTranslationServerEvent
    union (the SDK itself builds its models without validating)."""
    from openai.types.realtime.realtime_translation_server_event import RealtimeTranslationServerEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(RealtimeTranslationServerEvent)
    eng = await engine()
    seen = []
    async with aiohttp.ClientSession() as http:
        url = f"{eng.url}/realtime/translations?model=gpt-realtime-translate"
        async with http.ws_connect(url, headers=HEADERS) as ws:
            update = {"audio": {"input": {"transcription": {"model": "gpt-realtime-whisper"}}}}
            await ws.send_str(json.dumps({"type": "session.update", "session": update}))
            await ws.send_str(json.dumps({"type": "response.create"}))
            pcm = speech_then_silence()
            for start in range(0, len(pcm), FRAME_BYTES):
                chunk = base64.b64encode(pcm[start : start + FRAME_BYTES]).decode()
                await ws.send_str(json.dumps({"type": "session.input_audio_buffer.append", "audio": chunk}))
            await ws.send_str(json.dumps({"type": "session.close"}))
            async for message in ws:
                event = json.loads(message.data)
                adapter.validate_python(event, strict=True)
                seen.append(event["type"])
    assert seen[0] == "session.created" and seen[-1] == "session.closed"
    assert {"session.updated", "error", "session.input_transcript.delta"} <= set(seen)
    assert {"session.output_transcript.delta", "session.output_audio.delta"} <= set(seen)


async def test_an_output_language_the_model_does_not_speak_is_refused(engine) -> None:
    """The 13 output languages of gpt-realtime-translate (OpenAI's cookbook); anything else is
    ``invalid_value`` on ``session.audio.output.language`` with the list, and the session goes on."""
    eng = await engine()
    async with (
        _client(eng.url) as client,
        client.realtime.translations.connect(model="gpt-realtime-translate") as conn,
    ):
        assert (await conn.recv()).type == "session.created"
        for bad in ("klingon", "EN", "en-US", "nl"):
            update = {
                "type": "session.update",
                "event_id": "lang",
                "session": {"audio": {"output": {"language": bad}}},
            }
            await conn.send(update)
            error = await conn.recv()
            assert error.type == "error", error
            assert (error.error.code, error.error.param, error.error.event_id) == (
                "invalid_value",
                "session.audio.output.language",
                "lang",
            )
            assert error.error.message.startswith(f"Invalid value: '{bad}'. Supported values are: 'es', 'pt'")
        await conn.send({"type": "session.update", "session": {"audio": {"output": {"language": "ja"}}}})
        updated = await conn.recv()
        assert updated.type == "session.updated" and updated.session.audio.output.language == "ja"
        with pytest.raises(BadRequestError) as refused:
            await client.realtime.translations.client_secrets.create(
                session={"model": "gpt-realtime-translate", "audio": {"output": {"language": "xx"}}}
            )
        assert refused.value.body["param"] == "session.audio.output.language"
        assert refused.value.body["code"] == "invalid_value"
