"""The recorder keeps an HTTP body that is not UTF-8 text byte for byte (mockengine/record/proxy_http.py):
``/v1/audio/speech`` answers MP3 and ``/v1/audio/transcriptions`` uploads a WAV in a multipart form. Such
bodies were decoded with replacement characters, so neither their bytes nor their length survived."""

from __future__ import annotations

import base64
import json
from typing import Any

import aiohttp
from aiohttp import web

from mockengine.record.app import create_record_app
from mockengine.record.proxy import Recorder
from mockengine.settings import Settings
from tests.eventually import eventually

MP3 = b"ID3\x04\x00\x00\x00\x00\x00\n\xff\xfb\x90\xc4" + bytes(range(256))  # not UTF-8
WAV_PART = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\xc0\x5d\x00\x00\x80\xbb"


async def speech(request: web.Request) -> web.Response:
    await request.read()
    return web.Response(body=MP3, content_type="audio/mpeg")


async def transcriptions(request: web.Request) -> web.Response:
    await request.read()
    return web.json_response({"text": "hello"})


async def test_binary_bodies_are_recorded_byte_for_byte_and_text_ones_as_before(
    aiohttp_server: Any, tmp_path: Any
) -> None:
    upstream = web.Application()
    upstream.router.add_post("/v1/audio/speech", speech)
    upstream.router.add_post("/v1/audio/transcriptions", transcriptions)
    up = await aiohttp_server(upstream)
    recorder = Recorder(f"http://127.0.0.1:{up.port}/v1", tmp_path / "rec", Settings(), "sk-up")
    proxy = await aiohttp_server(create_record_app(recorder))
    base = f"http://127.0.0.1:{proxy.port}/v1"
    headers = {"Authorization": "Bearer sk-client"}
    async with aiohttp.ClientSession() as http:
        ask = {"model": "gpt-4o-mini-tts", "voice": "alloy", "input": "hello"}
        async with http.post(f"{base}/audio/speech", json=ask, headers=headers) as answer:
            assert await answer.read() == MP3  # relayed unchanged (it always was)
        form = aiohttp.FormData()
        form.add_field("model", "whisper-1")
        form.add_field("file", WAV_PART, filename="a.wav", content_type="audio/wav")
        async with http.post(f"{base}/audio/transcriptions", data=form, headers=headers) as answer:
            assert (await answer.json())["text"] == "hello"
    written = [tmp_path / "rec" / "http" / "0001.json", tmp_path / "rec" / "http" / "0002.json"]
    await eventually(lambda: all(p.exists() for p in written), timeout_s=5, message="not written")
    spoken, heard = (json.loads(p.read_text()) for p in written)

    assert spoken["request_body"] == ask and "request_body_base64" not in spoken
    assert spoken["response_body"] is None
    assert base64.b64decode(spoken["response_body_base64"]) == MP3

    assert heard["response_body"] == {"text": "hello"} and "response_body_base64" not in heard
    upload = base64.b64decode(heard["request_body_base64"])
    assert WAV_PART in upload and b'name="model"' in upload
