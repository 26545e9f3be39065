"""Long texts without a space (a base64 blob, a long URL, CJK text, one 20 kB "word") over the wire: a
Realtime session and a Chat Completions request each get a normal reply, counted with whisper's tokenizer
(the server's own counter; the fake engines otherwise count words)."""

from __future__ import annotations

import base64
import dataclasses
import random
from pathlib import Path

import aiohttp
import pytest
from openai import AsyncOpenAI
from tokenizers import Tokenizer

from mockengine.engines.stt import resolve_whisper_model
from mockengine.engines.tokens import TokenCounter
from mockengine.server.resources import Resources
from tests.speech import next_event

TOKENIZER = Tokenizer.from_file(str(Path(resolve_whisper_model(None)) / "tokenizer.json"))
TEXTS = {
    "blob": base64.b64encode(random.Random(3).randbytes(15_000)).decode(),
    "url": "https://example.com/a?" + "&".join(f"key{i}=value{i}" for i in range(1_200)),
    "cjk": "今天天气很好我们去公园散步吧" * 1_500,
    "one word": "x" * 20_000,
}


def whole_count(text: str) -> int:
    return len(TOKENIZER.encode(text, add_special_tokens=False).ids)


@pytest.fixture
def resources(fake_resources: Resources) -> Resources:
    """The fake engines with the server's real token counter (tokenizer.json only, no model)."""
    return dataclasses.replace(fake_resources, tokens=TokenCounter(TOKENIZER))


async def respond(ws: aiohttp.ClientWebSocketResponse, text: str) -> dict:
    content = [{"type": "input_text", "text": text}]
    await ws.send_json(
        {"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": content}}
    )
    await ws.send_json({"type": "response.create", "response": {"output_modalities": ["text"]}})
    return (await next_event(ws, "response.done"))["response"]


@pytest.mark.parametrize("name", sorted(TEXTS))
async def test_a_realtime_session_answers_a_long_text_without_spaces_and_goes_on(engine, name: str) -> None:
    text = TEXTS[name]
    assert len(text) > 16_384 and " " not in text
    eng = await engine()
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(eng.realtime, headers={"Authorization": "Bearer sk-1"}) as ws,
    ):
        await next_event(ws, "session.created")
        await ws.send_json({"type": "session.update", "session": {"type": "realtime", "instructions": text}})
        await next_event(ws, "session.updated")
        first = await respond(ws, text)
        assert first["status"] == "completed" and first["output"], first
        assert 0 < len(first["output"][0]["content"][0]["text"]) <= 200  # a short echo, not the run
        assert first["usage"]["input_token_details"]["text_tokens"] >= 2 * whole_count(text) - 4
        second = await respond(ws, "Thanks, and what time is it?")
        assert second["status"] == "completed" and second["output"], second


@pytest.mark.parametrize("name", sorted(TEXTS))
async def test_a_chat_request_answers_a_long_text_without_spaces(engine, name: str) -> None:
    text = TEXTS[name]
    eng = await engine()
    client = AsyncOpenAI(api_key="sk-1", base_url=f"{eng.http_url}/v1", max_retries=0)
    completion = await client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "system", "content": text}, {"role": "user", "content": text}]
    )
    assert 0 < len(completion.choices[0].message.content or "") <= 200
    assert completion.usage is not None and completion.usage.prompt_tokens >= 2 * whole_count(text) - 4
