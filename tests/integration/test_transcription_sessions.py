"""Transcription sessions over a real socket (fake engines: every transcript is FAKE_TRANSCRIPT): the
``openai`` SDK opening one with ``intent=transcription``, LiveKit's URL with a transcribe model on it,
a client secret minted for one, and the refusals that keep a session's type."""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

import aiohttp
from openai import AsyncOpenAI

from mockengine.audio.synthetic import synthetic_voiced_pcm16
from mockengine.chat.audio import decode_audio_file
from mockengine.engines.fakes import FakeTranscriber
from mockengine.engines.stt import Transcript
from mockengine.server.app import create_app
from mockengine.server.state import STATS
from tests.conftest import FAKE_TRANSCRIPT
from tests.speech import DATA, QUESTION_TRANSCRIPT, validate_server_event

HEADERS = {"Authorization": "Bearer sk-test"}


def _client(base: str, key: str = "sk-test") -> AsyncOpenAI:
    return AsyncOpenAI(api_key=key, base_url=base.replace("ws://", "http://"), websocket_base_url=base)


async def _until(ws: aiohttp.ClientWebSocketResponse, kind: str, seen: list[dict]) -> dict:
    while True:
        event = json.loads((await ws.receive(timeout=10)).data)
        validate_server_event(event)
        seen.append(event)
        if event["type"] == kind:
            return event


async def test_the_sdk_opens_a_transcription_session_that_transcribes_and_never_responds(engine) -> None:
    eng = await engine()
    events: list[dict] = []
    async with _client(eng.url) as client:
        async with client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
            created = await conn.recv()
            assert created.type == "session.created" and created.session.type == "transcription"
            await conn.session.update(
                session={
                    "type": "transcription",
                    "audio": {
                        "input": {
                            "transcription": {"model": "gpt-4o-mini-transcribe", "language": "en"},
                            "turn_detection": None,
                        }
                    },
                }
            )
            updated = await conn.recv()
            assert updated.type == "session.updated" and updated.session.type == "transcription"
            assert updated.session.audio.input.transcription.model == "gpt-4o-mini-transcribe"
            await conn.input_audio_buffer.append(audio=base64.b64encode(synthetic_voiced_pcm16(500)).decode())
            await conn.input_audio_buffer.commit()
            await conn.response.create()
            while True:
                event = await conn.recv()
                events.append(event.model_dump(exclude_unset=True))
                if event.type == "error":
                    break
            while not any(e["type"].endswith("input_audio_transcription.completed") for e in events):
                events.append((await conn.recv()).model_dump(exclude_unset=True))
        assert eng.app[STATS].sessions_total == 1  # counted as a session, as a realtime one is
    kinds = [event["type"] for event in events]
    assert kinds[:3] == ["input_audio_buffer.committed", "conversation.item.added", "conversation.item.done"]
    error = next(event for event in events if event["type"] == "error")["error"]
    assert "does not create responses" in error["message"]
    completed = next(e for e in events if e["type"].endswith("input_audio_transcription.completed"))
    assert completed["transcript"] == FAKE_TRANSCRIPT
    assert not [kind for kind in kinds if kind.startswith("response.") or kind == "rate_limits.updated"]


async def test_a_transcription_session_refuses_a_created_item_and_goes_on_transcribing(engine) -> None:
    # conversation.item.create was accepted: a text item (or a client's audio item) joined a session
    # that only transcribes. Refused now, as response.create is; the session goes on.
    eng = await engine()
    events: list[dict] = []
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi."}]}
    async with (
        _client(eng.url) as client,
        client.realtime.connect(extra_query={"intent": "transcription"}) as conn,
    ):
        await conn.recv()  # session.created
        await conn.conversation.item.create(item=item, event_id="evt_item")
        refused = await conn.recv()
        assert refused.type == "error", refused
        assert refused.error.code == "invalid_value" and refused.error.param == "type"
        assert refused.error.event_id == "evt_item" and "conversation.item.create" in refused.error.message
        update = {"transcription": {"model": "whisper-1"}, "turn_detection": None}
        await conn.session.update(session={"type": "transcription", "audio": {"input": update}})
        assert (await conn.recv()).type == "session.updated"
        await conn.input_audio_buffer.append(audio=base64.b64encode(synthetic_voiced_pcm16(500)).decode())
        await conn.input_audio_buffer.commit()
        while not events or not events[-1]["type"].endswith("input_audio_transcription.completed"):
            events.append((await conn.recv()).model_dump(exclude_unset=True))
    assert [e["type"] for e in events][:3] == [
        "input_audio_buffer.committed",
        "conversation.item.added",
        "conversation.item.done",
    ]
    assert events[1]["previous_item_id"] is None  # the refused item never joined
    assert events[-1]["transcript"] == FAKE_TRANSCRIPT


async def test_livekits_url_with_a_transcribe_model_opens_a_transcription_session(engine_url) -> None:
    base = await engine_url()
    url = f"{base}/realtime?intent=transcription&model=gpt-4o-mini-transcribe"
    async with aiohttp.ClientSession() as http, http.ws_connect(url, headers=HEADERS) as ws:
        created = await _until(ws, "session.created", [])
        assert created["session"]["object"] == "realtime.transcription_session"
        # A realtime update cannot turn it into a realtime session.
        await ws.send_str(json.dumps({"type": "session.update", "session": {"type": "realtime"}}))
        error = (await _until(ws, "error", []))["error"]
        assert error["code"] == "invalid_value" and error["param"] == "session.type"


async def test_a_realtime_session_still_refuses_a_transcription_update(engine_url) -> None:
    base = await engine_url()
    url = f"{base}/realtime?model=gpt-realtime"
    async with aiohttp.ClientSession() as http, http.ws_connect(url, headers=HEADERS) as ws:
        await _until(ws, "session.created", [])
        update = {"type": "transcription", "audio": {"input": {"transcription": {"model": "whisper-1"}}}}
        await ws.send_str(json.dumps({"type": "session.update", "session": update}))
        error = (await _until(ws, "error", []))["error"]
        assert error["message"] == (
            "Passing a transcription session update event to a realtime session is not allowed."
        )


async def test_a_secret_minted_for_a_transcription_session_opens_one(engine_url) -> None:
    base = await engine_url()
    session = {
        "type": "transcription",
        "audio": {
            "input": {"transcription": {"model": "whisper-1", "language": "fr"}, "turn_detection": None}
        },
    }
    async with _client(base) as client:
        secret = await client.realtime.client_secrets.create(session=session)
    assert secret.value.startswith("ek_")
    assert secret.session.type == "transcription"
    assert secret.session.object == "realtime.transcription_session"
    # Opened as a plain realtime URL would be (no intent, no model): the secret says what it opens.
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{base}/realtime", headers={"Authorization": f"Bearer {secret.value}"}) as ws,
    ):
        created = (await _until(ws, "session.created", []))["session"]
    assert created["type"] == "transcription"
    assert created["audio"]["input"]["transcription"]["language"] == "fr"
    assert created["audio"]["input"]["turn_detection"] is None


async def test_a_transcription_secret_with_realtime_fields_is_refused(engine_url) -> None:
    base = await engine_url()
    body = {"session": {"type": "transcription", "instructions": "Be brief."}}
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{base.replace('ws://', 'http://')}/realtime/client_secrets", json=body, headers=HEADERS
        ) as reply,
    ):
        assert reply.status == 400
        error = (await reply.json())["error"]
    assert error["code"] == "unknown_parameter" and error["param"] == "session.instructions"


async def test_a_transcription_secret_for_gpt_realtime_whisper_has_no_turn_detection(engine_url) -> None:
    """The model endpoints nothing itself (live): minted without turn_detection, the session has none;
    minted with server_vad, the mint is refused with the live session.update's words."""
    base = await engine_url()
    transcription = {"model": "gpt-realtime-whisper"}
    async with _client(base) as client:
        secret = await client.realtime.client_secrets.create(
            session={"type": "transcription", "audio": {"input": {"transcription": transcription}}}
        )
    assert secret.session.type == "transcription"
    assert secret.session.audio is not None and secret.session.audio.input is not None
    assert secret.session.audio.input.turn_detection is None
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(f"{base}/realtime", headers={"Authorization": f"Bearer {secret.value}"}) as ws,
    ):
        created = (await _until(ws, "session.created", []))["session"]
    assert created["audio"]["input"]["turn_detection"] is None
    refused = {"type": "transcription", "audio": {"input": {"transcription": transcription}}}
    refused["audio"]["input"]["turn_detection"] = {"type": "server_vad"}
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{base.replace('ws://', 'http://')}/realtime/client_secrets",
            json={"session": refused},
            headers=HEADERS,
        ) as reply,
    ):
        assert reply.status == 400
        error = (await reply.json())["error"]
    assert error["message"] == "Turn detection is not supported for this transcription model."
    assert error["param"] == "session.audio.input.turn_detection"


async def test_a_transcription_secret_cannot_open_a_webrtc_call(engine_url) -> None:
    http_base = (await engine_url()).replace("ws://", "http://")
    async with _client(http_base.replace("http://", "ws://")) as client:
        secret = await client.realtime.client_secrets.create(session={"type": "transcription"})
    headers = {"Authorization": f"Bearer {secret.value}", "Content-Type": "application/sdp"}
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{http_base}/realtime/calls", data="v=0\r\n", headers=headers) as reply,
    ):
        assert reply.status == 400
        error = (await reply.json())["error"]
    assert error["param"] == "session.type" and "WebSocket only" in error["message"]


class WordyTranscriber(FakeTranscriber):
    """The fake transcript (FAKE_TRANSCRIPT) with whisper's word timings and probabilities for it, as the real
    engine gives them."""

    def transcribe(
        self, pcm16_24k: bytes, *, language: str | None = None, prompt: str | None = None
    ) -> Transcript:
        heard = super().transcribe(pcm16_24k, language=language, prompt=prompt)
        return (
            dataclasses.replace(heard, words=QUESTION_TRANSCRIPT.words)
            if heard.text == FAKE_TRANSCRIPT
            else heard
        )


async def _wordy_engine(aiohttp_server, fake_resources) -> str:
    resources = dataclasses.replace(fake_resources, transcriber=WordyTranscriber(default=FAKE_TRANSCRIPT))
    server = await aiohttp_server(create_app(resources.settings, resources))
    return f"ws://127.0.0.1:{server.port}/v1"


async def _transcribed_with_logprobs(
    base: str, pcm16: bytes, include: list[str] | None
) -> list[dict[str, Any]]:
    """A transcription session (the SDK, ``intent=transcription``) asking for ``include``: the audio
    committed by hand, its delta and completed events."""
    session: dict[str, Any] = {
        "type": "transcription",
        "audio": {"input": {"transcription": {"model": "gpt-4o-transcribe"}, "turn_detection": None}},
    }
    if include is not None:
        session["include"] = include
    events: list[dict[str, Any]] = []
    async with (
        _client(base) as client,
        client.realtime.connect(extra_query={"intent": "transcription"}) as conn,
    ):
        await conn.recv()  # session.created
        await conn.session.update(session=session)
        updated = await conn.recv()
        assert updated.type == "session.updated", updated
        assert updated.session.include == include
        await conn.input_audio_buffer.append(audio=base64.b64encode(pcm16).decode())
        await conn.input_audio_buffer.commit()
        while not events or events[-1]["type"] != "conversation.item.input_audio_transcription.completed":
            event = await conn.recv()  # parsed by the SDK's models: logprobs as it types them
            if event.type.startswith("conversation.item.input_audio_transcription."):
                events.append(event.model_dump(exclude_unset=True))
    return events


async def test_a_transcription_session_asked_for_logprobs_gets_those_of_the_audio_endpoint(
    aiohttp_server, fake_resources
) -> None:
    # include: ["item.input_audio_transcription.logprobs"] had no effect: no logprobs on either event.
    # Now both carry them, computed as POST /v1/audio/transcriptions (include[]=logprobs) computes them
    # for the same audio: whisper's word probabilities, the same tokens.
    base = await _wordy_engine(aiohttp_server, fake_resources)
    wav = (DATA / "question.wav").read_bytes()
    *deltas, completed = await _transcribed_with_logprobs(
        base, decode_audio_file(wav), ["item.input_audio_transcription.logprobs"]
    )
    # A delta a word (as live, reference S6 probe 7), each with the logprobs of its own tokens.
    assert len(deltas) == len(FAKE_TRANSCRIPT.split()) > 1
    assert "".join(d["delta"] for d in deltas) == completed["transcript"] == FAKE_TRANSCRIPT
    assert [t for d in deltas for t in d["logprobs"]] == completed["logprobs"]
    tokens = completed["logprobs"]
    assert "".join(t["token"] for t in tokens) == FAKE_TRANSCRIPT
    assert all(bytes(t["bytes"]) == t["token"].encode() and t["logprob"] <= 0 for t in tokens)
    assert min(t["logprob"] for t in tokens) < -0.6  # "of": log(0.524), whisper's, not 0.0 for all
    async with AsyncOpenAI(
        api_key="sk-test", base_url=base.replace("ws://", "http://"), max_retries=0
    ) as rest:
        heard = await rest.audio.transcriptions.create(
            model="gpt-4o-transcribe", file=("question.wav", wav), include=["logprobs"]
        )
    assert [lp.model_dump() for lp in heard.logprobs or []] == tokens
    # Deterministic: the same audio in another session gives the same figures.
    again = await _transcribed_with_logprobs(
        base, decode_audio_file(wav), ["item.input_audio_transcription.logprobs"]
    )
    assert again[-1]["logprobs"] == tokens


async def test_a_transcription_session_not_asked_for_logprobs_gets_none(
    aiohttp_server, fake_resources
) -> None:
    base = await _wordy_engine(aiohttp_server, fake_resources)
    *deltas, completed = await _transcribed_with_logprobs(base, synthetic_voiced_pcm16(800), None)
    assert deltas and all("logprobs" not in event for event in [*deltas, completed])


async def test_a_transcription_secret_opens_one_with_the_sdks_model_on_the_url(engine_url) -> None:
    """client.realtime.connect(model="gpt-realtime") puts a realtime model on the URL: the secret, minted
    for a transcription session, still says what opens (not a conversation that answers)."""
    base = await engine_url()
    session = {"type": "transcription", "audio": {"input": {"transcription": {"model": "gpt-4o-transcribe"}}}}
    async with _client(base) as client:
        secret = await client.realtime.client_secrets.create(session=session)  # type: ignore[arg-type]
    async with (
        _client(base, secret.value) as user,
        user.realtime.connect(model="gpt-realtime") as conn,
    ):
        created = await conn.recv()
    assert created.type == "session.created"
    assert created.session.type == "transcription"
    assert created.session.audio is not None and created.session.audio.input is not None
    assert created.session.audio.input.transcription is not None
    assert created.session.audio.input.transcription.model == "gpt-4o-transcribe"
