"""A refused Chat Completions or Responses request carries an ``x-request-id`` header, as every live
response does (the one a user quotes to support): the openai SDK reads it into ``APIStatusError.
request_id``, which frameworks log beside the error. Each refusal has its own."""

from __future__ import annotations

import re

import openai
import pytest
from openai import AsyncOpenAI

HELLO = [{"role": "user", "content": "Hello"}]
REQUEST_ID = re.compile(r"^req_[0-9a-f]{32}$")


@pytest.fixture
async def base(engine_url):
    return (await engine_url(api_key="sk-the-key")).replace("ws://", "http://")


async def test_refusals_carry_a_request_id(base) -> None:
    async with AsyncOpenAI(api_key="sk-the-key", base_url=base, max_retries=0) as sdk:
        seen = []
        for call in (
            lambda: sdk.chat.completions.create(model="gpt-4o-mini", messages=[]),
            lambda: sdk.chat.completions.create(model="gpt-nope", messages=HELLO),
            lambda: sdk.responses.create(model="gpt-4o-mini", input=[]),
            lambda: sdk.responses.retrieve("resp_unknown"),
        ):
            with pytest.raises(openai.APIStatusError) as refused:
                await call()
            assert refused.value.request_id is not None and REQUEST_ID.match(refused.value.request_id)
            seen.append(refused.value.request_id)
    async with AsyncOpenAI(api_key="sk-wrong", base_url=base, max_retries=0) as wrong:
        with pytest.raises(openai.AuthenticationError) as refused:
            await wrong.chat.completions.create(model="gpt-4o-mini", messages=HELLO)
        assert refused.value.request_id is not None and REQUEST_ID.match(refused.value.request_id)
        seen.append(refused.value.request_id)
    assert len(set(seen)) == len(seen)
