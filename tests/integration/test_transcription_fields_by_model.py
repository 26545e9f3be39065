"""The realtime transcription settings a model does not take are refused, as the live service does and as
the frameworks written against it assume (docs/realtime-protocol.md, "audio.input.transcription").
Over the openai SDK on a real loopback engine (fake engines):

- ``language`` must be an ISO-639-1 code the service lists: "english" is ``invalid_value`` with the
  supported codes (param ``session.audio.input.transcription.language``), as POST
  /v1/audio/transcriptions refuses it (there in its own words) — it was taken before;
- ``delay`` is gpt-realtime-whisper's only, ``keywords`` and ``languages`` gpt-transcribe's and
  gpt-live-transcribe's only (openai-python's realtime ``AudioTranscription``; LiveKit's realtime STT
  never sends them elsewhere): ``unsupported_parameter`` for any other of OpenAI's models;
- each refusal carries the client's ``event_id`` and leaves the session as it was and working."""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI

BASE = "session.audio.input.transcription"


def _client(base: str) -> AsyncOpenAI:
    return AsyncOpenAI(api_key="sk-test", base_url=base.replace("ws://", "http://"), websocket_base_url=base)


@pytest.mark.parametrize(
    ("transcription", "code", "param", "message"),
    [
        ({"model": "whisper-1", "language": "english"}, "invalid_value", f"{BASE}.language",
         "Invalid value: 'english'. Supported values are: 'af', 'ar', "),
        ({"model": "gpt-transcribe", "languages": ["en", "English"]}, "invalid_value", f"{BASE}.languages[1]",
         "Invalid value: 'English'. Supported values are: 'af', "),
        ({"model": "gpt-transcribe", "languages": []}, "invalid_value", f"{BASE}.languages", "empty array"),
        ({"model": "gpt-4o-transcribe", "delay": "low"}, "unsupported_parameter", f"{BASE}.delay",
         "Unsupported parameter: 'delay' is not supported with this model."),
        ({"model": "whisper-1", "keywords": ["Luigi"]}, "unsupported_parameter", f"{BASE}.keywords",
         "Unsupported parameter: 'keywords' is not supported with this model."),
        ({"model": "gpt-4o-mini-transcribe", "languages": ["en"]}, "unsupported_parameter",
         f"{BASE}.languages", "Unsupported parameter: 'languages' is not supported with this model."),
        ({"model": "gpt-realtime-whisper", "keywords": ["Luigi"]}, "unsupported_parameter",
         f"{BASE}.keywords", "Unsupported parameter: 'keywords' is not supported with this model."),
    ],
)  # fmt: skip
@pytest.mark.parametrize("session_type", ["realtime", "transcription"])
async def test_a_setting_the_model_does_not_take_is_an_error_event(
    engine, session_type: str, transcription: dict[str, Any], code: str, param: str, message: str
) -> None:
    eng = await engine(audio_pace=0.0)
    query = {"intent": "transcription"} if session_type == "transcription" else {}
    connect = {"model": "gpt-realtime"} if session_type == "realtime" else {}
    async with (
        _client(eng.url) as client,
        client.realtime.connect(**connect, extra_query=query) as conn,  # type: ignore[arg-type]
    ):
        await conn.recv()  # session.created
        audio = {"input": {"transcription": transcription, "turn_detection": None}}
        await conn.session.update(session={"type": session_type, "audio": audio}, event_id="evt_t")  # type: ignore[arg-type,misc]
        refused = await conn.recv()
        assert refused.type == "error", refused
        assert (refused.error.code, refused.error.param, refused.error.event_id) == (code, param, "evt_t")
        assert message in refused.error.message
        if code == "invalid_value" and "Supported" in message:
            assert refused.error.message.endswith("'vi', and 'zh'.")
        # The session is unchanged and goes on: the same model with what it takes is taken.
        fixed = {"model": transcription["model"], "language": "en"}
        audio = {"input": {"transcription": fixed, "turn_detection": None}}
        await conn.session.update(session={"type": session_type, "audio": audio})  # type: ignore[arg-type,misc]
        updated = await conn.recv()
        assert updated.type == "session.updated", updated
        assert updated.session.audio.input.transcription.language == "en"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "transcription",
    [
        {"model": "gpt-realtime-whisper", "delay": "xhigh", "language": "fr"},
        {"model": "gpt-transcribe", "keywords": ["Luigi"], "languages": ["en", "fr"]},
        {"model": "gpt-live-transcribe", "keywords": ["Tokyo"], "languages": ["ja"]},
        # A name that is none of OpenAI's models (a realtime session takes any) is not judged.
        {"model": "my-own-stt", "keywords": ["Luigi"], "delay": "low"},
    ],
)
async def test_the_models_that_take_them_still_do(engine, transcription: dict[str, Any]) -> None:
    eng = await engine(audio_pace=0.0)
    async with _client(eng.url) as client, client.realtime.connect(model="gpt-realtime") as conn:
        await conn.recv()
        audio = {"input": {"transcription": transcription}}
        await conn.session.update(session={"type": "realtime", "audio": audio})  # type: ignore[arg-type,misc]
        updated = await conn.recv()
        assert updated.type == "session.updated", updated
        echoed = updated.session.audio.input.transcription  # type: ignore[union-attr]
        assert echoed.model == transcription["model"]  # type: ignore[union-attr]


async def test_a_client_secret_with_an_unknown_language_is_a_400(engine) -> None:
    eng = await engine(audio_pace=0.0)
    async with _client(eng.url) as client:
        import openai

        with pytest.raises(openai.BadRequestError) as raised:
            await client.realtime.client_secrets.create(
                session={
                    "type": "realtime",
                    "model": "gpt-realtime",
                    "audio": {"input": {"transcription": {"model": "whisper-1", "language": "english"}}},
                }
            )
        assert raised.value.body["param"] == f"{BASE}.language"  # type: ignore[index]
        assert raised.value.body["code"] == "invalid_value"  # type: ignore[index]
