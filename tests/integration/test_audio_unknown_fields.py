"""An unknown form field of ``POST /v1/audio/transcriptions`` or ``/translations`` is refused as the live
service refuses an unknown argument of a JSON body: 400 ``invalid_request_error`` "Unrecognized request
argument supplied: <name>" (param and code null), through the openai SDK's ``extra_body`` and raw
``aiohttp`` forms (the field named without its ``[]`` / ``[key]`` suffix). Every field openai-python's
``TranscriptionCreateParams`` / ``TranslationCreateParams`` has is still taken (fake engines)."""

from __future__ import annotations

import aiohttp
import openai
import pytest
from openai import AsyncOpenAI

from tests.speech import DATA

WAV = (DATA / "question.wav").read_bytes()


async def _client(engine_url) -> AsyncOpenAI:
    base = (await engine_url()).replace("ws://", "http://")
    return AsyncOpenAI(api_key="sk-test", base_url=base, max_retries=0)


@pytest.mark.parametrize("route", ["transcriptions", "translations"])
async def test_an_unknown_field_is_an_unrecognized_argument(engine_url, route) -> None:
    async with await _client(engine_url) as client:
        endpoint = client.audio.transcriptions if route == "transcriptions" else client.audio.translations
        with pytest.raises(openai.BadRequestError) as refused:
            await endpoint.create(
                model="whisper-1", file=("q.wav", WAV, "audio/wav"), extra_body={"speed": "fast"}
            )
    assert refused.value.status_code == 400
    assert refused.value.body == {
        "message": "Unrecognized request argument supplied: speed",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }


async def test_a_bracketed_unknown_field_is_named_without_its_brackets(engine_url) -> None:
    base = (await engine_url()).replace("ws://", "http://")
    form = aiohttp.FormData()
    form.add_field("model", "gpt-4o-transcribe")
    form.add_field("file", WAV, filename="q.wav", content_type="audio/wav")
    form.add_field("hints[]", "Paris")
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{base}/audio/transcriptions", data=form, headers={"Authorization": "Bearer sk-test"}
        ) as reply,
    ):
        body = await reply.json()
    assert reply.status == 400
    assert body["error"]["message"] == "Unrecognized request argument supplied: hints"


async def test_a_field_translations_do_not_take_is_refused_there(engine_url) -> None:
    async with await _client(engine_url) as client:
        with pytest.raises(openai.BadRequestError) as refused:
            await client.audio.translations.create(
                model="whisper-1",
                file=("q.wav", WAV, "audio/wav"),
                extra_body={"timestamp_granularities": ["word"]},
            )
    assert refused.value.body["message"] == "Unrecognized request argument supplied: timestamp_granularities"


async def test_every_field_of_the_sdk_types_is_taken(engine_url) -> None:
    async with await _client(engine_url) as client:
        verbose = await client.audio.transcriptions.create(
            model="whisper-1",
            file=("q.wav", WAV, "audio/wav"),
            language="en",
            prompt="A question.",
            response_format="verbose_json",
            temperature=0.0,
            timestamp_granularities=["word", "segment"],
            stream=False,
        )
        assert verbose.text
        gpt = await client.audio.transcriptions.create(
            model="gpt-4o-transcribe",
            file=("q.wav", WAV, "audio/wav"),
            include=["logprobs"],
            chunking_strategy={"type": "server_vad", "threshold": 0.5},
        )
        assert gpt.text
        words = await client.audio.transcriptions.create(
            model="gpt-transcribe", file=("q.wav", WAV, "audio/wav"), keywords=["Paris"], languages=["en"]
        )
        assert words.text
        diarized = await client.audio.transcriptions.create(
            model="gpt-4o-transcribe-diarize",
            file=("q.wav", WAV, "audio/wav"),
            response_format="diarized_json",
            chunking_strategy="auto",
        )
        assert diarized.text
        translated = await client.audio.translations.create(
            model="whisper-1",
            file=("q.wav", WAV, "audio/wav"),
            prompt="A question.",
            response_format="json",
            temperature=0.0,
        )
        assert translated.text
