"""A transcription ``prompt`` the model does not take is refused on the realtime path as on
``POST /v1/audio/transcriptions``: openai-python's realtime ``AudioTranscription.prompt`` is for the
gpt-4o-transcribe models "excluding ``gpt-4o-transcribe-diarize``" and "not supported with
``gpt-realtime-whisper`` in GA Realtime sessions". Over the openai SDK (fake engines): an ``error`` event
``unsupported_parameter`` (param ``session.audio.input.transcription.prompt``, the client's
``event_id``), the session unchanged and working; a client secret minted with it is a 400."""

from __future__ import annotations

import aiohttp
import pytest

from tests.session_kinds import connected, sdk_client

PARAM = "session.audio.input.transcription.prompt"
MESSAGE = "Unsupported parameter: 'prompt' is not supported with this model."


@pytest.mark.parametrize("session_type", ["transcription", "realtime"])
@pytest.mark.parametrize("model", ["gpt-4o-transcribe-diarize", "gpt-realtime-whisper"])
async def test_a_prompt_for_a_model_without_one_is_an_error_event(engine, session_type, model) -> None:
    eng = await engine(audio_pace=0.0)
    async with connected(eng.url, session_type) as conn:
        transcription = {"model": model, "prompt": "Expect words about the weather."}
        audio = {"input": {"transcription": transcription, "turn_detection": None}}
        await conn.session.update(session={"type": session_type, "audio": audio}, event_id="evt_prompt")  # type: ignore[arg-type,misc]
        refused = await conn.recv()
        assert refused.type == "error", refused
        assert (refused.error.type, refused.error.code, refused.error.param, refused.error.event_id) == (
            "invalid_request_error",
            "unsupported_parameter",
            PARAM,
            "evt_prompt",
        )
        assert refused.error.message == MESSAGE
        # The session goes on: the same model without the prompt (or with none) is taken.
        for prompt in ({}, {"prompt": None}, {"prompt": ""}):
            audio = {"input": {"transcription": {"model": model, **prompt}, "turn_detection": None}}
            await conn.session.update(session={"type": session_type, "audio": audio})  # type: ignore[arg-type,misc]
            updated = await conn.recv()
            assert updated.type == "session.updated", updated


async def test_the_other_models_take_a_prompt(engine) -> None:
    eng = await engine(audio_pace=0.0)
    async with (
        sdk_client(eng.url) as client,
        client.realtime.connect(extra_query={"intent": "transcription"}) as conn,
    ):
        await conn.recv()
        transcription = {"model": "gpt-4o-transcribe", "prompt": "Expect words about the weather."}
        await conn.session.update(
            session={"type": "transcription", "audio": {"input": {"transcription": transcription}}}
        )  # type: ignore[arg-type,misc]
        assert (await conn.recv()).type == "session.updated"
        # An update replaces the transcription object whole: a prompt given for the model before is
        # not carried over to the diarize model.
        diarize = {"model": "gpt-4o-transcribe-diarize"}
        await conn.session.update(
            session={"type": "transcription", "audio": {"input": {"transcription": diarize}}}  # type: ignore[arg-type,misc]
        )
        updated = await conn.recv()
        assert updated.type == "session.updated", updated
        assert updated.session.audio.input.transcription.prompt is None


@pytest.mark.parametrize("session_type", ["transcription", "realtime"])
async def test_a_client_secret_with_such_a_prompt_is_refused(engine, session_type) -> None:
    eng = await engine(audio_pace=0.0)
    http = eng.url.replace("ws://", "http://")  # …/v1
    transcription = {"model": "gpt-4o-transcribe-diarize", "prompt": "Expect words about the weather."}
    session = {"type": session_type, "audio": {"input": {"transcription": transcription}}}
    if session_type == "realtime":
        session["model"] = "gpt-realtime"
    async with (
        aiohttp.ClientSession() as http_session,
        http_session.post(
            f"{http}/realtime/client_secrets",
            json={"session": session},
            headers={"Authorization": "Bearer sk-test"},
        ) as reply,
    ):
        body = await reply.json()
    assert reply.status == 400, body
    assert (body["error"]["code"], body["error"]["param"]) == ("unsupported_parameter", PARAM)
